#pragma once
// The stages of every operation type: their names, what a stage may use while it runs, and
// the stage tables the executor walks (original-provisioner.md §2.3-2.5, §9 for hibernation).
//
// Stage names. The original's are kept verbatim (they are stored in operation.stage and shown
// by the API). kprov adds its own where the original wrote to Gardener inside the request, so
// that a crash between the write and the database commit can never lose either:
//
// | stage              | type      | kprov's own | what it does                                  |
// |--------------------|-----------|-------------|-----------------------------------------------|
// | CreatingShoot      | PROVISION | yes         | puts the OIDC ConfigMap, creates the shoot;   |
// |                    |           |             | AlreadyExists of this runtime's shoot is      |
// |                    |           |             | success (the original created it in the       |
// |                    |           |             | request, inside the DB transaction)           |
// | UpgradingShoot     | UPGRADE_SHOOT | yes     | applies the upgrade to the live shoot (the    |
// |                    |           |             | original patched it in the request)           |
// | HibernatingShoot   | HIBERNATE | yes         | spec.hibernation.enabled=true (the original   |
// |                    |           |             | patched it in the request)                    |
// | WaitForHibernation | HIBERNATE | no (§9)     | waits for status.hibernated                   |
// | WakingUpShoot      | WAKE_UP   | yes         | spec.hibernation.enabled=false                |
// | WaitForWakeUp      | WAKE_UP   | yes         | waits until woken up and reconciled           |
//
// Tables (each ends at Finished):
//   PROVISION, PROVISION_NO_INSTALL: CreatingShoot -> WaitingForClusterDomain ->
//       WaitingForClusterCreation -> CreatingBindingsForOperators [-> ConnectRuntimeAgent, with
//       Director registration] -> Finished
//   With KPROV_KYMA_INSTALLER=lifecycle-manager, a runtime with Kyma goes on after the bindings
//       with ApplyingKymaSecret -> ApplyingKyma -> WaitingForKymaReady [-> ConnectRuntimeAgent]
//   DEPROVISION, DEPROVISION_NO_INSTALL: DeprovisionCluster -> WaitForClusterDeletion -> Finished
//       (an operation may start at either); with lifecycle-manager, DEPROVISION starts with
//       DeletingKyma -> WaitingForKymaDeletion, and WaitForClusterDeletion deletes the Secret
//   UPGRADE_SHOOT: UpgradingShoot -> WaitingForShootNewVersion -> WaitingForShootUpgrade ->
//       CreatingBindingsForOperators -> Finished
//   HIBERNATE: HibernatingShoot -> WaitForHibernation -> Finished
//   WAKE_UP: WakingUpShoot -> WaitForWakeUp -> Finished
// UPGRADE and RECONNECT_RUNTIME (Kyma-era types) have no table: kprov fails such operations.

#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/shoot/shoot_annotations.hpp"
#include "engine/stages/stage_error.hpp"
#include "engine/store.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

// The original's stage names.
inline constexpr std::string_view k_stage_waiting_for_cluster_domain = "WaitingForClusterDomain";
inline constexpr std::string_view k_stage_waiting_for_cluster_creation =
    "WaitingForClusterCreation";
inline constexpr std::string_view k_stage_creating_bindings = "CreatingBindingsForOperators";
inline constexpr std::string_view k_stage_connect_runtime_agent = "ConnectRuntimeAgent";
inline constexpr std::string_view k_stage_deprovision_cluster = "DeprovisionCluster";
inline constexpr std::string_view k_stage_wait_for_cluster_deletion = "WaitForClusterDeletion";
inline constexpr std::string_view k_stage_waiting_for_shoot_new_version =
    "WaitingForShootNewVersion";
