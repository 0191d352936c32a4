#include "engine/ports.hpp"
#include "engine/rules/drift.hpp"
#include "engine/status_json.hpp"
#include "support/store_fixtures.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace kprov::engine {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> keys(const Json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items())
        out.push_back(key);
    return out;
}

TEST(StatusJson, OperationStatusHasTheGraphQLFieldsInOrder) {
    auto op = kprov::testing::new_operation("rt-1");
    op.id = "op-1";
    op.message = "Provisioning started";
    EXPECT_EQ(operation_status_json(op).dump(),
              R"({"id":"op-1","operation":"Provision","state":"InProgress",)"
              R"("message":"Provisioning started","runtimeID":"rt-1","compassRuntimeID":null,)"
              R"("lastError":{"errMessage":"","reason":"","component":""}})");
    op.type = OperationType::DeprovisionNoInstall;
    op.state = OperationState::Failed;
    op.last_error = {"boom", "ERR_X", "gardener"};
    const auto failed = operation_status_json(op, "rt-1");
    EXPECT_EQ(failed["compassRuntimeID"], "rt-1");
    EXPECT_EQ(failed["operation"], "DeprovisionNoInstall");
    EXPECT_EQ(failed["state"], "Failed");
    EXPECT_EQ(failed["lastError"].dump(),
              R"({"errMessage":"boom","reason":"ERR_X","component":"gardener"})");
}

TEST(StatusJson, GardenerConfigHasEveryContractFieldWithNullsForUnsetOptionals) {
    const auto runtime = kprov::testing::small_runtime("rt-1");
    const auto config = gardener_config_json(runtime.gardener);
    EXPECT_EQ(keys(config), (std::vector<std::string>{"name",
                                                      "kubernetesVersion",
                                                      "targetSecret",
                                                      "provider",
                                                      "region",
                                                      "seed",
                                                      "machineType",
                                                      "machineImage",
                                                      "machineImageVersion",
                                                      "diskType",
                                                      "volumeSizeGB",
                                                      "workerCidr",
                                                      "podsCidr",
                                                      "servicesCidr",
                                                      "autoScalerMin",
                                                      "autoScalerMax",
                                                      "maxSurge",
                                                      "maxUnavailable",
                                                      "purpose",
                                                      "licenceType",
                                                      "enableKubernetesVersionAutoUpdate",
                                                      "enableMachineImageVersionAutoUpdate",
                                                      "providerSpecificConfig",
                                                      "dnsConfig",
                                                      "oidcConfig",
                                                      "exposureClassName",
                                                      "shootNetworkingFilterDisabled",
                                                      "controlPlaneFailureTolerance",
                                                      "euAccess"}));
    EXPECT_EQ(config["name"], runtime.gardener.name);
    EXPECT_EQ(config["seed"], ""); // always a string, as the original answers
    EXPECT_TRUE(config["machineImage"].is_null());
    EXPECT_TRUE(config["volumeSizeGB"].is_null());
    EXPECT_TRUE(config["dnsConfig"].is_null());
    EXPECT_EQ(config["euAccess"], false);
    EXPECT_EQ(config["enableKubernetesVersionAutoUpdate"], false);
    // Always an object, even when no OIDC is configured (original-provisioner.md §1.3).
    EXPECT_EQ(config["oidcConfig"].dump(),
              R"({"clientID":"","groupsClaim":"","issuerURL":"","signingAlgs":[],)"
              R"("usernameClaim":"","usernamePrefix":""})");
    EXPECT_EQ(config["providerSpecificConfig"].dump(),
              R"({"__typename":"GCPProviderConfig","zones":["europe-west3-a"]})");
}

