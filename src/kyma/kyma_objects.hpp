#pragma once
// The pure half of the installation-cr Kyma backend (kyma-installation.md §2.4, §2.5, §7.1): the
// installer YAML split into objects and mapped onto REST paths by a static kind table (no
// discovery), the Installation CR edited for a configuration, the override ConfigMaps and
// Secrets, and the probe mapping. No I/O: unit tests call these directly.

#include "engine/kyma.hpp"

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::gardener {

/// Where the Installation CR lives (§5.1): default/kyma-installation.
inline constexpr std::string_view k_installations_path =
    "/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations";
inline constexpr std::string_view k_installation_name = "kyma-installation";
/// The namespace of the override ConfigMaps and Secrets and of the installer's Deployment.
inline constexpr std::string_view k_installer_namespace = "kyma-installer";

/// One row of the static kind table: where objects of (apiVersion, kind) live.
struct KindInfo {
    std::string_view api_version; ///< "v1", "apps/v1", ...
    std::string_view kind;
    std::string_view plural;
    bool namespaced;
};

/// The row for (api_version, kind), or null for a kind the installer YAML does not use.
const KindInfo* find_kind(std::string_view api_version, std::string_view kind);

/// One YAML document as JSON, by yaml::read_documents' scalar rules (yaml/yaml_reader.hpp), a
/// key given twice keeping its last value. Throws kprov::Error for invalid YAML, more than one
/// document, or a bound of yaml::k_foreign_bounds broken (named).
nlohmann::json yaml_document_to_json(const std::string& document);

/// The installer YAML taken apart (§2.4 step 2): every object in file order, without the first
/// Installation, which is kept apart.
struct InstallerManifest {
    std::vector<nlohmann::json> resources;
    std::vector<nlohmann::json> installation; ///< zero or one object
};

/// Parses `yaml`, every document of the stream as yaml_document_to_json reads one. Throws
/// kprov::Error naming the 1-based document number for a document that is not a mapping, lacks
/// apiVersion, kind or metadata.name, has an unusable name, or is of a kind find_kind does not know
/// ("unknown kind apps/v2 Deployment in document 3"). Namespaced objects without a namespace get
/// "default".
InstallerManifest parse_installer_yaml(std::string_view yaml);

/// The collection an object of a known kind is POSTed to ("/apis/apps/v1/namespaces/x/
/// deployments") and the object's own path (the collection plus "/<name>"). Throws kprov::Error
/// for an unknown kind.
std::string collection_path(const nlohmann::json& object);
std::string object_path(const nlohmann::json& object);

/// The Installation CR to apply for `config` (§2.4 step 3): `template_cr` (from the release)
/// in namespace default without the label `action`, spec.profile set when the configuration
/// has a profile, spec.components replaced by the configuration's components in order, each
/// {name, namespace, release: "", source: {url}} (source only with a source URL).
nlohmann::json installation_cr(const nlohmann::json& template_cr, const engine::KymaConfig& config);

/// The override objects of §2.4 in namespace kyma-installer, in write order: global first,
/// then one per component in order, all written even when empty. Names
/// "global-installer-config" and "<component>-installer-config"; labels installer: overrides,
/// component: <component> (not on the global ones: the deliberate fix of §7.4 for the Secret),
/// conflict-strategy: <strategy or "">. ConfigMaps carry the non-secret entries, Secrets the
/// secret ones base64-encoded.
struct OverrideObjects {
    std::vector<nlohmann::json> config_maps;
    std::vector<nlohmann::json> secrets;
};
OverrideObjects override_objects(const engine::KymaConfig& config);

/// What a PUT over the live object `live` sends for `desired` (§7.1: no recursive merge):
/// desired with live's metadata.resourceVersion and, for a Service, live's spec.clusterIP and
/// spec.clusterIPs when desired has none (they are immutable once allocated).
nlohmann::json replacement_for(const nlohmann::json& live, const nlohmann::json& desired);

/// What replaces the live override object `live` when `desired` already exists (409): desired
/// as replacement_for and, unless desired's conflict-strategy label is exactly
/// "Replace", data = live's data ∪ desired's (desired wins).
nlohmann::json merged_override(const nlohmann::json& live, const nlohmann::json& desired);

/// The §2.5 probe result for the Installation CR `cr` as read from the cluster. Text fields
/// and the errorLog are cut short (a hostile server cannot make kprov store megabytes). Throws
/// engine::InvalidInstallationState ("invalid installation state: <value>") for a state outside
/// "", InProgress, Installed and Error.
engine::InstallationProbe probe_of(const nlohmann::json& cr);
/// The probe result when there is no CR: NoInstallation with description
/// "Kyma Installation CR not found on the cluster".
engine::InstallationProbe no_installation_probe();

/// SHA-224 of `text` in lower-case hex (Service Catalog's label values, §4.3).
std::string sha224_hex(std::string_view text);

} // namespace kprov::gardener
