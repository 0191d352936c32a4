// Runtime and upgrade requests as users send them: parsing, with every problem at once and its
// path.

#include "runtime_input_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using namespace testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RuntimeInputParse, ReadsEveryFieldOfACompleteDocument) {
    json doc = provision_document();
    auto& g = gardener(doc);
    g["machineImage"] = "gardenlinux";
    g["machineImageVersion"] = "1443.3.0";
    g["podsCidr"] = "100.64.0.0/12";
    g["servicesCidr"] = "100.104.0.0/13";
    g["purpose"] = "evaluation";
    g["licenceType"] = "PAYG";
    g["enableKubernetesVersionAutoUpdate"] = true;
    g["enableMachineImageVersionAutoUpdate"] = false;
    g["seed"] = "gcp-eu1";
    g["exposureClassName"] = "internet";
    g["shootNetworkingFilterDisabled"] = false;
    g["controlPlaneFailureTolerance"] = "zone";
    g["euAccess"] = true;
    g["dnsConfig"] = {{"domain", "a.example.com"},
                      {"providers",
                       {{{"domainsInclude", {"x"}},
                         {"primary", true},
                         {"secretName", "s"},
                         {"type", "aws-route53"}}}}};
    g["oidcConfig"] = {{"clientID", "c"},          {"groupsClaim", "groups"},
                       {"issuerURL", "https://i"}, {"signingAlgs", {"RS256"}},
                       {"usernameClaim", "sub"},   {"usernamePrefix", "-"}};
    doc["kymaConfig"] = {
        {"version", "2.0"},
        {"components", {{{"component", "compass-runtime-agent"}, {"namespace", "kyma-system"}}}}};

    const auto input = parse_provision_input(doc);
    EXPECT_EQ(input.runtime.name, "my-runtime");
    EXPECT_EQ(input.runtime.description, "test");
    EXPECT_EQ(input.runtime.labels_json, R"({"n":1,"team":"a"})");
    EXPECT_EQ(input.administrators, std::vector<std::string>{"admin@example.com"});
    const auto& c = input.gardener;
    EXPECT_EQ(c.name, "shoot1");
    EXPECT_EQ(c.kubernetes_version, "1.29.2");
    EXPECT_EQ(c.provider, "gcp");
    EXPECT_EQ(c.target_secret, "gcp-secret");
    EXPECT_EQ(c.region, "europe-west3");
    EXPECT_EQ(c.machine_type, "e2-medium");
    EXPECT_EQ(c.machine_image, "gardenlinux");
    EXPECT_EQ(c.machine_image_version, "1443.3.0");
    EXPECT_EQ(c.disk_type, "pd-balanced");
    EXPECT_EQ(c.volume_size_gb, 32);
    EXPECT_EQ(c.worker_cidr, "10.250.0.0/16");
    EXPECT_EQ(c.pods_cidr, "100.64.0.0/12");
    EXPECT_EQ(c.services_cidr, "100.104.0.0/13");
    EXPECT_EQ(c.auto_scaler_min, 2);
    EXPECT_EQ(c.auto_scaler_max, 4);
    EXPECT_EQ(c.max_surge, 4);
    EXPECT_EQ(c.max_unavailable, 1);
    EXPECT_EQ(c.purpose, "evaluation");
    EXPECT_EQ(c.licence_type, "PAYG");
    EXPECT_EQ(c.enable_kubernetes_version_auto_update, true);
    EXPECT_EQ(c.enable_machine_image_version_auto_update, false);
    ASSERT_TRUE(c.provider_config.gcp);
    EXPECT_EQ(c.provider_config.gcp->zones, std::vector<std::string>{"europe-west3-b"});
    EXPECT_FALSE(c.provider_config.azure || c.provider_config.aws || c.provider_config.openstack);
    ASSERT_TRUE(c.dns);
    EXPECT_EQ(c.dns->domain, "a.example.com");
    ASSERT_EQ(c.dns->providers.size(), 1u);
    EXPECT_EQ(c.dns->providers[0].type, "aws-route53");
    EXPECT_TRUE(c.dns->providers[0].primary);
    EXPECT_EQ(c.seed, "gcp-eu1");
    ASSERT_TRUE(c.oidc);
    EXPECT_EQ(c.oidc->issuer_url, "https://i");
    EXPECT_EQ(c.oidc->signing_algs, std::vector<std::string>{"RS256"});
    EXPECT_EQ(c.exposure_class_name, "internet");
    EXPECT_EQ(c.shoot_networking_filter_disabled, false);
    EXPECT_EQ(c.control_plane_failure_tolerance, "zone");
    EXPECT_EQ(c.eu_access, true);
    ASSERT_TRUE(input.kyma_config_json);
    EXPECT_EQ(json::parse(*input.kyma_config_json)["version"], "2.0");
}

