#pragma once
// What `kprov apply -f` would do, planned once for apply, apply --dry-run and diff -f alike:
// for each runtime file, the runtime of its shoot name and the steps that bring that runtime
// to the file; with --prune, the runtimes of the selector that no file names.

#include "cli/label_selector.hpp"
#include "cli/runtime_lifecycle.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/model.hpp"
#include "engine/rules/desired_state.hpp"
#include "engine/util/time.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::cli {

class Context;
class EngineAccess;

/// The files `given` (-f, in the order given) name: a file as it is, a directory's *.yaml,
/// *.yml and *.json files (not its subdirectories) in name order. Throws UsageError for a path
/// that does not exist, a directory without such files, and a file given twice.
std::vector<std::string> runtime_files(const std::vector<std::string>& given);

/// One runtime file as read and validated.
struct DesiredRuntime {
    std::string file;
    engine::ProvisionInput input;
    LifecycleSpec lifecycle;
};

/// Reads and validates every file (ValidationError listing every file's problems, each under
/// its file's name), then refuses two files with one shoot name (UsageError naming both).
std::vector<DesiredRuntime> read_desired(Context& ctx, const std::vector<std::string>& files);

/// One step of a runtime's plan, in the order apply runs them.
enum class StepKind {
    Provision,
    UpgradeShoot,
    Hibernate,
    WakeUp,
    Protect,
    Unprotect,
    SetLifetime,
    Deprovision
};

/// "provision", "upgrade-shoot", "hibernate", "wake-up", "protect", "unprotect", "lifetime",
/// "deprovision".
std::string step_name(StepKind kind);

/// What apply does to one runtime.
struct RuntimePlan {
    std::string file;  ///< "" for a runtime --prune found
    std::string shoot; ///< the shoot name
    std::optional<DesiredRuntime> desired;
    std::optional<engine::Runtime> runtime; ///< the live runtime of that shoot name, if any
    engine::ConfigChanges changes;          ///< what upgrade-shoot changes; refused fields
    std::vector<StepKind> steps;
    std::optional<Timestamp> expires_at; ///< the expiry SetLifetime sets
    /// The runtime's operation in progress, when there is one: apply --wait follows it to its
    /// end before its own steps (engine::meet_in_progress); without --wait such a runtime is
    /// left as it is and apply exits 5.
    std::optional<engine::Operation> running;
    /// `running` deprovisions the runtime: `steps` provision it anew once that has ended.
    bool recreate = false;
    bool kept_protected = false; ///< --prune: matched but protected, so kept
    std::string error;           ///< why nothing can be done ("" when something can)

    bool refused() const { return !changes.refused.empty(); }
    bool unchanged() const { return steps.empty() && error.empty() && !refused(); }
    /// "refused: region cannot change ("a" -> "b"), ...; the runtime must be replaced ...".
    std::string refusal() const;
    /// The fields an upgrade-shoot step changes, comma-separated.
    std::string upgraded_fields() const;
};

/// Plans every desired runtime, then (with `prune`) every runtime of the configured project
/// that is not deprovisioned, matches the selector and has no file. Reads the store only.
std::vector<RuntimePlan> plan_apply(Context& ctx, EngineAccess& access,
                                    const std::vector<DesiredRuntime>& desired,
                                    const std::optional<LabelSelector>& prune);

} // namespace kprov::cli
