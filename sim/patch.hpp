#pragma once
// The PATCH media types of the Kubernetes API applied to JSON objects.

#include "api.hpp"

#include <optional>
#include <string>

namespace kprov::sim {

enum class PatchType {
    Merge,     ///< application/merge-patch+json (RFC 7386)
    JsonPatch, ///< application/json-patch+json (RFC 6902)
    Strategic, ///< application/strategic-merge-patch+json (lists merged by their merge key)
    Apply,     ///< application/apply-patch+yaml, JSON bodies only (see apply_patch)
};

/// The patch type for a Content-Type media type; nullopt for anything else (answer 415).
std::optional<PatchType> patch_type_from(const std::string& media_type);

/// Applies `body` to `target` and returns the result. Throws ApiError 400 for a malformed patch,
/// 422 for a JSON patch whose `test` fails or whose path does not exist.
///
/// Server-side apply is simplified: the body (which must be JSON, itself valid YAML) is merged
/// into the stored object like a JSON merge patch of the whole object. There is no field
/// ownership, so `force` is accepted and conflicts between field managers never happen. That is
/// what kprov relies on (the original applied with force=true).
Json apply_patch(const Json& target, const std::string& body, PatchType type,
                 const ResourceInfo& info, const std::string& name);

} // namespace kprov::sim
