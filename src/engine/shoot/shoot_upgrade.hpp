#pragma once
// The Shoot that upgradeShoot applies (original-provisioner.md §2.5 steps 5-6 and §4.6): the
// live shoot with the merged gardener config written into it. Pure functions over JSON text
// (see shoot_builder.hpp for why text).

#include "engine/input/runtime_input.hpp"
#include "engine/model.hpp"
#include "engine/shoot/shoot_builder.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kprov::engine {

/// Compares two Kubernetes versions as semantic versions: an optional "v", one or more numeric
/// parts (missing parts count as 0, so "1.27" == "1.27.0"), an optional "-prerelease" (lower
/// than the release) and an optional "+build" (ignored). Returns <0, 0 or >0. Throws
/// ValidationError "Failed to parse \"<v>\" as a version" for anything else.
int compare_kubernetes_versions(std::string_view a, std::string_view b);

/// Whether `version` is `minimum` or later (compare_kubernetes_versions); false when it does
/// not parse (Gardener reports such a version itself).
bool kubernetes_version_at_least(std::string_view version, std::string_view minimum);

/// The Kubernetes version to send: the live shoot's when it is semver-greater than the
/// requested one (Gardener may have auto-updated it, §2.5 step 5), otherwise the requested one;
/// each returned verbatim. Throws ValidationError "Failed to parse \"<v>\" as a version" for
/// unparsable versions.
std::string effective_kubernetes_version(std::string_view live, std::string_view requested);

/// What an upgrade asking for Kubernetes `requested`, lower than the shoot's `live` (which
/// stays, effective_kubernetes_version), warns: "kubernetesVersion \"1.28.0\" is lower than the
/// shoot's \"1.29.2\", which stays (kprov never downgrades Kubernetes)".
std::string kept_kubernetes_version_warning(std::string_view requested, std::string_view live);

/// Between an UPGRADE_SHOOT operation's starting message and each warning of its request, so
/// the UpgradingShoot stage can write those warnings into the operation's history.
inline constexpr std::string_view k_upgrade_warning_separator = "; warning: ";

/// The `disabled` value of the live shoot's shoot-networking-filter extension; absent when the
/// shoot has no such extension, it carries no `disabled`, or the text is not a JSON object.
std::optional<bool> live_networking_filter_disabled(std::string_view live_shoot_json);

/// What upgradeShoot sends to Gardener.
struct ShootUpgrade {
    /// The full new Shoot (compact JSON), for ShootClient::update: the UpgradingShoot stage
    /// (upgrade_stages.cpp) PUTs it. managedFields removed, kind and apiVersion set, everything
    /// the upgrade does not touch kept as read, including metadata.resourceVersion, so a shoot
    /// changed since it was read is refused with Conflict and the stage reads it again.
    std::string shoot;
    /// Current API with OIDC in the input: the new content of the structured-authentication
    /// ConfigMap named by the shoot; create or replace it before updating the shoot.
    std::optional<std::string> oidc_config_map;
    /// The OIDC settings that ConfigMap carries: the input's, or (no OIDC in the input, current
    /// API, Kubernetes 1.32 or later) the live shoot's kubeAPIServer.oidcConfig, which the
    /// update moves to structured authentication, as Gardener refuses oidcConfig there.
    std::optional<OidcConfig> oidc;
    /// The version written to spec.kubernetes.version (effective_kubernetes_version).
    std::string kubernetes_version;
    /// The shoot-networking-filter `disabled` value written: the input's, else the live
    /// shoot's; absent when neither knows it (the extensions are then left as they are).
    std::optional<bool> shoot_networking_filter_disabled;
};

/// Applies `merged` (the stored config with `input` merged over it, as merge_upgrade returns
/// it) to the live shoot `live_shoot_json` (a Shoot as GET returns it). `input` decides what
/// only the request may change: OIDC and shootNetworkingFilterDisabled. Missing objects
/// (kubeAPIServer, maintenance, a worker's volume or machine image) are created, never
/// dereferenced. Throws kprov::Error "no worker groups assigned to Gardener shoot '<name>'"
/// when the shoot has no workers, kprov::Error when the text is not a JSON object or an Azure
/// shoot's infrastructureConfig cannot be read, ValidationError for unparsable versions and for
/// a live oidcConfig that structured authentication cannot carry (every such member named:
/// caBundle, requiredClaims, ..., or no clientID or issuerURL).
ShootUpgrade build_shoot_upgrade(std::string_view live_shoot_json, const GardenerConfig& merged,
                                 const UpgradeShootInput& input, const ShootOptions& options);

} // namespace kprov::engine
