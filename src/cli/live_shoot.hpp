#pragma once
// What Gardener says of a runtime's shoot right now, for `kprov status` (hibernation) and
// `kprov status --live` (drift between kprov's store and Gardener), read through the engine's
// ShootClient port as the API reads it, with a short timeout and no retries: a status must
// answer even when Gardener does not.

#include "cli/context.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/rules/drift.hpp"
#include "engine/status_json.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kprov::cli {

struct LiveShoot {
    bool asked = false; ///< false: not asked, `error` says why (deprovisioned runtime, ...)
    std::string error;  ///< non-empty: Gardener could not be asked, or was not
    std::optional<engine::ShootState> shoot; ///< asked without error: nullopt when it is gone
};

/// Reads `runtime`'s shoot through `shoots`, the engine's ShootClient port, as EngineService
/// (the API) and `kprov diff` read it. Never throws: an error is LiveShoot::error.
LiveShoot read_live_shoot(engine::ShootClient& shoots, const engine::Runtime& runtime);

/// read_live_shoot through the ShootClient port over the configured Gardener (open_gardener's
/// kubeconfig and project), each request given at most `timeout` and tried once. Never throws:
/// an unusable kubeconfig or an unreachable server is LiveShoot::error.
LiveShoot read_live_shoot(Context& ctx, const engine::Runtime& runtime,
                          std::chrono::milliseconds timeout);

/// "yes", "no", "hibernating (...)", "waking up (...)", "unknown (Gardener not reachable:
/// ...)" or "unknown (the shoot is not in Gardener)".
std::string hibernation_text(const LiveShoot& live);

using engine::stored_hibernation;

/// engine::hibernation_status of the shoot, as the API answers it: nullopt when Gardener could
/// not be asked or has no such shoot.
std::optional<engine::HibernationStatus> live_hibernation(const LiveShoot& live);

/// engine::runtime_drift of the runtime and the shoot as `live` has it (state, then spec), the
/// one drift `status --live` and `diff` both report; empty when Gardener could not be asked.
/// `operations`: the runtime's, newest first (Store::operations_of).
std::vector<std::string> drift(const engine::Runtime& runtime,
                               const std::vector<engine::Operation>& operations,
                               const LiveShoot& live, const engine::ShootOptions& options);

/// {"asked", "error", "shootExists", "hibernated", "hibernationEnabled", "generation",
/// "observedGeneration", "kubernetesVersion", "lastOperation" {type, state, progress,
/// description}, "drift" [...]}: null members for what is unknown.
nlohmann::ordered_json live_json(const LiveShoot& live, const std::vector<std::string>& drift);

/// Table rows for `kprov status --live`: Gardener's view, then one "drift" row per entry.
std::vector<std::pair<std::string, std::string>> live_rows(const LiveShoot& live,
                                                           const std::vector<std::string>& drift);

} // namespace kprov::cli
