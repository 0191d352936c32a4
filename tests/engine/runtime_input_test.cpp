// Requests as users send them: parsing (every problem at once, with its path), the original's
// and kprov's validation rules, conversion with the original's defaults, and upgrade merging.

#include "engine/error.hpp"
#include "engine/runtime_input.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A complete, valid GCP request; tests change what they are about.
json provision_document() {
    return json::parse(R"({
      "runtimeInput": {"name": "my-runtime", "description": "test", "labels": {"team": "a", "n": 1}},
      "clusterConfig": {
        "administrators": ["admin@example.com"],
        "gardenerConfig": {
          "name": "shoot1",
          "kubernetesVersion": "1.29.2",
          "provider": "gcp",
          "targetSecret": "gcp-secret",
          "region": "europe-west3",
          "machineType": "e2-medium",
          "diskType": "pd-balanced",
          "volumeSizeGB": 32,
          "workerCidr": "10.250.0.0/16",
          "autoScalerMin": 2,
          "autoScalerMax": 4,
          "maxSurge": 4,
          "maxUnavailable": 1,
          "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}
        }
      }
    })");
}

json& gardener(json& document) {
    return document["clusterConfig"]["gardenerConfig"];
}

std::vector<FieldProblem> problems_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const ValidationError& e) {
        return e.problems();
    }
    ADD_FAILURE() << "no ValidationError";
    return {};
}

std::vector<FieldProblem> parse_problems(const json& document) {
    return problems_of([&] { (void)parse_provision_input(document); });
}

std::vector<std::string> paths(const std::vector<FieldProblem>& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems)
        out.push_back(p.path);
    return out;
}

// "path: message" lines, for readable failures.
std::vector<std::string> lines(const std::vector<FieldProblem>& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems)
        out.push_back(p.path + ": " + p.message);
    return out;
}

const ConversionOptions k_options{"kyma-dev", false, false};

// ---------------------------------------------------------------------------------------------
// Parsing

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

// ---------------------------------------------------------------------------------------------
// Validation of provisioning

std::vector<FieldProblem> provision_problems(const json& document,
                                             const ConversionOptions& options = k_options) {
    const auto input = parse_provision_input(document);
    return problems_of([&] { validate_provision(input, options); });
}

TEST(RuntimeInputValidate, TheValidDocumentPasses) {
    EXPECT_NO_THROW(validate_provision(parse_provision_input(provision_document()), k_options));
}

TEST(RuntimeInputValidate, OriginalKymaRules) {
    json doc = provision_document();
    doc["kymaConfig"] = {{"version", "2.0"}, {"components", json::array()}};
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("kymaConfig.components: Kyma config validation error while starting "
                            "Runtime provisioning, error: Kyma components list is empty"));
    doc["kymaConfig"]["components"] = {{{"component", "istio"}, {"namespace", "istio-system"}}};
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("kymaConfig.components: Kyma config validation error while starting "
                            "Runtime provisioning, error: Kyma components list does not contain "
                            "Compass Runtime Agent"));
    doc["kymaConfig"]["components"].push_back(
        {{"component", "compass-runtime-agent"}, {"namespace", "kyma-system"}});
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
}

TEST(RuntimeInputValidate, OriginalMachineImageRule) {
    json doc = provision_document();
    gardener(doc)["machineImageVersion"] = "1.0";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.machineImageVersion: Cluster config "
                            "validation error while starting Runtime provisioning, error: Machine "
                            "Image Version passed while Machine Image is empty"));
    gardener(doc)["machineImage"] = "";
    EXPECT_EQ(provision_problems(doc).size(), 1u);
    gardener(doc)["machineImage"] = "gardenlinux";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    gardener(doc)["machineImage"] = nullptr;
    gardener(doc)["machineImageVersion"] = ""; // empty: the original lets it pass
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
}

json openstack_document() {
    json doc = provision_document();
    gardener(doc)["provider"] = "OpenStack";
    gardener(doc)["providerSpecificConfig"] = json::parse(
        R"({"openStackConfig": {"zones": ["eu-de-1a"], "loadBalancerProvider": "f5"}})");
    gardener(doc).erase("diskType");
    gardener(doc).erase("volumeSizeGB");
    return doc;
}