inline constexpr std::string_view k_stage_waiting_for_shoot_upgrade = "WaitingForShootUpgrade";
inline constexpr std::string_view k_stage_wait_for_hibernation = "WaitForHibernation";
inline constexpr std::string_view k_stage_finished = "Finished";
// The original's Kyma stages (kyma-installation.md §2-§4).
inline constexpr std::string_view k_stage_starting_installation = "StartingInstallation";
inline constexpr std::string_view k_stage_waiting_for_installation = "WaitingForInstallation";
inline constexpr std::string_view k_stage_wait_for_agent_to_connect = "WaitForAgentToConnect";
inline constexpr std::string_view k_stage_starting_upgrade = "StartingUpgrade";
inline constexpr std::string_view k_stage_updating_upgrade_state = "UpdatingUpgradeState";
inline constexpr std::string_view k_stage_cleanup_cluster = "CleanupCluster";
inline constexpr std::string_view k_stage_trigger_kyma_uninstall = "TriggerKymaUninstall";
// kprov's, for Kyma Lifecycle Manager (kyma-lifecycle-manager.md §6; KEB's Sync_Kubeconfig,
// Apply_Kyma, Delete_Kyma_Resource and Check_Kyma_Resource_Deleted).
inline constexpr std::string_view k_stage_applying_kyma_secret = "ApplyingKymaSecret";
inline constexpr std::string_view k_stage_applying_kyma = "ApplyingKyma";
inline constexpr std::string_view k_stage_waiting_for_kyma_ready = "WaitingForKymaReady";
inline constexpr std::string_view k_stage_deleting_kyma = "DeletingKyma";
inline constexpr std::string_view k_stage_waiting_for_kyma_deletion = "WaitingForKymaDeletion";
// kprov's own (see the table above).
inline constexpr std::string_view k_stage_creating_shoot = "CreatingShoot";
inline constexpr std::string_view k_stage_upgrading_shoot = "UpgradingShoot";
inline constexpr std::string_view k_stage_hibernating_shoot = "HibernatingShoot";
inline constexpr std::string_view k_stage_waking_up_shoot = "WakingUpShoot";
inline constexpr std::string_view k_stage_wait_for_wake_up = "WaitForWakeUp";

/// What a stage returns: the stage to run next (the same one to wait) and after how long.
struct StageResult {
    std::string next;
    Duration delay{0};
};

/// Go on with `stage` in the same pass.
StageResult go_to(std::string_view stage);
/// Run `stage` again after `delay` (the executor adds jitter).
StageResult wait_in(std::string_view stage, Duration delay);

/// What one processing pass remembers between its stages.
struct PassMemory {
    /// The shoot as this pass last read or wrote it: the next stage of the same pass decides
    /// from it instead of reading it again (Gardener requests are what a benchmark counts).
    std::optional<ShootState> shoot;
    std::optional<std::string> admin_kubeconfig; ///< requested in this pass
    RuntimeChange change;                        ///< written with the pass's progress
    /// Passes of this operation that failed in a row before this one (the executor's count).
    int failed_passes = 0;
    /// What a stage wants in the operation's history and the log (StageContext::note).
    std::vector<std::string> notes;
    /// A stage's progress message for the operation (StageContext::report).
    std::optional<std::string> message;
    /// The Installation CR a waiting Kyma stage read (StageContext::await_installation).
    struct AwaitedInstallation {
        std::string target; ///< a kubeconfig or a Kyma name (StageContext::await_installation)
        std::string resource_version;
    };
    std::optional<AwaitedInstallation> awaited_installation;
};

/// What a stage may use. Stages do no I/O except through the ports given here.
class StageContext {
public:
    /// `ports` holds the shoots and the runtime clusters (both required) and the optional ones.
    StageContext(const Operation& operation, const Runtime& runtime, const EnginePorts& ports,
                 const EngineOptions& options, Timestamp now, PassMemory& memory);

    const Operation& operation() const { return m_operation; }
    const Runtime& runtime() const { return m_runtime; }
    const std::string& shoot_name() const { return m_runtime.gardener.name; }
    ShootClient& shoots() { return m_shoots; }
    RuntimeClusterClient& clusters() { return m_clusters; }
    const EngineOptions& options() const { return m_options; }
    const EnginePorts& ports() const { return m_ports; }
    /// The Director port; present whenever DirectorOptions registration or deregistration is
    /// on (check_ports), which is when the stages call it.
    Director& director() const { return *m_ports.director; }
    Timestamp now() const { return m_now; }
    RuntimeChange& change() { return m_memory.change; }
    /// Passes of this operation that failed in a row before this one.
    int failed_passes() const { return m_memory.failed_passes; }

