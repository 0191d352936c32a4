// Conversion of requests with the original's defaults, and upgrade merging.

#include "runtime_input_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using namespace testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Runtime convert(const json& document, const ConversionOptions& options = k_options) {
    const auto input = parse_provision_input(document);
    validate_provision(input, options);
    return to_runtime(input, "rt-1", "tenant-1", "sub-1", Timestamp(std::chrono::seconds(1000)),
                      options);
}

TEST(RuntimeInputConvert, RuntimeFields) {
    const auto runtime = convert(provision_document());
    EXPECT_EQ(runtime.id, "rt-1");
    EXPECT_EQ(runtime.tenant, "tenant-1");
    EXPECT_EQ(runtime.sub_account_id, "sub-1");
    EXPECT_EQ(runtime.creation_timestamp, Timestamp(std::chrono::seconds(1000)));
    EXPECT_FALSE(runtime.deleted);
    EXPECT_EQ(runtime.name, "my-runtime");
    EXPECT_EQ(runtime.description, "test");
    EXPECT_EQ(runtime.labels_json, R"({"n":1,"team":"a"})");
    EXPECT_EQ(runtime.administrators, std::vector<std::string>{"admin@example.com"});
    EXPECT_FALSE(runtime.kyma);
    EXPECT_FALSE(runtime.kubeconfig);

    json doc = provision_document();
    doc["runtimeInput"] = {{"name", "bare"}};
    doc["clusterConfig"].erase("administrators");
    doc["kymaConfig"] = {
        {"version", "2"},
        {"components", {{{"component", "compass-runtime-agent"}, {"namespace", "kyma-system"}}}}};
    const auto bare = convert(doc);
    EXPECT_EQ(bare.description, "");
    EXPECT_EQ(bare.labels_json, "{}");
    EXPECT_TRUE(bare.administrators.empty());
    ASSERT_TRUE(bare.kyma);
    EXPECT_EQ(bare.kyma->cluster_id, bare.id);
    EXPECT_EQ(bare.kyma->release.version, "2");
    ASSERT_EQ(bare.kyma->components.size(), 1u);
    EXPECT_EQ(bare.kyma->components[0].name, "compass-runtime-agent");
    EXPECT_EQ(bare.kyma->components[0].namespace_, "kyma-system");
    EXPECT_EQ(bare.kyma->components[0].order, 1);
    EXPECT_EQ(bare.kyma->components[0].id.size(), 36u);
    EXPECT_FALSE(bare.kyma->profile);
}

TEST(RuntimeInputConvert, GardenerFieldsAndDefaults) {
    const auto runtime = convert(provision_document());
    const auto& c = runtime.gardener;
    EXPECT_EQ(c.id.size(), 36u);
    EXPECT_NE(c.id, convert(provision_document()).gardener.id); // a new UUID each time
    EXPECT_EQ(c.name, "shoot1");
    EXPECT_EQ(c.project_name, "kyma-dev");
    EXPECT_EQ(c.kubernetes_version, "1.29.2");
    EXPECT_EQ(c.provider, "gcp");
    EXPECT_EQ(c.target_secret, "gcp-secret");
    EXPECT_EQ(c.region, "europe-west3");
    EXPECT_EQ(c.machine_type, "e2-medium");
    EXPECT_EQ(c.disk_type, "pd-balanced");
    EXPECT_EQ(c.volume_size_gb, 32);
    EXPECT_EQ(c.worker_cidr, "10.250.0.0/16");
    EXPECT_EQ(c.auto_scaler_min, 2);
    EXPECT_EQ(c.auto_scaler_max, 4);
    EXPECT_EQ(c.max_surge, 4);
    EXPECT_EQ(c.max_unavailable, 1);
    EXPECT_EQ(c.provider_config, ProviderConfig{GcpConfig{{"europe-west3-b"}}});
    // §4.1 defaults
    EXPECT_EQ(c.seed, "");
    EXPECT_EQ(c.shoot_networking_filter_disabled, true);
    EXPECT_FALSE(c.eu_access);
    EXPECT_FALSE(c.enable_kubernetes_version_auto_update);
    EXPECT_FALSE(c.enable_machine_image_version_auto_update);
    EXPECT_FALSE(c.exposure_class_name);
    EXPECT_FALSE(c.control_plane_failure_tolerance);
    EXPECT_FALSE(c.oidc);
    EXPECT_FALSE(c.dns);
    EXPECT_FALSE(c.pods_cidr);
    EXPECT_FALSE(c.purpose);
}

