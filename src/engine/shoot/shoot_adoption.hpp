#pragma once
// Adopting a shoot kprov did not create (`kprov adopt`): the shoot builder's inverse, which
// reads a live Shoot back into the runtime file whose provisioning would build it, and the
// metadata kprov writes onto a shoot it takes over. Pure functions, JSON as text (as
// shoot_builder.hpp): no I/O, so tests can feed any shoot.
//
// Whether the derived file really builds the live shoot is the caller's check (build the shoot
// from it and compare, cli/drift.hpp): reading refuses what it can name at once, the comparison
// catches every other field the builder would set otherwise.

#include "engine/shoot/shoot_builder.hpp"

#include <string>

namespace kprov::engine {

/// The runtime file (a ProvisionRuntimeInput document as compact JSON, keys in the input
/// type's order) that describes the shoot `shoot_json` (a Shoot as Gardener returns it): its
/// runtimeInput.name is the shoot's name, and every gardenerConfig field is read from where
/// build_shoot writes it, with no field left to a default (auto-updates, networking filter and
/// euAccess are always given). Gardener's own additions (status, defaulted members) are
/// ignored. Throws ValidationError, source "shoot <name>", listing every field kprov's builder
/// cannot produce at its path in the shoot: a provider type other than aws, azure, gcp or
/// openstack, not exactly one worker pool, extensions other than the three kprov sets (or one
/// of them missing), OIDC through structuredAuthentication (kprov cannot read its ConfigMap
/// back), a volume size that is not "<n>Gi", a maxSurge or maxUnavailable in percent, and a
/// required field that is missing.
std::string runtime_file_of_shoot(const std::string& shoot_json, const ShootOptions& options);

/// The JSON merge patch (compact JSON) that gives a live shoot the labels and annotations of
/// `built_shoot_json` (build_shoot's metadata: account and subaccount labels, the runtime-id and
/// operation-id annotations, licence type, euAccess): what adopting writes, so that every later
/// operation finds the shoot its runtime's own (is_own_shoot). Members of the live shoot that
/// the patch does not name stay. With a non-empty `resource_version`, the patch carries it as
/// a precondition (ShootClient::patch: Conflict when the shoot changed meanwhile).
std::string adoption_patch(const std::string& built_shoot_json,
                           const std::string& resource_version = {});

/// The patch that takes adoption_patch's annotations off again (null values), leaving the
/// labels: what a failed adoption undoes.
std::string adoption_undo_patch(const std::string& built_shoot_json);

} // namespace kprov::engine
