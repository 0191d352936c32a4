// provisionRuntime and upgradeShoot checked against the landscape (issue 31, point 2), as the
// Kyma Environment Broker meets it: kprov serve against a kprov-sim that serves only a landscape
// this test writes, its GCP profile chosen by KPROV_CLOUD_PROFILE_GCP. A refusal is the API's
// validation error (code 400) naming field, value and offer, and writes nothing.

#include "serve_fixture.hpp"

#include <fstream>
#include <gmock/gmock.h>

namespace kprov::api::testing {
namespace {

const char* const k_landscape = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile",
   "metadata": {"name": "gcp-api"},
   "spec": {"type": "gcp",
     "kubernetes": {"versions": [{"version": "1.35.8", "classification": "preview"},
                                 {"version": "1.34.13", "classification": "supported"},
                                 {"version": "1.34.10", "classification": "deprecated"}]},
     "machineTypes": [{"name": "api-4", "cpu": "4", "gpu": "0", "memory": "16Gi"}],
     "volumeTypes": [{"name": "api-disk", "class": "standard"}],
     "regions": [{"name": "api-1", "zones": [{"name": "api-1a"}]}]}},
  {"apiVersion": "security.gardener.cloud/v1alpha1", "kind": "CredentialsBinding",
   "metadata": {"name": "api-binding", "namespace": "garden-kyma-dev"},
   "provider": {"type": "gcp"},
   "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "sa", "namespace": "garden-kyma-dev"}}
]})";

const std::string k_provision =
    "mutation ($config: ProvisionRuntimeInput!) { provisionRuntime(config: $config) { id "
    "runtimeID operation state } }";

json input(const std::string& version, const std::string& machine_type) {
    auto doc = json::parse(R"({
      "runtimeInput": {"name": "api-landscape"},
      "clusterConfig": {"gardenerConfig": {
        "name": "api-landscape", "provider": "gcp", "targetSecret": "api-binding",
        "region": "api-1", "diskType": "api-disk", "volumeSizeGB": 30,
        "workerCidr": "10.250.0.0/16", "autoScalerMin": 1, "autoScalerMax": 2, "maxSurge": 1,
        "maxUnavailable": 0, "providerSpecificConfig": {"gcpConfig": {"zones": ["api-1a"]}}}}
    })");
    doc["clusterConfig"]["gardenerConfig"]["kubernetesVersion"] = version;
    doc["clusterConfig"]["gardenerConfig"]["machineType"] = machine_type;
    return doc;
}

class LandscapeApi : public ServeTest<> {
protected:
    void SetUp() override {
        const std::string file = m_dir.file("landscape.json");
        std::ofstream(file) << k_landscape;
        ServeOptions options;
        options.sim_flags.insert(options.sim_flags.end(),
                                 {"--no-default-landscape", "--landscape", file});
        options.extra_env = {"KPROV_CLOUD_PROFILE_GCP=gcp-api"};
        start(std::move(options));
    }
    kprov::testing::TempDir m_dir;
};

TEST_F(LandscapeApi, ARefusalIsAValidationErrorAndWritesNothing) {
    const auto refused = process->graphql(k_provision, {{"config", input("1.33.2", "big-9")}});
    EXPECT_EQ(refused.extensions().value("error_code", 0), 400) << refused.body;
    EXPECT_THAT(
        refused.error(),
        ::testing::AllOf(::testing::HasSubstr("kubernetesVersion: \"1.33.2\""),
                         ::testing::HasSubstr("1.34.13 (supported)"),
                         ::testing::HasSubstr("machineType: \"big-9\" is not offered"),
                         ::testing::HasSubstr("usable types in region \"api-1\": \"api-4\"")))
        << refused.body;
    EXPECT_TRUE(process->open_store()->query_runtimes({}).empty());

    // The minor becomes the highest supported patch, stored as such.
    const auto accepted = process->graphql(k_provision, {{"config", input("1.34", "api-4")}});
    ASSERT_TRUE(accepted.error().empty()) << accepted.body;
    const std::string runtime_id = accepted.data()["provisionRuntime"]["runtimeID"];
    EXPECT_EQ(process->open_store()->find_runtime(runtime_id)->gardener.kubernetes_version,
              "1.34.13");
}

} // namespace
} // namespace kprov::api::testing