TEST(RuntimeInputConvert, AutoUpdateDefaultsComeFromTheOptionsWhenOmitted) {
    const ConversionOptions on{"kyma-dev", true, true, true, false, {}};
    auto c = convert(provision_document(), on).gardener;
    EXPECT_TRUE(c.enable_kubernetes_version_auto_update);
    EXPECT_TRUE(c.enable_machine_image_version_auto_update);
    json doc = provision_document();
    gardener(doc)["enableKubernetesVersionAutoUpdate"] = false;
    gardener(doc)["enableMachineImageVersionAutoUpdate"] = false;
    c = convert(doc, on).gardener;
    EXPECT_FALSE(c.enable_kubernetes_version_auto_update);
    EXPECT_FALSE(c.enable_machine_image_version_auto_update);
}

TEST(RuntimeInputConvert, GivenValuesWinOverDefaults) {
    json doc = provision_document();
    gardener(doc)["seed"] = "seed-1";
    gardener(doc)["shootNetworkingFilterDisabled"] = false;
    gardener(doc)["euAccess"] = true;
    gardener(doc)["exposureClassName"] = "internet";
    gardener(doc)["controlPlaneFailureTolerance"] = "node";
    const auto c = convert(doc).gardener;
    EXPECT_EQ(c.seed, "seed-1");
    EXPECT_EQ(c.shoot_networking_filter_disabled, false);
    EXPECT_TRUE(c.eu_access);
    EXPECT_EQ(c.exposure_class_name, "internet");
    EXPECT_EQ(c.control_plane_failure_tolerance, "node");
}

TEST(RuntimeInputConvert, OpenStackForcesTheExposureClassAndDefaultsItsNames) {
    json doc = openstack_document();
    gardener(doc)["exposureClassName"] = "internet";
    auto c = convert(doc).gardener;
    EXPECT_EQ(c.provider, "OpenStack"); // stored as sent
    EXPECT_EQ(c.exposure_class_name, "converged-cloud-internet");
    EXPECT_EQ(c.provider_config,
              (ProviderConfig{OpenStackConfig{
                  {"eu-de-1a"}, "FloatingIP-external-kyma-01", "converged-cloud-kyma", "f5"}}));
    gardener(doc)["providerSpecificConfig"]["openStackConfig"]["floatingPoolName"] = "fp";
    gardener(doc)["providerSpecificConfig"]["openStackConfig"]["cloudProfileName"] = "cp";
    gardener(doc).erase("exposureClassName");
    c = convert(doc).gardener;
    EXPECT_EQ(c.exposure_class_name, "converged-cloud-internet");
    EXPECT_EQ(c.provider_config, (ProviderConfig{OpenStackConfig{{"eu-de-1a"}, "fp", "cp", "f5"}}));
}

TEST(RuntimeInputConvert, DnsDomainsIncludeIsReplacedByTheDomain) {
    json doc = provision_document();
    gardener(doc)["dnsConfig"] = json::parse(R"({"domain": "rt.example.com", "providers": [
        {"domainsInclude": ["other.com", "x.com"], "primary": true, "secretName": "s1", "type": "aws-route53"},
        {"domainsInclude": [], "primary": false, "secretName": "s2", "type": "azure-dns"}]})");
    const auto c = convert(doc).gardener;
    ASSERT_TRUE(c.dns);
    EXPECT_EQ(c.dns->domain, "rt.example.com");
    EXPECT_EQ(c.dns->providers,
              (std::vector<DnsProvider>{{{"rt.example.com"}, true, "s1", "aws-route53"},
                                        {{"rt.example.com"}, false, "s2", "azure-dns"}}));
}

