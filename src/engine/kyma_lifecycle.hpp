#pragma once
// Today's Kyma: modules installed by Kyma Lifecycle Manager (KLM), which runs in the Kyma Control
// Plane (KCP) cluster and reconciles one `Kyma` resource per runtime, reaching the runtime through
// a kubeconfig Secret (kyma-lifecycle-manager.md). This file holds what kprov writes there (§6),
// what it reads back (§1.5), the port to the KCP (KymaLifecycleManager) and the pure rules that
// map a runtime's kymaConfig onto the contract, including what the contract cannot say.

#include "engine/kyma.hpp"
#include "engine/model.hpp"
#include "engine/util/duration.hpp"
#include "engine/util/time.hpp"

#include <chrono>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

// Label and annotation keys of the Kyma and its Secret (§1.3, §2.1).
inline constexpr std::string_view k_kyma_name_label = "operator.kyma-project.io/kyma-name";
inline constexpr std::string_view k_kyma_managed_by_label = "operator.kyma-project.io/managed-by";
inline constexpr std::string_view k_kyma_runtime_id_label = "kyma-project.io/runtime-id";
inline constexpr std::string_view k_kyma_last_sync_annotation =
    "operator.kyma-project.io/last-sync";
/// Kyma labels that let it use ModuleTemplates labelled internal or beta (§1.3); kprov copies
/// them from the runtime's labels (runtimeInput.labels).
inline constexpr std::string_view k_kyma_internal_label = "operator.kyma-project.io/internal";
inline constexpr std::string_view k_kyma_beta_label = "operator.kyma-project.io/beta";
/// kprov's own label on the Secrets it writes, so that the refresher lists only those.
inline constexpr std::string_view k_kyma_secret_owner_label = "kprov.kyma-project.io/managed-by";

/// A module of a Kyma's spec (§1.2); `channel` "" follows the Kyma's.
struct KymaModule {
    std::string name;
    std::string channel;
    bool operator==(const KymaModule&) const = default;
};

/// The Kyma resource kprov writes for a runtime (§6): name, labels, annotations and spec.
struct KymaResource {
    std::string name; ///< the runtime id, lower-cased
    std::map<std::string, std::string> labels;
    std::map<std::string, std::string> annotations;
    std::string channel;
    std::vector<KymaModule> modules;
};

/// A module as the Kyma's status.modules[] reports it.
struct KymaModuleState {
    std::string name;
    std::string state; ///< Ready, Processing, Error, Warning, Deleting, Unmanaged
    std::string message;
};

/// What the KCP says of a Kyma (§1.5).
struct KymaState {
    std::string state;          ///< status.state: "", Processing, Ready, Warning, Error, Deleting
    std::string last_operation; ///< status.lastOperation.operation
    std::vector<KymaModuleState> modules;
    std::vector<std::string> spec_modules; ///< spec.modules[].name, in order
    std::string channel;                   ///< spec.channel
    bool deleting = false;                 ///< metadata.deletionTimestamp is set
    std::string resource_version;

    bool ready() const { return state == "Ready" && !deleting; }
};

/// The Secret KLM reaches the runtime with (§2): `kubeconfig-<runtime id>`, data key `config`.
/// Holds credentials: never log it.
struct KymaAccessSecret {
    std::string name;
    std::map<std::string, std::string> labels;
    std::map<std::string, std::string> annotations;
    std::string kubeconfig;
};

/// A Secret kprov wrote, as the refresher lists it.
struct KymaAccessSecretInfo {
    std::string name;
    std::string runtime_id;             ///< its kyma-project.io/runtime-id label
    std::optional<Timestamp> last_sync; ///< its last-sync annotation; nullopt if absent or bad
};

/// The KCP side of the lifecycle-manager backend: Secrets and Kymas in one namespace. Thread-safe.
/// Every method throws RemoteError when the KCP answers with an error or not at all.
class KymaLifecycleManager {
public:
    virtual ~KymaLifecycleManager() = default;

    /// The KCP namespace ("kcp-system"), for messages.
    virtual const std::string& namespace_name() const = 0;
    /// The KCP's API server URL, for messages (no credentials).
    virtual const std::string& server() const = 0;

    /// Creates the Secret, or replaces its data, labels and annotations in place. Any other
    /// Secret of the namespace labelled with the same kyma-name is deleted, so that KLM finds
    /// exactly one (§2.1); returns the names of those deleted.
    virtual std::vector<std::string> apply_secret(const KymaAccessSecret& secret) = 0;
    /// Deletes the Secret; false when it was already absent.
    virtual bool delete_secret(const std::string& name) = 0;
    /// The Secrets kprov wrote (those with k_kyma_secret_owner_label).
    virtual std::vector<KymaAccessSecretInfo> list_secrets() = 0;

