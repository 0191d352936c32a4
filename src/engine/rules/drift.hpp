#pragma once
// Drift: where Gardener's shoot of a runtime differs from what kprov's store says. One function
// decides it for `kprov status --live` and `kprov diff` alike, so that both report the same
// differences: the state (the shoot missing or another runtime's, hibernation, a generation not
// observed, Gardener's last operation failed, another Kubernetes version) and the spec (each
// field kprov sets on the shoot, against what kprov applied; edited behind kprov's back).

#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/shoot/shoot_builder.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::engine {

struct Drift {
    std::vector<std::string> state; ///< one sentence each
    std::vector<std::string> spec;  ///< json_diff lines, "~ path: applied -> live"

    bool any() const { return !state.empty() || !spec.empty(); }
    /// The state sentences, then the spec lines.
    std::vector<std::string> all() const;
};

/// The drift of `runtime` whose shoot Gardener has as `live` (nullopt: not there).
/// `operations`: the runtime's, newest first (Store::operations_of); an operation in progress
/// accounts for what it is changing, so the spec is compared only when none runs and the
/// shoot is the runtime's own. Pure.
Drift runtime_drift(const Runtime& runtime, const std::vector<Operation>& operations,
                    const std::optional<ShootState>& live, const ShootOptions& options);

/// The state half of runtime_drift.
std::vector<std::string> state_drift(const Runtime& runtime,
                                     const std::vector<Operation>& operations,
                                     const std::optional<ShootState>& live);

/// The spec half: the shoot built from the runtime's stored configuration (what its
/// provisioning and upgrades wrote) against `live_shoot_json`, only where kprov sets a field:
/// what Gardener defaults or owns (status, defaulted fields, resourceVersion) is not drift, nor
/// are the operation annotation kprov rewrites with every operation and a Kubernetes or machine
/// image version Gardener's auto-update raised.
std::vector<std::string> spec_drift(const Runtime& runtime, const std::string& live_shoot_json,
                                    const ShootOptions& options);

/// Whether the newest hibernate or wake-up that succeeded left the cluster hibernated, as kprov's
/// store says; nullopt when kprov never did either. `operations`: newest first.
std::optional<bool> stored_hibernation(const std::vector<Operation>& operations);

/// What Gardener is doing about hibernation: Hibernating while spec.hibernation.enabled asks
/// for it and status.isHibernated is not yet true, WakingUp for the reverse, None when spec and
/// status agree (hibernation_status, engine/status_json.hpp, then says which). Pure.
enum class HibernationTransition { None, Hibernating, WakingUp };
HibernationTransition hibernation_transition(const ShootState& shoot);

/// Gardener's last operation of the shoot: "Create Succeeded 100%: ..." ("none yet").
std::string gardener_operation_text(const ShootState& shoot);

} // namespace kprov::engine