TEST(RuntimeInputValidate, OriginalOpenStackRule) {
    const std::string message = "Cluster config validation error while starting Runtime "
                                "provisioning, error: OpenStack mutation does not accept "
                                "diskType or volumeSizeGb parameters";
    json doc = openstack_document();
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    gardener(doc)["volumeSizeGB"] = 10;
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.volumeSizeGB: " + message));
    gardener(doc)["diskType"] = "standard";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.diskType: " + message));
}

TEST(RuntimeInputValidate, OriginalRulesComeFirstInTheirOrder) {
    json doc = openstack_document();
    doc["kymaConfig"] = {{"version", "2.0"}, {"components", json::array()}};
    gardener(doc)["machineImageVersion"] = "1.0";
    gardener(doc)["diskType"] = "standard";
    gardener(doc)["autoScalerMin"] = -1; // a kprov rule: reported after the original's
    const auto problems = provision_problems(doc);
    ASSERT_EQ(problems.size(), 4u);
    EXPECT_THAT(problems[0].message, HasSubstr("Kyma components list is empty"));
    EXPECT_THAT(problems[1].message, HasSubstr("Machine Image Version passed"));
    EXPECT_THAT(problems[2].message, HasSubstr("OpenStack mutation"));
    EXPECT_EQ(problems[3].path, "clusterConfig.gardenerConfig.autoScalerMin");
}

TEST(RuntimeInputValidate, ProviderMustBeKnownInAnyCase) {
    for (const char* provider : {"gcp", "GCP", "Gcp"}) {
        json doc = provision_document();
        gardener(doc)["provider"] = provider;
        EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options)) << provider;
    }
    json doc = provision_document();
    gardener(doc)["provider"] = "alicloud";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.provider: must be one of aws, azure "
                            "(or az), gcp, openstack, got \"alicloud\""));
    EXPECT_EQ(provider_type_of("AZ"), "azure");
    EXPECT_EQ(provider_type_of("Azure"), "azure");
    EXPECT_EQ(provider_type_of("AWS"), "aws");
    EXPECT_EQ(provider_type_of("openStack"), "openstack");
    EXPECT_EQ(provider_type_of("gcp "), std::nullopt);
}

TEST(RuntimeInputValidate, ProviderNeedsItsOwnSubConfigAndNoOther) {
    json doc = provision_document();
    gardener(doc)["provider"] = "aws";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig: awsConfig is "
                            "missing (provider \"aws\" needs it)",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.gcpConfig: must "
                            "not be given for provider \"aws\" (it uses awsConfig)"));
    // The upstream e2e request sent azureConfig and gcpConfig together: kprov refuses that.
    doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["azureConfig"] = {{"vnetCidr", "10.250.0.0/16"}};
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.azureConfig: "
                            "must not be given for provider \"gcp\" (it uses gcpConfig)"));
    doc = provision_document();
    gardener(doc)["provider"] = "az";
    gardener(doc)["providerSpecificConfig"] = {{"azureConfig", {{"vnetCidr", "10.250.0.0/16"}}}};
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
}

TEST(RuntimeInputValidate, ZonesMustBeGiven) {
    json doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["gcpConfig"]["zones"] = json::array();
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.gcpConfig."
                            "zones: must list at least one zone"));
    doc = provision_document();
    gardener(doc)["provider"] = "aws";
    gardener(doc)["providerSpecificConfig"] =
        json::parse(R"({"awsConfig": {"vpcCidr": "10.250.0.0/16", "awsZones": []}})");
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones: must list at least one zone"));
    doc = openstack_document();
    gardener(doc)["providerSpecificConfig"]["openStackConfig"]["zones"] = json::array();
    EXPECT_THAT(paths(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig."
                            "openStackConfig.zones"));
}

