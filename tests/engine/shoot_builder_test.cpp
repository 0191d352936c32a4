// Golden tests of the Shoot that provisioning creates. The expected files under golden/ were
// written from original-provisioner.md §4.2 and gardener-contract.md §4.2/§4.3, one per variant
// and API mode (X.json: current API; X.legacy.json: APP_GARDENER_LEGACY_API=true). One known
// deviation from §4.2's wording: it names the worker volume's size "volumeSize", which is the Go
// field; on the wire (json tag) Gardener and the original use "size".

#include "engine/error.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "golden.hpp"
#include "support/json_diff.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* k_runtime_id = "0c8b8a52-6f1e-4c1b-9a43-2b1d4e5f6a70";
constexpr const char* k_operation_id = "5a7d7c2e-1c3b-4d5e-8f60-7a8b9c0d1e2f";

Runtime base_runtime() {
    Runtime r;
    r.id = k_runtime_id;
    r.tenant = "ga-4711";
    r.sub_account_id = "sa-0815";
    GardenerConfig& g = r.gardener;
    g.name = "c-1a2b3c4";
    g.project_name = "kyma-dev";
    g.kubernetes_version = "1.30.5";
    g.machine_image = "gardenlinux";
    g.machine_image_version = "1443.3.0";
    g.worker_cidr = "10.250.0.0/16";
    g.pods_cidr = "100.64.0.0/12";
    g.services_cidr = "100.104.0.0/13";
    g.auto_scaler_min = 3;
    g.auto_scaler_max = 20;
    g.max_surge = 4;
    g.max_unavailable = 0;
    g.enable_kubernetes_version_auto_update = true;
    g.enable_machine_image_version_auto_update = false;
    g.shoot_networking_filter_disabled = true;
    return r;
}

Runtime aws_multizone() {
    Runtime r = base_runtime();
    GardenerConfig& g = r.gardener;
    g.provider = "aws";
    g.region = "eu-central-1";
    g.machine_type = "m6i.large";
    g.disk_type = "gp3";
    g.volume_size_gb = 50;
    g.purpose = "evaluation";
    g.target_secret = "gardener-secret-aws";
    g.provider_config =
        AwsConfig{"10.250.0.0/16",
                  {{"eu-central-1a", "10.250.32.0/20", "10.250.48.0/20", "10.250.0.0/19"},
                   {"eu-central-1b", "10.250.96.0/20", "10.250.112.0/20", "10.250.64.0/19"},
                   {"eu-central-1c", "10.250.160.0/20", "10.250.176.0/20", "10.250.128.0/19"}}};
    return r;
}

Runtime azure_base() {
    Runtime r = base_runtime();
    GardenerConfig& g = r.gardener;
    g.provider = "azure";
    g.region = "westeurope";
    g.machine_type = "Standard_D4s_v5";
    g.disk_type = "StandardSSD_LRS";
    g.volume_size_gb = 80;
    g.target_secret = "gardener-secret-azure";
    g.worker_cidr = "10.250.0.0/19";
    return r;
}

/// The example of §4.2's Azure notes: zoned, NAT on, idle timeout defaulted to 4.
Runtime azure_zones_nat() {
    Runtime r = azure_base();
    r.gardener.worker_cidr = "10.10.10.10/255";
    r.gardener.purpose = "production"; // without a window file: no timeWindow
    AzureConfig azure;
    azure.vnet_cidr = "10.10.11.11/255";
    azure.zones = std::vector<std::string>{"1", "2", "3"};
    azure.enable_nat_gateway = true;
    r.gardener.provider_config = azure;
    return r;
}

Runtime azure_azurezones_nat() {
    Runtime r = azure_base();
    r.gardener.purpose = "evaluation";
    AzureConfig azure;
    azure.vnet_cidr = "10.250.0.0/16";
    azure.azure_zones =
        std::vector<AzureZone>{{1, "10.250.0.0/19"}, {2, "10.250.32.0/19"}, {3, "10.250.64.0/19"}};
    azure.enable_nat_gateway = true;
    azure.idle_connection_timeout_minutes = 10;
    r.gardener.provider_config = azure;
    return r;
}

