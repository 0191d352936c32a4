// HIBERNATE and WAKE_UP (original-provisioner.md §9; gardener-contract.md §6.4, §8): set
// spec.hibernation.enabled, then wait until Gardener has acted on it.

#include "engine/stages/stages.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

// The original's hibernation poll; wake-up uses the same.
constexpr Duration k_hibernation_poll = 30s;

struct Direction {
    bool hibernate;
    std::string_view wait_stage;
    std::string_view verb; ///< for messages
};

constexpr Direction k_hibernate{true, k_stage_wait_for_hibernation, "hibernate"};
constexpr Direction k_wake_up{false, k_stage_wait_for_wake_up, "wake up"};

StageResult set_hibernation(StageContext& context, const Direction& direction) {
    const std::string verb(direction.verb);
    const auto shoot = context.read_shoot(); // fresh: what is checked is what gets written
    if (!shoot)
        throw StageError::non_recoverable("cannot " + verb + " cluster: shoot " +
                                              context.shoot_name() + " does not exist",
                                          "NotFound", std::string(k_component_gardener_client));
    context.require_own(*shoot, verb);
    // The resourceVersion makes Gardener refuse (409) a patch of a shoot that changed since it
    // was checked; the stage then runs again.
    const nlohmann::json patch = {{"metadata", {{"resourceVersion", shoot->resource_version}}},
                                  {"spec", {{"hibernation", {{"enabled", direction.hibernate}}}}}};
    try {
        context.remember(context.shoots().patch(context.shoot_name(), patch.dump()));
    } catch (const NotFound&) {
        throw StageError::non_recoverable("cannot " + verb + " cluster: shoot " +
                                              context.shoot_name() + " does not exist",
                                          "NotFound", std::string(k_component_gardener_client));
    } catch (const Conflict& e) {
        throw StageError::recoverable("cannot " + verb + " cluster: " + e.what(), "Conflict",
                                      std::string(k_component_gardener_client));
    } catch (const RemoteError& e) {
        // Gardener refuses hibernation with 403 when its HibernationPossible constraint is not
        // True, and 422 during some credential rotations: retrying does not change that.
        throw StageError("cannot " + verb + " cluster: " + e.what(),
                         kubernetes_reason(e.http_status()),
                         std::string(k_component_gardener_client), e.retryable());
    }
    return go_to(direction.wait_stage);
}

StageResult wait_for_hibernation_state(StageContext& context, const Direction& direction) {
    const auto shoot = context.shoot();
    if (!shoot)
        throw shoot_not_found(context.shoot_name());
    // Results older than our spec change say nothing (gardener-contract.md §6.4).
    if (shoot->observed_generation != shoot->generation)
        return wait_in(direction.wait_stage, k_hibernation_poll);
    if (last_operation_is(*shoot, "Failed"))
        throw StageError::non_recoverable(
            std::string(direction.hibernate ? "cluster hibernation" : "cluster wake-up") +
                " failed. " + last_shoot_state(*shoot),
            joined_error_codes(*shoot), std::string(k_component_gardener));
    if (direction.hibernate) {
        if (shoot->is_hibernated)
            return go_to(k_stage_finished);
    } else if (!shoot->is_hibernated && last_operation_is(*shoot, "Succeeded") &&
               shoot->last_operation->type != "Migrate") {
        // Woken up and reconciled: a Reconcile after a real wake-up, or whatever last succeeded
        // when the shoot was not hibernated at all (the patch changed nothing then).
        return go_to(k_stage_finished);
    }
    return wait_in(direction.wait_stage, k_hibernation_poll);
}

} // namespace

StageTable hibernation_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return StageTable({
        {std::string(k_stage_hibernating_shoot), t.shoot_update,
         [](StageContext& c) {
             return set_hibernation(c, k_hibernate);
         }},
        {std::string(k_stage_wait_for_hibernation), t.waiting_for_cluster_hibernation,
         [](StageContext& c) {
             return wait_for_hibernation_state(c, k_hibernate);
         }},
    });
}

StageTable wake_up_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return StageTable({
        {std::string(k_stage_waking_up_shoot), t.shoot_update,
         [](StageContext& c) {
             return set_hibernation(c, k_wake_up);
         }},
        {std::string(k_stage_wait_for_wake_up), t.waiting_for_cluster_hibernation,
         [](StageContext& c) {
             return wait_for_hibernation_state(c, k_wake_up);
         }},
    });
}

} // namespace kprov::engine
