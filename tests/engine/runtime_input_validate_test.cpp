// The original's and kprov's validation rules for provisioning and upgrade requests.

#include "runtime_input_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using namespace testing;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<FieldProblem> provision_problems(const json& document,
                                             const ConversionOptions& options = k_options) {
    const auto input = parse_provision_input(document);
    return problems_of([&] { validate_provision(input, options); });
}

TEST(RuntimeInputValidate, TheValidDocumentPasses) {
    EXPECT_NO_THROW(validate_provision(parse_provision_input(provision_document()), k_options));
    // The same call refuses the document once one rule is broken: passing above is the
    // validator's answer, not a validator that looks at nothing.
    json broken = provision_document();
    gardener(broken)["autoScalerMax"] = 1;
    EXPECT_THAT(lines(provision_problems(broken)),
                ElementsAre("clusterConfig.gardenerConfig.autoScalerMax: must be at least "
                            "autoScalerMin (2), got 1"));
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

TEST(RuntimeInputValidate, ProviderNeedsItsOwnSubConfig) {
    json doc = provision_document();
    gardener(doc)["provider"] = "aws";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.providerSpecificConfig: awsConfig is "
                            "missing (provider \"aws\" needs it)"));
    // The upstream e2e request sends azureConfig and gcpConfig together: the other members
    // are ignored, not refused (provision_input_warnings), and so is their content.
    doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["azureConfig"] = {{"vnetCidr", "not a cidr"}};
    gardener(doc)["providerSpecificConfig"]["openStackConfig"] = {{"zones", json::array()},
                                                                  {"loadBalancerProvider", "f5"}};
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
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
    for (const char* name : {"Shoot1", "-shoot", "shoot-", "sh_oot", "", "shoot.a"}) {
        json doc = provision_document();
        gardener(doc)["name"] = name;
        const auto problems = provision_problems(doc);
        ASSERT_EQ(problems.size(), 1u) << name;
        EXPECT_EQ(problems[0].path, "clusterConfig.gardenerConfig.name");
        EXPECT_EQ(problems[0].message,
                  "must be a DNS label (lowercase letters, digits and '-', starting and ending "
                  "with a letter or digit), got \"" +
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
    // Gardener takes a digit first (DNS-1123), and so did the original: kprov did not.
    gardener(doc)["name"] = "1shoot";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    gardener(doc)["name"] = "a--b"; // Gardener refuses "--" in shoot names
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("clusterConfig.gardenerConfig.name: must not contain \"--\" "
                            "(Gardener's rule), got \"a--b\""));
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
                            "\"node\" or \"zone\" (or empty for none), got \"region\""));
    // "" leaves the control plane without high availability, in the original and in kprov.
    for (const char* tolerance : {"node", "zone", ""}) {
        gardener(doc)["controlPlaneFailureTolerance"] = tolerance;
        gardener(doc)["volumeSizeGB"] = 1;
        EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    }
}

// ---------------------------------------------------------------------------------------------
json with_oidc(json doc, const std::string& client_id) {
    gardener(doc)["oidcConfig"] = {{"clientID", client_id},
                                   {"groupsClaim", "groups"},
                                   {"issuerURL", "https://issuer.example.com"},
                                   {"signingAlgs", {"RS256"}},
                                   {"usernameClaim", "sub"},
                                   {"usernamePrefix", "-"}};
    return doc;
}

// Structured authentication makes the clientID the audience; Gardener refuses audiences: [""].
TEST(RuntimeInputValidate, OidcClientIdMustNotBeEmpty) {
    EXPECT_NO_THROW(validate_provision(
        parse_provision_input(with_oidc(provision_document(), "kyma")), k_options));
    EXPECT_THAT(lines(provision_problems(with_oidc(provision_document(), ""))),
                ElementsAre(AllOf(StartsWith("clusterConfig.gardenerConfig.oidcConfig.clientID: "
                                             "must not be empty, got \"\""),
                                  HasSubstr("audience"))));
}

