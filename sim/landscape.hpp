#pragma once
// The landscape of the simulated Gardener: CloudProfiles, NamespacedCloudProfiles,
// CredentialsBindings and SecretBindings (gardener-landscape.md §1-§2), the effective
// classification of a version at a given time (§1.3), the NamespacedCloudProfile merge (§1.4),
// the default landscape the sim starts with, and the --landscape files that add to or replace it.

#include "api.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

const ResourceInfo& cloud_profile_info();
const ResourceInfo& namespaced_cloud_profile_info();
const ResourceInfo& credentials_binding_info();
const ResourceInfo& secret_binding_info();

/// The effective classification of a version entry of a profile (`{version, classification?,
/// expirationDate?, lifecycle?}`) at `now`: unavailable, preview, supported, deprecated or
/// expired.
std::string effective_classification(const Json& entry, TimePoint now);
/// Neither expired nor unavailable.
bool is_active(const std::string& classification);

/// The status.cloudProfileSpec of a NamespacedCloudProfile with spec `ncp_spec` whose parent
/// CloudProfile has spec `parent_spec`.
Json merge_namespaced_profile(const Json& parent_spec, const Json& ncp_spec);

/// The default landscape for `project` ("" for none: no bindings), with expiration dates
/// relative to `now`: CloudProfiles aws, az, gcp and converged-cloud-kyma, and in garden-<project>
/// the CredentialsBindings aws-kyma-dev, azure-kyma-dev, gcp-kyma-dev, openstack-kyma-dev with
/// their Secrets. Objects carry apiVersion, kind, metadata.name (and namespace).
std::vector<Json> default_landscape(const std::string& project, TimePoint now);

/// The objects of one landscape file: YAML or JSON, one or several documents, each an object or
/// a List of objects of the four landscape kinds or a v1 Secret. Throws std::runtime_error
/// naming the file, the document (1-based) and the field that is wrong.
std::vector<Json> read_landscape_file(const std::string& path);

/// `text` (YAML 1.2 core schema: plain scalars become null, booleans and numbers; anchors and
/// aliases refused) as one JSON value per document. Throws std::runtime_error with the line of
/// the problem. Exposed for tests.
std::vector<Json> yaml_documents(const std::string& text);

/// Checks a landscape object as Gardener's validation would; the problems as "<field>: <why>".
std::vector<std::string> landscape_object_problems(const Json& obj);

} // namespace kprov::sim
