// Tests of the upgradeShoot patch (original-provisioner.md §2.5 steps 5-6, §4.6). The live
// shoots under golden/upgrade-*.live.json are shaped like Gardener's answers (defaulted fields,
// status, managedFields); the expected files were written from §4.6's list of written fields.

#include "engine/error.hpp"
#include "engine/input/provider_config.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "golden.hpp"
#include "support/json_diff.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

namespace kprov::engine {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string read_golden(const std::string& name) {
    std::ifstream in(golden::path(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

using ordered = nlohmann::ordered_json;

void expect_json(const std::string& golden, const ordered& actual) {
    const auto difference = golden::check(golden, actual);
    EXPECT_FALSE(difference) << golden << ": " << *difference;
}

ShootOptions mode(bool legacy) {
    ShootOptions o;
    o.project = "kyma-dev";
    o.legacy_api = legacy;
    return o;
}

// ----- versions ---------------------------------------------------------------------------------

TEST(KubernetesVersion, KeepsTheNewerLiveVersion) {
    EXPECT_EQ(effective_kubernetes_version("1.31.2", "1.30.8"), "1.31.2");
    EXPECT_EQ(effective_kubernetes_version("1.30.5", "1.31.3"), "1.31.3");
    EXPECT_EQ(effective_kubernetes_version("1.30.5", "1.30.5"), "1.30.5");
    EXPECT_EQ(effective_kubernetes_version("1.30.10", "1.30.9"), "1.30.10"); // numeric, not text
    EXPECT_EQ(effective_kubernetes_version("1.30", "1.30.0"), "1.30.0");     // equal: requested
    EXPECT_EQ(effective_kubernetes_version("v1.31.0", "1.30.0"), "v1.31.0");
    EXPECT_EQ(effective_kubernetes_version("1.31.0", "1.31.0-rc.1"), "1.31.0");
    EXPECT_EQ(effective_kubernetes_version("1.31.0-rc.2", "1.31.0-rc.10"), "1.31.0-rc.10");
    EXPECT_EQ(effective_kubernetes_version("1.31.0+build.7", "1.31.0"), "1.31.0");
}

TEST(KubernetesVersion, UnparsableVersionsUseTheOriginalsMessage) {
    for (const char* bad : {"", "latest", "1..2", "1.30.", "1.30.x", "1.30-", "1.30+", " 1.30"}) {
        try {
            effective_kubernetes_version(bad, "1.30.0");
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const ValidationError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "Failed to parse \"" + std::string(bad) + "\" as a version");
        }
    }
    EXPECT_THROW(effective_kubernetes_version("1.30.0", "one"), ValidationError);
}

TEST(KubernetesVersion, Compares) {
    EXPECT_LT(compare_kubernetes_versions("1.26.9", "1.27.0"), 0);
    EXPECT_EQ(compare_kubernetes_versions("1.27", "1.27.0"), 0);
    EXPECT_GT(compare_kubernetes_versions("2.0.0", "1.99.99"), 0);
    EXPECT_LT(compare_kubernetes_versions("1.31.0-alpha", "1.31.0-alpha.1"), 0);
    EXPECT_LT(compare_kubernetes_versions("1.31.0-1", "1.31.0-alpha"), 0);
}

// ----- golden upgrades ------------------------------------------------------------------------

GardenerConfig aws_merged() {
    GardenerConfig g;
    g.name = "c-1a2b3c4";
    g.project_name = "kyma-dev";
    g.kubernetes_version = "1.30.8"; // older than the live 1.31.2: the live one stays
    g.machine_type = "m6i.xlarge";
    g.machine_image = "gardenlinux";
    g.machine_image_version = "1592.1.0";
    g.disk_type = "gp3";
    g.volume_size_gb = 100;
    g.auto_scaler_min = 4;
    g.auto_scaler_max = 30;
    g.max_surge = 2;
    g.max_unavailable = 1;
    g.purpose = "production";
    g.enable_kubernetes_version_auto_update = false;
    g.enable_machine_image_version_auto_update = true;
    g.exposure_class_name = "";
    g.shoot_networking_filter_disabled =
        false; // stored; the input omits it, so the live value wins
    g.provider_config = AwsConfig{
        "10.250.0.0/16", {{"eu-central-1a", "10.250.32.0/20", "10.250.48.0/20", "10.250.0.0/19"}}};
    return g;
}

class AwsUpgrade : public ::testing::TestWithParam<bool> {};

TEST_P(AwsUpgrade, MatchesTheReference) {
    const bool legacy = GetParam();
    const ShootUpgrade up =
        build_shoot_upgrade(read_golden("upgrade-aws.live.json"), aws_merged(), {}, mode(legacy));
    expect_json(legacy ? "upgrade-aws.legacy.json" : "upgrade-aws.json", ordered::parse(up.shoot));
    EXPECT_EQ(up.kubernetes_version, "1.31.2");
    EXPECT_EQ(up.shoot_networking_filter_disabled, true); // inherited from the live shoot
    EXPECT_FALSE(up.oidc_config_map);
}

INSTANTIATE_TEST_SUITE_P(Modes, AwsUpgrade, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "legacy" : "current"; });

// kprov apply's schedules replace the live shoot's and keep `enabled` (the cluster's state);
// an empty list removes them, and an upgrade that does not name them leaves them as they are.
TEST(HibernationScheduleUpgrade, ReplacesKeepsOrRemovesTheSchedules) {
    json live = json::parse(read_golden("upgrade-aws.live.json"));
    live["spec"]["hibernation"] = {{"enabled", true},
                                   {"schedules", json::array({{{"start", "0 1 * * *"}}})}};
    auto upgraded = [&](std::optional<std::vector<HibernationSchedule>> schedules) {
        UpgradeShootInput input;
        input.gardener.hibernation_schedules = std::move(schedules);
        return json::parse(
            build_shoot_upgrade(live.dump(), aws_merged(), input, mode(false)).shoot)["spec"];
    };
    EXPECT_EQ(upgraded(std::nullopt)["hibernation"], live["spec"]["hibernation"]);
    EXPECT_EQ(upgraded(std::vector<HibernationSchedule>{
                  {std::nullopt, "0 7 * * *", "UTC"}})["hibernation"],
              json::parse(R"({"enabled": true,
                              "schedules": [{"end": "0 7 * * *", "location": "UTC"}]})"));
    EXPECT_EQ(upgraded(std::vector<HibernationSchedule>{})["hibernation"],
              json::parse(R"({"enabled": true})"));
    live["spec"]["hibernation"].erase("enabled");
    EXPECT_FALSE(upgraded(std::vector<HibernationSchedule>{}).contains("hibernation"));
}

// gardener-landscape.md §4: a GET of a 1.34 shoot has secretName and credentialsRef in step;
// the update that raises it to 1.35 drops secretName (Gardener refuses it there) and keeps the
// Secret through credentialsRef, adding one where the shoot had only secretName.
TEST(DnsUpgrade, RaisingTo135MovesSecretNamesToCredentialsRefs) {
    json live = json::parse(read_golden("upgrade-aws.live.json"));
    live["spec"]["kubernetes"]["version"] = "1.34.6";
    live["spec"]["dns"] = json::parse(R"({"domain": "c-1a2b3c4.kyma-dev.shoot.example.com",
        "providers": [
          {"primary": true, "secretName": "route53", "type": "aws-route53",
           "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "route53"}},
          {"primary": false, "secretName": "azure-dns", "type": "azure-dns"}]})");
    GardenerConfig merged = aws_merged();
    auto upgraded = [&](const std::string& version) {
        merged.kubernetes_version = version;
        return json::parse(build_shoot_upgrade(live.dump(), merged, {}, mode(false)).shoot);
    };
    const json raised = upgraded("1.35.4");
    EXPECT_EQ(raised["spec"]["kubernetes"]["version"], "1.35.4");
    EXPECT_EQ(raised["spec"]["dns"],
              json::parse(R"({"domain": "c-1a2b3c4.kyma-dev.shoot.example.com",
        "providers": [
          {"primary": true, "type": "aws-route53",
           "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "route53"}},
          {"primary": false, "type": "azure-dns",
           "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "azure-dns"}}]})"));
    // Nothing else differs from the same upgrade without DNS.
    json without = raised;
    without["spec"].erase("dns");
    live["spec"].erase("dns");
    EXPECT_EQ(without, upgraded("1.35.4"));
    // Below 1.35 the providers stay as they are.
    live["spec"]["dns"] = raised["spec"]["dns"];
    live["spec"]["dns"]["providers"][1] = {
        {"primary", false}, {"secretName", "azure-dns"}, {"type", "azure-dns"}};
    EXPECT_EQ(upgraded("1.34.7")["spec"]["dns"], live["spec"]["dns"]);
}

// A shoot that still carries oidcConfig (made by the original provisioner or in legacy mode)
// raised to 1.32: Gardener refuses oidcConfig there (gardener-landscape.md §4), so the same
// update moves it to structured authentication, with the ConfigMap a new shoot gets.
json live_with_oidc(const json& oidc) {
    json live = json::parse(read_golden("upgrade-aws.live.json"));
    live["spec"]["kubernetes"]["version"] = "1.31.2";
    live["spec"]["kubernetes"]["kubeAPIServer"]["oidcConfig"] = oidc;
    return live;
}

TEST(OidcUpgrade, RaisingTo132MovesTheLiveOidcConfigToStructuredAuthentication) {
    const json oidc = {{"clientID", "kyma"},
                       {"groupsClaim", "groups"},
                       {"issuerURL", "https://issuer.example.com"},
                       {"signingAlgs", {"RS256"}},
                       {"usernameClaim", "sub"},
                       {"usernamePrefix", "-"}};
    const json live = live_with_oidc(oidc);
    GardenerConfig merged = aws_merged();
    merged.kubernetes_version = "1.32.4";
    const ShootUpgrade up = build_shoot_upgrade(live.dump(), merged, {}, mode(false));
    const json server = json::parse(up.shoot)["spec"]["kubernetes"]["kubeAPIServer"];
    EXPECT_FALSE(server.contains("oidcConfig")) << server.dump();
    EXPECT_EQ(server["structuredAuthentication"]["configMapName"],
              structured_auth_config_map_name("c-1a2b3c4"));
    ASSERT_TRUE(up.oidc);
    EXPECT_EQ(*up.oidc,
              (OidcConfig{"kyma", "groups", "https://issuer.example.com", {"RS256"}, "sub", "-"}));
    ASSERT_TRUE(up.oidc_config_map);
    const json config_map = json::parse(*up.oidc_config_map);
    EXPECT_EQ(config_map["metadata"]["name"], structured_auth_config_map_name("c-1a2b3c4"));
    const json config = json::parse(config_map["data"]["config.yaml"].get<std::string>());
    EXPECT_EQ(config["apiVersion"], "apiserver.config.k8s.io/v1beta1");
    EXPECT_EQ(config["jwt"][0]["issuer"]["url"], "https://issuer.example.com");
    EXPECT_EQ(config["jwt"][0]["issuer"]["audiences"], json::array({"kyma"}));
    EXPECT_EQ(config["jwt"][0]["claimMappings"]["groups"]["claim"], "groups");
    EXPECT_EQ(config["jwt"][0]["claimMappings"]["username"],
              (json{{"claim", "sub"}, {"prefix", ""}}));

    // Below 1.32, and in legacy mode (which refuses 1.32 with OIDC before this), it stays.
    const json& kept = live["spec"]["kubernetes"]["kubeAPIServer"]["oidcConfig"];
    merged.kubernetes_version = "1.31.9";
    const ShootUpgrade below = build_shoot_upgrade(live.dump(), merged, {}, mode(false));
    EXPECT_EQ(json::parse(below.shoot)["spec"]["kubernetes"]["kubeAPIServer"]["oidcConfig"], kept);
    EXPECT_FALSE(below.oidc_config_map);
    merged.kubernetes_version = "1.32.4";
    const ShootUpgrade legacy = build_shoot_upgrade(live.dump(), merged, {}, mode(true));
    EXPECT_EQ(json::parse(legacy.shoot)["spec"]["kubernetes"]["kubeAPIServer"]["oidcConfig"], kept);
}

TEST(OidcUpgrade, WhatStructuredAuthenticationCannotCarryIsRefusedNamingEveryMember) {
    const json live = live_with_oidc({{"clientID", ""},
                                      {"issuerURL", "https://issuer.example.com"},
                                      {"caBundle", "-----BEGIN CERTIFICATE-----"},
                                      {"requiredClaims", {{"tenant", "a"}}}});
    GardenerConfig merged = aws_merged();
    merged.kubernetes_version = "1.32.4";
    try {
        build_shoot_upgrade(live.dump(), merged, {}, mode(false));
        ADD_FAILURE() << "no error";
    } catch (const ValidationError& e) {
        std::vector<std::string> paths;
        for (const auto& problem : e.problems()) {
            paths.push_back(problem.path);
            EXPECT_THAT(problem.message, HasSubstr("Kubernetes 1.32.4"));
            EXPECT_THAT(problem.message, HasSubstr("gardenerConfig.oidcConfig"));
        }
        const std::string base = "spec.kubernetes.kubeAPIServer.oidcConfig.";
        EXPECT_THAT(paths, ::testing::UnorderedElementsAre(
                               base + "caBundle", base + "requiredClaims", base + "clientID"));
        EXPECT_THAT(e.problems()[0].message, HasSubstr("-----BEGIN CERTIFICATE-----"));
    }
    // An OIDC config in the request replaces the shoot's: nothing left to refuse.
    UpgradeShootInput input;
    input.gardener.oidc = OidcConfig{"kyma", "", "https://issuer.example.com", {}, "", ""};
    const json server = json::parse(build_shoot_upgrade(live.dump(), merged, input, mode(false))
                                        .shoot)["spec"]["kubernetes"]["kubeAPIServer"];
    EXPECT_FALSE(server.contains("oidcConfig"));
    EXPECT_TRUE(server.contains("structuredAuthentication"));
}

GardenerConfig azure_merged() {
    GardenerConfig g;
    g.name = "c-1a2b3c4";
    g.project_name = "kyma-dev";
    g.kubernetes_version = "1.31.3";
    g.machine_type = "Standard_D8s_v5";
    g.machine_image = "gardenlinux";
    g.machine_image_version = "1443.3.0";
    g.disk_type = "StandardSSD_LRS";
    g.volume_size_gb = 80;
    g.auto_scaler_min = 3;
    g.auto_scaler_max = 20;
    g.max_surge = 4;
    g.max_unavailable = 0;
    g.enable_kubernetes_version_auto_update = true;
    g.enable_machine_image_version_auto_update = true;
    AzureConfig azure;
    azure.vnet_cidr = "10.250.0.0/16";
    azure.zones = std::vector<std::string>{"1", "2", "3"};
    azure.enable_nat_gateway = true;
    azure.idle_connection_timeout_minutes = 8;
    g.provider_config = azure;
    return g;
}

UpgradeShootInput azure_input() {
    UpgradeShootInput input;
    input.gardener.kubernetes_version = "1.31.3";
    input.gardener.shoot_networking_filter_disabled = false;
    input.gardener.oidc = OidcConfig{"new-client",       "roles", "https://new.example.com",
                                     {"RS256", "ES256"}, "email", ""};
    return input;
}

class AzureUpgrade : public ::testing::TestWithParam<bool> {};

TEST_P(AzureUpgrade, MatchesTheReference) {
    const bool legacy = GetParam();
    const ShootUpgrade up = build_shoot_upgrade(read_golden("upgrade-azure.live.json"),
                                                azure_merged(), azure_input(), mode(legacy));
    expect_json(legacy ? "upgrade-azure.legacy.json" : "upgrade-azure.json",
                ordered::parse(up.shoot));
    EXPECT_EQ(up.kubernetes_version, "1.31.3");
    EXPECT_EQ(up.shoot_networking_filter_disabled, false);
    if (legacy) {
        EXPECT_FALSE(up.oidc_config_map);
        return;
    }
    ASSERT_TRUE(up.oidc_config_map);
    ordered config_map = ordered::parse(*up.oidc_config_map);
    config_map["data"]["config.yaml"] =
        ordered::parse(config_map["data"]["config.yaml"].get<std::string>());
    expect_json("upgrade-azure.configmap.json", config_map);
}

INSTANTIATE_TEST_SUITE_P(Modes, AzureUpgrade, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "legacy" : "current"; });

// ----- Azure NAT -------------------------------------------------------------------------------

json azure_infrastructure_after(const json& live_infrastructure, const AzureConfig& azure) {
    json live = json::parse(read_golden("upgrade-azure.live.json"));
    live["spec"]["provider"]["infrastructureConfig"] = live_infrastructure;
    GardenerConfig merged = azure_merged();
    merged.provider_config = azure;
    const auto up = build_shoot_upgrade(live.dump(), merged, {}, mode(false));
    return json::parse(up.shoot)["spec"]["provider"]["infrastructureConfig"];
}

const json k_zoned_with_nat = json::parse(R"({
    "kind": "InfrastructureConfig", "apiVersion": "azure.provider.extensions.gardener.cloud/v1alpha1",
    "networks": {"vnet": {"cidr": "10.250.0.0/16"}, "workers": "10.250.0.0/19",
                 "natGateway": {"enabled": true, "idleConnectionTimeoutMinutes": 4}},
    "zoned": true})");

const json k_per_zone = json::parse(R"({
    "kind": "InfrastructureConfig", "apiVersion": "azure.provider.extensions.gardener.cloud/v1alpha1",
    "networks": {"vnet": {"cidr": "10.250.0.0/16"},
                 "zones": [{"name": 1, "cidr": "10.250.0.0/19"},
                           {"name": 2, "cidr": "10.250.32.0/19",
                            "natGateway": {"enabled": true, "idleConnectionTimeoutMinutes": 4,
                                           "ipAddresses": [{"name": "ip-2", "resourceGroup": "rg"}]}}]},
    "zoned": true})");

AzureConfig azure_config(std::optional<bool> nat, std::optional<int> timeout, bool azure_zones) {
    AzureConfig c;
    c.vnet_cidr = "10.240.0.0/16";
    if (azure_zones)
        c.azure_zones = std::vector<AzureZone>{{1, "10.250.0.0/19"}, {2, "10.250.32.0/19"}};
    else
        c.zones = std::vector<std::string>{"1", "2", "3"};
    c.enable_nat_gateway = nat;
    c.idle_connection_timeout_minutes = timeout;
    return c;
}

TEST(AzureNatUpgrade, NatOffRemovesTheNetworkGatewayAndSetsTheVnet) {
    json expected = k_zoned_with_nat;
    expected["networks"].erase("natGateway");
    expected["networks"]["vnet"]["cidr"] = "10.240.0.0/16";
    const auto difference = test_support::first_difference(
        expected, azure_infrastructure_after(k_zoned_with_nat, azure_config(false, {}, false)));
    EXPECT_FALSE(difference) << *difference;
}

TEST(AzureNatUpgrade, NatOnDefaultsTheTimeoutToFour) {
    json live = k_zoned_with_nat;
    live["networks"].erase("natGateway");
    const json after = azure_infrastructure_after(live, azure_config(true, {}, false));
    EXPECT_EQ(after["networks"]["natGateway"],
              (json{{"enabled", true}, {"idleConnectionTimeoutMinutes", 4}}));
}

TEST(AzureNatUpgrade, PerZoneNatOnEveryExistingZone) {
    const json after = azure_infrastructure_after(k_per_zone, azure_config(true, 15, true));
    ASSERT_EQ(after["networks"]["zones"].size(), 2u);
    EXPECT_EQ(after["networks"]["zones"][0]["natGateway"],
              (json{{"enabled", true}, {"idleConnectionTimeoutMinutes", 15}}));
    EXPECT_EQ(after["networks"]["zones"][1]["natGateway"],
              (json{{"enabled", true},
                    {"idleConnectionTimeoutMinutes", 15},
                    {"ipAddresses", {{{"name", "ip-2"}, {"resourceGroup", "rg"}}}}}));
    EXPECT_FALSE(after["networks"].contains("natGateway"));
}

TEST(AzureNatUpgrade, PerZoneNatOffRemovesItFromEveryZone) {
    const json after = azure_infrastructure_after(k_per_zone, azure_config(false, {}, true));
    for (const auto& zone : after["networks"]["zones"])
        EXPECT_FALSE(zone.contains("natGateway")) << zone.dump();
    EXPECT_EQ(after["networks"]["vnet"]["cidr"], "10.240.0.0/16");
}

TEST(AzureNatUpgrade, WithoutEnableNatGatewayTheInfrastructureIsUntouched) {
    EXPECT_EQ(azure_infrastructure_after(k_zoned_with_nat, azure_config({}, 9, false)),
              k_zoned_with_nat);
}

TEST(AzureNatUpgrade, UnreadableInfrastructureIsAnErrorNotACrash) {
    json live = json::parse(read_golden("upgrade-azure.live.json"));
    live["spec"]["provider"].erase("infrastructureConfig");
    GardenerConfig merged = azure_merged();
    EXPECT_THROW(build_shoot_upgrade(live.dump(), merged, {}, mode(false)), Error);
}

// ----- the other providers ----------------------------------------------------------------------

class OtherProviderUpgrade : public ::testing::TestWithParam<ProviderConfig> {};

TEST_P(OtherProviderUpgrade, OnlyUpdatesTheDatabaseNotTheProviderConfigs) {
    Runtime runtime;
    runtime.id = "rt";
    runtime.gardener = aws_merged();
    runtime.gardener.kubernetes_version = "1.30.1";
    runtime.gardener.worker_cidr = "10.250.0.0/16";
    runtime.gardener.provider_config = GetParam();
    const json live = json::parse(build_shoot(runtime, "op", mode(false)).shoot);

    GardenerConfig merged = runtime.gardener;
    merged.kubernetes_version = "1.31.0";
    merged.machine_type = "bigger";
    // A changed provider config must not reach the infrastructure (§4.6, "other providers").
    merged.provider_config = std::visit(
        [](auto config) -> ProviderConfig {
            if constexpr (std::is_same_v<decltype(config), OpenStackConfig>)
                config.floating_pool_name = "other-pool";
            else if constexpr (std::is_same_v<decltype(config), GcpConfig>)
                config.zones = {"other-zone"};
            else if constexpr (std::is_same_v<decltype(config), AwsConfig>)
                config.vpc_cidr = "10.0.0.0/8";
            return config;
        },
        GetParam());
    const json after = json::parse(build_shoot_upgrade(live.dump(), merged, {}, mode(false)).shoot);
    EXPECT_EQ(after["spec"]["provider"]["infrastructureConfig"],
              live["spec"]["provider"]["infrastructureConfig"]);
    EXPECT_EQ(after["spec"]["provider"]["controlPlaneConfig"],
              live["spec"]["provider"]["controlPlaneConfig"]);
    EXPECT_EQ(after["spec"]["provider"]["workers"][0]["zones"],
              live["spec"]["provider"]["workers"][0]["zones"]);
    EXPECT_EQ(after["spec"]["provider"]["workers"][0]["machine"]["type"], "bigger");
    EXPECT_EQ(after["spec"]["kubernetes"]["version"], "1.31.0");
}

INSTANTIATE_TEST_SUITE_P(
    Providers, OtherProviderUpgrade,
    ::testing::Values(ProviderConfig{GcpConfig{{"europe-west3-a"}}},
                      ProviderConfig{
                          AwsConfig{"10.250.0.0/16", {{"eu-central-1a", "a", "b", "c"}}}},
                      ProviderConfig{OpenStackConfig{{"eu-de-1a"}, "pool", "profile", "f5"}}),
    [](const auto& p) { return std::string(provider_type(p.param)); });

// ----- robustness -----------------------------------------------------------------------------

json aws_live() {
    return json::parse(read_golden("upgrade-aws.live.json"));
}

json upgraded(const json& live, const GardenerConfig& merged, const UpgradeShootInput& input = {},
              bool legacy = false) {
    return json::parse(build_shoot_upgrade(live.dump(), merged, input, mode(legacy)).shoot);
}

TEST(ShootUpgrade, NoWorkersIsTheOriginalsError) {
    for (const json& workers : {json::array(), json(nullptr)}) {
        json live = aws_live();
        live["spec"]["provider"]["workers"] = workers;
        try {
            upgraded(live, aws_merged());
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()),
                      "no worker groups assigned to Gardener shoot 'c-1a2b3c4'");
        }
    }
    json live = aws_live();
    live["spec"].erase("provider");
    EXPECT_THROW(upgraded(live, aws_merged()), Error);
}