Runtime azure_nonat() {
    Runtime r = azure_base();
    r.gardener.volume_size_gb.reset(); // a disk type alone makes no volume
    AzureConfig azure;
    azure.vnet_cidr = "10.250.0.0/16";
    azure.zones = std::vector<std::string>{"2", "3"};
    azure.enable_nat_gateway = false;
    azure.idle_connection_timeout_minutes = 30;
    r.gardener.provider_config = azure;
    return r;
}

Runtime gcp() {
    Runtime r = base_runtime();
    r.sub_account_id = "";
    GardenerConfig& g = r.gardener;
    g.provider = "gcp";
    g.region = "europe-west3";
    g.machine_type = "n2-standard-4";
    g.machine_image.reset();
    g.machine_image_version.reset();
    g.disk_type = "pd-balanced";
    g.volume_size_gb = 50;
    g.pods_cidr.reset();
    g.services_cidr.reset();
    g.licence_type = "TestDevelopmentAndDemo";
    g.shoot_networking_filter_disabled.reset(); // defaults to disabled (§4.1)
    g.target_secret = "gardener-secret-gcp";
    g.provider_config = GcpConfig{{"europe-west3-a", "europe-west3-b", "europe-west3-c"}};
    return r;
}

/// Floating pool and cloud profile left empty: the builder applies §4.1's defaults itself.
Runtime openstack_defaults() {
    Runtime r = base_runtime();
    GardenerConfig& g = r.gardener;
    g.provider = "openstack";
    g.region = "eu-de-1";
    g.machine_type = "g_c4_m16";
    g.machine_image_version = "";                       // an image name alone
    g.volume_size_gb = 30;                              // a size alone makes no volume
    g.exposure_class_name = "converged-cloud-internet"; // forced by to_runtime (§4.1)
    g.target_secret = "gardener-secret-openstack";
    g.provider_config = OpenStackConfig{{"eu-de-1a"}, "", "", "f5"};
    return r;
}

OidcConfig kyma_oidc() {
    return OidcConfig{"9bd05ed7-a930-44e6-8c79-e6defeb7dec9",
                      "groups",
                      "https://kymatest.accounts400.ondemand.com",
                      {"RS256"},
                      "sub",
                      "-"};
}

Runtime full_featured() {
    Runtime r = azure_base();
    GardenerConfig& g = r.gardener;
    g.purpose = "production";
    g.enable_kubernetes_version_auto_update = false;
    g.enable_machine_image_version_auto_update = true;
    g.licence_type = ""; // present, even empty: annotated
    g.eu_access = true;
    g.seed = "az-eu1";
    g.exposure_class_name = "";
    g.control_plane_failure_tolerance = "zone";
    g.shoot_networking_filter_disabled = false;
    g.oidc = kyma_oidc();
    g.dns = DnsConfig{
        "c-1a2b3c4.kyma-dev.shoot.example.com",
        {{{"other.example.com", "more.example.com"}, true, "aws-route53-secret", "aws-route53"},
         {{}, false, "azure-dns-secret", "azure-dns"}}};
    AzureConfig azure;
    azure.vnet_cidr = "10.250.0.0/16";
    azure.zones = std::vector<std::string>{"1", "2", "3"};
    g.provider_config = azure;
    return r;
}

ShootOptions options_for(bool legacy) {
    ShootOptions o;
    o.project = "ignored-when-the-config-has-one";
    o.legacy_api = legacy;
    return o;
}

ShootOptions full_options(bool legacy) {
    ShootOptions o = options_for(legacy);
    o.audit_policy_config_map = "audit-policy";
    o.maintenance_windows = parse_maintenance_windows(
        R"({"WestEurope": {"begin": "170000+0000", "end": "180000+0000"},
            "eastus": {"begin": "030000+0000", "end": "040000+0000"}})");
    return o;
}

