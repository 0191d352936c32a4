#pragma once
// The Shoot that provisioning creates (original-provisioner.md §4.2-4.5), for the current Gardener
// API (gardener-contract.md §4.2) or, with ShootOptions::legacy_api, the v1.74 fields the
// original sent. Pure functions: no I/O, no clock, no randomness, so the same runtime always
// gives the same bytes.
//
// JSON travels as text here. The shoot is built with nlohmann::ordered_json so that its embedded
// provider configs keep the original's exact key order; a sorted nlohmann::json would reorder
// them. Text keeps that order, keeps <nlohmann/json.hpp> out of this header and is what
// `kprov plan` prints. It is not the request body byte for byte: the Gardener port
// (GardenerShootClient::create in gardener/shoot_port.cpp) parses it into a nlohmann::json, so
// Gardener receives the same members with their keys sorted.

#include "engine/model.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// One region's entry of the maintenance window file: "HHMMSS+ZZZZ" strings, copied verbatim.
struct MaintenanceWindow {
    std::string begin;
    std::string end;
    bool operator==(const MaintenanceWindow&) const = default;
};

/// Parses the APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH file content (§4.4): a JSON object
/// keyed by region, each value {"begin": "...", "end": "..."}. Keys are lower-cased; a missing
/// begin or end reads as "" (build_shoot warns about it). Throws ValidationError naming the
/// problem (not JSON, not an object, a region whose value is not an object, a non-string
/// begin/end).
std::map<std::string, MaintenanceWindow> parse_maintenance_windows(std::string_view json_text);

struct ShootOptions {
    /// APP_GARDENER_PROJECT; used only when the runtime's gardener config has no project_name.
    std::string project;
    /// APP_GARDENER_LEGACY_API: send cloudProfileName, secretBindingName,
    /// enableStaticTokenKubeconfig and kubeAPIServer.oidcConfig as the original did.
    bool legacy_api = false;
    /// APP_GARDENER_AUDIT_LOGS_POLICY_CONFIG_MAP; "" sets no audit policy reference.
    std::string audit_policy_config_map;
    /// The parsed maintenance window file; absent when no file is configured.
    std::optional<std::map<std::string, MaintenanceWindow>> maintenance_windows;
};

/// What provisioning sends to Gardener.
struct ShootPlan {
    /// The Shoot (core.gardener.cloud/v1beta1) as compact JSON, keys in Gardener's field order,
    /// for ShootClient::create. The Gardener port reparses it (see above): the POSTed body has
    /// the same content with sorted keys.
    std::string shoot;
    /// Current API with OIDC only: the ConfigMap (compact JSON) that
    /// spec.kubernetes.kubeAPIServer.structuredAuthentication.configMapName names. It must
    /// exist in the shoot's namespace before the shoot is created (Gardener's admission checks
    /// references), and be deleted after the shoot is gone.
    std::optional<std::string> oidc_config_map;
    /// Things an operator should know and that do not stop provisioning (a production runtime
    /// in a region without a maintenance window).
    std::vector<std::string> warnings;
};

/// The Shoot for `runtime` (its gardener config) created by provisioning operation
/// `operation_id`. Every optional field of the config is checked; throws ValidationError only
/// for a config no shoot can be built from (a GCP config without zones: its control plane
/// needs one). Uses gardener.exposure_class_name as stored: forcing OpenStack's
/// converged-cloud-internet is the input conversion's job (§4.1).
ShootPlan build_shoot(const Runtime& runtime, const std::string& operation_id,
                      const ShootOptions& options);

/// Whether a shoot on Kubernetes `kubernetes_version` names its DNS providers' Secrets by
/// credentialsRef instead of secretName, which Gardener refuses from 1.35 (since v1.139). False
/// for a version that does not parse (Gardener reports it).
bool dns_needs_credentials_ref(std::string_view kubernetes_version);

/// The DNS provider's credentialsRef (compact JSON) for a Secret of the shoot's project:
/// {"apiVersion":"v1","kind":"Secret","name":"<secret>"}.
std::string dns_credentials_ref(std::string_view secret_name);

/// "structured-auth-config-<shoot>": the name of the ConfigMap holding a shoot's
/// AuthenticationConfiguration (the convention of Kyma's infrastructure-manager).
std::string structured_auth_config_map_name(std::string_view shoot_name);

/// The ConfigMap (compact JSON) for structured authentication: data["config.yaml"] holds an
/// apiserver.config.k8s.io/v1beta1 AuthenticationConfiguration with one JWT issuer that
/// behaves like the legacy --oidc-* flags built from `oidc`. `runtime_id` becomes the
/// kcp.provisioner.kyma-project.io/runtime-id annotation unless empty.
std::string build_oidc_config_map(const OidcConfig& oidc, std::string_view shoot_name,
                                  std::string_view namespace_name, std::string_view runtime_id);

/// The legacy kubeAPIServer.oidcConfig object (compact JSON):
/// {clientID, groupsClaim, issuerURL, signingAlgs, usernameClaim, usernamePrefix}.
std::string legacy_oidc_config(const OidcConfig& oidc);

} // namespace kprov::engine
