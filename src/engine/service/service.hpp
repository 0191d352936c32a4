#pragma once
// The engine service: the synchronous part of every operation (original-provisioner.md §2.3-2.5
// "Synchronous part", §9 for hibernation). It takes a request as read_provision_input /
// read_upgrade_input read and validated it (once per request), checks what must be checked
// against Gardener, and writes the operation; everything that changes Gardener happens later,
// in the operation's first stage (stages.hpp), so that a crash can lose neither side.
//
// The CLI and the GraphQL resolvers call these and nothing else to start operations.
// Thread-safe when its ports are.

#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/error.hpp"
#include "engine/input/landscape_check.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/store.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kprov::engine {

/// Who asks: the original's `tenant` and `sub-account` headers (the CLI's --tenant and
/// --sub-account). An empty tenant means "not given": it never rewrites a runtime's tenant.
/// Requiring a tenant (the original's "tenant header is empty") is the API's job.
struct RequestContext {
    std::string tenant;
    std::string sub_account;
};

/// A request that needs a tenant came without one (the original's "tenant header is empty").
class TenantMissing : public Error {
public:
    using Error::Error;
};

/// The one tenant-required rule: throws TenantMissing ("tenant header is empty") when `context`
/// names no tenant. A provisioning needs one from every front (the runtime is the tenant's);
/// the API asks it of every request, as the original does.
void require_tenant(const RequestContext& context);

/// When a runtime created at `created` with `lifetime` expires (the lifecycle block's rule).
Timestamp lifetime_expiry(Timestamp created, Duration lifetime);

/// What `request` writes with a runtime created at `created`: its attributes, and a "Protect"
/// and a "Lifetime" event at `now` naming LifecycleRequest::by (the same events as
/// EngineService::set_protection and set_lifetime).
NewRuntimeLifecycle new_runtime_lifecycle(const LifecycleRequest& request, Timestamp created,
                                          Timestamp now);

/// A request's tenant differed from the runtime's and replaced it (deliberate difference 3).
struct TenantChange {
    std::string from;
    std::string to;
    /// Whether it is in an operation's history: false only for a runtime without operations.
    bool recorded = false;
};

/// What starting an operation returns (the GraphQL OperationStatus is made from it).
struct StartedOperation {
    std::string runtime_id;
    Operation operation; ///< as inserted
    std::optional<TenantChange> tenant_change;
    /// Things an operator should know that did not stop the request (ShootPlan::warnings).
    std::vector<std::string> warnings;
    /// compassRuntimeID: the runtime id while Director registration is on (registration.hpp).
    std::optional<std::string> compass_runtime_id;
    /// The same provisioning was requested before: this is that runtime's provisioning
    /// operation as it stands, and nothing new was written (deliberate difference 13).
    bool already_requested = false;
};

/// A new in-progress operation of `type` on the runtime, at `stage` with `message`, started,
/// transitioned and due at `now`, with a new id.
Operation new_operation(const std::string& runtime_id, OperationType type, std::string_view stage,
                        std::string_view message, Timestamp now);

/// The ids a plan gives to what provisioning creates: random ones for a real request, fixed
/// placeholders for `kprov plan`, so that the same file always plans the same.
struct PlanIds {
    std::string runtime_id;
    std::string operation_id;
};
inline const PlanIds k_placeholder_ids{"<runtime-id>", "<operation-id>"};

/// What provisioning an input makes, before anything is written.
struct ProvisionPlan {
    Runtime runtime;     ///< tenant and sub-account from the request
    Operation operation; ///< its first operation, at CreatingShoot
    ShootPlan shoot;     ///< what CreatingShoot sends (build_shoot of `runtime`)
    /// Things an operator should know that did not stop the request (the input's and the
    /// builder's warnings).
    std::vector<std::string> warnings;
};