struct Variant {
    std::string golden;
    Runtime (*runtime)();
    ShootOptions (*options)(bool legacy);
    std::string infrastructure; ///< §4.2's byte string with this runtime's values
    std::string control_plane;
};

const Variant k_variants[] = {
    {"shoot-aws-multizone", aws_multizone, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"aws.provider.extensions.gardener.cloud/v1alpha1","networks":{"vpc":{"cidr":"10.250.0.0/16"},"zones":[)"
     R"({"name":"eu-central-1a","internal":"10.250.48.0/20","public":"10.250.32.0/20","workers":"10.250.0.0/19"},)"
     R"({"name":"eu-central-1b","internal":"10.250.112.0/20","public":"10.250.96.0/20","workers":"10.250.64.0/19"},)"
     R"({"name":"eu-central-1c","internal":"10.250.176.0/20","public":"10.250.160.0/20","workers":"10.250.128.0/19"}]}})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"aws.provider.extensions.gardener.cloud/v1alpha1"})"},
    {"shoot-azure-zones-nat", azure_zones_nat, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1","networks":{"vnet":{"cidr":"10.10.11.11/255"},"workers":"10.10.10.10/255","natGateway":{"enabled":true,"idleConnectionTimeoutMinutes":4}},"zoned":true})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1"})"},
    {"shoot-azure-azurezones-nat", azure_azurezones_nat, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1","networks":{"vnet":{"cidr":"10.250.0.0/16"},"zones":[)"
     R"({"name":1,"cidr":"10.250.0.0/19","natGateway":{"enabled":true,"idleConnectionTimeoutMinutes":10}},)"
     R"({"name":2,"cidr":"10.250.32.0/19","natGateway":{"enabled":true,"idleConnectionTimeoutMinutes":10}},)"
     R"({"name":3,"cidr":"10.250.64.0/19","natGateway":{"enabled":true,"idleConnectionTimeoutMinutes":10}}]},"zoned":true})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1"})"},
    {"shoot-azure-nonat", azure_nonat, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1","networks":{"vnet":{"cidr":"10.250.0.0/16"},"workers":"10.250.0.0/19"},"zoned":true})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1"})"},
    {"shoot-gcp", gcp, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"gcp.provider.extensions.gardener.cloud/v1alpha1","networks":{"worker":"10.250.0.0/16","workers":"10.250.0.0/16"}})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"gcp.provider.extensions.gardener.cloud/v1alpha1","zone":"europe-west3-a"})"},
    {"shoot-openstack-defaults", openstack_defaults, options_for,
     R"({"kind":"InfrastructureConfig","apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","floatingPoolName":"FloatingIP-external-kyma-01","networks":{"worker":"","workers":"10.250.0.0/16"}})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","loadBalancerProvider":"f5"})"},
    {"shoot-oidc-dns-ha-euaccess-production", full_featured, full_options,
     R"({"kind":"InfrastructureConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1","networks":{"vnet":{"cidr":"10.250.0.0/16"},"workers":"10.250.0.0/19"},"zoned":true})",
     R"({"kind":"ControlPlaneConfig","apiVersion":"azure.provider.extensions.gardener.cloud/v1alpha1"})"},
};

struct Case {
    const Variant* variant;
    bool legacy;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.variant->golden << (c.legacy ? " (legacy API)" : " (current API)");
}

class ShootGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ShootGolden, MatchesTheReference) {
    const Variant& v = *GetParam().variant;
    const bool legacy = GetParam().legacy;
    const ShootPlan plan = build_shoot(v.runtime(), k_operation_id, v.options(legacy));

    const auto difference = golden::check(v.golden + (legacy ? ".legacy.json" : ".json"),
                                          nlohmann::ordered_json::parse(plan.shoot));
    EXPECT_FALSE(difference) << *difference;