TEST(StatusJson, GardenerConfigCarriesSetOptionalsDnsAndOidc) {
    auto g = kprov::testing::small_runtime("rt-1").gardener;
    g.seed = "gcp-eu1";
    g.volume_size_gb = 50;
    g.machine_image = "gardenlinux";
    g.purpose = "production";
    g.shoot_networking_filter_disabled = true;
    g.control_plane_failure_tolerance = "zone";
    g.eu_access = true;
    g.oidc = OidcConfig{"cid", "groups", "https://issuer", {"RS256"}, "sub", "-"};
    g.dns = DnsConfig{"rt.example.com",
                      {DnsProvider{{"rt.example.com"}, true, "dns-secret", "aws-route53"}}};
    const auto config = gardener_config_json(g);
    EXPECT_EQ(config["seed"], "gcp-eu1");
    EXPECT_EQ(config["volumeSizeGB"], 50);
    EXPECT_EQ(config["machineImage"], "gardenlinux");
    EXPECT_EQ(config["purpose"], "production");
    EXPECT_EQ(config["shootNetworkingFilterDisabled"], true);
    EXPECT_EQ(config["controlPlaneFailureTolerance"], "zone");
    EXPECT_EQ(config["euAccess"], true);
    EXPECT_EQ(config["oidcConfig"]["signingAlgs"].dump(), R"(["RS256"])");
    EXPECT_EQ(config["oidcConfig"]["issuerURL"], "https://issuer");
    EXPECT_EQ(config["dnsConfig"].dump(),
              R"({"domain":"rt.example.com","providers":[{"domainsInclude":["rt.example.com"],)"
              R"("primary":true,"secretName":"dns-secret","type":"aws-route53"}]})");
}

TEST(StatusJson, ProviderSpecificConfigNamesItsUnionMember) {
    EXPECT_EQ(provider_specific_config_json(AzureConfig{"10.0.0.0/16", std::nullopt,
                                                        std::vector<AzureZone>{{1, "10.0.1.0/24"}},
                                                        true, std::nullopt})
                  .dump(),
              R"({"__typename":"AzureProviderConfig","vnetCidr":"10.0.0.0/16","zones":null,)"
              R"("azureZones":[{"name":1,"cidr":"10.0.1.0/24"}],"enableNatGateway":true,)"
              R"("idleConnectionTimeoutMinutes":null})");
    EXPECT_EQ(provider_specific_config_json(AwsConfig{"10.1.0.0/16", {AwsZone{"z", "p", "i", "w"}}})
                  .dump(),
              R"({"__typename":"AWSProviderConfig","awsZones":[{"name":"z","publicCidr":"p",)"
              R"("internalCidr":"i","workerCidr":"w"}],"vpcCidr":"10.1.0.0/16"})");
    EXPECT_EQ(provider_specific_config_json(OpenStackConfig{{"a"}, "pool", "profile", "f5"}).dump(),
              R"({"__typename":"OpenStackProviderConfig","zones":["a"],"floatingPoolName":"pool",)"
              R"("cloudProfileName":"profile","loadBalancerProvider":"f5"})");
}

TEST(StatusJson, KymaConfigShowsTheActiveConfigAsTheOriginalDid) {
    EXPECT_TRUE(kyma_config_json(std::nullopt).is_null());
    KymaConfig config;
    config.release.version = "2.0";
    config.global.conflict_strategy = "Merge";
    KymaComponent agent;
    agent.name = "compass-runtime-agent";
    agent.namespace_ = "kyma-system";
    agent.configuration = {{{"k", "v", false}, {"token", "t0ken", true}}, "Replace"};
    config.components.push_back(agent);
    EXPECT_EQ(
        kyma_config_json(config).dump(),
        R"({"version":"2.0","profile":null,"components":[{"component":"compass-runtime-agent",)"
        R"("namespace":"kyma-system","configuration":[{"key":"k","value":"v","secret":false},)"
        R"({"key":"token","value":"t0ken","secret":true}],"sourceURL":null}],"configuration":[]})");
    config.profile = KymaProfile::Production;
    config.components[0].source_url = "https://example.com/c.tgz";
    const auto shown = kyma_config_json(config);
    EXPECT_EQ(shown["profile"], "Production");
    EXPECT_EQ(shown["components"][0]["sourceURL"], "https://example.com/c.tgz");
}