TEST(RuntimeInputParse, OmittedAndNullOptionalFieldsAreAbsent) {
    json doc = provision_document();
    gardener(doc)["seed"] = nullptr;
    gardener(doc)["dnsConfig"] = nullptr;
    doc["runtimeInput"].erase("labels");
    doc["runtimeInput"]["description"] = nullptr;
    doc["kymaConfig"] = nullptr;
    doc["clusterConfig"].erase("administrators");
    const auto input = parse_provision_input(doc);
    EXPECT_FALSE(input.gardener.seed);
    EXPECT_FALSE(input.gardener.dns);
    EXPECT_FALSE(input.gardener.oidc);
    EXPECT_FALSE(input.runtime.labels_json);
    EXPECT_FALSE(input.runtime.description);
    EXPECT_FALSE(input.kyma_config_json);
    EXPECT_FALSE(input.administrators);
}

TEST(RuntimeInputParse, ReadsEachProviderSubConfig) {
    json doc = provision_document();
    gardener(doc)["providerSpecificConfig"] = json::parse(R"({
      "azureConfig": {"vnetCidr": "10.250.0.0/16", "zones": ["1"],
                      "azureZones": [{"name": 1, "cidr": "10.250.0.0/19"}],
                      "enableNatGateway": true, "idleConnectionTimeoutMinutes": 4},
      "awsConfig": {"vpcCidr": "10.250.0.0/16", "awsZones": [{"name": "eu-central-1a",
                    "publicCidr": "10.250.32.0/20", "internalCidr": "10.250.48.0/20",
                    "workerCidr": "10.250.0.0/19"}]},
      "openStackConfig": {"zones": ["eu-de-1a"], "loadBalancerProvider": "f5"}
    })");
    const auto p = parse_provision_input(doc).gardener.provider_config;
    ASSERT_TRUE(p.azure && p.aws && p.openstack);
    EXPECT_FALSE(p.gcp);
    EXPECT_EQ(p.azure->vnet_cidr, "10.250.0.0/16");
    EXPECT_EQ(p.azure->zones, std::vector<std::string>{"1"});
    EXPECT_EQ(p.azure->azure_zones, (std::vector<AzureZone>{{1, "10.250.0.0/19"}}));
    EXPECT_EQ(p.azure->enable_nat_gateway, true);
    EXPECT_EQ(p.azure->idle_connection_timeout_minutes, 4);
    EXPECT_EQ(p.aws->aws_zones, (std::vector<AwsZone>{{"eu-central-1a", "10.250.32.0/20",
                                                       "10.250.48.0/20", "10.250.0.0/19"}}));
    EXPECT_EQ(p.openstack->zones, std::vector<std::string>{"eu-de-1a"});
    EXPECT_FALSE(p.openstack->floating_pool_name);
    EXPECT_FALSE(p.openstack->cloud_profile_name);
    EXPECT_EQ(p.openstack->load_balancer_provider, "f5");
}

TEST(RuntimeInputParse, ReportsEveryProblemAtOnceWithItsPath) {
    json doc = provision_document();
    auto& g = gardener(doc);
    g["autoScalerMin"] = "three";
    g["regoin"] = "x";
    g.erase("machineType");
    g["providerSpecificConfig"] = json::parse(R"({"awsConfig": {"vpcCidr": "10.0.0.0/16",
        "awsZones": [{"name": "a", "publicCidr": "x", "internalCidr": "y", "workerCidr": "z"},
                     {"name": "b", "publicCidr": 7, "internalCidr": "y", "workerCidr": "z"}]}})");
    doc["runtimeInput"]["labels"] = "team=a";
    doc["clusterConfig"]["administrators"] = {"a", nullptr};

    const auto problems = parse_problems(doc);
    EXPECT_THAT(lines(problems),
                ElementsAre("runtimeInput.labels: must be an object of labels, got \"team=a\"",
                            "clusterConfig.gardenerConfig: unknown field \"regoin\"; did you "
                            "mean \"region\"?",
                            "clusterConfig.gardenerConfig.machineType: is required",
                            "clusterConfig.gardenerConfig.autoScalerMin: must be an integer, "
                            "got \"three\"",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones[1].publicCidr: must be a string, got 7",
                            "clusterConfig.administrators[1]: must be a string, got null"));
}