    // The embedded provider configs keep the original's exact bytes (key order included).
    const auto shoot = nlohmann::ordered_json::parse(plan.shoot);
    EXPECT_EQ(shoot["spec"]["provider"]["infrastructureConfig"].dump(), v.infrastructure);
    EXPECT_EQ(shoot["spec"]["provider"]["controlPlaneConfig"].dump(), v.control_plane);
    EXPECT_NE(plan.shoot.find(v.infrastructure), std::string::npos) << "not verbatim in the body";
    EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
}

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const auto& v : k_variants)
        for (bool legacy : {false, true})
            cases.push_back({&v, legacy});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Variants, ShootGolden, ::testing::ValuesIn(all_cases()),
                         [](const auto& param_info) {
                             std::string name = param_info.param.variant->golden.substr(6);
                             for (char& c : name)
                                 if (c == '-')
                                     c = '_';
                             return name + (param_info.param.legacy ? "_legacy" : "_current");
                         });

TEST(ShootOidc, CurrentApiReturnsTheStructuredAuthenticationConfigMap) {
    const ShootPlan plan = build_shoot(full_featured(), k_operation_id, full_options(false));
    ASSERT_TRUE(plan.oidc_config_map);
    auto config_map = nlohmann::ordered_json::parse(*plan.oidc_config_map);
    ASSERT_TRUE(config_map["data"]["config.yaml"].is_string());
    config_map["data"]["config.yaml"] =
        nlohmann::ordered_json::parse(config_map["data"]["config.yaml"].get<std::string>());
    const auto difference =
        golden::check("shoot-oidc-dns-ha-euaccess-production.configmap.json", config_map);
    EXPECT_FALSE(difference) << *difference;
}

TEST(ShootOidc, LegacyApiNeedsNoConfigMap) {
    EXPECT_FALSE(build_shoot(full_featured(), k_operation_id, full_options(true)).oidc_config_map);
    EXPECT_FALSE(build_shoot(gcp(), k_operation_id, options_for(false)).oidc_config_map);
}

json authentication_configuration(const OidcConfig& oidc) {
    const json config_map = json::parse(build_oidc_config_map(oidc, "c-x", "garden-p", ""));
    EXPECT_FALSE(config_map["metadata"].contains("annotations"));
    return json::parse(config_map["data"]["config.yaml"].get<std::string>());
}

TEST(ShootOidc, StructuredAuthenticationKeepsTheLegacyPrefixRules) {
    OidcConfig oidc = kyma_oidc();
    oidc.username_prefix = ""; // unset: "<issuer>#" unless the claim is email
    auto jwt = authentication_configuration(oidc)["jwt"][0];
    EXPECT_EQ(jwt["claimMappings"]["username"]["prefix"],
              "https://kymatest.accounts400.ondemand.com#");
    oidc.username_claim = "email";
    jwt = authentication_configuration(oidc)["jwt"][0];
    EXPECT_EQ(jwt["claimMappings"]["username"]["prefix"], "");
    oidc.username_prefix = "oidc:";
    jwt = authentication_configuration(oidc)["jwt"][0];
    EXPECT_EQ(jwt["claimMappings"]["username"], (json{{"claim", "email"}, {"prefix", "oidc:"}}));
    oidc.username_claim = "";
    oidc.groups_claim = ""; // no groups mapping at all: a prefix without a claim is invalid
    jwt = authentication_configuration(oidc)["jwt"][0];
    EXPECT_EQ(jwt["claimMappings"], (json{{"username", {{"claim", "sub"}, {"prefix", "oidc:"}}}}));
}

