#pragma once
// Desired state (`kprov apply`): how a runtime as stored differs from what a runtime file asks
// for, sorted into what upgradeShoot can change and what no operation can (the runtime must be
// replaced). Pure functions: no store, no Gardener.

#include "engine/input/runtime_input.hpp"
#include "engine/model.hpp"

#include <string>
#include <vector>

namespace kprov::engine {

/// One field that differs, with both values as short JSON text ("\"m5.xlarge\"", "3").
struct FieldChange {
    std::string field; ///< the runtime file's name: "machineType", "region", "runtimeInput.labels"
    std::string from;  ///< the runtime's value
    std::string to;    ///< the file's value
    std::string note;  ///< why it cannot change, for refused fields ("" otherwise)
    bool operator==(const FieldChange&) const = default;
};

/// What bringing a runtime to a runtime file's configuration takes.
struct ConfigChanges {
    /// The upgradeShoot request that makes the upgradable fields so; only those fields set.
    UpgradeShootInput upgrade;
    std::vector<FieldChange> upgraded; ///< what `upgrade` changes, in the input's field order
    std::vector<FieldChange> refused;  ///< what no operation can change
    bool needs_upgrade() const { return !upgraded.empty(); }
};

/// Compares `stored` (a live runtime as the store has it) with `planned` (plan_provision of the
/// file for the same shoot). What kprov learned or set itself (ids, times, the seed Gardener
/// chose unless the file names one, the tenant) is not compared; a kubernetesVersion lower than
/// the stored one is no change (kprov never downgrades, and auto-update raises it); the file's
/// administrators count only when `administrators_given`, its hibernation schedules only when
/// `schedules_given` (lifecycle.hibernationSchedules). Fields an upgrade can set but not remove
/// (an optional field the file leaves out, such as oidcConfig or purpose; every schedule) are
/// refused. Throws ValidationError for unparsable Kubernetes versions.
ConfigChanges config_changes(const Runtime& stored, const Runtime& planned,
                             bool administrators_given, bool schedules_given = false);

} // namespace kprov::engine
