#pragma once
// The rule families of shoot admission (admission.cpp runs them in Gardener's order,
// gardener-landscape.md §0): the profile reference and Kubernetes-version defaulting (mutating,
// admission_profile.cpp), the catalogue checks of ShootValidator (admission_profile.cpp,
// admission_workers.cpp), bindings and the fields Gardener retired (admission_bindings.cpp), and
// the provider webhooks (admission_workers.cpp). Internal to the sim.

#include "admission.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::sim::rules {

/// A parsed "X.Y.Z" (or "X.Y", patch -1); nullopt for anything else.
struct Semver {
    int major = 0, minor = 0, patch = -1;
    bool operator<(const Semver& o) const;
};
std::optional<Semver> parse_semver(const std::string& s);
bool version_at_least(const std::string& version, int major, int minor);

/// The string at a JSON pointer, "" when absent or not a string.
std::string str(const Json& j, const char* pointer);
/// The object of `list` whose "name" is `name` (a pointer into `list`); nullptr if none.
const Json* find_named(const Json& list, const std::string& name);
/// The array at a JSON pointer (a reference into `j`), an empty array when absent or no array.
const Json& list_at(const Json& j, const char* pointer);

/// One field error as Gardener prints it ("<field>: <type>: <value>: <detail>").
struct FieldError {
    std::string reason; ///< FieldValueNotSupported, FieldValueInvalid, ... (for 422 causes)
    std::string field;
    std::string body; ///< "Unsupported value: \"x\": supported values: ..."
    std::string text() const { return field + ": " + body; }
};
/// Several errors as "[e1, e2]", one bare.
std::string joined(const std::vector<FieldError>& errors);
/// `"a", "b"` (each quoted, comma + space).
std::string quoted_list(const std::vector<std::string>& values);

/// The referenced profile's spec (a NamespacedCloudProfile's status.cloudProfileSpec), after
/// the mutator's 500s for a missing profile or both references on create. Throws ApiError.
Json resolve_profile(const Json& shoot, const AdmissionContext& ctx, bool create);

/// ShootMutator: Kubernetes version (403), architecture and machine image defaulting (403).
/// `old` is null on create.
void mutate(Json& shoot, const Json& old, const Json& profile, const AdmissionContext& ctx);

/// Strategy: the cloudProfile/cloudProfileName sync and the rules of ValidateShoot that depend
/// on versions (422 causes): retired fields, downgrades, skipped minors, maximum >= zones,
/// binding names.
void strategy(Json& shoot, const Json& old, std::vector<Cause>& causes);

/// ResourceReferenceManager: bindings, Secrets and ConfigMaps that must exist (403).
void check_references(const Json& shoot, const Json& old, const AdmissionContext& ctx);

/// ShootValidator's catalogue rules (403, all errors of the stage in one message).
void validate_against_profile(const Json& shoot, const Json& old, const Json& profile,
                              const AdmissionContext& ctx);
/// The worker part of validate_against_profile.
void validate_workers(const Json& shoot, const Json& old, const Json& profile, TimePoint now,
                      std::vector<FieldError>& errors);
/// Binding provider types and the SecretBinding -> CredentialsBinding migration (403).
void validate_bindings(const Json& shoot, const Json& old, const AdmissionContext& ctx,
                       std::vector<FieldError>& errors);

/// The provider extensions' admission webhooks (403 "admission webhook ... denied the request").
void provider_webhook(const Json& shoot);

} // namespace kprov::sim::rules
