#pragma once
// What Gardener says of a runtime's shoot right now, for `kprov status` (hibernation) and
// `kprov status --live` (drift between kprov's store and Gardener). Read with a short timeout
// and no retries: a status must answer even when Gardener does not.

#include "cli/context.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"

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

/// Reads `runtime`'s shoot from the configured Gardener, each request given at most `timeout`.
/// Never throws: an unusable kubeconfig or an unreachable server is LiveShoot::error.
LiveShoot read_live_shoot(Context& ctx, const engine::Runtime& runtime,
                          std::chrono::milliseconds timeout);

/// "yes", "no", "hibernating (...)", "waking up (...)", "unknown (Gardener not reachable:
/// ...)" or "unknown (the shoot is not in Gardener)".
std::string hibernation_text(const LiveShoot& live);

/// Whether the newest hibernate or wake-up that succeeded left the cluster hibernated, as kprov's
/// store says; nullopt when kprov never did either. `operations`: newest first.
std::optional<bool> stored_hibernation(const std::vector<engine::Operation>& operations);

/// Whether the cluster is hibernated or going to be, as Gardener says: nullopt when unknown.
std::optional<bool> live_hibernated(const LiveShoot& live);

/// Where the store and Gardener disagree, one sentence each: the shoot missing for a live
/// runtime (or there for a deprovisioned one), hibernation other than the last hibernate or
/// wake-up left it, a generation Gardener has not observed yet, Gardener's last operation
/// failed, a Kubernetes version other than the stored one. Empty when they agree or Gardener
/// could not be asked; operations still in progress account for what they are changing.
/// `operations`: the runtime's, newest first (Store::operations_of).
std::vector<std::string> drift(const engine::Runtime& runtime,
                               const std::vector<engine::Operation>& operations,
                               const LiveShoot& live);

/// {"asked", "error", "shootExists", "hibernated", "hibernationEnabled", "generation",
/// "observedGeneration", "kubernetesVersion", "lastOperation" {type, state, progress,
/// description}, "drift" [...]}: null members for what is unknown.
nlohmann::ordered_json live_json(const LiveShoot& live, const std::vector<std::string>& drift);

/// Table rows for `kprov status --live`: Gardener's view, then one "drift" row per entry.
std::vector<std::pair<std::string, std::string>> live_rows(const LiveShoot& live,
                                                           const std::vector<std::string>& drift);

} // namespace kprov::cli