TEST(RuntimeInputConvert, ProviderConfigFollowsTheProviderString) {
    json doc = provision_document();
    gardener(doc)["provider"] = "AZ";
    gardener(doc)["providerSpecificConfig"] =
        json::parse(R"({"azureConfig": {"vnetCidr": "10.250.0.0/16", "enableNatGateway": true}})");
    auto c = convert(doc).gardener;
    EXPECT_EQ(c.provider, "AZ");
    ASSERT_TRUE(std::holds_alternative<AzureConfig>(c.provider_config));
    EXPECT_EQ(std::get<AzureConfig>(c.provider_config).enable_nat_gateway, true);

    gardener(doc)["provider"] = "aws"; // unvalidated input: no sub-config to take
    const auto input = parse_provision_input(doc);
    EXPECT_THAT(
        lines(problems_of([&] { (void)to_runtime(input, "r", "t", "", Timestamp{}, k_options); })),
        ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig: awsConfig is "
                    "missing (provider \"aws\" needs it)"));
}

// ---------------------------------------------------------------------------------------------
// Upgrade merging

GardenerConfig stored_config() {
    GardenerConfig c;
    c.id = "gc-1";
    c.name = "shoot1";
    c.project_name = "kyma-dev";
    c.kubernetes_version = "1.29.2";
    c.volume_size_gb = 50;
    c.machine_type = "m5.large";
    c.machine_image = "gardenlinux";
    c.machine_image_version = "1.0";
    c.region = "eu-central-1";
    c.provider = "AWS";
    c.purpose = "evaluation";
    c.licence_type = "PAYG";
    c.seed = "aws-seed";
    c.target_secret = "secret";
    c.disk_type = "gp3";
    c.worker_cidr = "10.250.0.0/16";
    c.pods_cidr = "100.64.0.0/12";
    c.services_cidr = "100.104.0.0/13";
    c.auto_scaler_min = 2;
    c.auto_scaler_max = 4;
    c.max_surge = 1;
    c.max_unavailable = 0;
    c.enable_kubernetes_version_auto_update = true;
    c.enable_machine_image_version_auto_update = false;
    c.exposure_class_name = "internet";
    c.provider_config = AwsConfig{
        "10.250.0.0/16", {{"eu-central-1a", "10.250.32.0/20", "10.250.48.0/20", "10.250.0.0/19"}}};
    c.shoot_networking_filter_disabled = true;
    c.control_plane_failure_tolerance = "zone";
    c.eu_access = true;
    c.oidc = OidcConfig{"client", "groups", "https://issuer", {"RS256"}, "sub", "-"};
    c.dns = DnsConfig{"rt.example.com", {{{"rt.example.com"}, true, "s", "aws-route53"}}};
    return c;
}

GardenerConfig merge(const GardenerConfig& stored, const std::string& gardener_config) {
    return merge_upgrade(
        stored, parse_upgrade_input(json::parse(R"({"gardenerConfig": )" + gardener_config + "}")));
}

std::vector<FieldProblem> merge_problems(const GardenerConfig& stored,
                                         const std::string& gardener_config) {
    return problems_of([&] { (void)merge(stored, gardener_config); });
}

TEST(RuntimeInputMerge, AnEmptyUpgradeKeepsEverything) {
    EXPECT_EQ(merge(stored_config(), "{}"), stored_config());
}

