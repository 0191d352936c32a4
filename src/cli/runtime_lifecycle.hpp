#pragma once
// The runtime file's `lifecycle:` block: kprov's own, beside the ProvisionRuntimeInput fields
// (schemas/runtime.schema.json, "RuntimeLifecycle"). What kprov keeps of a runtime beyond its
// configuration: its protection against deprovisioning and its lifetime; and what apply makes
// of it: hibernated or awake, and the shoot's hibernation schedules.

#include "engine/input/runtime_input.hpp"
#include "engine/model.hpp"
#include "engine/util/duration.hpp"
#include "engine/util/time.hpp"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kprov::cli {

struct LifecycleSpec {
    bool is_protected = false;    ///< lifecycle.protected
    bool protected_given = false; ///< whether the block names `protected` (apply manages it then)
    std::optional<Duration>
        lifetime;                   ///< lifecycle.lifetime: deprovisioned that long after creation
    std::optional<bool> hibernated; ///< lifecycle.hibernated, when given (kprov apply honours it)
    /// lifecycle.hibernationSchedules: written to the shoot (absent: none).
    std::optional<std::vector<engine::HibernationSchedule>> hibernation_schedules;
};

/// Who reads the block: provision starts one operation, so it cannot honour `hibernated: true`;
/// apply can (it hibernates the runtime once it is provisioned).
enum class LifecycleUse { Provision, Apply };

/// The fields of the block, in the schema's order.
const std::vector<std::string>& lifecycle_fields();

/// Removes the top-level `lifecycle` member from `document` (a runtime file as read by
/// read_runtime_file) and reads it; nullopt when there is none. Throws ValidationError listing
/// every problem under "lifecycle.<field>": unknown fields (with the closest known one), wrong
/// types, a lifetime that is not a Go duration between 1s and 87600h, hibernation schedules
/// that are not Gardener's (engine::schedule_problems), and what kprov cannot honour for `use`
/// (`hibernated: true` for Provision), saying what to do instead.
std::optional<LifecycleSpec> take_lifecycle(nlohmann::json& document,
                                            LifecycleUse use = LifecycleUse::Provision);

/// What provisioning writes of `spec` with the runtime (engine::ProvisionInput::lifecycle),
/// naming `by` in its events.
engine::LifecycleRequest lifecycle_request(const LifecycleSpec& spec, std::string by);

/// A runtime file's document read whole: its ProvisionRuntimeInput, with the lifecycle's
/// hibernation schedules and kprov's clusterConfig.gardenerConfig.cloudProfile ({name, kind})
/// in its gardener config (they are the shoot's), and its lifecycle block.
struct ProvisionFile {
    engine::ProvisionInput input;
    std::optional<LifecycleSpec> lifecycle;
};

/// take_lifecycle, the cloud profile, then engine::read_provision_input on the rest. Throws one
/// ValidationError with every problem of the three together, the lifecycle's first.
ProvisionFile read_provision_file(nlohmann::json document, const engine::ConversionOptions& options,
                                  LifecycleUse use = LifecycleUse::Provision);

} // namespace kprov::cli