// The lifecycle block's schedules go to spec.hibernation as Gardener spells them; without
// schedules the shoot has no hibernation member at all (hibernate and wake-up add `enabled`).
TEST(ShootHibernation, SchedulesAreWrittenAsGardenersAndOnlyWhenThereAreSome) {
    Runtime r = full_featured();
    EXPECT_FALSE(
        json::parse(build_shoot(r, k_operation_id, full_options(false)).shoot)["spec"].contains(
            "hibernation"));
    r.gardener.hibernation_schedules = {{"0 20 * * MON-FRI", "0 7 * * MON-FRI", "Europe/Berlin"},
                                        {"@daily", std::nullopt, std::nullopt}};
    const json shoot = json::parse(build_shoot(r, k_operation_id, full_options(false)).shoot);
    EXPECT_EQ(shoot["spec"]["hibernation"],
              json::parse(R"({"schedules": [{"start": "0 20 * * MON-FRI", "end": "0 7 * * MON-FRI",
                                             "location": "Europe/Berlin"},
                                            {"start": "@daily"}]})"));
}

TEST(ShootMaintenance, ProductionInARegionWithoutWindowOnlyWarns) {
    Runtime r = full_featured();
    r.gardener.region = "northeurope";
    const ShootPlan plan = build_shoot(r, k_operation_id, full_options(false));
    EXPECT_FALSE(json::parse(plan.shoot)["spec"]["maintenance"].contains("timeWindow"));
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_THAT(plan.warnings[0], HasSubstr("\"northeurope\""));
}

TEST(ShootMaintenance, EmptyBeginOrEndOnlyWarns) {
    ShootOptions o = full_options(false);
    o.maintenance_windows =
        parse_maintenance_windows(R"({"westeurope": {"begin": "170000+0000"}})");
    const ShootPlan plan = build_shoot(full_featured(), k_operation_id, o);
    EXPECT_FALSE(json::parse(plan.shoot)["spec"]["maintenance"].contains("timeWindow"));
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_THAT(plan.warnings[0], HasSubstr("empty begin or end"));
}