TEST(RuntimeInputValidate, AutoScalerAndRollout) {
    json doc = provision_document();
    gardener(doc)["autoScalerMin"] = 5;
    gardener(doc)["autoScalerMax"] = 3;
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.autoScalerMax: must be at least "
                            "autoScalerMin (5), got 3"));
    gardener(doc)["autoScalerMin"] = -1;
    gardener(doc)["autoScalerMax"] = -1;
    EXPECT_THAT(
        lines(provision_problems(doc)),
        ElementsAre("clusterConfig.gardenerConfig.autoScalerMin: must be 0 or more, got -1",
                    "clusterConfig.gardenerConfig.autoScalerMax: must be 0 or more, got -1"));
    doc = provision_document();
    gardener(doc)["maxSurge"] = -1;
    gardener(doc)["maxUnavailable"] = -2;
    EXPECT_THAT(
        lines(provision_problems(doc)),
        ElementsAre("clusterConfig.gardenerConfig.maxSurge: must be 0 or more, got -1",
                    "clusterConfig.gardenerConfig.maxUnavailable: must be 0 or more, got -2"));
    gardener(doc)["maxSurge"] = 0;
    gardener(doc)["maxUnavailable"] = 0;
    EXPECT_THAT(paths(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.maxUnavailable"));
    gardener(doc)["autoScalerMin"] = 0;
    gardener(doc)["autoScalerMax"] = 0;
    gardener(doc)["maxSurge"] = 1;
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
}

TEST(RuntimeInputValidate, ShootNameIsADnsLabelThatFitsTheProject) {
    for (const char* name : {"Shoot1", "1shoot", "shoot-", "sh_oot", "", "shoot.a"}) {
        json doc = provision_document();
        gardener(doc)["name"] = name;
        const auto problems = provision_problems(doc);
        ASSERT_EQ(problems.size(), 1u) << name;
        EXPECT_EQ(problems[0].path, "clusterConfig.gardenerConfig.name");
        EXPECT_EQ(problems[0].message,
                  "must be a DNS label (lowercase letters, digits and '-', starting with a letter "
                  "and not ending with '-'), got \"" +
                      std::string(name) + "\"");
    }
    json doc = provision_document();
    gardener(doc)["name"] = "abcdefghijklmn"; // 8 + 14 = 22
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.name: is too long: project \"kyma-dev\" "
                            "(8 characters) and shoot name \"abcdefghijklmn\" (14 characters) may "
                            "have at most 21 characters together (Gardener's limit)"));
    gardener(doc)["name"] = "abcdefghijklm"; // 21
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    gardener(doc)["name"] = "a-1";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
}

TEST(RuntimeInputValidate, CidrsAreIpv4Cidrs) {
    for (const char* good : {"10.250.0.0/16", "0.0.0.0/0", "255.255.255.255/32", "1.2.3.4/9"})
        EXPECT_TRUE(is_ipv4_cidr(good)) << good;
    for (const char* bad : {"10.250.0.0", "10.250.0/16", "10.250.0.0.1/16", "10.256.0.0/16",
                            "10.250.0.0/33", "10.250.0.0/", "/16", "010.1.0.0/16", "10.1.0.0/016",
                            "a.b.c.d/8", "10..0.0/8", "10.250.0.0/16 ", "-1.0.0.0/8", "::1/128"})
        EXPECT_FALSE(is_ipv4_cidr(bad)) << bad;

    json doc = provision_document();
    gardener(doc)["workerCidr"] = "10.250.0.0";
    gardener(doc)["podsCidr"] = "100.64.0.0/40";
    gardener(doc)["servicesCidr"] = "x";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.workerCidr: must be an IPv4 CIDR such "
                            "as 10.250.0.0/16, got \"10.250.0.0\"",
                            "clusterConfig.gardenerConfig.podsCidr: must be an IPv4 CIDR such as "
                            "10.250.0.0/16, got \"100.64.0.0/40\"",
                            "clusterConfig.gardenerConfig.servicesCidr: must be an IPv4 CIDR such "
                            "as 10.250.0.0/16, got \"x\""));

    doc = provision_document();
    gardener(doc)["provider"] = "aws";
    gardener(doc)["providerSpecificConfig"] = json::parse(R"({"awsConfig": {"vpcCidr": "10.0/16",
        "awsZones": [{"name": "a", "publicCidr": "1", "internalCidr": "2", "workerCidr": "3"}]}})");
    EXPECT_THAT(paths(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig.vpcCidr",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones[0].publicCidr",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones[0].internalCidr",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.awsConfig."
                            "awsZones[0].workerCidr"));

    doc = provision_document();
    gardener(doc)["provider"] = "azure";
    gardener(doc)["providerSpecificConfig"] = json::parse(R"({"azureConfig": {"vnetCidr": "v",
        "azureZones": [{"name": 1, "cidr": "10.250.0.0/19"}, {"name": 2, "cidr": "c"}]}})");
    EXPECT_THAT(paths(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig.azureConfig."
                            "vnetCidr",
                            "clusterConfig.gardenerConfig.providerSpecificConfig.azureConfig."
                            "azureZones[1].cidr"));
}