TEST(RuntimeInputMerge, EachGivenFieldReplacesTheStoredOne) {
    const auto merged = merge(stored_config(), R"({
        "kubernetesVersion": "1.30.1", "machineType": "m5.xlarge", "diskType": "io1",
        "volumeSizeGB": 80, "autoScalerMin": 3, "autoScalerMax": 9, "machineImage": "ubuntu",
        "machineImageVersion": "22.04", "maxSurge": 2, "maxUnavailable": 1,
        "purpose": "production", "enableKubernetesVersionAutoUpdate": false,
        "enableMachineImageVersionAutoUpdate": true, "exposureClassName": "private",
        "shootNetworkingFilterDisabled": false,
        "oidcConfig": {"clientID": "c2", "groupsClaim": "g2", "issuerURL": "https://i2",
                       "signingAlgs": ["ES256"], "usernameClaim": "email", "usernamePrefix": "oidc:"}})");
    auto expected = stored_config();
    expected.kubernetes_version = "1.30.1";
    expected.machine_type = "m5.xlarge";
    expected.disk_type = "io1";
    expected.volume_size_gb = 80;
    expected.auto_scaler_min = 3;
    expected.auto_scaler_max = 9;
    expected.machine_image = "ubuntu";
    expected.machine_image_version = "22.04";
    expected.max_surge = 2;
    expected.max_unavailable = 1;
    expected.purpose = "production";
    expected.enable_kubernetes_version_auto_update = false;
    expected.enable_machine_image_version_auto_update = true;
    expected.exposure_class_name = "private";
    expected.shoot_networking_filter_disabled = false;
    expected.oidc = OidcConfig{"c2", "g2", "https://i2", {"ES256"}, "email", "oidc:"};
    EXPECT_EQ(merged, expected);
}

TEST(RuntimeInputMerge, FieldsAnUpgradeCannotSetAreKept) {
    // The original dropped OIDC, failure tolerance, euAccess, DNS and pods/services CIDRs.
    const auto merged = merge(stored_config(), R"({"kubernetesVersion": "1.30.1"})");
    const auto stored = stored_config();
    EXPECT_EQ(merged.oidc, stored.oidc);
    EXPECT_EQ(merged.control_plane_failure_tolerance, "zone");
    EXPECT_TRUE(merged.eu_access);
    EXPECT_EQ(merged.dns, stored.dns);
    EXPECT_EQ(merged.pods_cidr, "100.64.0.0/12");
    EXPECT_EQ(merged.services_cidr, "100.104.0.0/13");
    EXPECT_EQ(merged.seed, "aws-seed");
    EXPECT_EQ(merged.id, "gc-1");
    EXPECT_EQ(merged.provider, "AWS");
    EXPECT_EQ(merged.licence_type, "PAYG");
    EXPECT_EQ(merged.provider_config, stored.provider_config);
}

TEST(RuntimeInputMerge, ProviderConfigIsReplacedWhenGiven) {
    const auto merged = merge(stored_config(), R"({"providerSpecificConfig": {"awsConfig": {
        "vpcCidr": "10.250.0.0/16", "awsZones": [{"name": "eu-central-1a",
        "publicCidr": "10.250.32.0/20", "internalCidr": "10.250.48.0/20",
        "workerCidr": "10.250.0.0/19"}]}}})");
    EXPECT_EQ(merged.provider_config, stored_config().provider_config);

    auto gcp = stored_config();
    gcp.provider = "gcp";
    gcp.provider_config = GcpConfig{{"europe-west3-a"}};
    EXPECT_EQ(merge(gcp, R"({"providerSpecificConfig": {"gcpConfig": {"zones": ["b", "c"]}}})")
                  .provider_config,
              (ProviderConfig{GcpConfig{{"b", "c"}}}));

    auto openstack = stored_config();
    openstack.provider = "openstack";
    openstack.provider_config = OpenStackConfig{{"a"}, "pool-1", "profile-1", "f5"};
    EXPECT_EQ(merge(openstack, R"({"providerSpecificConfig": {"openStackConfig": {
                  "zones": ["a", "b"], "loadBalancerProvider": "octavia"}}})")
                  .provider_config,
              (ProviderConfig{OpenStackConfig{{"a", "b"}, "pool-1", "profile-1", "octavia"}}));
}