/// The one home of what provisioning `input` (as read_provision_input returns it) builds:
/// EngineService::provision, `kprov plan -f` and `kprov provision --dry-run` all take it from here,
/// and CreatingShoot builds the same shoot from the stored runtime. Throws ValidationError when no
/// shoot can be built from it. Writes nothing. With a `landscape` the runtime is
/// checked against it (check_against_landscape, as `kind` says: Adopt for a shoot that exists)
/// and completed as Gardener would (the exact Kubernetes version); without one a warning says
/// that the landscape was not checked.
ProvisionPlan plan_provision(const ProvisionInput& input, const RequestContext& context,
                             const EngineOptions& options, Landscape* landscape, Timestamp now,
                             const PlanIds& ids,
                             LandscapeRequest::Kind kind = LandscapeRequest::Kind::Create);

/// What upgrading a runtime's shoot sends.
struct UpgradePlan {
    /// The runtime's config as the upgrade stores it: merge_upgrade of the input, with the live
    /// shoot's Kubernetes version when newer and its networking filter setting when the input
    /// has none. UpgradingShoot works from this alone.
    GardenerConfig merged;
    /// What UpgradingShoot sends to the live shoot as it is now (build_shoot_upgrade of
    /// `merged` with stored_upgrade_input(merged), exactly as the stage calls it).
    ShootUpgrade upgrade;
    /// The live shoot (compact JSON) the upgrade was built on, for showing what changes.
    std::string live_shoot;
    /// What an operator should know (upgrade_input_warnings).
    std::vector<std::string> warnings;
};

/// The one home of what an upgrade of `runtime` with `input` (as read_upgrade_input returns
/// it) sends to its live shoot `live` (its JSON in ShootState::json): EngineService::upgrade_shoot,
/// `kprov plan RUNTIME_ID -f` and `upgrade-shoot --dry-run` take it from here. Throws
/// ValidationError (the merge's rules, unparsable versions) and Error (a shoot no upgrade can be
/// applied to).
UpgradePlan plan_upgrade(const Runtime& runtime, const ShootState& live,
                         const UpgradeShootInput& input, const EngineOptions& options,
                         Landscape* landscape, Timestamp now);

/// Whether `planned` (a plan_provision runtime) is what the request that made `stored` made:
/// the same tenant, sub-account, runtime input and cluster configuration, labels and kymaConfig
/// compared as JSON (key order does not count). What kprov set or learned itself (ids, times,
/// a seed Gardener chose, the cached kubeconfig) is not compared.
bool is_same_provision_request(const Runtime& stored, const Runtime& planned);

/// The refusal of a provisioning request for a shoot name that `owner` holds and did not make:
/// ShootNameTaken naming the owner, saying what to do. provision() throws it; a dry run reports it.
ShootNameTaken shoot_name_refusal(const std::string& owner_id, const Runtime& planned);

/// Who owns a shoot name that a provisioning request asks for.
struct ShootNameOwner {
    std::string runtime_id;
    /// Whether the request is the one that made that runtime (same tenant, sub-account,
    /// runtime input and cluster configuration, ignoring key order): then it is answered with
    /// that runtime's provisioning, else refused.
    bool same_request = false;
};

/// What a provisioning request for `planned`'s shoot name meets, in words, for a plan or a dry
/// run: "would be created" without an owner, "already requested: runtime <id> is this
/// request's, ..." for the same request, else "refused: " and shoot_name_refusal's message.
std::string shoot_name_outcome(const std::optional<ShootNameOwner>& owner, const Runtime& planned);

/// With EngineOptions::tenant_strict: the request's tenant is not the runtime's (403).
class TenantMismatch : public Error {
public:
    using Error::Error;
};

/// Throws ConfigError naming the setting when there is no landscape (EnginePorts::landscape):
/// every request that writes is checked against it first.
void require_landscape(const Landscape* landscape);

/// Throws RuntimeProtected when the runtime is protected (what deprovision() checks first).
void refuse_if_protected(Store& store, const std::string& runtime_id);

