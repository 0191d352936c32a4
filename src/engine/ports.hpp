#pragma once
// The engine's ports to the world outside (ARCHITECTURE.md, Engine): Gardener, the runtime
// clusters and Compass Director. gardener/ and director/ implement them; tests use fakes.
// JSON travels as text so that no engine header needs nlohmann/json.
//
// Errors: implementations throw RemoteError (http_status, retryable) or its subclasses for
// failed calls, NotFound only where a method says so, Conflict where a method says so. The
// executor reports a RemoteError in an operation's lastError with the component of the port
// ("k8s client - gardener" for ShootClient, "k8s client - cluster" for RuntimeClusterClient)
// and, as reason, the Kubernetes StatusReason its http_status stands for (NotFound, Conflict,
// Invalid, Forbidden, ...; "" when no answer arrived), as the original did (§1.7).

#include "engine/model.hpp"

#include <chrono>
#include <cstdint>
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
    bool is_hibernated = false;       ///< status.hibernated (IsHibernated in Gardener's Go types)

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
    /// The kcp.provisioner.kyma-project.io/runtime-id annotation.
    std::optional<std::string> runtime_id;
    bool deleted = false;
};

/// Gardener, scoped to the project namespace garden-<project>. Used by several worker threads
/// at once: implementations must be thread-safe.
class ShootClient {
public:
    virtual ~ShootClient() = default;
    /// nullopt when the shoot does not exist.
    virtual std::optional<ShootState> get(const std::string& name) = 0;
    /// Shoots whose labels match `label_selector` ("account=<tenant>").
    virtual std::vector<ShootState> list(const std::string& label_selector) = 0;
    /// POSTs `shoot_json`; returns the stored shoot. Throws Conflict when a shoot of that name
    /// exists (AlreadyExists).
    virtual ShootState create(const std::string& shoot_json) = 0;
    /// Replaces the shoot with `shoot_json` (a full object carrying metadata.resourceVersion);
    /// returns the stored shoot. Throws Conflict when that version is stale, NotFound (or a
    /// RemoteError with http_status 404) when the shoot is gone.
    virtual ShootState update(const std::string& shoot_json) = 0;
    /// Applies a JSON merge patch; returns the stored shoot. Throws NotFound (or a RemoteError
    /// with http_status 404) when the shoot is gone.
    virtual ShootState patch(const std::string& name, const std::string& merge_patch_json) = 0;
    /// DELETEs the shoot (it must carry confirmation.gardener.cloud/deletion); false when it was
    /// already gone. Deleting a shoot that is being deleted is no error.
    virtual bool remove(const std::string& name) = 0;
    /// An admin kubeconfig (YAML text) valid for `expiration`. Throws RemoteError, also while
    /// the control plane is not up yet (422).
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

/// A runtime cluster, reached with an admin kubeconfig. Thread-safe, as ShootClient.
class RuntimeClusterClient {
public:
    virtual ~RuntimeClusterClient() = default;
    /// Creates namespace istio-system, the l2-operator cluster roles, deletes the old managed
    /// bindings and creates the L2/L3 (and per-administrator) bindings; idempotent.
    virtual void create_operator_bindings(const std::string& kubeconfig,
                                          const OperatorBindings& bindings) = 0;
};

} // namespace kprov::engine