TEST(ShootUpgrade, CreatesMissingVolumeAndImageInsteadOfCrashing) {
    json live = aws_live();
    json& worker = live["spec"]["provider"]["workers"][0];
    worker.erase("volume");
    worker["machine"].erase("image");
    const json after = upgraded(live, aws_merged())["spec"]["provider"]["workers"][0];
    EXPECT_EQ(after["volume"], (json{{"type", "gp3"}, {"size", "100Gi"}}));
    EXPECT_EQ(after["machine"]["image"], (json{{"name", "gardenlinux"}, {"version", "1592.1.0"}}));
}

TEST(ShootUpgrade, NeverCreatesAVolumeWithoutSizeOrAnImageWithoutName) {
    json live = aws_live();
    json& worker = live["spec"]["provider"]["workers"][0];
    worker.erase("volume");
    worker["machine"].erase("image");
    GardenerConfig merged = aws_merged();
    merged.volume_size_gb.reset();
    merged.machine_image.reset();
    const json after = upgraded(live, merged)["spec"]["provider"]["workers"][0];
    EXPECT_FALSE(after.contains("volume"));
    EXPECT_FALSE(after["machine"].contains("image"));
}

TEST(ShootUpgrade, WorkerNotAnObjectIsReplacedNotDereferenced) {
    json live = aws_live();
    live["spec"]["provider"]["workers"][0] = nullptr;
    live["spec"].erase("maintenance");
    live["spec"].erase("kubernetes");
    const json after = upgraded(live, aws_merged());
    EXPECT_EQ(after["spec"]["provider"]["workers"][0]["machine"]["type"], "m6i.xlarge");
    EXPECT_EQ(after["spec"]["maintenance"]["autoUpdate"]["machineImageVersion"], true);
    EXPECT_EQ(after["spec"]["kubernetes"]["version"], "1.30.8"); // nothing live to keep
}

