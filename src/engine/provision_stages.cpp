// PROVISION (original-provisioner.md §2.3), starting with kprov's CreatingShoot.

#include "engine/shoot_builder.hpp"
#include "engine/stages.hpp"

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

// The shoot of that name exists: ours (a crash or a lost answer after our POST) means the
// creation is done; anything else is a name clash no retry can fix.
StageResult adopt_existing_shoot(StageContext& context) {
    const auto existing = context.read_shoot();
    if (!existing)
        throw StageError::recoverable("shoot " + context.shoot_name() +
                                          " already existed and is gone now; creating it again",
                                      "AlreadyExists", std::string(k_component_gardener_client));
    const auto owner = existing->annotations.find(std::string(k_runtime_id_annotation));
    if (owner != existing->annotations.end() && owner->second == context.runtime().id)
        return go_to(k_stage_waiting_for_cluster_domain);
    const std::string holder = owner == existing->annotations.end()
                                   ? "is not a kprov runtime's shoot"
                                   : "belongs to runtime " + owner->second;
    throw StageError::non_recoverable("shoot " + context.shoot_name() + " already exists and " +
                                          holder + ": choose another shoot name",
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
        // Gardener's admission checks that the ConfigMap a shoot names exists.
        if (plan.oidc_config_map)
            context.shoots().put_config_map(*plan.oidc_config_map);
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

StageResult waiting_for_cluster_domain(StageContext& context) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    if (!shoot->dns_domain || shoot->dns_domain->empty())
        return wait_in(k_stage_waiting_for_cluster_domain, 5s);
    // Extension point: with Director registration enabled, the original updates the Director
    // runtime's labels (gardenerClusterName, gardenerClusterDomain) here. kprov registers
    // nothing yet.
    return go_to(k_stage_waiting_for_cluster_creation);
}

StageResult waiting_for_cluster_creation(StageContext& context) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    const auto& last = shoot->last_operation;
    if (!last)
        return wait_in(k_stage_waiting_for_cluster_creation, 20s);
    if (last->state == "Succeeded") {
        // Unlike the original, a Succeeded counts only once Gardener has picked up the latest
        // spec (gardener-contract.md §6.4): an older result says nothing about this one.
        if (shoot->observed_generation != shoot->generation)
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

StageResult creating_bindings_then_finish(StageContext& context) {
    // Extension point: with Director registration enabled the original goes on with
    // ConnectRuntimeAgent (agent configuration); kprov registers nothing yet.
    return create_bindings_for_operators(context, k_stage_finished);
}

} // namespace

StageTable provision_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return StageTable({
        {std::string(k_stage_creating_shoot), t.shoot_creation, creating_shoot},
        {std::string(k_stage_waiting_for_cluster_domain), t.cluster_domains,
         waiting_for_cluster_domain},
        {std::string(k_stage_waiting_for_cluster_creation), t.cluster_creation,
         waiting_for_cluster_creation},
        {std::string(k_stage_creating_bindings), t.bindings_creation,
         creating_bindings_then_finish},
    });
}

} // namespace kprov::engine
