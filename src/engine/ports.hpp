#pragma once
// The engine's ports to the world outside (ARCHITECTURE.md, Engine): Gardener, the runtime
// clusters and Compass Director. gardener/ and director/ implement them; tests use fakes.
// JSON travels as text so that no engine header needs nlohmann/json.
//
// Errors: implementations throw RemoteError (http_status, retryable) or its subclasses for
// failed calls, NotFound only where a method says so, Conflict for "already exists".

#include "engine/model.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprov::engine {

/// What the engine reads of a Shoot (gardener-contract.md §4.4, §6). Every field is optional in
/// Gardener's answers; absent ones read as the defaults here, never as a crash.
struct ShootState {
    std::string name;
    std::string resource_version;
    std::int64_t generation = 0;
    std::int64_t observed_generation = 0;
    std::map<std::string, std::string> annotations;
    std::map<std::string, std::string> labels;
    std::optional<std::string> dns_domain; ///< spec.dns.domain
    std::optional<std::string> seed_name;  ///< spec.seedName
    std::string kubernetes_version;        ///< spec.kubernetes.version
    std::optional<Timestamp> deletion_timestamp;
    bool hibernation_enabled = false; ///< spec.hibernation.enabled
    bool is_hibernated = false;       ///< status.isHibernated

    /// status.lastOperation
    struct LastOperation {
        std::string type;  ///< Create, Reconcile, Delete, Restore, Migrate
        std::string state; ///< Processing, Succeeded, Error, Failed, Pending, Aborted
        std::string description;
        int progress = 0;
    };
    std::optional<LastOperation> last_operation;

    /// status.lastErrors: every code of every entry, and the descriptions joined.
    std::vector<std::string> last_error_codes;
    std::string last_errors_description;

    /// status.constraints HibernationPossible: nullopt when absent.
    std::optional<bool> hibernation_possible;
    std::string hibernation_possible_message;

    /// The whole object as Gardener returned it (compact JSON), for builders that edit it.
    std::string json;
};

/// A shoot event from the watch: the named shoot changed (or was deleted).
struct ShootEvent {
    std::string shoot_name;
    std::optional<std::string>
        runtime_id; ///< the kcp.provisioner.kyma-project.io/runtime-id annotation
    bool deleted = false;
};

/// Gardener, scoped to the project namespace garden-<project>.
class ShootClient {
public:
    virtual ~ShootClient() = default;
    /// nullopt when the shoot does not exist.
    virtual std::optional<ShootState> get(const std::string& name) = 0;
    /// Shoots whose labels match `label_selector` ("account=<tenant>").
    virtual std::vector<ShootState> list(const std::string& label_selector) = 0;
    /// POSTs `shoot_json`. Throws Conflict when a shoot of that name exists.
    virtual ShootState create(const std::string& shoot_json) = 0;
    /// Replaces the shoot with `shoot_json` (a full object carrying metadata.resourceVersion).
    /// Throws Conflict when that version is stale.
    virtual ShootState update(const std::string& shoot_json) = 0;
    /// Applies a JSON merge patch.
    virtual ShootState patch(const std::string& name, const std::string& merge_patch_json) = 0;
    /// DELETEs the shoot; false when it was already gone.
    virtual bool remove(const std::string& name) = 0;
    /// An admin kubeconfig (YAML text) valid for `expiration`.
    virtual std::string admin_kubeconfig(const std::string& name,
                                         std::chrono::seconds expiration) = 0;
    /// Creates or replaces a ConfigMap of the project namespace (compact JSON object).
    virtual void put_config_map(const std::string& config_map_json) = 0;
    /// Deletes a ConfigMap of the project namespace; no error when it is gone.
    virtual void delete_config_map(const std::string& name) = 0;
};

/// What CreatingBindingsForOperators creates (original-provisioner.md §7.1).
struct OperatorBindings {
    std::string l2_subject_name = "runtimeOperator";
    std::string l3_subject_name = "runtimeAdmin";
    bool create_for_administrators = false;
    std::vector<std::string> administrators;
};

/// A runtime cluster, reached with an admin kubeconfig.
class RuntimeClusterClient {
public:
    virtual ~RuntimeClusterClient() = default;
    /// Creates namespace istio-system, the l2-operator cluster roles, deletes the old managed
    /// bindings and creates the L2/L3 (and per-administrator) bindings; idempotent.
    virtual void create_operator_bindings(const std::string& kubeconfig,
                                          const OperatorBindings& bindings) = 0;
};

} // namespace kprov::engine