TEST(RuntimeInputMerge, TheCloudCannotChange) {
    EXPECT_THAT(
        lines(merge_problems(stored_config(),
                             R"({"providerSpecificConfig": {"gcpConfig": {"zones": ["a"]}}})")),
        ElementsAre("gardenerConfig.providerSpecificConfig.gcpConfig: Invalid gardener "
                    "provider config change, cannot change the provider from aws to gcp"));
    EXPECT_THAT(lines(merge_problems(stored_config(), R"({"providerSpecificConfig": {}})")),
                ElementsAre("gardenerConfig.providerSpecificConfig: Invalid gardener provider "
                            "config change, awsConfig is missing (the runtime runs on aws)"));
}

// As on provisioning: the runtime's own member is used and the others are ignored, with a
// warning; a config with only other clouds' members is still a change of cloud.
TEST(RuntimeInputMerge, TheRuntimesOwnMemberIsUsedAndTheOthersIgnored) {
    const std::string upgrade = R"({"providerSpecificConfig": {
        "gcpConfig": {"zones": []},
        "awsConfig": {"vpcCidr": "10.250.0.0/16", "awsZones": [{"name": "eu-central-1a",
          "publicCidr": "10.250.32.0/20", "internalCidr": "10.250.48.0/20",
          "workerCidr": "10.250.0.0/19"}]}}})";
    const auto merged = merge(stored_config(), upgrade);
    EXPECT_EQ(merged, stored_config()); // the stored AWS zones, given again
    const auto input = read_upgrade_input(json::parse(R"({"gardenerConfig": )" + upgrade + "}"));
    EXPECT_THAT(upgrade_input_warnings(stored_config(), input),
                ElementsAre("gardenerConfig.providerSpecificConfig.gcpConfig is ignored: the "
                            "runtime runs on aws and uses awsConfig"));

    // The used member's content is checked by the merge, the ignored one's not at all.
    EXPECT_THAT(lines(merge_problems(stored_config(), R"({"providerSpecificConfig": {
        "gcpConfig": {"zones": []}, "awsConfig": {"vpcCidr": "10.250.0/16", "awsZones": []}}})")),
                ElementsAre("gardenerConfig.providerSpecificConfig.awsConfig.vpcCidr: must be "
                            "an IPv4 CIDR such as 10.250.0.0/16, got \"10.250.0/16\"",
                            "gardenerConfig.providerSpecificConfig.awsConfig.awsZones: must "
                            "list at least one zone"));

    const auto only_other = read_upgrade_input(
        json::parse(R"({"gardenerConfig": {"providerSpecificConfig": {"gcpConfig": {"zones":
        ["a"]}, "azureConfig": {"vnetCidr": "10.250.0.0/16"}}}})"));
    EXPECT_THAT(upgrade_input_warnings(stored_config(), only_other), IsEmpty());
    EXPECT_THAT(paths(problems_of([&] { (void)merge_upgrade(stored_config(), only_other); })),
                ElementsAre("gardenerConfig.providerSpecificConfig.gcpConfig",
                            "gardenerConfig.providerSpecificConfig.azureConfig"));
}

TEST(RuntimeInputMerge, AwsZonesKeepTheirCidrs) {
    const auto problems = merge_problems(stored_config(), R"({"providerSpecificConfig": {
        "awsConfig": {"vpcCidr": "10.250.0.0/16", "awsZones": [
          {"name": "eu-central-1a", "publicCidr": "10.250.33.0/24", "internalCidr": "10.250.49.0/24",
           "workerCidr": "10.250.1.0/24"},
          {"name": "eu-central-1b", "publicCidr": "10.250.96.0/20", "internalCidr": "10.250.112.0/20",
           "workerCidr": "10.250.64.0/19"}]}}})");
    const std::string zones = "gardenerConfig.providerSpecificConfig.awsConfig.awsZones";
    EXPECT_THAT(
        lines(problems),
        ElementsAre(zones + "[0].workerCidr: Invalid gardener provider config change, cannot "
                            "change shoot network zone workers CIDR from 10.250.0.0/19 to "
                            "10.250.1.0/24",
                    zones + "[0].internalCidr: Invalid gardener provider config change, cannot "
                            "change shoot network zone internal CIDR from 10.250.48.0/20 to "
                            "10.250.49.0/24",
                    zones + "[0].publicCidr: Invalid gardener provider config change, cannot "
                            "change shoot network zone public CIDR from 10.250.32.0/20 to "
                            "10.250.33.0/24",
                    zones + "[1]: Invalid gardener provider config change, extension of shoot "
                            "network zones is not supported"));
}

