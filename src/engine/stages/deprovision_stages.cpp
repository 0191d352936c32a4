// DEPROVISION / DEPROVISION_NO_INSTALL (original-provisioner.md §2.4, §4.7).

#include "engine/shoot/shoot_builder.hpp"
#include "engine/stages/registration.hpp"
#include "engine/stages/stages.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

bool gone(const RemoteError& e) {
    return e.http_status() == 404;
}

// The original patched the confirmation in the request and only DELETEd here; kprov does both
// here, so that a crash between the two cannot leave a confirmed shoot nobody deletes. Both are
// idempotent: the patch writes the same values again, a repeated DELETE changes nothing.
// Only the runtime's own shoot is touched: a shoot of that name that another runtime (or
// nobody's) owns is left to WaitForClusterDeletion, which marks this runtime deleted without
// asking Gardener for anything more.
StageResult deprovision_cluster(StageContext& context) {
    const std::string& id = context.operation().id;
    const auto shoot = context.read_shoot(); // fresh: what is checked is what gets written
    if (!shoot || !is_own_shoot(*shoot, context.runtime().id))
        return go_to(k_stage_wait_for_cluster_deletion);
    // The resourceVersion makes Gardener refuse the patch (409) if the shoot changed since it
    // was checked; the stage then runs again and checks again.
    const nlohmann::json patch = {{"metadata",
                                   {{"resourceVersion", shoot->resource_version},
                                    {"annotations",
                                     {{std::string(k_deletion_confirmation_annotation), "true"},
                                      {std::string(k_operation_id_annotation), id},
                                      {std::string(k_legacy_operation_id_annotation), id}}}}}};
    context.forget_shoot();
    try {
        context.shoots().patch(context.shoot_name(), patch.dump());
    } catch (const NotFound&) {
        return go_to(k_stage_wait_for_cluster_deletion);
    } catch (const Conflict& e) {
        throw StageError::recoverable(e.what(), "Conflict",
                                      std::string(k_component_gardener_client));
    } catch (const RemoteError& e) {
        if (gone(e))
            return go_to(k_stage_wait_for_cluster_deletion);
        throw from_remote(e, k_component_gardener_client, e.retryable());
    }
    try {
        context.shoots().remove(context.shoot_name()); // false: already gone, also success
    } catch (const NotFound&) {
    } catch (const RemoteError& e) {
        if (!gone(e))
            throw from_remote(e, k_component_gardener_client, true);
    }
    return go_to(k_stage_wait_for_cluster_deletion);
}

StageResult wait_for_cluster_deletion(StageContext& context) {
    const auto shoot = context.shoot();
    if (shoot && is_own_shoot(*shoot, context.runtime().id))
        return wait_in(k_stage_wait_for_cluster_deletion, 20s);
    const GardenerConfig& g = context.runtime().gardener;
    if (shoot) {
        // Not this runtime's cluster, so nothing of Gardener's is this runtime's to remove: the
        // ConfigMap of that name is the other shoot's.
        context.note(foreign_shoot_deprovision_note(*shoot, context.runtime().id));
    } else if (g.oidc && !context.options().shoot.legacy_api) {
        try {
            context.shoots().delete_config_map(structured_auth_config_map_name(g.name));
        } catch (const RemoteError& e) {
            throw from_remote(e, k_component_gardener_client, true);
        }
    }
    // Before the soft delete is written: a crash in between unregisters nothing twice, since
    // a runtime Director no longer knows is skipped.
    // At the end in any case (KEB's Delete_Kubeconfig): KLM has nothing left to reach.
    delete_kyma_secret_if_any(context);
    if (context.options().director.deregisters())
        unregister_from_director(context);
    context.change().soft_delete = true;
    return go_to(k_stage_finished);
}

} // namespace

StageTable deprovision_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    std::vector<StageDef> stages{
        {std::string(k_stage_cleanup_cluster), t.cluster_cleanup, cleanup_cluster},
        {std::string(k_stage_trigger_kyma_uninstall), t.trigger_uninstall, trigger_kyma_uninstall},
        {std::string(k_stage_deprovision_cluster), t.cluster_deletion, deprovision_cluster},
        {std::string(k_stage_wait_for_cluster_deletion), t.waiting_for_cluster_deletion,
         wait_for_cluster_deletion},
    };
    for (auto& stage : klm_deprovision_stages(options))
        stages.push_back(std::move(stage));
    return StageTable(std::move(stages));
}

} // namespace kprov::engine