/// The shoot of the runtime's name is not the runtime's own (another runtime's, or nobody's):
/// kprov refuses to write to it.
class ForeignShoot : public Conflict {
public:
    using Conflict::Conflict;
};

/// A Kyma upgrade of a runtime whose Kyma kprov does not manage (it has no active config): the
/// original's "managed by Reconciler" error.
class KymaNotManaged : public Error {
public:
    using Error::Error;
};

/// The ValidationError of a request with a kymaConfig while no installer is configured
/// (KPROV_KYMA_INSTALLER=none, or lifecycle-manager without KPROV_KCP_KUBECONFIG_PATH): it names
/// the settings to change (deliberate difference 5).
ValidationError kyma_installer_refusal(const KymaOptions& options);
/// With the lifecycle-manager backend: refuses (ValidationError, every problem at once) module
/// names the landscape does not offer, and what the Kyma resource cannot say unless
/// KlmOptions::lossy_warn, which turns the latter into `warnings`.
void check_lifecycle_manager_input(const KymaConfig& config, const KymaOptions& options,
                                   std::vector<std::string>& warnings);

// Messages of the first operation record.
inline constexpr std::string_view k_message_provisioning_started = "Provisioning started";
inline constexpr std::string_view k_message_deprovisioning_started = "Deprovisioning started";
inline constexpr std::string_view k_message_upgrade_started = "Starting Gardener Shoot upgrade";
inline constexpr std::string_view k_message_hibernation_started = "Hibernation started";
inline constexpr std::string_view k_message_wake_up_started = "Wake-up started";
inline constexpr std::string_view k_message_kyma_upgrade_started = "Starting Kyma upgrade";

/// `kprov cancel` without --force: another process holds a live lease of the operation.
class OperationLeased : public Conflict {
public:
    OperationLeased(const std::string& operation_id, const Lease& lease);
    const Lease& lease() const { return m_lease; }

private:
    Lease m_lease;
};

/// The message and lastError.reason of an operation ended by `kprov cancel`.
inline constexpr std::string_view k_reason_cancelled = "Cancelled";

class EngineService {
public:
    /// Over `ports` (store, shoots and clock required; see check_ports, which refuses ports that
    /// do not match `options` with ConfigError).
    EngineService(const EnginePorts& ports, EngineOptions options);

    const EnginePorts& ports() const { return m_ports; }
    const EngineOptions& options() const { return m_options; }

    /// Takes `input` as read_provision_input returned it (validated: the service does not
    /// validate again), turns it into a new runtime,
    /// checks that a shoot can be built from it, and writes the runtime, its config and a
    /// PROVISION operation at CreatingShoot ("Provisioning started") in one store
    /// transaction. Makes no Gardener call. The runtime id is random, or with Director
    /// registration on the id Director's registerRuntime returns (DirectorError "Failed to
    /// register Runtime, ..." when it fails; a failed store write unregisters it again).
    ///
    /// A live runtime owns its shoot name in its project (Store::insert_runtime enforces it):
    /// when one does, the same request is answered with that runtime's provisioning operation
    /// (`already_requested`, nothing written, Director not asked) and any other is refused
    /// with ShootNameTaken naming the owner, before anything is written.
    ///
    /// ProvisionInput::lifecycle is written in the runtime's transaction; a repeated request
    /// gives its runtime that lifecycle too (set_protection, set_lifetime: nothing changes when
    /// it is the same), unless that runtime is being deprovisioned. Throws TenantMissing
    /// without a tenant.
    StartedOperation provision(const ProvisionInput& input, const RequestContext& context);

    /// plan_provision with this service's options and random ids, and the live runtime that
    /// owns the shoot name if any (what provision() would then answer). Writes nothing.
    std::pair<ProvisionPlan, std::optional<ShootNameOwner>>
    plan_provision(const ProvisionInput& input, const RequestContext& context, const PlanIds& ids,
                   LandscapeRequest::Kind kind = LandscapeRequest::Kind::Create);