TEST(RuntimeInputValidate, FailureToleranceAndVolumeSize) {
    json doc = provision_document();
    gardener(doc)["controlPlaneFailureTolerance"] = "region";
    gardener(doc)["volumeSizeGB"] = 0;
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.volumeSizeGB: must be greater than 0, "
                            "got 0",
                            "clusterConfig.gardenerConfig.controlPlaneFailureTolerance: must be "
                            "\"node\" or \"zone\", got \"region\""));
    for (const char* tolerance : {"node", "zone"}) {
        gardener(doc)["controlPlaneFailureTolerance"] = tolerance;
        gardener(doc)["volumeSizeGB"] = 1;
        EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    }
}

// ---------------------------------------------------------------------------------------------
// Validation of upgrades

std::vector<FieldProblem> upgrade_problems(const std::string& gardener_config) {
    const auto input =
        parse_upgrade_input(json::parse(R"({"gardenerConfig": )" + gardener_config + "}"));
    return problems_of([&] { validate_upgrade(input); });
}

TEST(RuntimeInputValidateUpgrade, OriginalRulesInTheirOrder) {
    EXPECT_THAT(
        lines(upgrade_problems(
            R"({"purpose": "", "diskType": "", "kubernetesVersion": "", "machineType": ""})")),
        ElementsAre("gardenerConfig.machineType: empty machine type provided",
                    "gardenerConfig.kubernetesVersion: empty kubernetes version provided",
                    "gardenerConfig.diskType: empty disk type provided",
                    "gardenerConfig.purpose: empty purpose provided"));
    EXPECT_NO_THROW(
        validate_upgrade(parse_upgrade_input(json::parse(R"({"gardenerConfig": {}})"))));
}

TEST(RuntimeInputValidateUpgrade, AutoScalerAndNumbers) {
    EXPECT_THAT(lines(upgrade_problems(R"({"autoScalerMin": 4, "autoScalerMax": 2})")),
                ElementsAre("gardenerConfig.autoScalerMax: must be at least autoScalerMin (4), "
                            "got 2"));
    EXPECT_THAT(lines(upgrade_problems(R"({"autoScalerMin": -1})")),
                ElementsAre("gardenerConfig.autoScalerMin: must be 0 or more, got -1"));
    EXPECT_THAT(lines(upgrade_problems(R"({"maxSurge": -1, "volumeSizeGB": 0})")),
                ElementsAre("gardenerConfig.maxSurge: must be 0 or more, got -1",
                            "gardenerConfig.volumeSizeGB: must be greater than 0, got 0"));
    EXPECT_THAT(paths(upgrade_problems(R"({"maxSurge": 0, "maxUnavailable": 0})")),
                ElementsAre("gardenerConfig.maxUnavailable"));
    EXPECT_THAT(
        paths(upgrade_problems(R"({"providerSpecificConfig": {"gcpConfig": {"zones": []}}})")),
        ElementsAre("gardenerConfig.providerSpecificConfig.gcpConfig.zones"));
}

// ---------------------------------------------------------------------------------------------
// Conversion

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
    EXPECT_FALSE(runtime.kyma_config_json);
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
    ASSERT_TRUE(bare.kyma_config_json);
    EXPECT_EQ(json::parse(*bare.kyma_config_json), doc["kymaConfig"]);
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
    const ConversionOptions on{"kyma-dev", true, true};
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
