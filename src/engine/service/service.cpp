#include "engine/service/service.hpp"

#include "engine/stages/registration.hpp"
#include "engine/stages/stages.hpp"
#include "engine/util/time.hpp"

#include <algorithm>

namespace kprov::engine {

EngineService::EngineService(const EnginePorts& ports, EngineOptions options)
    : m_ports((check_ports(ports, options, PortsFor::Service), ports))
    , m_store(*ports.store)
    , m_shoots(*ports.shoots)
    , m_clock(*ports.clock)
    , m_options(std::move(options)) {}

void require_landscape(const Landscape* landscape) {
    if (landscape == nullptr)
        throw ConfigError("kprov checks every request against the Gardener landscape before it "
                          "writes anything, and no Gardener is configured: set "
                          "APP_GARDENER_KUBECONFIG_PATH (config key gardener.kubeconfig_path)");
}

void require_tenant(const RequestContext& context) {
    if (context.tenant.empty())
        throw TenantMissing("tenant header is empty");
}

Timestamp lifetime_expiry(Timestamp created, Duration lifetime) {
    return created + std::chrono::duration_cast<Timestamp::duration>(lifetime);
}

namespace {

std::string protect_text(bool is_protected, std::string_view by) {
    return std::string(is_protected ? "protected against deprovisioning"
                                    : "no longer protected against deprovisioning") +
           " by " + std::string(by);
}

std::string lifetime_text(Duration lifetime, Timestamp expires, std::string_view by) {
    return "lifetime " + format_duration(lifetime) + " set by " + std::string(by) +
           ": deprovisioned after " + format_rfc3339(expires);
}

} // namespace

NewRuntimeLifecycle new_runtime_lifecycle(const LifecycleRequest& request, Timestamp created,
                                          Timestamp now) {
    NewRuntimeLifecycle out;
    out.attributes.is_protected = request.is_protected;
    if (request.is_protected)
        out.events.push_back({now, "Protect", protect_text(true, request.by)});
    if (request.lifetime) {
        out.attributes.expires_at = lifetime_expiry(created, *request.lifetime);
        out.events.push_back(
            {now, "Lifetime",
             lifetime_text(*request.lifetime, *out.attributes.expires_at, request.by)});
    }
    return out;
}

StartedOperation EngineService::provision(const ProvisionInput& input,
                                          const RequestContext& context) {
    require_tenant(context);
    auto started = provision_runtime(input, context);
    if (!started.already_requested || !input.lifecycle)
        return started;
    // The runtime this request made before: the request's lifecycle is its own again, unless
    // it is being deprovisioned (the request then makes a new runtime after it).
    const auto last = m_store.last_operation(started.runtime_id);
    if (last && last->state == OperationState::InProgress && is_deprovisioning(last->type))
        return started;
    const auto& lifecycle = *input.lifecycle;
    if (lifecycle.is_protected)
        m_store.set_protected(started.runtime_id, true,
                              {m_clock.now(), "Protect", protect_text(true, lifecycle.by)});
    if (lifecycle.lifetime)
        set_lifetime(started.runtime_id, *lifecycle.lifetime, lifecycle.by);
    return started;
}

bool EngineService::set_lifetime(const std::string& runtime_id, Duration lifetime,
                                 std::string_view by) {
    const auto runtime = m_store.find_runtime(runtime_id);
    if (!runtime)
        throw NotFound("runtime " + runtime_id + " does not exist");
    const Timestamp expires = lifetime_expiry(runtime->creation_timestamp, lifetime);
    return m_store.set_expiry(runtime_id, expires,
                              {m_clock.now(), "Lifetime", lifetime_text(lifetime, expires, by)});
}

StartedOperation EngineService::provision_runtime(const ProvisionInput& input,
                                                  const RequestContext& context) {
    require_landscape(m_ports.landscape);
    ProvisionPlan plan = engine::plan_provision(input, context, m_options, m_ports.landscape,
                                                m_clock.now(), {new_uuid(), new_uuid()});
    Runtime& runtime = plan.runtime;
    Operation& op = plan.operation;
    // Before Director is asked: a repeated request must not register a second runtime there.
    if (const auto owner = shoot_name_owner(runtime))
        return answer_repeated(*owner, runtime, std::move(plan.warnings));
    // Inside the request, as the original: an unknown version fails it (§1.5). Kyma Lifecycle
    // Manager installs from a channel: that is the release kprov records.
    if (runtime.kyma && m_options.kyma.lifecycle())
        runtime.kyma->release = channel_release(kyma_channel_of(*runtime.kyma, m_options.kyma.klm));
    else if (runtime.kyma)
        runtime.kyma->release = release_of(runtime.kyma->release.version, true);
    // With registration, Director names the runtime (§2.3 step 1); a registered runtime that
    // cannot be stored is unregistered again (step 5).
    const bool registers = m_options.director.registers();
    if (registers) {
        runtime.id = register_runtime(*m_ports.director, runtime.name, runtime.description,
                                      runtime.labels_json, runtime.tenant, runtime.id);
        op.cluster_id = runtime.id;
    }
    try {
        const auto lifecycle =
            input.lifecycle ? std::optional(new_runtime_lifecycle(
                                  *input.lifecycle, runtime.creation_timestamp, m_clock.now()))
                            : std::nullopt;
        m_store.insert_runtime(runtime, op, lifecycle ? &*lifecycle : nullptr);
    } catch (const ShootNameTaken& e) {
        // Another request for the name committed first: the database decided.
        if (registers)
            unregister_quietly(m_ports, runtime.id, runtime.tenant);
        return answer_repeated(owner_of(e.owner(), runtime), runtime, std::move(plan.warnings));
    } catch (...) {
        if (registers)
            unregister_quietly(m_ports, runtime.id, runtime.tenant);
        throw;
    }
    log_warnings(runtime.id, plan.warnings);
    return {runtime.id, op, std::nullopt, std::move(plan.warnings),
            compass_runtime_id(m_options.director, runtime.id)};
}

std::pair<ProvisionPlan, std::optional<ShootNameOwner>>
EngineService::plan_provision(const ProvisionInput& input, const RequestContext& context,
                              const PlanIds& ids, LandscapeRequest::Kind kind) {
    ProvisionPlan plan = engine::plan_provision(input, context, m_options, m_ports.landscape,
                                                m_clock.now(), ids, kind);
    auto owner = shoot_name_owner(plan.runtime);
    return {std::move(plan), std::move(owner)};
}

std::optional<ShootNameOwner> EngineService::shoot_name_owner(const Runtime& planned) {
    const auto& g = planned.gardener;
    const auto owner = m_store.live_runtime_with_shoot(g.project_name, g.name);
    if (!owner)
        return std::nullopt;
    return owner_of(*owner, planned);
}

ShootNameOwner EngineService::owner_of(const std::string& owner_id, const Runtime& planned) {
    const auto stored = m_store.find_runtime(owner_id);
    return {owner_id, stored && is_same_provision_request(*stored, planned)};
}

StartedOperation EngineService::answer_repeated(const ShootNameOwner& owner, const Runtime& planned,
                                                std::vector<std::string> warnings) {
    const auto& g = planned.gardener;
    if (!owner.same_request)
        throw shoot_name_refusal(owner.runtime_id, planned);
    // Its provisioning operation: the first one of the runtime.
    const auto operations = m_store.operations_of(owner.runtime_id);
    const auto first = std::find_if(operations.rbegin(), operations.rend(), [](const Operation& o) {
        return o.type == OperationType::Provision || o.type == OperationType::ProvisionNoInstall;
    });
    if (first == operations.rend())
        throw ShootNameTaken(g.project_name, g.name, owner.runtime_id,
                             ", which has no provisioning operation");
    log(LogLevel::Debug, "provisioning of shoot " + g.name + " already requested: runtime " +
                             owner.runtime_id + ", operation " + first->id);
    StartedOperation started{owner.runtime_id, *first, std::nullopt, std::move(warnings),
                             compass_runtime_id(m_options.director, owner.runtime_id)};
    started.already_requested = true;
    return started;
}

StartedOperation EngineService::deprovision(const std::string& runtime_id,
                                            const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    refuse_if_protected(m_store, runtime.id);
    const auto shoot = m_shoots.get(runtime.gardener.name);
    const Timestamp now = m_clock.now();
    const bool uninstall = deprovision_with_uninstall(runtime, shoot);
    Operation op = new_operation(
        runtime.id, uninstall ? OperationType::Deprovision : OperationType::DeprovisionNoInstall,
        uninstall ? k_stage_cleanup_cluster : k_stage_deprovision_cluster,
        k_message_deprovisioning_started, now);
    op.last_transition.reset(); // as the original: the stage timeout counts from the start
    std::string foreign;
    if (!shoot) {
        op.stage = k_stage_wait_for_cluster_deletion;
        op.message = "Cluster " + runtime.id + " already deleted. Proceeding to " +
                     std::string(k_stage_deprovision_cluster) + " stage.";
    } else if (!is_own_shoot(*shoot, runtime.id)) {
        foreign = foreign_shoot_deprovision_note(*shoot, runtime.id);
        op.stage = k_stage_wait_for_cluster_deletion;
        op.message = "Deprovisioning started: " + foreign;
    } else if (shoot->deletion_timestamp) {
        op.message = "Cluster " + runtime.gardener.name + " with id " + runtime.id +
                     " already scheduled for deletion.";
        if (uninstall) // §4.2: nothing is left to clean up or uninstall
            op.stage = k_stage_wait_for_cluster_deletion;
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
    // Kyma Lifecycle Manager's Kyma lives in the KCP, whatever became of the shoot: it goes first.
    if (runtime.kyma && m_options.kyma.lifecycle() && !m_options.kyma.kcp_missing) {
        op.type = OperationType::Deprovision;
        op.stage = k_stage_deleting_kyma;
    }
    StartedOperation started = start(runtime, op, context);
    if (!foreign.empty())
        log(LogLevel::Warning, "operation " + op.id + ": " + foreign);
    return started;
}

StartedOperation EngineService::upgrade_shoot(const std::string& runtime_id,
                                              const UpgradeShootInput& input,
                                              const RequestContext& context) {
    require_landscape(m_ports.landscape);
    const Runtime runtime = load_runtime(runtime_id, context);
    UpgradePlan plan = upgrade_plan_of(runtime, input);
    const RuntimeUpgrade upgrade{std::move(plan.merged), input.administrators
                                                             ? *input.administrators
                                                             : runtime.administrators};
    // The warnings go into the operation too: its message now, its history from UpgradingShoot.
    std::string message(k_message_upgrade_started);
    for (const auto& warning : plan.warnings)
        message += std::string(k_upgrade_warning_separator) + warning;
    const Operation op = new_operation(runtime.id, OperationType::UpgradeShoot,
                                       k_stage_upgrading_shoot, message, m_clock.now());
    StartedOperation started = start(runtime, op, context, &upgrade);
    log_warnings(runtime.id, plan.warnings);
    started.warnings = std::move(plan.warnings);
    return started;
}

UpgradePlan EngineService::plan_upgrade(const std::string& runtime_id,
                                        const UpgradeShootInput& input,
                                        const RequestContext& context) {
    return upgrade_plan_of(load_runtime(runtime_id, context), input);
}

UpgradePlan EngineService::upgrade_plan_of(const Runtime& runtime, const UpgradeShootInput& input) {
    // By the stored name, not by the tenant label as the original did: a rewritten tenant
    // broke its lookup (§2.5 step 4).
    const auto live = m_shoots.get(runtime.gardener.name);
    if (!live)
        throw NotFound("failed to find shoot for Runtime " + runtime.id);
    require_own(*live, runtime, "upgrade");
    // UpgradingShoot applies the same to the shoot as it is then; what cannot be applied to
    // the shoot as it is now (no workers, an unreadable Azure config) is refused here.
    return engine::plan_upgrade(runtime, *live, input, m_options, m_ports.landscape, m_clock.now());
}

StartedOperation EngineService::hibernate(const std::string& runtime_id,
                                          const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    const ShootState shoot = existing_shoot(runtime);
    require_own(shoot, runtime, "hibernate");
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
    require_own(existing_shoot(runtime), runtime, "wake up");
    const Operation op = new_operation(runtime.id, OperationType::WakeUp, k_stage_waking_up_shoot,
                                       k_message_wake_up_started, m_clock.now());
    return start(runtime, op, context);
}

void refuse_if_protected(Store& store, const std::string& runtime_id) {
    if (store.lifecycle_of(runtime_id).is_protected)
        throw RuntimeProtected(runtime_id);
}

bool EngineService::set_protection(const std::string& runtime_id, bool is_protected,
                                   const RequestContext& context, std::string_view by) {
    const Runtime runtime = load_runtime(runtime_id, context);
    if (runtime.deleted)
        throw Conflict("runtime " + runtime.id + " is deprovisioned: there is nothing to " +
                       (is_protected ? "protect" : "unprotect"));
    return m_store.set_protected(
        runtime.id, is_protected,
        {m_clock.now(), is_protected ? "Protect" : "Unprotect", protect_text(is_protected, by)});
}

Runtime EngineService::load_runtime(const std::string& runtime_id, const RequestContext& context) {
    auto runtime = m_store.find_runtime(runtime_id);
    if (!runtime)
        throw NotFound("runtime " + runtime_id + " does not exist");
    check_tenant(runtime_id, runtime->tenant, context);
    return std::move(*runtime);
}

void EngineService::check_tenant(const std::string& runtime_id, const std::string& stored,
                                 const RequestContext& context) const {
    if (m_options.tenant_strict && !context.tenant.empty() && context.tenant != stored)
        throw TenantMismatch("runtime " + runtime_id + " belongs to another tenant than \"" +
                             context.tenant + "\"");
}

std::optional<TenantChange> EngineService::apply_tenant(const std::string& runtime_id,
                                                        const std::string& stored,
                                                        const Operation* operation,
                                                        const RequestContext& context,
                                                        std::string_view by) {
    if (context.tenant.empty() || context.tenant == stored)
        return std::nullopt;
    check_tenant(runtime_id, stored, context);
    const std::string note = "tenant of runtime " + runtime_id + " changed from \"" + stored +
                             "\" to \"" + context.tenant + "\" by " + std::string(by);
    std::optional<StageTransition> entry;
    if (operation)
        // From "": an entry about the operation, not a move between its stages.
        entry = StageTransition{operation->id,    "",   operation->stage,
                                operation->state, note, m_clock.now()};
    m_store.set_tenant(runtime_id, context.tenant, entry);
    log(LogLevel::Warning, note);
    return TenantChange{stored, context.tenant, entry.has_value()};
}

std::optional<std::string> EngineService::shoot_unavailable(const Runtime& runtime,
                                                            const std::optional<Operation>& last) {
    if (runtime.deleted)
        return "runtime " + runtime.id + " is deprovisioned: its cluster is gone";
    if (!last)
        return "runtime " + runtime.id + " has no operation";
    const bool provisioning =
        last->type == OperationType::Provision || last->type == OperationType::ProvisionNoInstall;
    if (provisioning && last->state == OperationState::InProgress)
        return "runtime " + runtime.id + " is still being provisioned (stage " + last->stage + ")";
    if (provisioning && last->state == OperationState::Failed)
        return "runtime " + runtime.id + " failed to provision: " + last->message;
    return std::nullopt;
}

std::optional<ShootState> EngineService::own_shoot(const std::string& runtime_id,
                                                   const std::string& shoot_name) {
    auto shoot = m_shoots.get(shoot_name);
    if (!shoot || !is_own_shoot(*shoot, runtime_id))
        return std::nullopt;
    return shoot;
}

std::optional<std::string>
EngineService::admin_kubeconfig(const std::string& runtime_id, const std::string& shoot_name,
                                std::optional<std::chrono::seconds> expiration) {
    // The kubeconfig is cluster-admin of whatever shoot bears the name: it is handed out only
    // for the runtime's own.
    if (!own_shoot(runtime_id, shoot_name))
        return std::nullopt;
    try {
        return m_shoots.admin_kubeconfig(
            shoot_name, expiration.value_or(m_options.admin_kubeconfig_expiration));
    } catch (const RemoteError& e) {
        if (e.http_status() == 404 || e.http_status() == 422)
            return std::nullopt;
        throw;
    }
}

ShootState EngineService::existing_shoot(const Runtime& runtime) {
    auto shoot = m_shoots.get(runtime.gardener.name);
    if (!shoot)
        throw NotFound("shoot " + runtime.gardener.name + " of runtime " + runtime.id +
                       " does not exist");
    return std::move(*shoot);
}

void EngineService::require_own(const ShootState& shoot, const Runtime& runtime,
                                std::string_view verb) {
    if (!is_own_shoot(shoot, runtime.id))
        throw ForeignShoot("cannot " + std::string(verb) + " runtime " + runtime.id + ": " +
                           not_own_shoot(shoot, runtime.id) + "; Gardener was left alone");
}

Operation new_operation(const std::string& runtime_id, OperationType type, std::string_view stage,
                        std::string_view message, Timestamp now) {
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
    return start(runtime, op, context, [&] {
        m_store.insert_operation(op, upgrade); // OperationInProgress: the database decides
    });
}

StartedOperation EngineService::start(const Runtime& runtime, const Operation& op,
                                      const RequestContext& context,
                                      const std::function<void()>& insert) {
    insert();
    StartedOperation started{
        runtime.id, op, std::nullopt, {}, compass_runtime_id(m_options.director, runtime.id)};
    // The original rewrote the tenant before anything else; kprov does it once the operation
    // is accepted, so that a refused request changes nothing.
    started.tenant_change =
        apply_tenant(runtime.id, runtime.tenant, &op, context, "operation " + op.id);
    return started;
}

void EngineService::log(LogLevel level, const std::string& message) const {
    m_ports.write_log(level, message);
}

void EngineService::log_warnings(const std::string& runtime_id,
                                 const std::vector<std::string>& warnings) const {
    for (const auto& warning : warnings)
        log(LogLevel::Warning, "runtime " + runtime_id + ": " + warning);
}

} // namespace kprov::engine
