#pragma once
// The engine service: the synchronous part of every operation (original-provisioner.md §2.3-2.5
// "Synchronous part", §9 for hibernation). It validates a request, checks what must be checked
// against Gardener, and writes the operation; everything that changes Gardener happens later,
// in the operation's first stage (stages.hpp), so that a crash can lose neither side.
//
// The CLI and the GraphQL resolvers call these and nothing else to start operations.
// Thread-safe when its ports are.

#include "engine/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/runtime_input.hpp"
#include "engine/store.hpp"

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

/// A request's tenant differed from the runtime's and replaced it (deliberate difference 3).
struct TenantChange {
    std::string from;
    std::string to;
    /// Whether it is in the operation's history (its first transition, from stage ""). It is
    /// not when a worker claimed the new operation before the service could write the entry.
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
};

/// With EngineOptions::tenant_strict: the request's tenant is not the runtime's (403).
class TenantMismatch : public Error {
public:
    using Error::Error;
};

// Messages of the first operation record.
inline constexpr std::string_view k_message_provisioning_started = "Provisioning started";
inline constexpr std::string_view k_message_deprovisioning_started = "Deprovisioning started";
inline constexpr std::string_view k_message_upgrade_started = "Starting Gardener Shoot upgrade";
inline constexpr std::string_view k_message_hibernation_started = "Hibernation started";
inline constexpr std::string_view k_message_wake_up_started = "Wake-up started";

class EngineService {
public:
    EngineService(Store& store, ShootClient& shoots, const Clock& clock, EngineOptions options);

    /// Validates `input` (ValidationError with every problem), turns it into a new runtime,
    /// checks that a shoot can be built from it, and writes the runtime, its config and a
    /// PROVISION operation at CreatingShoot ("Provisioning started") in one store
    /// transaction. Makes no Gardener call. The runtime id is random, or with Director
    /// registration on the id Director's registerRuntime returns (DirectorError "Failed to
    /// register Runtime, ..." when it fails; a failed store write unregisters it again).
    StartedOperation provision(const ProvisionInput& input, const RequestContext& context);

    /// Starts DEPROVISION_NO_INSTALL. Reads the shoot: gone -> the operation starts at
    /// WaitForClusterDeletion; already being deleted -> at DeprovisionCluster, dated from the
    /// deletion; else at DeprovisionCluster ("Deprovisioning started"). Throws NotFound for an
    /// unknown runtime, OperationInProgress (from the store) while another operation runs,
    /// RemoteError when Gardener cannot be read.
    StartedOperation deprovision(const std::string& runtime_id, const RequestContext& context);

    /// Starts UPGRADE_SHOOT at UpgradingShoot: validates `input`, merges it over the stored
    /// config (merge_upgrade), keeps the live shoot's Kubernetes version when it is newer and
    /// its networking filter setting when the input has none, checks the upgrade can be built
    /// from the live shoot, and writes the merged config, the administrators (replaced only
    /// when the input gives them: deliberate difference 6) and the operation together. Throws
    /// ValidationError, NotFound (runtime, or its shoot "failed to find shoot for Runtime
    /// <id>"), OperationInProgress, RemoteError, Error.
    StartedOperation upgrade_shoot(const std::string& runtime_id, const UpgradeShootInput& input,
                                   const RequestContext& context);

    /// Starts HIBERNATE at HibernatingShoot. Throws ValidationError "cannot hibernate cluster:
    /// <message>" when the shoot's HibernationPossible constraint is False, NotFound when the
    /// runtime or its shoot does not exist, OperationInProgress, RemoteError.
    StartedOperation hibernate(const std::string& runtime_id, const RequestContext& context);

    /// Starts WAKE_UP at WakingUpShoot. Throws as hibernate() (without the constraint check).
    StartedOperation wake_up(const std::string& runtime_id, const RequestContext& context);

private:
    Runtime load_runtime(const std::string& runtime_id, const RequestContext& context);
    ShootState existing_shoot(const Runtime& runtime);
    Operation new_operation(const std::string& runtime_id, OperationType type,
                            std::string_view stage, std::string_view message, Timestamp now);
    /// Inserts `op`, then applies the request's tenant (set_tenant and a history entry).
    StartedOperation start(const Runtime& runtime, const Operation& op,
                           const RequestContext& context, const RuntimeUpgrade* upgrade = nullptr);
    bool record_in_history(const Operation& op, const std::string& note);
    void log(LogLevel level, const std::string& message) const;

    Store& m_store;
    ShootClient& m_shoots;
    const Clock& m_clock;
    EngineOptions m_options;
};

} // namespace kprov::engine
