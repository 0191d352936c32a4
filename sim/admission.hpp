#pragma once
// Admission for shoots as Gardener's API server does it: decoding checks (400), the field tree's
// required fields and value rules (422 Invalid with details.causes), references that must exist
// (403), and the defaults a stored shoot gets. Both the current API (spec.cloudProfile,
// spec.credentialsBindingName, kubeAPIServer.structuredAuthentication) and the legacy v1.74
// fields (cloudProfileName, secretBindingName, kubeAPIServer.oidcConfig) are accepted.
// Catalogue rules (profile, versions, regions, zones, machine types, images, volumes, bindings)
// follow Gardener's admission plugins and provider webhooks, in Gardener's order, with its codes
// and messages (gardener-landscape.md; admission_rules.hpp).

#include "api.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

/// The shoot resource as discovery and errors name it.
const ResourceInfo& shoot_info();

struct AdmissionContext {
    std::string ns;         ///< the URL's namespace
    std::string dns_suffix; ///< default domain: <shoot>.<project>.<dns_suffix>
    std::string user;       ///< for gardener.cloud/created-by
    /// fieldValidation query parameter: "" (the sim's default: unknown spec fields are 422),
    /// "Strict" (400), "Warn" (dropped, Warning header), "Ignore" (dropped).
    std::string field_validation;
    std::vector<std::string>* warnings = nullptr; ///< Warning headers to send
    /// The landscape object (or Secret) of `info` in `ns` ("" for cluster-scoped); nullopt when
    /// absent. Without it no catalogue rule runs.
    std::function<std::optional<Json>(const ResourceInfo& info, const std::string& ns,
                                      const std::string& name)>
        lookup;
    TimePoint now = Clock::now(); ///< classifications are computed at this time
};

/// The project of a garden-<project> namespace ("" for anything else).
std::string project_of(const std::string& ns);

/// A boolean annotation value as Gardener parses it (true/1/t/T/TRUE/True).
bool annotation_true(const Json& obj, const std::string& key);

/// Decoding checks (400 for wrong JSON types or a mismatched apiVersion/kind/namespace),
/// unknown fields as `ctx.field_validation` says; sets apiVersion, kind, metadata.namespace.
/// Returns the 422 causes found so far (the caller adds the spec checks). Throws ApiError 400.
std::vector<Cause> decode_shoot(Json& s, const AdmissionContext& ctx);

/// Checks and defaults a shoot sent with POST. Returns the object to store (without uid,
/// resourceVersion, generation: the store sets those). Throws ApiError.
Json admit_create(Json body, const AdmissionContext& ctx);

/// Checks and defaults the new version of a stored shoot (PUT or PATCH result): immutable
/// fields, server-owned metadata and status are taken from `current`. Does not check the
/// resourceVersion (the store does). Throws ApiError.
Json admit_update(const Json& current, Json body, const AdmissionContext& ctx);

} // namespace kprov::sim