    /// Creates the Kyma; when it exists, replaces its labels and annotations and keeps its spec
    /// (KEB's Apply_Kyma, §3.5). Returns what the KCP answered.
    virtual KymaState apply_kyma(const KymaResource& kyma) = 0;
    /// nullopt when there is no such Kyma.
    virtual std::optional<KymaState> read_kyma(const std::string& name) = 0;
    /// DELETEs the Kyma; false when it was already absent.
    virtual bool delete_kyma(const std::string& name) = 0;

    /// Blocks until the Kyma `name` changes after `resource_version` (a watch), `max_wait`
    /// passes or `stop` is requested; true when it saw a change. False at once when it cannot
    /// watch. Throws nothing.
    virtual bool await_change(const std::string& name, const std::string& resource_version,
                              std::chrono::milliseconds max_wait, std::stop_token stop) {
        (void)name;
        (void)resource_version;
        (void)max_wait;
        (void)stop;
        return false;
    }
};

/// How the lifecycle-manager backend maps and waits (KPROV_KYMA_*, KPROV_KCP_*).
struct KlmOptions {
    std::string default_channel = "regular"; ///< KPROV_KYMA_CHANNEL
    /// KPROV_KYMA_MODULES: the module names the landscape offers; empty: any name.
    std::vector<std::string> modules;
    /// KPROV_KYMA_LOSSY=warn: what kymaConfig cannot say here passes with a warning in the
    /// operation's history instead of refusing the request.
    bool lossy_warn = false;
    /// How long deprovisioning waits for the Kyma to go before it deletes the Secret so that KLM
    /// lets go (§4.2-4.3), and again after that before it deletes the shoot all the same.
    Duration deletion_timeout{std::chrono::minutes(30)};
    /// How often the Kyma stages look without a watch (KLM's requeue of Processing, §1.5).
    Duration poll{std::chrono::seconds(5)};
    /// The Secret's kubeconfig validity (KIM's default 24 h, §2.2).
    std::chrono::seconds kubeconfig_expiration{std::chrono::hours(24)};
    /// A Secret older than this is re-issued (KIM: 0.95 x 0.6 x expiration, about 13.7 h).
    Duration kubeconfig_rotation{std::chrono::seconds(49'248)};
};

/// The namespace KLM installs modules into (its --sync-namespace default): the only component
/// namespace that says nothing beyond what KLM does anyway.
inline constexpr std::string_view k_kyma_modules_namespace = "kyma-system";

/// The Kyma's name for a runtime: its id, lower-cased (KEB's CreateKymaNameFromOperation).
std::string kyma_name_of(std::string_view runtime_id);
/// `kubeconfig-<runtime id, lower-cased>` (KEB's name; a Secret's name must be lower-case).
std::string kyma_secret_name_of(std::string_view runtime_id);
/// The value an internal or beta label of runtimeInput.labels gives the Kyma: "true" or
/// "false" for a boolean or for those strings in any case (KLM compares case-insensitively);
/// nullopt for anything else, which the request's validation refuses.
std::optional<std::string> kyma_module_label_value(const nlohmann::json& value);
/// Whether `text` is a KLM channel name: ^[a-z]+$, 3 to 32 characters, not "none" (§1.2).
bool is_kyma_channel(std::string_view text);

/// The channel a config installs from: its version when that is a channel name, else the
/// configured default.
std::string kyma_channel_of(const KymaConfig& config, const KlmOptions& options);
/// spec.modules: the components in order, a name given twice kept once at its first place.
std::vector<KymaModule> kyma_modules_of(const KymaConfig& config);

/// What `config` says that the Kyma resource cannot (§6): each as a field path and why, e.g.
/// {"kymaConfig.components[1].namespace", "\"istio-system\": modules install into kyma-system"}.
std::vector<FieldProblem> unrepresentable_kyma_fields(const KymaConfig& config);
/// Components whose name the landscape does not offer (KlmOptions::modules), with a "did you
/// mean" where one is close; empty when every name is offered or no list is configured.
std::vector<FieldProblem> unknown_kyma_modules(const KymaConfig& config, const KlmOptions& options);

/// The Kyma of `runtime`: §6's labels from the runtime's data, the skr-domain annotation from
/// the shoot's domain, the channel and modules from its Kyma config.
KymaResource build_kyma_resource(const Runtime& runtime, const std::string& shoot_domain,
                                 const KlmOptions& options);
/// The Secret of `runtime`: the kyma-name and managed-by labels KLM selects on, the runtime-id
/// and kprov labels, the last-sync annotation at `now`.
KymaAccessSecret build_access_secret(const Runtime& runtime, std::string kubeconfig, Timestamp now);

/// "3/5 modules ready: serverless Processing, keda Error" (the progress of a waiting stage).
std::string kyma_progress(const KymaState& state);
/// Every module that is not Ready (or Unmanaged), as "name (state: message)", joined by ", ".
std::string modules_not_ready(const KymaState& state);

} // namespace kprov::engine
