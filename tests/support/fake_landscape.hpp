#pragma once
// An in-memory landscape (engine/landscape.hpp) for unit tests: profiles and bindings the test
// sets, every call counted. fixture_landscape() holds what the engine suites' inputs use, so
// that tests about other things than the landscape pass its checks unchanged.

#include "engine/landscape.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kprov::fakes {

class FakeLandscape : public engine::Landscape {
public:
    std::optional<engine::CloudProfile> cloud_profile(const engine::CloudProfileRef& ref) override {
        std::lock_guard lock(m_mutex);
        ++calls;
        for (const auto& p : profiles)
            if (p.ref == ref)
                return p;
        return std::nullopt;
    }
    std::vector<engine::CloudProfile> cloud_profiles() override {
        std::lock_guard lock(m_mutex);
        ++calls;
        std::vector<engine::CloudProfile> out;
        for (const auto& p : profiles)
            if (p.ref.kind == engine::k_cloud_profile_kind)
                out.push_back(p);
        return out;
    }
    std::vector<engine::CredentialsBinding> credentials_bindings() override {
        std::lock_guard lock(m_mutex);
        ++calls;
        return credentials;
    }
    std::vector<engine::SecretBinding> secret_bindings() override {
        std::lock_guard lock(m_mutex);
        ++calls;
        return secrets;
    }

    engine::CloudProfile& profile(const std::string& name) {
        for (auto& p : profiles)
            if (p.ref.name == name)
                return p;
        throw std::out_of_range("no profile " + name);
    }

    std::vector<engine::CloudProfile> profiles;
    std::vector<engine::CredentialsBinding> credentials;
    std::vector<engine::SecretBinding> secrets;
    int calls = 0;

private:
    std::mutex m_mutex;
};

/// Versions X.Y.0 to X.Y.12 for minors 1.26 to 1.36, unclassified (so all supported).
inline std::vector<engine::ExpirableVersion> every_version() {
    std::vector<engine::ExpirableVersion> out;
    for (int minor = 36; minor >= 26; --minor)
        for (int patch = 12; patch >= 0; --patch) {
            engine::ExpirableVersion v;
            v.version = "1." + std::to_string(minor) + "." + std::to_string(patch);
            out.push_back(std::move(v));
        }
    return out;
}

/// A profile of `type` named `name` with every version, the machine types, volume types and
/// regions given (each region's zones as named), no limits.
inline engine::CloudProfile
make_profile(const std::string& name, const std::string& type,
             const std::vector<std::string>& machine_types,
             const std::vector<std::string>& volume_types,
             const std::map<std::string, std::vector<std::string>>& regions) {
    engine::CloudProfile p;
    p.ref = {std::string(engine::k_cloud_profile_kind), name};
    p.spec.type = type;
    p.spec.kubernetes_versions = every_version();
    for (const auto& t : machine_types)
        p.spec.machine_types.push_back({t, "4", "0", "16Gi", "amd64", true});
    for (const auto& v : volume_types)
        p.spec.volume_types.push_back({v, "standard", true, ""});
    for (const auto& [region, zones] : regions) {
        engine::Region r;
        r.name = region;
        for (const auto& z : zones)
            r.zones.push_back({z, {}, {}});
        r.access_restrictions = {"eu-access-only"};
        p.spec.regions.push_back(std::move(r));
    }
    return p;
}

/// What the engine suites' inputs use: profiles gcp, az, aws and converged-cloud-kyma, and a
/// CredentialsBinding per provider (gcp-secret, azure-secret, aws-secret, openstack-secret, and
/// the names the suites give).
inline void fill_fixture_landscape(FakeLandscape& landscape) {
    const std::vector<std::string> types = {
        "e2-medium", "n2-standard-4", "Standard_D4_v3", "Standard_D8_v3", "m5.xlarge", "m6i.large",
        "g_c4_m16",  "machine",       "e2-standard-8",  "n2-std",         "other"};
    landscape.profiles = {
        make_profile("gcp", "gcp", types, {"pd-balanced", "pd-standard", "pd-ssd"},
                     {{"europe-west3", {"europe-west3-a", "europe-west3-b", "europe-west3-c"}},
                      {"europe-west1", {"europe-west1-b", "europe-west1-c", "europe-west1-d"}}}),
        make_profile("az", "azure", types, {"Standard_LRS", "StandardSSD_LRS", "Premium_LRS"},
                     {{"westeurope", {"1", "2", "3"}}, {"northeurope", {"1", "2", "3"}}}),
        make_profile("aws", "aws", types, {"gp2", "gp3"},
                     {{"eu-central-1", {"eu-central-1a", "eu-central-1b", "eu-central-1c"}},
                      {"eu-west-1", {"eu-west-1a", "eu-west-1b", "eu-west-1c"}}}),
        make_profile("converged-cloud-kyma", "openstack", types, {},
                     {{"eu-de-1", {"eu-de-1a", "eu-de-1b", "eu-de-1d"}}}),
    };
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"gcp-secret", "gcp"},
                                                          {"azure-secret", "azure"},
                                                          {"aws-secret", "aws"},
                                                          {"openstack-secret", "openstack"}}) {
        landscape.credentials.push_back({name, type, "v1", "Secret", name, "garden-kyma-dev"});
        // Legacy mode sends secretBindingName: the same names as SecretBindings.
        landscape.secrets.push_back({name, {type}, name, "garden-kyma-dev"});
    }
}

} // namespace kprov::fakes
