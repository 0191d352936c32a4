#pragma once
// The engine's ports to the world outside (ARCHITECTURE.md, Engine): Gardener, the runtime
// clusters and Compass Director. gardener/ and director/ implement them; tests use fakes.
// JSON travels through the ports as text, so that this header and the stages that call it need
// no nlohmann/json. (Other engine headers do: runtime_input.hpp declares its parsers over
// <nlohmann/json_fwd.hpp>, status_json.hpp and status_tree.hpp build JSON for cli/ and api/.)
//
// Errors: implementations throw RemoteError (http_status, retryable) or its subclasses for
// failed calls, NotFound only where a method says so, Conflict where a method says so. The
// executor reports a RemoteError in an operation's lastError with the component of the port
// ("k8s client - gardener" for ShootClient, "k8s client - cluster" for RuntimeClusterClient)
// and, as reason, the Kubernetes StatusReason its http_status stands for (NotFound, Conflict,
// Invalid, Forbidden, ...; "" when no answer arrived), as the original did (§1.7).

#include "engine/error.hpp"
#include "engine/model.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprov::engine {

enum class LogLevel { Debug, Info, Warning, Error };

/// Where the engine reports what a user or operator may want to read in a log (a tenant
/// rewrite, a store failure). May be called from several threads at once.
using LogSink = std::function<void(LogLevel, const std::string&)>;

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
    /// The shoot as the event carried it (no ShootState::json); nullopt for deletions.
    std::optional<ShootState> state;
};

