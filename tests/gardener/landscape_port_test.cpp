// Reading CloudProfiles and bindings as Gardener serves them (gardener-landscape.md §1.2, §2),
// and refusing answers of the wrong shape or size.

#include "engine/error.hpp"
#include "gardener/landscape_port.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

const json k_spec = json::parse(R"({
  "type": "gcp",
  "kubernetes": {"versions": [
    {"version": "1.36.2", "lifecycle": [{"classification": "preview"},
                                        {"classification": "supported", "startTime": "2026-09-15T00:00:00Z"}]},
    {"version": "1.35.3", "classification": "deprecated", "expirationDate": "2026-11-30T23:59:59Z"},
    {"version": "1.35.5"}]},
  "machineImages": [{"name": "gardenlinux", "updateStrategy": "minor", "versions": [
    {"version": "1877.7.0", "classification": "supported", "architectures": ["amd64", "arm64"]},
    {"version": "1592.14.0", "kubeletVersionConstraint": "< 1.35"}]}],
  "machineTypes": [
    {"name": "n2-standard-4", "cpu": "4", "gpu": "0", "memory": "16Gi", "usable": true},
    {"name": "t2a-standard-4", "cpu": 4, "memory": "16Gi", "architecture": "arm64"},
    {"name": "e2-small", "cpu": "2", "memory": "2Gi", "usable": false}],
  "volumeTypes": [{"name": "pd-balanced", "class": "standard", "minSize": "20Gi"}],
  "regions": [{"name": "europe-west3", "accessRestrictions": [{"name": "eu-access-only"}],
               "zones": [{"name": "europe-west3-a"},
                         {"name": "europe-west3-c", "unavailableVolumeTypes": ["pd-ssd"]}]}],
  "limits": {"maxNodesTotal": 300},
  "providerConfig": {"anything": ["goes", 1]}
})");

TEST(LandscapePort, ReadsACloudProfileSpec) {
    const auto spec = parse_cloud_profile_spec(k_spec, "CloudProfile \"gcp\"");
    EXPECT_EQ(spec.type, "gcp");
    ASSERT_EQ(spec.kubernetes_versions.size(), 3u);
    EXPECT_EQ(spec.kubernetes_versions[0].lifecycle.size(), 2u);
    EXPECT_EQ(spec.kubernetes_versions[0].lifecycle[1].start_time,
              parse_db_time("2026-09-15 00:00:00"));
    EXPECT_EQ(spec.kubernetes_versions[1].classification, engine::VersionClass::Deprecated);
    EXPECT_EQ(spec.kubernetes_versions[1].expiration_date, parse_db_time("2026-11-30 23:59:59"));
    EXPECT_FALSE(spec.kubernetes_versions[2].classification.has_value());
    ASSERT_EQ(spec.machine_images.size(), 1u);
    EXPECT_EQ(spec.machine_images[0].versions[1].architectures, std::vector<std::string>{"amd64"});
    ASSERT_EQ(spec.machine_types.size(), 3u);
    EXPECT_EQ(spec.machine_types[1].cpu, "4");
    EXPECT_EQ(spec.machine_types[1].architecture, "arm64");
    EXPECT_EQ(spec.machine_types[1].gpu, "0");
    EXPECT_FALSE(spec.machine_types[2].usable);
    EXPECT_TRUE(spec.machine_types[0].usable);
    EXPECT_EQ(spec.volume_types.at(0).min_size, "20Gi");
    EXPECT_EQ(spec.regions.at(0).access_restrictions, std::vector<std::string>{"eu-access-only"});
    EXPECT_EQ(spec.regions.at(0).zones.at(1).unavailable_volume_types,
              std::vector<std::string>{"pd-ssd"});
    EXPECT_EQ(spec.max_nodes_total, 300);
}

std::string refusal_of(const json& spec) {
    try {
        (void)parse_cloud_profile_spec(spec, "CloudProfile \"x\"");
    } catch (const RemoteError& e) {
        EXPECT_FALSE(e.retryable());
        return e.what();
    }
    ADD_FAILURE() << "accepted " << spec.dump();
    return {};
}

TEST(LandscapePort, RefusesMalformedAndOversizedAnswers) {
    json spec = k_spec;
    spec["kubernetes"]["versions"][1]["classification"] = "excellent";
    EXPECT_THAT(refusal_of(spec), HasSubstr("spec.kubernetes.versions[1].classification"));
    spec = k_spec;
    spec["kubernetes"]["versions"][0]["version"] = 135;
    EXPECT_THAT(refusal_of(spec), HasSubstr("spec.kubernetes.versions[0].version"));
    spec = k_spec;
    spec["regions"] = "europe";
    EXPECT_THAT(refusal_of(spec), HasSubstr("spec.regions must be a list"));
    spec = k_spec;
    spec["machineTypes"] = json::array();
    for (int i = 0; i < 2001; ++i)
        spec["machineTypes"].push_back({{"name", "t" + std::to_string(i)}});
    EXPECT_THAT(refusal_of(spec), HasSubstr("at most 2000"));
    spec = k_spec;
    spec["regions"][0]["name"] = std::string(300, 'r');
    EXPECT_THAT(refusal_of(spec), HasSubstr("spec.regions[0].name"));
    spec = k_spec;
    spec["kubernetes"]["versions"][1]["expirationDate"] = "next tuesday";
    EXPECT_THAT(refusal_of(spec), HasSubstr("RFC 3339"));
    spec = k_spec;
    spec["limits"]["maxNodesTotal"] = -3;
    EXPECT_THAT(refusal_of(spec), HasSubstr("maxNodesTotal"));
    spec = k_spec;
    spec.erase("type");
    EXPECT_THAT(refusal_of(spec), HasSubstr("spec.type is missing"));
}

TEST(LandscapePort, ReadsBindings) {
    const auto credentials = parse_credentials_binding(json::parse(R"({
      "apiVersion": "security.gardener.cloud/v1alpha1", "kind": "CredentialsBinding",
      "metadata": {"name": "gcp-kyma", "namespace": "garden-p"},
      "provider": {"type": "gcp"},
      "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "sa", "namespace": "garden-p"}
    })"));
    EXPECT_EQ(credentials.name, "gcp-kyma");
    EXPECT_EQ(credentials.provider_type, "gcp");
    EXPECT_EQ(credentials.ref_kind, "Secret");
    EXPECT_EQ(credentials.ref_name, "sa");
    const auto secret = parse_secret_binding(json::parse(R"({
      "metadata": {"name": "old"}, "provider": {"type": "gcp,aws"}, "secretRef": {"name": "sa"}
    })"),
                                             "garden-p");
    EXPECT_EQ(secret.provider_types, (std::vector<std::string>{"gcp", "aws"}));
    EXPECT_EQ(secret.secret_namespace, "garden-p");
}

} // namespace
} // namespace kprov::gardener