    /// plan_upgrade against the runtime's live shoot, as upgrade_shoot() would start it:
    /// throws what upgrade_shoot() throws before it writes. Writes nothing.
    UpgradePlan plan_upgrade(const std::string& runtime_id, const UpgradeShootInput& input,
                             const RequestContext& context);

    /// Starts DEPROVISION (with uninstall: CleanupCluster and TriggerKymaUninstall first) or
    /// DEPROVISION_NO_INSTALL, decided as kyma-installation.md §4.1 says (without for a runtime
    /// without Kyma, or whose cluster has no Installation CR; else with). Reads the shoot: gone ->
    /// the operation starts at WaitForClusterDeletion; not the runtime's own (is_own_shoot) -> at
    /// WaitForClusterDeletion too, which only marks the runtime deleted (Gardener is left alone;
    /// the operation's message and a logged warning name the shoot's owner); already being deleted
    /// -> at DeprovisionCluster, dated from the deletion; else at DeprovisionCluster
    /// ("Deprovisioning started"). Throws NotFound for an unknown runtime, RuntimeProtected for a
    /// protected one (before Gardener is asked), OperationInProgress (from the store) while
    /// another operation runs, RemoteError when Gardener cannot be read.
    StartedOperation deprovision(const std::string& runtime_id, const RequestContext& context);

    /// Protects the runtime against deprovisioning (or lifts that), recording a "Protect" or
    /// "Unprotect" event that names `by` (user@host, or the API's caller). Returns whether
    /// anything changed. Throws NotFound for an unknown runtime and Conflict for a deprovisioned
    /// one.
    bool set_protection(const std::string& runtime_id, bool is_protected,
                        const RequestContext& context, std::string_view by);

    /// Sets the runtime's expiry to its creation plus `lifetime` (lifetime_expiry), recording a
    /// "Lifetime" event that names `by` when it changed. Returns whether it did. Throws
    /// NotFound for an unknown runtime.
    bool set_lifetime(const std::string& runtime_id, Duration lifetime, std::string_view by);

    /// The shoot `shoot_name` of the project, when it may be adopted (`kprov adopt`). Throws
    /// NotFound naming the shoot and the project when Gardener has no such shoot, Conflict when
    /// it is being deleted or already a runtime's (a runtime-id annotation: shoot_owner), and
    /// ShootNameTaken when a live runtime of the store owns its name. RemoteError when Gardener
    /// cannot be read. Writes nothing.
    ShootState adoptable_shoot(const std::string& shoot_name);

    /// Takes `live` (adoptable_shoot's answer) into the store as `plan`'s runtime: `plan` is
    /// the plan_provision of the runtime file that describes the shoot, and the caller has
    /// checked that it builds that shoot. First gives the shoot the runtime's labels and
    /// annotations (adoption_patch, conditional on the shoot's spec and owner being as read:
    /// Conflict when they changed), so that every later operation, deprovisioning
    /// included, finds it the runtime's own; then writes the runtime with its first operation
    /// (plan.operation, Succeeded at Finished, its message naming `by`) and an "Adopt" event.
    /// When the store refuses (ShootNameTaken, StoreError), the annotations are taken off the
    /// shoot again (best effort, logged) and the error is rethrown. Returns the operation.
    Operation adopt(const ProvisionPlan& plan, const ShootState& live, std::string_view by);

    /// Starts UPGRADE_SHOOT at UpgradingShoot: takes `input` as read_upgrade_input returned it
    /// (validated), merges it over the stored
    /// config (merge_upgrade), keeps the live shoot's Kubernetes version when it is newer and
    /// its networking filter setting when the input has none, checks the upgrade can be built
    /// from the live shoot, and writes the merged config, the administrators (replaced only
    /// when the input gives them: deliberate difference 6) and the operation together. Throws
    /// ValidationError, NotFound (runtime, or its shoot "failed to find shoot for Runtime
    /// <id>"), ForeignShoot when the shoot is not the runtime's own, OperationInProgress,
    /// RemoteError, Error.
    StartedOperation upgrade_shoot(const std::string& runtime_id, const UpgradeShootInput& input,
                                   const RequestContext& context);