// APP_GARDENER_LEGACY_API sends fields Gardener refuses from 1.32 (oidcConfig) and 1.34
// (cloudProfileName, secretBindingName): refused at request time, naming what to use instead.
TEST(RuntimeInputValidate, LegacyApiRefusesWhatNoGardenerAdmits) {
    ConversionOptions legacy = k_options;
    legacy.legacy_api = true;
    json doc = with_oidc(provision_document(), "kyma");
    gardener(doc)["kubernetesVersion"] = "1.31.9";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), legacy));

    gardener(doc)["kubernetesVersion"] = "1.32.5";
    const auto oidc = provision_problems(doc, legacy);
    ASSERT_EQ(oidc.size(), 1u);
    EXPECT_EQ(oidc[0].path, "clusterConfig.gardenerConfig.oidcConfig");
    EXPECT_THAT(oidc[0].message, AllOf(HasSubstr("APP_GARDENER_LEGACY_API=true"),
                                       HasSubstr("kubeAPIServer.oidcConfig"),
                                       HasSubstr("kubernetesVersion \"1.32.5\""),
                                       HasSubstr("structured authentication")));
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options)); // not legacy

    gardener(doc)["kubernetesVersion"] = "1.34"; // a minor alone counts as 1.34.0
    EXPECT_THAT(paths(provision_problems(doc, legacy)),
                ElementsAre("clusterConfig.gardenerConfig.oidcConfig",
                            "clusterConfig.gardenerConfig.kubernetesVersion"));
    gardener(doc).erase("oidcConfig");
    const auto profile = provision_problems(doc, legacy);
    ASSERT_EQ(profile.size(), 1u);
    EXPECT_EQ(profile[0].path, "clusterConfig.gardenerConfig.kubernetesVersion");
    EXPECT_THAT(profile[0].message,
                AllOf(HasSubstr("spec.cloudProfileName"), HasSubstr("spec.secretBindingName"),
                      HasSubstr("\"1.34\""), HasSubstr("APP_GARDENER_LEGACY_API=false"),
                      HasSubstr("spec.cloudProfile and spec.credentialsBindingName")));
    gardener(doc)["kubernetesVersion"] = "1.33.8";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), legacy));
}

// From 1.35 the DNS Secret is a credentialsRef, which Gardener accepts only with a type.
TEST(RuntimeInputValidate, DnsProviderTypeIsNeededFrom135) {
    json doc = provision_document();
    gardener(doc)["dnsConfig"] = json::parse(R"({"domain": "a.example.com", "providers": [
        {"domainsInclude": ["a.example.com"], "primary": true, "secretName": "s", "type": ""}]})");
    gardener(doc)["kubernetesVersion"] = "1.34.6";
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    gardener(doc)["kubernetesVersion"] = "1.35.4";
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre(AllOf(StartsWith("clusterConfig.gardenerConfig.dnsConfig.providers[0]."
                                             "type: must not be empty"),
                                  HasSubstr("\"1.35.4\""))));
}

// KLM's internal and beta labels come from the runtime's labels, as true or false only.
TEST(RuntimeInputValidate, KymaModuleLabelsAreTrueOrFalse) {
    json doc = provision_document();
    doc["runtimeInput"]["labels"]["operator.kyma-project.io/internal"] = "True";
    doc["runtimeInput"]["labels"]["operator.kyma-project.io/beta"] = false;
    EXPECT_NO_THROW(validate_provision(parse_provision_input(doc), k_options));
    doc["runtimeInput"]["labels"]["operator.kyma-project.io/internal"] = "yes";
    doc["runtimeInput"]["labels"]["operator.kyma-project.io/beta"] = 1;
    EXPECT_THAT(lines(provision_problems(doc)),
                ElementsAre("runtimeInput.labels.operator.kyma-project.io/internal: must be "
                            "\"true\" or \"false\" (whether the runtime's Kyma may use Kyma "
                            "Lifecycle Manager's modules labelled so), got \"yes\"",
                            "runtimeInput.labels.operator.kyma-project.io/beta: must be \"true\" "
                            "or \"false\" (whether the runtime's Kyma may use Kyma Lifecycle "
                            "Manager's modules labelled so), got 1"));
}

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

TEST(RuntimeInputValidateUpgrade, OidcClientIdMustNotBeEmpty) {
    EXPECT_THAT(paths(upgrade_problems(R"({"oidcConfig": {"clientID": "", "groupsClaim": "g",
        "issuerURL": "https://i.example.com", "signingAlgs": ["RS256"], "usernameClaim": "sub",
        "usernamePrefix": "-"}})")),
                ElementsAre("gardenerConfig.oidcConfig.clientID"));
}

} // namespace
} // namespace kprov::engine
