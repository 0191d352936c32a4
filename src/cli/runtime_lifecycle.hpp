#pragma once
// The runtime file's `lifecycle:` block: kprov's own, beside the ProvisionRuntimeInput fields
// (schemas/runtime.schema.json, "RuntimeLifecycle"). What kprov keeps of a runtime beyond its
// configuration: its protection against deprovisioning and its lifetime.

#include "engine/duration.hpp"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kprov::cli {

struct LifecycleSpec {
    bool is_protected = false; ///< lifecycle.protected
    std::optional<Duration>
        lifetime; ///< lifecycle.lifetime: deprovisioned that long after creation
};

/// The fields of the block, in the schema's order.
const std::vector<std::string>& lifecycle_fields();

/// Removes the top-level `lifecycle` member from `document` (a runtime file as read by
/// read_runtime_file) and reads it; nullopt when there is none. Throws ValidationError listing
/// every problem under "lifecycle.<field>": unknown fields (with the closest known one), wrong
/// types, a lifetime that is not a Go duration between 1s and 87600h, and the fields kprov
/// cannot honour at provisioning (`hibernated: true`, `hibernationSchedules`), each saying what
/// to do instead.
std::optional<LifecycleSpec> take_lifecycle(nlohmann::json& document);

} // namespace kprov::cli