TEST(ShootMaintenance, OnlyProductionGetsAWindow) {
    Runtime r = full_featured();
    r.gardener.purpose = "evaluation";
    const ShootPlan plan = build_shoot(r, k_operation_id, full_options(false));
    EXPECT_FALSE(json::parse(plan.shoot)["spec"]["maintenance"].contains("timeWindow"));
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(MaintenanceWindows, ParsesAndLowerCasesRegions) {
    const auto windows = parse_maintenance_windows(
        R"({"WestEurope": {"begin": "170000+0000", "end": "180000+0000"}, "x": {}})");
    EXPECT_EQ(windows.at("westeurope"), (MaintenanceWindow{"170000+0000", "180000+0000"}));
    EXPECT_EQ(windows.at("x"), (MaintenanceWindow{}));
    EXPECT_EQ(windows.count("WestEurope"), 0u);
}

TEST(MaintenanceWindows, RejectsBadFilesNamingTheProblem) {
    auto message = [](std::string_view text) {
        try {
            parse_maintenance_windows(text);
        } catch (const ValidationError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_THAT(message("{"), HasSubstr("not valid JSON"));
    EXPECT_THAT(message("[]"), HasSubstr("must be a JSON object keyed by region"));
    EXPECT_THAT(message(R"({"westeurope": "17-18"})"), HasSubstr("westeurope: must be an object"));
    EXPECT_THAT(message(R"({"westeurope": {"begin": 170000, "end": true}})"),
                HasSubstr("westeurope.begin: must be a string"));
    EXPECT_THAT(message(R"({"westeurope": {"begin": 170000, "end": true}})"),
                HasSubstr("westeurope.end: must be a string"));
}

TEST(ShootBuilder, NonZonedAzureHasNoWorkerZonesAndNoNat) {
    Runtime r = azure_nonat();
    auto azure = std::get<AzureConfig>(r.gardener.provider_config);
    azure.zones.reset();
    azure.enable_nat_gateway = true; // NAT needs zones
    r.gardener.provider_config = azure;
    const json shoot = json::parse(build_shoot(r, k_operation_id, options_for(false)).shoot);
    const json& provider = shoot["spec"]["provider"];
    EXPECT_EQ(provider["infrastructureConfig"]["zoned"], false);
    EXPECT_FALSE(provider["infrastructureConfig"]["networks"].contains("natGateway"));
    EXPECT_FALSE(provider["workers"][0].contains("zones"));
}

TEST(ShootBuilder, GcpWithoutZonesIsAValidationErrorNotACrash) {
    Runtime r = gcp();
    r.gardener.provider_config = GcpConfig{};
    EXPECT_THROW(build_shoot(r, k_operation_id, options_for(false)), ValidationError);
}

TEST(ShootBuilder, ProjectFallsBackToTheOptions) {
    Runtime r = gcp();
    r.gardener.project_name = "";
    ShootOptions o = options_for(false);
    o.project = "other";
    EXPECT_EQ(json::parse(build_shoot(r, k_operation_id, o).shoot)["metadata"]["namespace"],
              "garden-other");
}

// gardener-landscape.md §4: from 1.35 Gardener refuses secretName; the same Secret goes in
// credentialsRef beside the type. Nothing is merely warned about any more.
TEST(ShootDns, FromKubernetes135TheSecretIsACredentialsRef) {
    Runtime r = full_featured();
    r.gardener.kubernetes_version = "1.35.4";
    const ShootPlan plan = build_shoot(r, k_operation_id, full_options(false));
    const auto difference =
        golden::check("shoot-dns-1.35.json", nlohmann::ordered_json::parse(plan.shoot));
    EXPECT_FALSE(difference) << *difference;
    EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
    const json shoot = json::parse(plan.shoot); // the loop below must not outlive it
    for (const auto& provider : shoot["spec"]["dns"]["providers"]) {
        EXPECT_FALSE(provider.contains("secretName")) << provider;
        EXPECT_EQ(provider["credentialsRef"]["kind"], "Secret");
        EXPECT_FALSE(provider["type"].get<std::string>().empty());
    }
}

TEST(ShootDns, BelowKubernetes135TheSecretIsNamed) {
    Runtime r = full_featured();
    for (const char* version : {"1.34.6", "1.34"}) {
        r.gardener.kubernetes_version = version;
        const json shoot = json::parse(build_shoot(r, k_operation_id, full_options(false)).shoot);
        EXPECT_EQ(shoot["spec"]["dns"]["providers"][0]["secretName"], "aws-route53-secret")
            << version;
        EXPECT_FALSE(shoot["spec"]["dns"]["providers"][0].contains("credentialsRef")) << version;
    }
}

// The annotation switches nothing on; spec.accessRestrictions does (gardener-landscape.md §4).
TEST(ShootEuAccess, WritesTheAccessRestrictionWithKimsOptions) {
    for (bool legacy : {false, true}) {
        const json shoot =
            json::parse(build_shoot(full_featured(), k_operation_id, full_options(legacy)).shoot);
        EXPECT_EQ(shoot["spec"]["accessRestrictions"],
                  json::parse(R"([{"name": "eu-access-only", "options": {
                      "support.gardener.cloud/eu-access-for-cluster-addons": "true",
                      "support.gardener.cloud/eu-access-for-cluster-nodes": "true"}}])"));
    }
    const json plain = json::parse(build_shoot(gcp(), k_operation_id, options_for(false)).shoot);
    EXPECT_FALSE(plain["spec"].contains("accessRestrictions"));
}

TEST(ShootBuilder, IsDeterministic) {
    const auto a = build_shoot(full_featured(), k_operation_id, full_options(false));
    const auto b = build_shoot(full_featured(), k_operation_id, full_options(false));
    EXPECT_EQ(a.shoot, b.shoot);
    EXPECT_EQ(a.oidc_config_map, b.oidc_config_map);
}

} // namespace
} // namespace kprov::engine