    /// Starts HIBERNATE at HibernatingShoot. Throws ValidationError "cannot hibernate cluster:
    /// <message>" when the shoot's HibernationPossible constraint is False, NotFound when the
    /// runtime or its shoot does not exist, ForeignShoot when the shoot is not the runtime's
    /// own, OperationInProgress, RemoteError.
    StartedOperation hibernate(const std::string& runtime_id, const RequestContext& context);

    /// Starts WAKE_UP at WakingUpShoot. Throws as hibernate() (without the constraint check).
    StartedOperation wake_up(const std::string& runtime_id, const RequestContext& context);

    /// Ends the in-progress operation as Failed, message and lastError "cancelled by `by`"
    /// (reason Cancelled, component kprov), with a transition in its history, and releases its
    /// lease; Gardener is left as it is, so the runtime can be deprovisioned or the request
    /// retried. `owner` leases it for the write (Store::claim), or with `force` takes it from
    /// whoever holds it (Store::take_over: the holder's next write fails with LeaseLost).
    /// Returns the operation as stored. Throws NotFound, Conflict when it is not in progress,
    /// OperationLeased when another owner holds a live lease and `force` is false, StoreError.
    Operation cancel(const std::string& operation_id, const std::string& owner,
                     const std::string& by, bool force);

    /// upgradeRuntime (kyma-installation.md §3.1): takes `input` as read_kyma_upgrade_input
    /// returned it, resolves its release (stored, else downloaded and stored), and writes the
    /// new config, an UPGRADE operation at StartingUpgrade ("Starting Kyma upgrade"), its
    /// runtime_upgrade row (IN_PROGRESS, pre = the active config) and the new active config in
    /// one transaction. Throws ValidationError (no installer configured), NotFound,
    /// KymaNotManaged (the runtime has no Kyma config), OperationInProgress, RemoteError (the
    /// release could not be downloaded).
    StartedOperation upgrade_kyma(const std::string& runtime_id, const KymaUpgradeInput& input,
                                  const RequestContext& context);

    /// rollBackUpgradeOperation (§3.4): the runtime's last operation must be a finished UPGRADE
    /// (else ValidationError "error: upgrade can be rolled back only if it is the last
    /// operation that is already finished"); its pre-upgrade config becomes active again and
    /// its runtime_upgrade row ROLLED_BACK. Touches nothing on the cluster. Throws NotFound.
    void roll_back_kyma(const std::string& runtime_id, const RequestContext& context);

    /// The release of `version`: kyma_release, else downloaded from the ReleaseSource and, with
    /// `store`, stored (a concurrent download of the same version is taken as stored). Throws
    /// NotFound ("Kyma Release <v> not found") without a source, RemoteError for a failed
    /// download.
    KymaRelease release_of(const std::string& version, bool store);

    /// The one rule for whether Gardener may be asked about a runtime's shoot (its kubeconfig,
    /// its hibernation state): nullopt when it may, else why not ("runtime <id> is
    /// deprovisioned: its cluster is gone", "... is still being provisioned", ...). A runtime
    /// may be asked about unless it is deleted, has no operation, or its provisioning has not
    /// succeeded (deliberate difference 4).
    static std::optional<std::string> shoot_unavailable(const Runtime& runtime,
                                                        const std::optional<Operation>& last);

    /// The runtime's shoot as Gardener has it, when it is the runtime's own: nullopt when
    /// there is none or it belongs to another runtime (is_own_shoot). Throws RemoteError.
    std::optional<ShootState> own_shoot(const std::string& runtime_id,
                                        const std::string& shoot_name);