TEST(StatusJson, RuntimeStatusHasTheGraphQLShape) {
    auto runtime = kprov::testing::small_runtime("rt-1");
    runtime.kubeconfig = "cached-secret"; // never shown unless asked for
    auto op = kprov::testing::new_operation("rt-1");
    op.id = "op-1";
    const auto status = runtime_status_json(runtime, op);
    EXPECT_EQ(keys(status),
              (std::vector<std::string>{"lastOperationStatus", "runtimeConnectionStatus",
                                        "runtimeConfiguration", "hibernationStatus"}));
    EXPECT_EQ(status["lastOperationStatus"], operation_status_json(op));
    EXPECT_EQ(status["runtimeConnectionStatus"].dump(), R"({"status":"Pending","errors":null})");
    EXPECT_EQ(keys(status["runtimeConfiguration"]),
              (std::vector<std::string>{"clusterConfig", "kymaConfig", "kubeconfig"}));
    EXPECT_EQ(status["runtimeConfiguration"]["clusterConfig"],
              gardener_config_json(runtime.gardener));
    EXPECT_TRUE(status["runtimeConfiguration"]["kymaConfig"].is_null());
    EXPECT_TRUE(status["runtimeConfiguration"]["kubeconfig"].is_null());
    EXPECT_TRUE(status["hibernationStatus"].is_null());
    EXPECT_EQ(status.dump().find("cached-secret"), std::string::npos);
}

TEST(StatusJson, RuntimeStatusTakesWhatOnlyTheCallerKnows) {
    const auto runtime = kprov::testing::small_runtime("rt-1");
    RuntimeStatusExtras extras;
    extras.compass_runtime_id = "rt-1";
    extras.kubeconfig = "apiVersion: v1";
    extras.hibernation = HibernationStatus{true, std::nullopt};
    const auto status = runtime_status_json(runtime, std::nullopt, extras);
    EXPECT_TRUE(status["lastOperationStatus"].is_null());
    EXPECT_EQ(status["runtimeConfiguration"]["kubeconfig"], "apiVersion: v1");
    EXPECT_EQ(status["hibernationStatus"].dump(),
              R"({"hibernated":true,"hibernationPossible":null})");
    auto op = kprov::testing::new_operation("rt-1");
    EXPECT_EQ(runtime_status_json(runtime, op, extras)["lastOperationStatus"]["compassRuntimeID"],
              "rt-1");
}

// Both fronts answer with hibernation_status: Gardener's status.isHibernated, and the
// HibernationPossible constraint only when Gardener reports it (no guess when it does not).
TEST(StatusJson, HibernationStatusIsGardenersStatusAndConstraint) {
    ShootState shoot;
    EXPECT_EQ(hibernation_status(shoot).hibernated, false);
    EXPECT_EQ(hibernation_status(shoot).hibernation_possible, std::nullopt);
    EXPECT_EQ(hibernation_transition(shoot), HibernationTransition::None);

    // Asked to hibernate, not there yet: not hibernated, but hibernating.
    shoot.hibernation_enabled = true;
    shoot.hibernation_possible = true;
    EXPECT_EQ(hibernation_status(shoot).hibernated, false);
    EXPECT_EQ(hibernation_status(shoot).hibernation_possible, true);
    EXPECT_EQ(hibernation_transition(shoot), HibernationTransition::Hibernating);

    shoot.is_hibernated = true;
    EXPECT_EQ(hibernation_status(shoot).hibernated, true);
    EXPECT_EQ(hibernation_transition(shoot), HibernationTransition::None);

    // Asked to wake up, still hibernated: hibernated, and waking up.
    shoot.hibernation_enabled = false;
    shoot.hibernation_possible = false;
    EXPECT_EQ(hibernation_status(shoot).hibernated, true);
    EXPECT_EQ(hibernation_status(shoot).hibernation_possible, false);
    EXPECT_EQ(hibernation_transition(shoot), HibernationTransition::WakingUp);
}

} // namespace
} // namespace kprov::engine