    /// The shoot as this pass last saw it, else read_shoot().
    std::optional<ShootState> shoot();
    /// GETs the shoot and remembers it; nullopt when it does not exist. A failed GET throws a
    /// recoverable StageError of component "k8s client - gardener" (the original's "err").
    std::optional<ShootState> read_shoot();
    /// The shoot as the shared watch last delivered it (ShootClient::watched), without asking
    /// Gardener; possibly older than Gardener's state and this process's own writes.
    std::optional<ShootState> watched_shoot() { return m_shoots.watched(shoot_name()); }
    /// Remembers what a write returned, for the next stage of this pass.
    void remember(const ShootState& shoot) { m_memory.shoot = shoot; }
    void forget_shoot() { m_memory.shoot.reset(); }
    /// An admin kubeconfig for the shoot, requested once per pass. Throws what the port throws.
    std::string admin_kubeconfig();
    /// Records `message` in the operation's history (a transition within the current stage)
    /// and logs it as a warning, when the pass saves its progress.
    void note(std::string message) { m_memory.notes.push_back(std::move(message)); }
    /// Throws a non-recoverable StageError "cannot <verb> cluster: <not_own_shoot>; Gardener
    /// was left alone" unless `shoot` is this runtime's own.
    void require_own(const ShootState& shoot, std::string_view verb) const;
    /// Sets the operation's message (the installation's progress) when the pass saves; a new
    /// message also goes into the history, as an entry within the stage.
    void report(std::string message) { m_memory.message = std::move(message); }
    /// Asks for the operation to be made due as soon as the installation's object changes after
    /// `resource_version` (KymaOptions::watches), rather than at the next poll. `target` is
    /// what the backend watches: the runtime's kubeconfig for the Installation CR, the Kyma's
    /// name for Kyma Lifecycle Manager.
    void await_installation(std::string target, std::string resource_version) {
        m_memory.awaited_installation = {std::move(target), std::move(resource_version)};
    }
    /// The configured Kyma installer. Throws a recoverable StageError naming
    /// KPROV_KYMA_INSTALLER when there is none (the setting changed after the request).
    KymaInstaller& installer() const;
    /// The configured KCP (lifecycle-manager backend). Throws a recoverable StageError naming
    /// KPROV_KYMA_INSTALLER when there is none.
    KymaLifecycleManager& lifecycle_manager() const;

private:
    const Operation& m_operation;
    const Runtime& m_runtime;
    const EnginePorts& m_ports;
    ShootClient& m_shoots;
    RuntimeClusterClient& m_clusters;
    const EngineOptions& m_options;
    Timestamp m_now;
    PassMemory& m_memory;
};

using StageFunction = std::function<StageResult(StageContext&)>;

struct StageDef {
    std::string name;
    Duration timeout;
    StageFunction run;
    /// What the operation fails with when the stage times out; empty: the original's
    /// "error: timeout while processing operation".
    std::function<StageError(StageContext&)> on_timeout = {};
};

/// The stages of one operation type.
class StageTable {
public:
    explicit StageTable(std::vector<StageDef> stages)
        : m_stages(std::move(stages)) {}
    /// nullptr when the table has no stage of that name.
    const StageDef* find(std::string_view name) const;
    const std::vector<StageDef>& stages() const { return m_stages; }

private:
    std::vector<StageDef> m_stages;
};

StageTable provision_stages(const EngineOptions& options);
StageTable deprovision_stages(const EngineOptions& options);
StageTable upgrade_stages(const EngineOptions& options);
StageTable hibernation_stages(const EngineOptions& options);
/// UPGRADE (Kyma): StartingUpgrade -> WaitingForInstallation -> UpdatingUpgradeState -> Finished.
StageTable kyma_upgrade_stages(const EngineOptions& options);
StageTable wake_up_stages(const EngineOptions& options);

// --- Shared by several tables ----------------------------------------------------------------

// --- The Kyma stages (kyma_stages.cpp) --------------------------------------------------------