AzureConfig zoned_azure() {
    AzureConfig azure;
    azure.vnet_cidr = "10.250.0.0/16";
    azure.azure_zones = std::vector<AzureZone>{{1, "10.250.0.0/19"}, {2, "10.250.32.0/19"}};
    azure.enable_nat_gateway = false;
    return azure;
}

TEST(RuntimeInputMerge, AzureZonesKeepTheirCidrs) {
    auto stored = stored_config();
    stored.provider = "azure";
    stored.provider_config = zoned_azure();
    const auto problems = merge_problems(stored, R"({"providerSpecificConfig": {"azureConfig": {
        "vnetCidr": "10.250.0.0/16", "azureZones": [{"name": 1, "cidr": "10.250.0.0/20"},
        {"name": 2, "cidr": "10.250.32.0/19"}, {"name": 3, "cidr": "10.250.64.0/19"}]}}})");
    const std::string zones = "gardenerConfig.providerSpecificConfig.azureConfig.azureZones";
    EXPECT_THAT(lines(problems),
                ElementsAre(zones + "[0].cidr: Invalid gardener provider config change, cannot "
                                    "change shoot network zone CIDR from 10.250.0.0/19 to "
                                    "10.250.0.0/20",
                            zones + "[2]: Invalid gardener provider config change, extension of "
                                    "shoot network zones is not supported"));

    // Same zones with NAT switched on: allowed, and the new config is stored.
    const auto merged = merge(stored, R"({"providerSpecificConfig": {"azureConfig": {
        "vnetCidr": "10.250.0.0/16", "enableNatGateway": true, "azureZones": [
        {"name": 1, "cidr": "10.250.0.0/19"}, {"name": 2, "cidr": "10.250.32.0/19"}]}}})");
    auto expected = zoned_azure();
    expected.enable_nat_gateway = true;
    EXPECT_EQ(merged.provider_config, ProviderConfig{expected});

    // No zones before: adding one is an extension.
    stored.provider_config = AzureConfig{"10.250.0.0/16", std::nullopt, std::nullopt, {}, {}};
    EXPECT_THAT(paths(merge_problems(stored, R"({"providerSpecificConfig": {"azureConfig": {
        "vnetCidr": "10.250.0.0/16", "azureZones": [{"name": 1, "cidr": "10.250.0.0/19"}]}}})")),
                ElementsAre(zones + "[0]"));
}

TEST(RuntimeInputMerge, TheMergedWorkerPoolMustStillWork) {
    EXPECT_THAT(lines(merge_problems(stored_config(), R"({"autoScalerMin": 5})")),
                ElementsAre("gardenerConfig.autoScalerMin: must be at most autoScalerMax (4, the "
                            "stored value), got 5"));
    EXPECT_THAT(lines(merge_problems(stored_config(), R"({"autoScalerMax": 1})")),
                ElementsAre("gardenerConfig.autoScalerMax: must be at least autoScalerMin (2, the "
                            "stored value), got 1"));
    EXPECT_THAT(paths(merge_problems(stored_config(), R"({"maxSurge": 0})")),
                ElementsAre("gardenerConfig.maxSurge"));
    EXPECT_EQ(merge(stored_config(), R"({"autoScalerMin": 4})").auto_scaler_min, 4);
}

} // namespace
} // namespace kprov::engine