TEST(ShootUpgrade, NetworkingFilterFromTheInputReplacesTheExtensionAndKeepsItsConfig) {
    json live = aws_live();
    live["spec"]["extensions"][0]["providerConfig"] = {
        {"egressFilter", {{"blackholingEnabled", true}}}};
    UpgradeShootInput input;
    input.gardener.shoot_networking_filter_disabled = false;
    const json extensions = upgraded(live, aws_merged(), input)["spec"]["extensions"];
    ASSERT_EQ(extensions.size(), 3u);
    EXPECT_EQ(extensions[2],
              (json{{"type", "shoot-networking-filter"},
                    {"providerConfig", {{"egressFilter", {{"blackholingEnabled", true}}}}},
                    {"disabled", false}}));
}

TEST(ShootUpgrade, UnknownNetworkingFilterLeavesTheExtensionsAlone) {
    json live = aws_live();
    live["spec"]["extensions"][0].erase("disabled");
    const std::string text = live.dump();
    EXPECT_FALSE(live_networking_filter_disabled(text));
    const auto up = build_shoot_upgrade(text, aws_merged(), {}, mode(false));
    EXPECT_FALSE(up.shoot_networking_filter_disabled);
    EXPECT_EQ(json::parse(up.shoot)["spec"]["extensions"], live["spec"]["extensions"]);
}