/// The stage provisioning goes on with once the operator bindings exist: StartingInstallation
/// for a runtime with Kyma, else ConnectRuntimeAgent (with Director registration) or Finished.
std::string_view after_bindings(const StageContext& context);
/// StartingInstallation and WaitingForInstallation of provisioning (§2.3, §2.5); the latter goes
/// on with ConnectRuntimeAgent (registration on) or Finished.
StageResult starting_installation(StageContext& context);
StageResult waiting_for_provisioning_installation(StageContext& context);
/// CleanupCluster and TriggerKymaUninstall (§4.3, §4.4), before DeprovisionCluster.
StageResult cleanup_cluster(StageContext& context);
StageResult trigger_kyma_uninstall(StageContext& context);

// --- Kyma Lifecycle Manager (klm_stages.cpp) ---------------------------------------------------

/// Whether the runtime's Kyma is Kyma Lifecycle Manager's: it has Kyma and that backend is
/// configured.
bool uses_lifecycle_manager(const StageContext& context);
/// ApplyingKymaSecret, ApplyingKyma, WaitingForKymaReady (the latter goes on with
/// ConnectRuntimeAgent when registering, else Finished).
std::vector<StageDef> klm_provision_stages(const EngineOptions& options);
/// DeletingKyma and WaitingForKymaDeletion, before DeprovisionCluster.
std::vector<StageDef> klm_deprovision_stages(const EngineOptions& options);
/// Deletes the runtime's kubeconfig Secret from the KCP when uses_lifecycle_manager (absent:
/// fine). Throws a recoverable StageError when the KCP fails.
void delete_kyma_secret_if_any(StageContext& context);

/// CreatingBindingsForOperators (provisioning and upgrade): an admin kubeconfig (a failed
/// request waits 20 s, no error), then the operator bindings (a failure is a recoverable error
/// of component "k8s client - cluster"); then `next`.
StageResult create_bindings_for_operators(StageContext& context, std::string_view next);

/// What UpgradingShoot applies for a stored (merged) config: the request's choices that
/// build_shoot_upgrade takes from its input (OIDC, networking filter, hibernation schedules when
/// there are some) as the service stored them. The service builds the same upgrade once before
/// accepting a request.
UpgradeShootInput stored_upgrade_input(const GardenerConfig& merged);

/// The runtime a shoot belongs to: its kcp.provisioner.kyma-project.io/runtime-id annotation,
/// else the original's legacy compass.provisioner.kyma-project.io/runtime-id; nullopt when it
/// has neither. Every shoot a runtime's operation creates carries them (kprov's builder and the
/// original's), so a shoot without one was made by someone else.
std::optional<std::string> shoot_owner(const ShootState& shoot);
/// Whether `shoot` is the runtime's own: shoot_owner names it. Every write kprov makes to an
/// existing shoot (deletion, its confirmation, upgrade, hibernation) asks this first.
bool is_own_shoot(const ShootState& shoot, std::string_view runtime_id);
/// Why kprov leaves `shoot` alone: "shoot <name> belongs to runtime <owner>, not to runtime
/// <runtime_id>", or "shoot <name> is not a kprov runtime's shoot (it has no runtime-id
/// annotation), not ...".
std::string not_own_shoot(const ShootState& shoot, std::string_view runtime_id);
/// What deprovisioning a runtime whose shoot name another shoot bears says (the request and the
/// history): not_own_shoot, then that Gardener was left alone and the runtime only marked
/// deleted.
std::string foreign_shoot_deprovision_note(const ShootState& shoot, std::string_view runtime_id);

/// status.lastErrors codes joined with ", " (the original's reason for shoot failures).
std::string joined_error_codes(const ShootState& shoot);
/// Whether status.lastErrors carries ERR_INFRA_RATE_LIMITS_EXCEEDED.
bool has_rate_limit_error(const ShootState& shoot);
/// "Last Shoot state: <lastOperation.state>, Shoot description: <lastOperation.description>".
std::string last_shoot_state(const ShootState& shoot);
/// Whether lastOperation exists and has `state`.
bool last_operation_is(const ShootState& shoot, std::string_view state);

/// Whether a shoot that changed to `shoot` can move an operation waiting at `stage`: false only
/// where the stage is known to go on waiting for such a shoot (the provisioning waits while
/// the domain is unset or the creation is under way), true for every other stage. The workers
/// use it to leave an operation alone when its shoot's event cannot matter (WorkerPool).
bool shoot_change_may_move(std::string_view stage, const ShootState& shoot);

} // namespace kprov::engine