    /// An admin kubeconfig (YAML) of the runtime's own shoot valid for `expiration` (default
    /// EngineOptions::admin_kubeconfig_expiration); nullopt when the shoot is not there, not
    /// the runtime's own, or its control plane is not up yet (Gardener's 422). Throws
    /// RemoteError for any other failure.
    std::optional<std::string>
    admin_kubeconfig(const std::string& runtime_id, const std::string& shoot_name,
                     std::optional<std::chrono::seconds> expiration = std::nullopt);

    /// The tenant rule of every request on an existing runtime, queries and mutations alike
    /// (deliberate difference 3). Nothing when the request gives no tenant or the runtime's
    /// (`stored`). Otherwise, with EngineOptions::tenant_strict, TenantMismatch (403); else the
    /// runtime's tenant is replaced, with an entry in the history of `operation` (the
    /// mutation's new operation, the one a query shows; none when null) and a warning in the
    /// log. `by` names the request in both ("operation <id>", "a runtimeStatus query").
    /// Throws NotFound when the runtime is gone.
    std::optional<TenantChange> apply_tenant(const std::string& runtime_id,
                                             const std::string& stored, const Operation* operation,
                                             const RequestContext& context, std::string_view by);

private:
    /// provision() but for the lifecycle of a repeated request.
    StartedOperation provision_runtime(const ProvisionInput& input, const RequestContext& context);
    /// The kyma_release row of a Kyma Lifecycle Manager channel (no YAML), stored once.
    KymaRelease channel_release(const std::string& channel);
    /// Whether deprovisioning `runtime` uninstalls Kyma first (§4.1); always with Kyma Lifecycle
    /// Manager.
    bool deprovision_with_uninstall(const Runtime& runtime, const std::optional<ShootState>& shoot);
    /// adopt()'s write to the shoot: adoption_patch conditional on the shoot still being the
    /// one checked (same generation, no owner, not being deleted); Conflict when it is not.
    void annotate_adopted(const ProvisionPlan& plan, const ShootState& live);
    /// Plans the upgrade of `runtime` against its live own shoot.
    UpgradePlan upgrade_plan_of(const Runtime& runtime, const UpgradeShootInput& input);
    /// The owner of `planned`'s shoot name, if a live runtime owns it.
    std::optional<ShootNameOwner> shoot_name_owner(const Runtime& planned);
    /// Runtime `owner_id` as the owner of `planned`'s shoot name.
    ShootNameOwner owner_of(const std::string& owner_id, const Runtime& planned);
    /// What provision() answers when `owner` holds the name: its provisioning, or a refusal.
    StartedOperation answer_repeated(const ShootNameOwner& owner, const Runtime& planned,
                                     std::vector<std::string> warnings);
    /// The strict half of apply_tenant, before anything is written: TenantMismatch.
    void check_tenant(const std::string& runtime_id, const std::string& stored,
                      const RequestContext& context) const;
    Runtime load_runtime(const std::string& runtime_id, const RequestContext& context);
    ShootState existing_shoot(const Runtime& runtime);
    /// Throws ForeignShoot unless `shoot` is the runtime's own.
    static void require_own(const ShootState& shoot, const Runtime& runtime, std::string_view verb);
    /// Inserts `op`, then applies the request's tenant (set_tenant and a history entry).
    StartedOperation start(const Runtime& runtime, const Operation& op,
                           const RequestContext& context, const RuntimeUpgrade* upgrade = nullptr);
    /// The same with the store write `insert` (which writes `op`, and throws what the store
    /// throws) instead of insert_operation.
    StartedOperation start(const Runtime& runtime, const Operation& op,
                           const RequestContext& context, const std::function<void()>& insert);
    void log(LogLevel level, const std::string& message) const;
    /// Logs each of a request's warnings about the runtime.
    void log_warnings(const std::string& runtime_id,
                      const std::vector<std::string>& warnings) const;

    EnginePorts m_ports;
    Store& m_store;
    ShootClient& m_shoots;
    const Clock& m_clock;
    EngineOptions m_options;
};

} // namespace kprov::engine
