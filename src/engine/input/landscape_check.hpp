#pragma once
// A request checked against the landscape before anything is written
// (../reference/gardener-landscape.md §2-3), and completed as Gardener would complete it: a
// Kubernetes minor becomes its highest supported patch, an omitted machine-image version the
// highest non-preview one. Provisioning, plans, adoption and shoot upgrades all come here, so
// the CLI and the API refuse the same requests with the same words.

#include "engine/landscape.hpp"
#include "engine/model.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// The warning of a plan made without a landscape to check it against.
inline constexpr std::string_view k_landscape_not_checked =
    "the landscape was not checked (no Gardener configured): Gardener may refuse versions, "
    "machine types, regions, zones or bindings that this plan uses";

/// The CloudProfile each provider type ("aws", "azure", "gcp", "openstack") uses unless the
/// runtime file names one; the original's names by default.
std::map<std::string, std::string> default_cloud_profiles();

/// The profile a stored config's shoot names: its own, else the historical default of its
/// provider (OpenStack: its cloudProfileName). Never empty for a known provider.
CloudProfileRef cloud_profile_of(const GardenerConfig& g);

/// What is checked: a new shoot, an existing shoot taken over (adopt: its version only has to
/// be listed), or an upgrade of a shoot now on `live_version`.
struct LandscapeRequest {
    enum class Kind { Create, Adopt, Upgrade } kind = Kind::Create;
    /// The field path prefix of the request: "clusterConfig.gardenerConfig" for provisioning,
    /// "gardenerConfig" for upgrades.
    std::string prefix = "clusterConfig.gardenerConfig";
    /// Upgrade: the config before (what the shoot was made from) and the live shoot's version.
    const GardenerConfig* before = nullptr;
    std::string live_version;
    /// The shoot names a SecretBinding (legacy mode sends one; old shoots have one).
    bool secret_binding = false;
    Timestamp now;
};

/// Checks `g` against `landscape` and fills in the defaults in place (kubernetes_version,
/// machine_image_version). Throws ValidationError listing every problem, each naming the
/// field, the value and what the landscape offers; RemoteError when Gardener cannot be read.
/// Upgrade: only what changed against `request.before` is checked, as Gardener does.
void check_against_landscape(GardenerConfig& g, Landscape& landscape,
                             const LandscapeRequest& request);

/// The highest version of `versions` matching `requested` ("", "1", "1.34") whose effective
/// classification at `now` is exactly supported; nullopt when there is none. A full X.Y.Z is
/// returned as it is.
std::optional<std::string> default_kubernetes_version(const std::vector<ExpirableVersion>& versions,
                                                      std::string_view requested, Timestamp now);

/// The machine-image version Gardener picks for `requested` ("", "1877", "1877.7"): the highest
/// matching one that supports `architecture`, never preview, non-deprecated preferred; nullopt
/// when there is none. A version listed exactly is returned as it is.
std::optional<std::string> default_image_version(const MachineImage& image,
                                                 std::string_view requested,
                                                 std::string_view architecture, Timestamp now);

/// "1.35.2 (deprecated, expires 2026-12-01T00:00:00Z)": a version as refusals and
/// `kprov cloud-profile` show it.
std::string describe_version(const ExpirableVersion& v, Timestamp now);

/// The SecretBinding -> CredentialsBinding move of an upgrade to Kubernetes >= 1.34
/// (§2): the CredentialsBinding of the project that points at the Secret of SecretBinding
/// `secret_binding`. Throws ValidationError at `path` naming what to create when there is none.
std::string credentials_binding_for(Landscape& landscape, const std::string& secret_binding,
                                    const std::string& path);

/// A live Shoot's (`shoot_json`, as Gardener returns it) spec.secretBindingName; nullopt when
/// it has none.
std::optional<std::string> secret_binding_of_shoot(const std::string& shoot_json);

/// The profile a live Shoot names: spec.cloudProfile, else spec.cloudProfileName; nullopt
/// when neither.
std::optional<CloudProfileRef> cloud_profile_of_shoot(const std::string& shoot_json);

} // namespace kprov::engine
