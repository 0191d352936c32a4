// UPGRADE_SHOOT (original-provisioner.md §2.5, §4.6), starting with kprov's UpgradingShoot.

#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/stages/stages.hpp"

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

constexpr int k_conflict_attempts = 5;

StageError upgrade_error(const RemoteError& e, bool recoverable) {
    return {std::string("Failed to upgrade Cluster: ") + e.what(),
            kubernetes_reason(e.http_status()), std::string(k_component_gardener_client),
            recoverable};
}

// Applies the stored (already merged) config to the live shoot, re-reading it on a version
// conflict. The request's own choices were written into the stored config by the service, so
// the stage needs nothing else and can run again after a crash: the stored OIDC is applied
// again (it is the request's when it gave one, else what the shoot already has) and the stored
// networking filter value (the request's, else the live shoot's as of the request).
// The request's warnings, which the service appended to the starting message, as entries of
// the operation's history (again after a crash: a repeated warning does no harm).
void note_request_warnings(StageContext& context) {
    const std::string& message = context.operation().message;
    const auto& separator = k_upgrade_warning_separator;
    for (auto at = message.find(separator); at != std::string::npos;) {
        const auto from = at + separator.size();
        at = message.find(separator, from);
        context.note("warning: " + message.substr(from, at == std::string::npos ? at : at - from));
    }
}

StageResult upgrading_shoot(StageContext& context) {
    note_request_warnings(context);
    const GardenerConfig& merged = context.runtime().gardener;
    const UpgradeShootInput input = stored_upgrade_input(merged);
    bool config_map_written = false;
    for (int attempt = 1;; ++attempt) {
        const auto live = context.read_shoot();
        if (!live)
            throw shoot_not_found(context.shoot_name());
        context.require_own(*live, "upgrade");
        ShootUpgrade upgrade;
        try {
            upgrade = build_shoot_upgrade(live->json, merged, input, context.options().shoot);
        } catch (const std::exception& e) {
            throw StageError::non_recoverable(std::string("Failed to upgrade Cluster: ") +
                                              e.what());
        }
        try {
            if (upgrade.oidc_config_map && !config_map_written) {
                context.shoots().put_config_map(*upgrade.oidc_config_map);
                config_map_written = true;
            }
            context.remember(context.shoots().update(upgrade.shoot));
            return go_to(k_stage_waiting_for_shoot_new_version);
        } catch (const Conflict& e) {
            if (attempt >= k_conflict_attempts)
                throw StageError::recoverable(std::string("Failed to upgrade Cluster: ") + e.what(),
                                              "Conflict", std::string(k_component_gardener_client));
        } catch (const NotFound&) {
            throw shoot_not_found(context.shoot_name());
        } catch (const RemoteError& e) {
            if (e.http_status() == 404)
                throw shoot_not_found(context.shoot_name());
            if (e.http_status() != 409 || attempt >= k_conflict_attempts)
                throw upgrade_error(e, e.retryable());
        }
    }
}

StageResult waiting_for_shoot_new_version(StageContext& context) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    // Until Gardener has observed the update, lastOperation is an earlier operation's: a Failed
    // there says nothing about this upgrade (the original failed on it; a deliberate
    // difference). WaitingForShootUpgrade judges the operation the update started; the stage's
    // timeout ends a wait for an update Gardener never observes.
    if (shoot->observed_generation >= shoot->generation)
        return go_to(k_stage_waiting_for_shoot_upgrade);
    return wait_in(k_stage_waiting_for_shoot_new_version, 5s);
}

StageResult waiting_for_shoot_upgrade(StageContext& context) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    if (last_operation_is(*shoot, "Succeeded")) {
        try {
            // The only writer of cluster.kubeconfig (stored encrypted by the store).
            context.change().kubeconfig = context.admin_kubeconfig();
        } catch (const RemoteError& e) {
            throw from_remote(e, k_component_gardener_client, true);
        }
        return go_to(k_stage_creating_bindings);
    }
    if (last_operation_is(*shoot, "Failed")) {
        const std::string codes = joined_error_codes(*shoot);
        if (has_rate_limit_error(*shoot))
            throw StageError::recoverable(
                "error during shoot cluster upgrade: rate limits exceeded", codes,
                std::string(k_component_gardener));
        throw StageError::non_recoverable("gardener Shoot cluster upgrade failed. " +
                                              last_shoot_state(*shoot),
                                          codes, std::string(k_component_gardener));
    }
    return wait_in(k_stage_waiting_for_shoot_upgrade, 20s); // none yet, Processing, Error, ...
}

} // namespace

UpgradeShootInput stored_upgrade_input(const GardenerConfig& merged) {
    UpgradeShootInput input;
    input.gardener.oidc = merged.oidc;
    input.gardener.shoot_networking_filter_disabled = merged.shoot_networking_filter_disabled;
    // Only a runtime with schedules writes them: one without leaves any a user set with kubectl.
    if (!merged.hibernation_schedules.empty())
        input.gardener.hibernation_schedules = merged.hibernation_schedules;
    return input;
}

StageTable upgrade_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return StageTable({
        {std::string(k_stage_upgrading_shoot), t.shoot_update, upgrading_shoot},
        {std::string(k_stage_waiting_for_shoot_new_version), t.shoot_refresh,
         waiting_for_shoot_new_version},
        {std::string(k_stage_waiting_for_shoot_upgrade), t.shoot_upgrade,
         waiting_for_shoot_upgrade},
        {std::string(k_stage_creating_bindings), t.bindings_creation,
         [](StageContext& context) {
             return create_bindings_for_operators(context, k_stage_finished);
         }},
    });
}

} // namespace kprov::engine
