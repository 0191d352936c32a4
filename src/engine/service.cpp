#include "engine/service.hpp"

#include "engine/registration.hpp"
#include "engine/shoot_builder.hpp"
#include "engine/shoot_upgrade.hpp"
#include "engine/stages.hpp"

#include <algorithm>

namespace kprov::engine {

EngineService::EngineService(Store& store, ShootClient& shoots, const Clock& clock,
                             EngineOptions options)
    : m_store(store)
    , m_shoots(shoots)
    , m_clock(clock)
    , m_options(std::move(options)) {}

StartedOperation EngineService::provision(const ProvisionInput& input,
                                          const RequestContext& context) {
    validate_provision(input, m_options.conversion);
    const Timestamp now = m_clock.now();
    Runtime runtime = to_runtime(input, new_uuid(), context.tenant, context.sub_account, now,
                                 m_options.conversion);
    Operation op = new_operation(runtime.id, OperationType::Provision, k_stage_creating_shoot,
                                 k_message_provisioning_started, now);
    // CreatingShoot builds the shoot again; building it now refuses, before Director or the
    // store is written to, a runtime no shoot can be made of.
    ShootPlan plan = build_shoot(runtime, op.id, m_options.shoot);
    // With registration, Director names the runtime (§2.3 step 1); a registered runtime that
    // cannot be stored is unregistered again (step 5).
    const bool registers = m_options.director.registers();
    if (registers) {
        runtime.id = register_runtime(*m_options.director.port, runtime.name, runtime.description,
                                      runtime.labels_json, runtime.tenant);
        op.cluster_id = runtime.id;
    }
    try {
        m_store.insert_runtime(runtime, op);
    } catch (...) {
        if (registers)
            unregister_quietly(m_options, runtime.id, runtime.tenant);
        throw;
    }
    for (auto& warning : provision_input_warnings(input)) {
        log(LogLevel::Warning, "runtime " + runtime.id + ": " + warning);
        plan.warnings.push_back(std::move(warning));
    }
    return {runtime.id, op, std::nullopt, std::move(plan.warnings),
            compass_runtime_id(m_options, runtime.id)};
}

StartedOperation EngineService::deprovision(const std::string& runtime_id,
                                            const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    const auto shoot = m_shoots.get(runtime.gardener.name);
    const Timestamp now = m_clock.now();
    Operation op =
        new_operation(runtime.id, OperationType::DeprovisionNoInstall, k_stage_deprovision_cluster,
                      k_message_deprovisioning_started, now);
    op.last_transition.reset(); // as the original: the stage timeout counts from the start
    if (!shoot) {
        op.stage = k_stage_wait_for_cluster_deletion;
        op.message = "Cluster " + runtime.id + " already deleted. Proceeding to " +
                     std::string(k_stage_deprovision_cluster) + " stage.";
    } else if (shoot->deletion_timestamp) {
        op.message = "Cluster " + runtime.gardener.name + " with id " + runtime.id +
                     " already scheduled for deletion.";
        // The original dates the operation from the deletion and so measures the stage
        // timeout from it too, which can time the operation out at once (§2.4). kprov keeps
        // that start but measures the timeout from max(deletionTimestamp, now), through
        // last_transition. A start before the runtime's last operation would hide this one
        // from "last operation" queries: then it starts now.
        const Timestamp deleted = *shoot->deletion_timestamp;
        const auto last = m_store.last_operation(runtime.id);
        op.start_timestamp = last && last->start_timestamp > deleted ? now : deleted;
        op.last_transition = std::max(deleted, now);
    }
    return start(runtime, op, context);
}

StartedOperation EngineService::upgrade_shoot(const std::string& runtime_id,
                                              const UpgradeShootInput& input,
                                              const RequestContext& context) {
    validate_upgrade(input);
    const Runtime runtime = load_runtime(runtime_id, context);
    GardenerConfig merged = merge_upgrade(runtime.gardener, input);
    // By the stored name, not by the tenant label as the original did: a rewritten tenant
    // broke its lookup (§2.5 step 4).
    const auto live = m_shoots.get(runtime.gardener.name);
    if (!live)
        throw NotFound("failed to find shoot for Runtime " + runtime.id);
    if (!live->kubernetes_version.empty() && !merged.kubernetes_version.empty())
        merged.kubernetes_version =
            effective_kubernetes_version(live->kubernetes_version, merged.kubernetes_version);
    if (!input.gardener.shoot_networking_filter_disabled)
        if (const auto live_filter = live_networking_filter_disabled(live->json))
            merged.shoot_networking_filter_disabled = live_filter;
    // UpgradingShoot applies the same to the shoot as it is then; what cannot be applied to
    // the shoot as it is now (no workers, an unreadable Azure config) is refused here.
    build_shoot_upgrade(live->json, merged, stored_upgrade_input(merged), m_options.shoot);

    const RuntimeUpgrade upgrade{merged, input.administrators ? *input.administrators
                                                              : runtime.administrators};
    const Operation op =
        new_operation(runtime.id, OperationType::UpgradeShoot, k_stage_upgrading_shoot,
                      k_message_upgrade_started, m_clock.now());
    StartedOperation started = start(runtime, op, context, &upgrade);
    for (auto& warning : upgrade_input_warnings(runtime.gardener, input)) {
        log(LogLevel::Warning, "runtime " + runtime.id + ": " + warning);
        started.warnings.push_back(std::move(warning));
    }
    return started;
}

StartedOperation EngineService::hibernate(const std::string& runtime_id,
                                          const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    const ShootState shoot = existing_shoot(runtime);
    if (shoot.hibernation_possible == false)
        throw ValidationError("",
                              "cannot hibernate cluster: " + shoot.hibernation_possible_message);
    const Operation op =
        new_operation(runtime.id, OperationType::Hibernate, k_stage_hibernating_shoot,
                      k_message_hibernation_started, m_clock.now());
    return start(runtime, op, context);
}

StartedOperation EngineService::wake_up(const std::string& runtime_id,
                                        const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    existing_shoot(runtime);
    const Operation op = new_operation(runtime.id, OperationType::WakeUp, k_stage_waking_up_shoot,
                                       k_message_wake_up_started, m_clock.now());
    return start(runtime, op, context);
}

Runtime EngineService::load_runtime(const std::string& runtime_id, const RequestContext& context) {
    auto runtime = m_store.find_runtime(runtime_id);
    if (!runtime)
        throw NotFound("runtime " + runtime_id + " does not exist");
    if (m_options.tenant_strict && !context.tenant.empty() && context.tenant != runtime->tenant)
        throw TenantMismatch("runtime " + runtime_id + " belongs to another tenant than \"" +
                             context.tenant + "\"");
    return std::move(*runtime);
}

ShootState EngineService::existing_shoot(const Runtime& runtime) {
    auto shoot = m_shoots.get(runtime.gardener.name);
    if (!shoot)
        throw NotFound("shoot " + runtime.gardener.name + " of runtime " + runtime.id +
                       " does not exist");
    return std::move(*shoot);
}

Operation EngineService::new_operation(const std::string& runtime_id, OperationType type,
                                       std::string_view stage, std::string_view message,
                                       Timestamp now) {
    Operation op;
    op.id = new_uuid();
    op.type = type;
    op.state = OperationState::InProgress;
    op.message = message;
    op.start_timestamp = now;
    op.cluster_id = runtime_id;
    op.stage = stage;
    op.last_transition = now;
    op.next_run_at = now;
    return op;
}

StartedOperation EngineService::start(const Runtime& runtime, const Operation& op,
                                      const RequestContext& context,
                                      const RuntimeUpgrade* upgrade) {
    m_store.insert_operation(op, upgrade); // OperationInProgress: the database decides
    StartedOperation started{
        runtime.id, op, std::nullopt, {}, compass_runtime_id(m_options, runtime.id)};
    // The original rewrote the tenant before anything else; kprov does it once the operation
    // is accepted, so that a refused request changes nothing.
    if (!context.tenant.empty() && context.tenant != runtime.tenant) {
        m_store.set_tenant(runtime.id, context.tenant);
        const std::string note = "tenant of runtime " + runtime.id + " changed from \"" +
                                 runtime.tenant + "\" to \"" + context.tenant + "\"";
        log(LogLevel::Warning, note + " by operation " + op.id);
        started.tenant_change = TenantChange{runtime.tenant, context.tenant, false};
        started.tenant_change->recorded = record_in_history(op, note);
    }
    return started;
}

bool EngineService::record_in_history(const Operation& op, const std::string& note) {
    // The history is made of transitions, written under the operation's lease. A worker that
    // claimed the operation in the meantime wins; the note is then only in the log.
    const std::string owner = "engine-service/" + op.id;
    const Timestamp now = m_clock.now();
    try {
        const auto claimed = m_store.claim(op.id, owner, now, m_options.lease_ttl);
        if (!claimed)
            return false;
        m_store.save_progress(
            *claimed, owner, now,
            {StageTransition{op.id, "", op.stage, OperationState::InProgress, note, now}}, {},
            true);
        return true;
    } catch (const LeaseLost&) {
        return false;
    }
}

void EngineService::log(LogLevel level, const std::string& message) const {
    if (m_options.log)
        m_options.log(level, message);
}

} // namespace kprov::engine