TEST(RuntimeInputParse, MissingRequiredFieldsAreNamed) {
    EXPECT_THAT(paths(parse_problems(json::object())),
                ElementsAre("runtimeInput", "clusterConfig"));
    auto problems = parse_problems(json::parse(R"({"runtimeInput": {}, "clusterConfig": {}})"));
    EXPECT_THAT(lines(problems), ElementsAre("runtimeInput.name: is required",
                                             "clusterConfig.gardenerConfig: is required"));
    json doc = provision_document();
    gardener(doc) = json::object();
    EXPECT_EQ(parse_problems(doc).size(), 12u); // the twelve non-null fields of GardenerConfigInput
    doc = provision_document();
    gardener(doc)["region"] = nullptr;
    EXPECT_THAT(lines(parse_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.region: is required, got null"));
}

TEST(RuntimeInputParse, TypeErrorsNameTheValueAndWhatWasExpected) {
    struct Case {
        const char* field;
        json value;
        const char* message;
    };
    const std::vector<Case> cases = {
        {"name", 5, "must be a string, got 5"},
        {"volumeSizeGB", "32", "must be an integer, got \"32\""},
        {"volumeSizeGB", 32.5, "must be an integer, got 32.5"},
        {"volumeSizeGB", 3000000000LL,
         "must be an integer between -2147483648 and 2147483647, got 3000000000"},
        {"autoScalerMax", -3000000000LL,
         "must be an integer between -2147483648 and 2147483647, got -3000000000"},
        {"euAccess", "yes", "must be true or false, got \"yes\""},
        {"providerSpecificConfig", json::array(),
         "must be an object (ProviderSpecificInput), got a list"},
        {"dnsConfig", "example.com", "must be an object (DNSConfigInput), got \"example.com\""},
    };
    for (const auto& c : cases) {
        json doc = provision_document();
        gardener(doc)[c.field] = c.value;
        EXPECT_THAT(
            lines(parse_problems(doc)),
            ElementsAre(std::string("clusterConfig.gardenerConfig.") + c.field + ": " + c.message))
            << c.field;
    }
    json doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["gcpConfig"]["zones"] = "europe-west3-b";
    EXPECT_THAT(lines(parse_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.gcpConfig.zones:"
                            " must be a list, got \"europe-west3-b\""));
    EXPECT_THAT(lines(parse_problems(json::array())),
                ElementsAre(": must be an object (ProvisionRuntimeInput), got a list"));
}

TEST(RuntimeInputParse, ExtremesOf32BitIntegersAreAccepted) {
    json doc = provision_document();
    gardener(doc)["autoScalerMax"] = 2147483647;
    gardener(doc)["maxSurge"] = -2147483648LL;
    const auto input = parse_provision_input(doc);
    EXPECT_EQ(input.gardener.auto_scaler_max, 2147483647);
    EXPECT_EQ(input.gardener.max_surge, -2147483648LL);
}

TEST(RuntimeInputParse, UnknownFieldsSuggestTheNearestKnownOne) {
    json doc = provision_document();
    gardener(doc)["volumeSizeGb"] = 3; // case slip
    gardener(doc)["machinType"] = "x"; // typo
    gardener(doc)["flavour"] = "x";    // nothing close
    doc["runtimeInput"]["nmae"] = "x";
    EXPECT_THAT(lines(parse_problems(doc)),
                ElementsAre("runtimeInput: unknown field \"nmae\"; did you mean \"name\"?",
                            "clusterConfig.gardenerConfig: unknown field \"flavour\"",
                            "clusterConfig.gardenerConfig: unknown field \"machinType\"; did you "
                            "mean \"machineType\"?",
                            "clusterConfig.gardenerConfig: unknown field \"volumeSizeGb\"; did "
                            "you mean \"volumeSizeGB\"?"));
    doc = provision_document();
    doc["kymaconfig"] = json::object();
    EXPECT_THAT(lines(parse_problems(doc)),
                ElementsAre(": unknown field \"kymaconfig\"; did you mean \"kymaConfig\"?"));
}

TEST(RuntimeInputParse, KymaConfigShapeIsChecked) {
    json doc = provision_document();
    doc["kymaConfig"] = json::parse(R"({
      "profile": "evaluation",
      "components": [{"component": "compass-runtime-agent", "namespace": "kyma-system",
                      "configuration": [{"key": "a", "value": 1, "secret": "no"}],
                      "conflictStrategy": "Merge"},
                     null],
      "configuration": [{"key": "k"}],
      "conflictStrategy": "Overwrite"
    })");
    EXPECT_THAT(
        lines(parse_problems(doc)),
        ElementsAre(
            "kymaConfig.version: is required",
            "kymaConfig.profile: must be one of Evaluation, Production (KymaProfile), got "
            "\"evaluation\"",
            "kymaConfig.components[0].configuration[0].value: must be a string, got 1",
            "kymaConfig.components[0].configuration[0].secret: must be true or false, got \"no\"",
            "kymaConfig.components[1]: must be an object (ComponentConfigurationInput), got null",
            "kymaConfig.configuration[0].value: is required",
            "kymaConfig.conflictStrategy: must be one of Merge, Replace (ConflictStrategy), got "
            "\"Overwrite\""));

    doc["kymaConfig"] = json::parse(R"({"version": "2.0", "profile": "Production",
        "conflictStrategy": "Replace", "components": [{"component": "compass-runtime-agent",
        "namespace": "kyma-system", "sourceURL": "https://x"}]})");
    const auto input = parse_provision_input(doc);
    ASSERT_TRUE(input.kyma_config_json);
    EXPECT_EQ(json::parse(*input.kyma_config_json), doc["kymaConfig"]);
}