/// Gardener, scoped to the project namespace garden-<project>. Used by several worker threads
/// at once: implementations must be thread-safe.
class ShootClient {
public:
    virtual ~ShootClient() = default;
    /// nullopt when the shoot does not exist.
    virtual std::optional<ShootState> get(const std::string& name) = 0;
    /// The shoot as the process's shared watch last delivered it (WatchedShoots), without
    /// asking Gardener; nullopt when no watch runs or it has not seen the shoot. It may be older
    /// than Gardener's state and than this process's own latest write: a stage may only act on
    /// what stays true once it holds (a creation that succeeded), and read anything else.
    virtual std::optional<ShootState> watched(const std::string& name) {
        (void)name;
        return std::nullopt;
    }
    /// Shoots whose labels match `label_selector` ("account=<tenant>").
    virtual std::vector<ShootState> list(const std::string& label_selector) = 0;
    /// POSTs `shoot_json`; returns the stored shoot. Throws Conflict when a shoot of that name
    /// exists (AlreadyExists).
    virtual ShootState create(const std::string& shoot_json) = 0;
    /// Replaces the shoot with `shoot_json` (a full object carrying metadata.resourceVersion);
    /// returns the stored shoot. Throws Conflict when that version is stale, NotFound (or a
    /// RemoteError with http_status 404) when the shoot is gone.
    virtual ShootState update(const std::string& shoot_json) = 0;
    /// Applies a JSON merge patch; returns the stored shoot. A metadata.resourceVersion in the
    /// patch is a precondition: Conflict when the shoot's is another. Throws NotFound (or a
    /// RemoteError with http_status 404) when the shoot is gone.
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

/// What ConnectRuntimeAgent writes into the Secret compass-agent-configuration
/// (original-provisioner.md §2.3): CONNECTOR_URL, RUNTIME_ID, TENANT, TOKEN. Holds a token:
/// never log it.
struct AgentConfiguration {
    std::string connector_url;
    std::string runtime_id;
    std::string tenant;
    std::string token;
};

/// A runtime cluster, reached with an admin kubeconfig. Thread-safe, as ShootClient.
class RuntimeClusterClient {
public:
    virtual ~RuntimeClusterClient() = default;
    /// Creates namespace istio-system, the l2-operator cluster roles, deletes the old managed
    /// bindings and creates the L2/L3 (and per-administrator) bindings; idempotent.
    virtual void create_operator_bindings(const std::string& kubeconfig,
                                          const OperatorBindings& bindings) = 0;
    /// Creates the namespaces istio-system and kyma-system when absent and creates or replaces
    /// the Secret compass-agent-configuration in kyma-system; idempotent.
    virtual void configure_runtime_agent(const std::string& kubeconfig,
                                         const AgentConfiguration& agent) = 0;
    /// status.connectionState of the Runtime Agent's CompassConnection compass-connection
    /// (compass.kyma-project.io/v1alpha1, cluster-scoped): "Synchronized", "ConnectionFailed",
    /// ...; "" when it has none yet; nullopt when there is no such object (or no such
    /// resource). Bounded: a state is at most 256 characters.
    virtual std::optional<std::string> compass_connection_state(const std::string& kubeconfig) = 0;
};

// --- Compass Director (original-provisioner.md §6) -------------------------------------------

/// The components Director failures are reported under (lastError.component).
inline constexpr const char* k_component_director = "compass director";
inline constexpr const char* k_component_director_oauth = "mps oauth2";

/// A failed Director call. reason() is Director's error type ("NotFound", "NotUnique",
/// "InvalidData", "TenantNotFound", ...; "" when the failure carried none: no answer, an HTTP
/// error, an OAuth failure); component() is k_component_director or k_component_director_oauth;
/// director_code() is extensions.error_code (0 when absent). http_status() is the HTTP status
/// of the answer (200 for GraphQL errors, 0 for no answer). retryable() is true for
/// connection failures, 5xx, 429 and Director's Internal/Unknown codes (10, 11).
class DirectorError : public RemoteError {
public:
    DirectorError(std::string message, int http_status, bool retryable, std::string reason,
                  std::string component, int director_code = 0)
        : RemoteError(std::move(message), http_status, retryable, std::move(reason),
                      std::move(component))
        , m_director_code(director_code) {}
    int director_code() const { return m_director_code; }

private:
    int m_director_code;
};

/// Runtime status conditions kprov sends (§6.3).
enum class DirectorStatusCondition { Provisioning, Failed, Connected };

/// What registerRuntime and updateRuntime send.
struct DirectorRuntimeInput {
    std::string name;
    std::string description;
    std::string labels_json = "{}"; ///< a JSON object
    std::optional<DirectorStatusCondition> status_condition;
    /// registerRuntime only: kprov's planned runtime id, sent as the label `kprov-request-id` so
    /// that a retried registration finds the runtime an unanswered try registered. May be empty.
    std::string request_id;
};

/// A runtime as Director's runtime(id) returns it.
struct DirectorRuntime {
    std::string id;
    std::string name;
    std::string description;
    std::string labels_json = "{}"; ///< a JSON object
};

/// requestOneTimeTokenForRuntime's answer. Holds a token: never log it.
struct OneTimeToken {
    std::string token;
    std::string connector_url;
};

/// Compass Director's runtime calls, each with the `Tenant` header `tenant`. Implementations
/// authenticate themselves (OAuth2 client credentials), retry transient failures a few times
/// and then throw DirectorError. Thread-safe.
class Director {
public:
    virtual ~Director() = default;
    /// registerRuntime; returns the new runtime's id.
    virtual std::string register_runtime(const DirectorRuntimeInput& input,
                                         const std::string& tenant) = 0;
    /// runtime(id); nullopt when Director answers null or TenantNotFound (it does not exist).
    virtual std::optional<DirectorRuntime> runtime(const std::string& id,
                                                   const std::string& tenant) = 0;
    /// updateRuntime (name, description and labels replace Director's).
    virtual void update_runtime(const std::string& id, const DirectorRuntimeInput& input,
                                const std::string& tenant) = 0;
    /// requestOneTimeTokenForRuntime.
    virtual OneTimeToken request_one_time_token(const std::string& id,
                                                const std::string& tenant) = 0;
    /// unregisterRuntime. Throws DirectorError reason NotFound when Director does not know it.
    virtual void unregister_runtime(const std::string& id, const std::string& tenant) = 0;
};

} // namespace kprov::engine
