// PROVISION (original-provisioner.md §2.3), starting with kprov's CreatingShoot.

#include "engine/shoot/shoot_builder.hpp"
#include "engine/stages/registration.hpp"
#include "engine/stages/stages.hpp"

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

// The shoot of that name exists: ours (a crash or a lost answer after our POST) means the
// creation is done; anything else is a name clash no retry can fix.
StageResult adopt_existing_shoot(StageContext& context) {
    const auto existing = context.shoot();
    if (!existing)
        throw StageError::recoverable("shoot " + context.shoot_name() +
                                          " already existed and is gone now; creating it again",
                                      "AlreadyExists", std::string(k_component_gardener_client));
    if (is_own_shoot(*existing, context.runtime().id))
        return go_to(k_stage_waiting_for_cluster_domain);
    throw StageError::non_recoverable(not_own_shoot(*existing, context.runtime().id) +
                                          ": choose another shoot name",
                                      "AlreadyExists", std::string(k_component_gardener_client));
}

StageResult creating_shoot(StageContext& context) {
    ShootPlan plan;
    try {
        plan = build_shoot(context.runtime(), context.operation().id, context.options().shoot);
    } catch (const std::exception& e) {
        // The builder is a pure function of the stored runtime: retrying cannot help.
        throw StageError::non_recoverable(e.what());
    }
    try {
        // Gardener's admission checks that the ConfigMap a shoot names exists. Its name comes
        // from the shoot's: while a shoot of that name exists that is not this runtime's, the
        // ConfigMap is that shoot's and must stay as it is.
        if (plan.oidc_config_map) {
            if (context.read_shoot())
                return adopt_existing_shoot(context);
            context.shoots().put_config_map(*plan.oidc_config_map);
        }
        context.remember(context.shoots().create(plan.shoot));
        return go_to(k_stage_waiting_for_cluster_domain);
    } catch (const Conflict&) {
        return adopt_existing_shoot(context);
    } catch (const RemoteError& e) {
        if (e.http_status() == 409)
            return adopt_existing_shoot(context);
        // A rejected shoot (422, 403, ...) stays rejected; overload and outages pass.
        throw from_remote(e, k_component_gardener_client, e.retryable());
    }
}

// The original unregistered a runtime whose shoot could not be created ("a failed start"):
// nothing else will ever use that Director runtime.
StageResult creating_shoot_or_unregister(StageContext& context) {
    try {
        return creating_shoot(context);
    } catch (const StageError& e) {
        if (!e.is_recoverable() && context.options().director.registers())
            unregister_quietly(context.ports(), context.runtime().id, context.runtime().tenant);
        throw;
    }
}

StageResult waiting_for_cluster_domain(StageContext& context) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    if (!shoot->dns_domain || shoot->dns_domain->empty())
        return wait_in(k_stage_waiting_for_cluster_domain, 5s);
    if (context.options().director.registers())
        label_runtime_in_director(context, *shoot->dns_domain);
    return go_to(k_stage_waiting_for_cluster_creation);
}

// The creation this operation waits for is done: Gardener reconciled the latest spec.
bool creation_succeeded(const ShootState& shoot) {
    return last_operation_is(shoot, "Succeeded") && shoot.observed_generation == shoot.generation;
}

// The watch's copy of the shoot, when the watch is up, spares the pass a read in two cases: the
// creation succeeded (that stays true however old the copy is), or it is still under way (the
// change that ends it comes as an event and makes the operation due again). A failure is read
// from Gardener before the operation acts on it. The copy must be of this runtime's shoot: a
// lagging watch may still hold an earlier shoot of the same name.
bool watched_copy_settles(const StageContext& context, const ShootState& seen) {
    return is_own_shoot(seen, context.runtime().id) && !last_operation_is(seen, "Failed");
}

StageResult waiting_for_cluster_creation(StageContext& context) {
    if (auto seen = context.watched_shoot(); seen && watched_copy_settles(context, *seen))
        context.remember(*seen);
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    const auto& last = shoot->last_operation;
    if (!last)
        return wait_in(k_stage_waiting_for_cluster_creation, 20s);
    if (last->state == "Succeeded") {
        // Unlike the original, a Succeeded counts only once Gardener has picked up the latest
        // spec (gardener-contract.md §6.4): an older result says nothing about this one.
        if (!creation_succeeded(*shoot))
            return wait_in(k_stage_waiting_for_cluster_creation, 20s);
        if (context.runtime().gardener.seed.empty() && shoot->seed_name &&
            !shoot->seed_name->empty())
            context.change().seed = *shoot->seed_name;
        return go_to(k_stage_creating_bindings);
    }
    if (last->state == "Failed") {
        const std::string codes = joined_error_codes(*shoot);
        const std::string component(k_component_gardener);
        if (has_rate_limit_error(*shoot))
            throw StageError::recoverable("error during cluster provisioning: rate limits exceeded",
                                          codes, component);
        if (last->type == "Reconcile")
            throw StageError::recoverable("error during cluster provisioning: reconcilation error",
                                          codes, component);
        throw StageError::non_recoverable(
            "cluster provisioning failed. " + last_shoot_state(*shoot), codes, component);
    }
    return wait_in(k_stage_waiting_for_cluster_creation, 20s); // Processing, Pending, Error, ...
}

StageResult creating_bindings_then_agent(StageContext& context) {
    return create_bindings_for_operators(context, after_bindings(context));
}

StageResult connect_runtime_agent_if_registering(StageContext& context) {
    // Registration was turned off while the operation waited here: nothing to connect to.
    if (!context.options().director.registers())
        return go_to(k_stage_finished);
    return connect_runtime_agent(context);
}

} // namespace

StageTable provision_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    std::vector<StageDef> stages{
        {std::string(k_stage_creating_shoot), t.shoot_creation, creating_shoot_or_unregister},
        {std::string(k_stage_waiting_for_cluster_domain), t.cluster_domains,
         waiting_for_cluster_domain},
        {std::string(k_stage_waiting_for_cluster_creation), t.cluster_creation,
         waiting_for_cluster_creation},
        {std::string(k_stage_creating_bindings), t.bindings_creation, creating_bindings_then_agent},
        {std::string(k_stage_starting_installation), t.installation_triggering,
         starting_installation},
        {std::string(k_stage_waiting_for_installation), t.installation,
         waiting_for_provisioning_installation},
        {std::string(k_stage_connect_runtime_agent), t.agent_configuration,
         connect_runtime_agent_if_registering},
        {std::string(k_stage_wait_for_agent_to_connect), t.agent_connection,
         wait_for_agent_to_connect},
    };
    for (auto& stage : klm_provision_stages(options))
        stages.push_back(std::move(stage));
    return StageTable(std::move(stages));
}

} // namespace kprov::engine
