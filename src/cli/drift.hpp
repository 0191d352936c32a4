#pragma once
// Drift: where a runtime's live shoot in Gardener differs from what kprov applied (someone
// edited the shoot behind kprov's back). For `kprov diff RUNTIME_ID`.

#include "engine/model.hpp"
#include "engine/shoot_builder.hpp"

#include <string>
#include <vector>

namespace kprov::cli {

/// What kprov applied is the shoot built from the runtime's stored configuration (the one its
/// provisioning and upgrades wrote), compared with `live_shoot_json` only where kprov sets a
/// field: what Gardener defaults or owns (status, defaulted fields, resourceVersion) is not
/// drift, nor are the operation annotation kprov rewrites with every operation and a
/// Kubernetes or machine image version Gardener's auto-update raised. One json_diff line per
/// difference, "~ path: applied -> live" ("- path: applied" when the live shoot lacks it).
std::vector<std::string> shoot_drift(const engine::Runtime& runtime,
                                     const std::string& live_shoot_json,
                                     const engine::ShootOptions& options);

} // namespace kprov::cli