TEST(ShootUpgrade, ReadsTheLiveNetworkingFilter) {
    EXPECT_EQ(live_networking_filter_disabled(read_golden("upgrade-aws.live.json")), true);
    EXPECT_FALSE(live_networking_filter_disabled("not json"));
    EXPECT_FALSE(live_networking_filter_disabled(R"({"spec": {"extensions": "x"}})"));
}

TEST(ShootUpgrade, LegacyAddsNoStaticTokenFlagBefore127) {
    json live = aws_live();
    live["spec"]["kubernetes"]["version"] = "1.26.3";
    live["spec"]["kubernetes"].erase("enableStaticTokenKubeconfig");
    GardenerConfig merged = aws_merged();
    merged.kubernetes_version = "1.26.9";
    const json kubernetes = upgraded(live, merged, {}, true)["spec"]["kubernetes"];
    EXPECT_FALSE(kubernetes.contains("enableStaticTokenKubeconfig"));
    EXPECT_FALSE(kubernetes.contains("allowPrivilegedContainers"));
    EXPECT_EQ(kubernetes["version"], "1.26.9");
}

TEST(ShootUpgrade, SetsKindAndApiVersionAndDropsManagedFields) {
    json live = aws_live();
    live.erase("kind");
    live.erase("apiVersion");
    const std::string text = build_shoot_upgrade(live.dump(), aws_merged(), {}, mode(false)).shoot;
    EXPECT_EQ(text.rfind(R"({"kind":"Shoot","apiVersion":"core.gardener.cloud/v1beta1",)", 0), 0u);
    EXPECT_FALSE(json::parse(text)["metadata"].contains("managedFields"));
}

TEST(ShootUpgrade, ExposureClassAndPurposeOnlyWhenNonEmpty) {
    GardenerConfig merged = aws_merged();
    merged.purpose = "";
    merged.exposure_class_name = "internet";
    const json spec = upgraded(aws_live(), merged)["spec"];
    EXPECT_EQ(spec["purpose"], "evaluation");
    EXPECT_EQ(spec["exposureClassName"], "internet");
}

TEST(ShootUpgrade, RejectsTextThatIsNotAShootObject) {
    EXPECT_THROW(build_shoot_upgrade("[]", aws_merged(), {}, mode(false)), Error);
    EXPECT_THROW(build_shoot_upgrade("{", aws_merged(), {}, mode(false)), Error);
}

TEST(ShootUpgrade, UnparsableLiveVersionIsAValidationError) {
    json live = aws_live();
    live["spec"]["kubernetes"]["version"] = "latest";
    EXPECT_THROW(upgraded(live, aws_merged()), ValidationError);
}

} // namespace
} // namespace kprov::engine
