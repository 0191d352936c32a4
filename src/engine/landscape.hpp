#pragma once
// The landscape a shoot is made in (../reference/gardener-landscape.md): a CloudProfile's spec
// (Kubernetes and machine-image versions with their classifications, machine types, regions
// with zones, volume types, limits) and the project's credentials bindings, as Gardener serves
// them. The engine reads it through the Landscape port; gardener/ implements it over the
// Kubernetes API, tests over files or fakes.

#include "engine/model.hpp"
#include "engine/util/time.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// A version's classification. Unavailable only arises from lifecycle stages that all start in
/// the future (§1.3).
enum class VersionClass { Unavailable, Preview, Supported, Deprecated, Expired };

/// "unavailable", "preview", "supported", "deprecated", "expired".
std::string_view to_text(VersionClass c);
/// Reads the spellings of to_text; nullopt for anything else.
std::optional<VersionClass> version_class_from_text(std::string_view text);
/// Neither expired nor unavailable (Gardener's IsActive).
inline bool is_active(VersionClass c) {
    return c != VersionClass::Expired && c != VersionClass::Unavailable;
}

/// One `lifecycle[]` stage: from `start_time` on (always, when absent) the version is
/// `classification`.
struct LifecycleStage {
    VersionClass classification = VersionClass::Supported;
    std::optional<Timestamp> start_time;
};

/// A Kubernetes or machine-image version entry in either form Gardener serves: the legacy
/// `classification` + `expirationDate`, or `lifecycle[]` stages.
struct ExpirableVersion {
    std::string version;
    std::optional<VersionClass> classification;
    std::optional<Timestamp> expiration_date;
    std::vector<LifecycleStage> lifecycle;
    /// Machine images only: the CPU architectures (Gardener defaults [amd64]).
    std::vector<std::string> architectures;
};

/// The effective classification at `now` (§1.3): legacy fields become stages (the
/// classification, default supported, from always; expired from expirationDate); no stages at
/// all is supported; otherwise the last stage, in list order, that started strictly before
/// `now` wins, and none is unavailable.
VersionClass effective_classification(const ExpirableVersion& v, Timestamp now);

/// When the version expires (Gardener then force-upgrades shoots off it): its expirationDate,
/// or the start of its `expired` lifecycle stage; nullopt when neither is set.
std::optional<Timestamp> expiry_of(const ExpirableVersion& v);

struct MachineImage {
    std::string name;
    std::vector<ExpirableVersion> versions;
};

struct MachineType {
    std::string name;
    std::string cpu;    ///< a quantity as served ("4")
    std::string gpu;    ///< "0" when absent
    std::string memory; ///< a quantity as served ("16Gi")
    std::string architecture = "amd64";
    bool usable = true;
};

struct Zone {
    std::string name;
    std::vector<std::string> unavailable_machine_types;
    std::vector<std::string> unavailable_volume_types;
};

struct Region {
    std::string name;
    std::vector<Zone> zones;
    std::vector<std::string> access_restrictions; ///< names, such as "eu-access-only"
};

struct VolumeType {
    std::string name;
    std::string volume_class; ///< "standard", "premium", ...
    bool usable = true;
    std::string min_size; ///< a quantity; "" when none
};

/// A CloudProfile's spec, or a NamespacedCloudProfile's status.cloudProfileSpec.
struct CloudProfileSpec {
    std::string type; ///< the provider type: aws, azure, gcp, openstack, ...
    std::vector<ExpirableVersion> kubernetes_versions;
    std::vector<MachineImage> machine_images;
    std::vector<MachineType> machine_types;
    std::vector<Region> regions;
    std::vector<VolumeType> volume_types;
    std::optional<std::int64_t> max_nodes_total;
};

struct CloudProfile {
    CloudProfileRef ref;
    CloudProfileSpec spec;
};

/// A CredentialsBinding of the project (security.gardener.cloud/v1alpha1).
struct CredentialsBinding {
    std::string name;
    std::string provider_type;
    /// credentialsRef: apiVersion, kind, name, namespace.
    std::string ref_api_version;
    std::string ref_kind;
    std::string ref_name;
    std::string ref_namespace;
};

/// A SecretBinding of the project (core.gardener.cloud/v1beta1, deprecated).
struct SecretBinding {
    std::string name;
    std::vector<std::string> provider_types; ///< provider.type split at commas; may be empty
    std::string secret_name;
    std::string secret_namespace; ///< the binding's own namespace when the ref has none
};

/// The landscape port. Implementations throw RemoteError when Gardener cannot be read (and
/// ConfigError when no Gardener is configured). Thread-safe.
class Landscape {
public:
    virtual ~Landscape() = default;
    /// The profile `ref` names (a NamespacedCloudProfile of the project namespace by its
    /// status.cloudProfileSpec); nullopt when it does not exist.
    virtual std::optional<CloudProfile> cloud_profile(const CloudProfileRef& ref) = 0;
    /// Every CloudProfile (cluster-scoped), in Gardener's order.
    virtual std::vector<CloudProfile> cloud_profiles() = 0;
    virtual std::vector<CredentialsBinding> credentials_bindings() = 0;
    virtual std::vector<SecretBinding> secret_bindings() = 0;
};

/// A Landscape that asks `inner` once per `lifetime` and answers from memory meanwhile (a
/// zero lifetime never expires: a one-shot command reads the landscape once). Thread-safe.
class CachedLandscape final : public Landscape {
public:
    CachedLandscape(Landscape& inner, const Clock& clock, std::chrono::seconds lifetime);

    std::optional<CloudProfile> cloud_profile(const CloudProfileRef& ref) override;
    std::vector<CloudProfile> cloud_profiles() override;
    std::vector<CredentialsBinding> credentials_bindings() override;
    std::vector<SecretBinding> secret_bindings() override;

private:
    template <typename T> struct Entry {
        std::optional<T> value;
        Timestamp read_at;
    };
    template <typename T, typename Read> T cached(Entry<T>& entry, Read read);

    Landscape& m_inner;
    const Clock& m_clock;
    std::chrono::seconds m_lifetime;
    std::mutex m_mutex;
    std::map<std::string, Entry<std::optional<CloudProfile>>> m_profiles; ///< by kind/name
    Entry<std::vector<CloudProfile>> m_all;
    Entry<std::vector<CredentialsBinding>> m_credentials;
    Entry<std::vector<SecretBinding>> m_secrets;
};

} // namespace kprov::engine