TEST(RuntimeInputParse, NullListItemsAreRefused) {
    json doc = provision_document();
    gardener(doc)["providerSpecificConfig"] =
        json::parse(R"({"awsConfig": {"vpcCidr": "10.0.0.0/16", "awsZones": [null]}})");
    EXPECT_THAT(lines(parse_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones[0]: must be an object (AWSZoneInput), got null"));
}

TEST(RuntimeInputParse, UpgradeDocuments) {
    auto input = parse_upgrade_input(json::parse(R"({"gardenerConfig": {}})"));
    EXPECT_FALSE(input.gardener.kubernetes_version || input.gardener.provider_config ||
                 input.administrators);
    input = parse_upgrade_input(json::parse(R"({"gardenerConfig": {
        "kubernetesVersion": "1.30.1", "machineType": "m5.large", "diskType": "gp3",
        "volumeSizeGB": 60, "autoScalerMin": 1, "autoScalerMax": 5, "machineImage": "gl",
        "machineImageVersion": "1", "maxSurge": 2, "maxUnavailable": 0, "purpose": "production",
        "enableKubernetesVersionAutoUpdate": true, "enableMachineImageVersionAutoUpdate": false,
        "providerSpecificConfig": {"gcpConfig": {"zones": ["z"]}},
        "oidcConfig": {"clientID": "c", "groupsClaim": "g", "issuerURL": "i",
                       "signingAlgs": [], "usernameClaim": "u", "usernamePrefix": "p"},
        "exposureClassName": "e", "shootNetworkingFilterDisabled": false},
        "administrators": ["x"]})"));
    const auto& g = input.gardener;
    EXPECT_EQ(g.kubernetes_version, "1.30.1");
    EXPECT_EQ(g.machine_type, "m5.large");
    EXPECT_EQ(g.disk_type, "gp3");
    EXPECT_EQ(g.volume_size_gb, 60);
    EXPECT_EQ(g.auto_scaler_min, 1);
    EXPECT_EQ(g.auto_scaler_max, 5);
    EXPECT_EQ(g.machine_image, "gl");
    EXPECT_EQ(g.machine_image_version, "1");
    EXPECT_EQ(g.max_surge, 2);
    EXPECT_EQ(g.max_unavailable, 0);
    EXPECT_EQ(g.purpose, "production");
    EXPECT_EQ(g.enable_kubernetes_version_auto_update, true);
    EXPECT_EQ(g.enable_machine_image_version_auto_update, false);
    ASSERT_TRUE(g.provider_config && g.provider_config->gcp);
    ASSERT_TRUE(g.oidc);
    EXPECT_EQ(g.oidc->client_id, "c");
    EXPECT_EQ(g.exposure_class_name, "e");
    EXPECT_EQ(g.shoot_networking_filter_disabled, false);
    EXPECT_EQ(input.administrators, std::vector<std::string>{"x"});

    const auto problems = problems_of([] {
        (void)parse_upgrade_input(json::parse(
            R"({"gardenerConfig": {"name": "x", "autoScalerMin": "1"}, "admins": []})"));
    });
    EXPECT_THAT(lines(problems),
                ElementsAre(": unknown field \"admins\"", "gardenerConfig: unknown field \"name\"",
                            "gardenerConfig.autoScalerMin: must be an integer, got \"1\""));
    EXPECT_THAT(lines(problems_of([] { (void)parse_upgrade_input(json::object()); })),
                ElementsAre("gardenerConfig: is required"));
}

TEST(RuntimeInputTable, EveryReferencedTypeAndEnumExists) {
    for (const auto& type : input_type_specs()) {
        for (const auto& field : type.fields) {
            if (field.kind == InputKind::Object) {
                EXPECT_TRUE(find_input_type(field.type)) << type.name << "." << field.name;
            }
            if (field.kind == InputKind::Enum) {
                EXPECT_FALSE(input_enum_values(field.type).empty())
                    << type.name << "." << field.name;
            }
        }
    }
    EXPECT_EQ(find_input_type("Nope"), nullptr);
}

} // namespace
} // namespace kprov::engine
