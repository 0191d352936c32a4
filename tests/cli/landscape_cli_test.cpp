// Requests checked against the landscape before anything is written (issue 31, point 2), against
// a real kprov-sim that serves only a landscape this test writes (other versions and names than
// the sim's default): every refusal names field, value and offer, exits 2 and leaves the store
// and Gardener untouched; a minor plans as its highest supported patch; an upgrade to 1.34 moves
// a shoot off its SecretBinding, and one that carries oidcConfig to structured authentication.

#include "cli/app.hpp"
#include "cli_testing.hpp"
#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "stores/open_store.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/store_fixtures.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace kprov::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

// Versions, types, regions and bindings none of kprov's examples or the sim's default use.
const char* const k_landscape = R"(
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: gcp-test}
spec:
  type: gcp
  kubernetes:
    versions:
    - {version: 1.36.3, classification: preview}
    - {version: 1.35.9, classification: supported}
    - {version: 1.34.12, classification: preview}
    - {version: 1.34.11, classification: supported}
    - {version: 1.34.9, classification: deprecated, expirationDate: "2099-01-31T00:00:00Z"}
    - {version: 1.33.5, classification: supported}
    - {version: 1.32.4, classification: deprecated, expirationDate: "2020-01-01T00:00:00Z"}
  machineImages:
  - name: gardenlinux
    versions:
    - {version: 1877.8.0, classification: supported, architectures: [amd64]}
    - {version: 1877.6.0, classification: deprecated, architectures: [amd64]}
  machineTypes:
  - {name: std-4, cpu: "4", gpu: "0", memory: 16Gi, usable: true}
  - {name: big-8, cpu: "8", gpu: "0", memory: 32Gi, usable: true}
  - {name: tiny-1, cpu: "1", gpu: "0", memory: 1Gi, usable: false}
  volumeTypes:
  - {name: disk-std, class: standard, usable: true}
  - {name: disk-old, class: standard, usable: false}
  regions:
  - name: test-east
    zones:
    - {name: test-east-a}
    - {name: test-east-b, unavailableMachineTypes: [big-8]}
  - name: test-west
    accessRestrictions: [{name: eu-access-only}]
    zones: [{name: test-west-a}]
  limits: {maxNodesTotal: 20}
---
apiVersion: v1
kind: List
items:
- apiVersion: security.gardener.cloud/v1alpha1
  kind: CredentialsBinding
  metadata: {name: gcp-binding, namespace: garden-kyma-dev}
  provider: {type: gcp}
  credentialsRef: {apiVersion: v1, kind: Secret, name: gcp-sa, namespace: garden-kyma-dev}
- apiVersion: security.gardener.cloud/v1alpha1
  kind: CredentialsBinding
  metadata: {name: aws-binding, namespace: garden-kyma-dev}
  provider: {type: aws}
  credentialsRef: {apiVersion: v1, kind: Secret, name: aws-keys, namespace: garden-kyma-dev}
- apiVersion: core.gardener.cloud/v1beta1
  kind: SecretBinding
  metadata: {name: old-gcp, namespace: garden-kyma-dev}
  provider: {type: gcp}
  secretRef: {name: gcp-sa, namespace: garden-kyma-dev}
- apiVersion: core.gardener.cloud/v1beta1
  kind: SecretBinding
  metadata: {name: orphan-gcp, namespace: garden-kyma-dev}
  provider: {type: gcp}
  secretRef: {name: nobody, namespace: garden-kyma-dev}
)";

json runtime_file(const std::string& shoot) {
    auto doc = json::parse(R"({
      "runtimeInput": {"name": "landscape-test"},
      "clusterConfig": {"gardenerConfig": {
        "name": "", "cloudProfile": {"name": "gcp-test"},
        "kubernetesVersion": "1.34", "provider": "gcp", "targetSecret": "gcp-binding",
        "region": "test-east", "machineType": "std-4", "machineImage": "gardenlinux",
        "diskType": "disk-std", "volumeSizeGB": 50, "workerCidr": "10.250.0.0/16",
        "autoScalerMin": 2, "autoScalerMax": 4, "maxSurge": 1, "maxUnavailable": 0,
        "providerSpecificConfig": {"gcpConfig": {"zones": ["test-east-a", "test-east-b"]}}}}
    })");
    doc["clusterConfig"]["gardenerConfig"]["name"] = shoot;
    return doc;
}

class LandscapeCli : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            KPROV_SKIP_UNLESS_CI("the kprov-sim binary was not built");
        std::ofstream(m_dir.file("landscape.yaml")) << k_landscape;
        m_sim = std::make_unique<kprov::testing::SimProcess>(
            binary, std::vector<std::string>{"--project", "kyma-dev", "--create-seconds", "0.1",
                                             "--reconcile-seconds", "0.1", "--no-default-landscape",
                                             "--landscape", m_dir.file("landscape.yaml")});
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        m_store_url = "sqlite://" + m_dir.file("kprov.db");
        m_client = std::make_unique<gardener::GardenerClient>(
            gardener::load_kubeconfig(m_sim->kubeconfig), "kyma-dev");
    }

    Result kprov(std::vector<std::string> args, bool with_gardener = true) {
        args.insert(args.end(),
                    {"--store", m_store_url, "--gardener-project", "kyma-dev", "--tenant", "ga-1"});
        if (with_gardener)
            args.insert(args.end(), {"--gardener-kubeconfig", m_sim->kubeconfig.string()});
        std::ostringstream out, err;
        Result r;
        r.code = run(args, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }

    std::string write(const std::string& name, const json& document) {
        const auto path = m_dir.file(name);
        std::ofstream(path) << document.dump(2);
        return path;
    }

    std::size_t shoots() { return m_client->list_shoots()["items"].size(); }

    // A runtime on Kubernetes `version`, stored with a succeeded provisioning, and its shoot in
    // Gardener as kprov builds it, then changed by `edit` (as the original provisioner made
    // them). Returns its id.
    std::string stored_with_shoot(const std::string& shoot, const std::string& version,
                                  const std::function<void(json&)>& edit) {
        auto doc = runtime_file(shoot);
        doc["clusterConfig"]["gardenerConfig"]["kubernetesVersion"] = version;
        doc["clusterConfig"]["gardenerConfig"].erase("cloudProfile");
        engine::ConversionOptions conversion;
        conversion.gardener_project = "kyma-dev";
        auto runtime = engine::to_runtime(engine::parse_provision_input(doc), engine::new_uuid(),
                                          "ga-1", "", kprov::testing::k_t0, conversion);
        runtime.gardener.cloud_profile = engine::CloudProfileRef{"CloudProfile", "gcp-test"};
        runtime.gardener.machine_image_version = "1877.8.0";
        stores::OpenOptions options;
        options.schema = stores::SchemaCheck::Migrate;
        auto op = kprov::testing::new_operation(runtime.id);
        op.state = engine::OperationState::Succeeded;
        stores::open_store(m_store_url, options)->insert_runtime(runtime, op);
        engine::ShootOptions shoot_options;
        shoot_options.project = "kyma-dev";
        auto object = json::parse(engine::build_shoot(runtime, "op-1", shoot_options).shoot);
        edit(object);
        m_client->create_shoot(object);
        return runtime.id;
    }

    // A runtime on Kubernetes 1.33.5 whose shoot names SecretBinding `binding`. Returns its id.
    std::string shoot_on_secret_binding(const std::string& shoot, const std::string& binding) {
        return stored_with_shoot(shoot, "1.33.5", [&](json& object) {
            object["spec"].erase("credentialsBindingName");
            object["spec"]["secretBindingName"] = binding;
        });
    }

    // A runtime on Kubernetes 1.31.8 (which the profile is made to offer) whose shoot carries
    // kubeAPIServer.oidcConfig `oidc` and whose stored config has no OIDC. Returns its id.
    std::string shoot_with_oidc_config(const std::string& shoot, const json& oidc) {
        const std::string profile = "/apis/core.gardener.cloud/v1beta1/cloudprofiles/gcp-test";
        json cloud_profile = m_client->kube().get(profile);
        auto& versions = cloud_profile["spec"]["kubernetes"]["versions"];
        if (versions.back()["version"] != "1.31.8") {
            versions.push_back({{"version", "1.31.8"},
                                {"classification", "deprecated"},
                                {"expirationDate", "2099-01-31T00:00:00Z"}});
            m_client->kube().update(profile, cloud_profile);
        }
        return stored_with_shoot(shoot, "1.31.8", [&](json& object) {
            object["spec"]["kubernetes"]["kubeAPIServer"]["oidcConfig"] = oidc;
        });
    }

    std::size_t runtimes() {
        if (!std::filesystem::exists(m_dir.file("kprov.db")))
            return 0; // not even the store was created
        const auto r = kprov({"list", "-o", "json", "--all"}, false);
        EXPECT_EQ(r.code, 0) << r.err;
        return json::parse(r.out).size();
    }

    testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::SimProcess> m_sim;
    std::unique_ptr<gardener::GardenerClient> m_client;
    std::string m_store_url;
};

TEST_F(LandscapeCli, AMinorPlansAsItsHighestSupportedPatchAndThatIsWhatIsStoredAndSent) {
    const auto file = write("good.json", runtime_file("good"));
    auto r = kprov({"plan", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto shoot = json::parse(r.out);
    EXPECT_EQ(shoot["spec"]["kubernetes"]["version"], "1.34.11");
    EXPECT_EQ(shoot["spec"]["cloudProfile"],
              json({{"kind", "CloudProfile"}, {"name", "gcp-test"}}));
    EXPECT_EQ(shoot["spec"]["provider"]["workers"][0]["machine"]["image"]["version"], "1877.8.0");

    // Offline (no Gardener): the plan says it did not check, and still prints the shoot.
    r = kprov({"plan", "-f", file, "-o", "json"}, false);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("the landscape was not checked"));
    EXPECT_EQ(json::parse(r.out)["spec"]["kubernetes"]["version"], "1.34");

    // Writing needs the landscape.
    r = kprov({"provision", "-f", file}, false);
    EXPECT_NE(r.code, 0);
    EXPECT_THAT(r.err, HasSubstr("APP_GARDENER_KUBECONFIG_PATH"));

    r = kprov({"provision", "-f", file, "--wait", "--timeout", "2m", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ((*m_client->get_shoot("good"))["spec"]["kubernetes"]["version"], "1.34.11");
}

TEST_F(LandscapeCli, EveryRefusalNamesFieldValueAndOfferAndWritesNothing) {
    auto doc = runtime_file("bad");
    auto& g = doc["clusterConfig"]["gardenerConfig"];
    g["kubernetesVersion"] = "1.32.4";  // expired
    g["machineType"] = "tiny-1";        // not usable
    g["diskType"] = "disk-old";         // not usable
    g["targetSecret"] = "aws-binding";  // another provider's
    g["machineImageVersion"] = "1.0.0"; // no such image version
    g["autoScalerMax"] = 1;             // below the two zones
    g["autoScalerMin"] = 1;
    g["euAccess"] = true; // test-east offers no eu-access-only
    g["providerSpecificConfig"]["gcpConfig"]["zones"] = json{"test-east-a", "test-west-a"};
    const auto file = write("bad.json", doc);
    for (const char* command : {"plan", "provision"}) {
        SCOPED_TRACE(command);
        const auto r = kprov({command, "-f", file});
        EXPECT_EQ(r.code, 2) << r.err;
        const std::string p = "clusterConfig.gardenerConfig.";
        EXPECT_THAT(r.err, AllOf(HasSubstr(p + "kubernetesVersion: \"1.32.4\" is expired"),
                                 HasSubstr("1.36.3 (preview)"), HasSubstr("1.35.9 (supported)"),
                                 HasSubstr("1.34.9 (deprecated, expires 2099-01-31T00:00:00Z)")));
        EXPECT_THAT(r.err,
                    AllOf(HasSubstr(p + "machineType: \"tiny-1\" is not usable"),
                          HasSubstr("usable types in region \"test-east\": \"big-8\", \"std-4\"")));
        EXPECT_THAT(r.err, AllOf(HasSubstr(p + "diskType: \"disk-old\""),
                                 HasSubstr("volume types: \"disk-std\"")));
        EXPECT_THAT(r.err, AllOf(HasSubstr(p + "targetSecret: \"aws-binding\""),
                                 HasSubstr("provider type gcp: \"gcp-binding\"")));
        EXPECT_THAT(
            r.err,
            AllOf(HasSubstr(p + "providerSpecificConfig.gcpConfig.zones[1]: \"test-west-a\""),
                  HasSubstr("\"test-east-a\", \"test-east-b\"")));
        EXPECT_THAT(r.err, HasSubstr(p + "machineImageVersion: \"1.0.0\""));
        EXPECT_THAT(r.err, HasSubstr(p + "autoScalerMax: 1 is below the number of zones (2)"));
        EXPECT_THAT(r.err, AllOf(HasSubstr(p + "euAccess"), HasSubstr("\"test-west\"")));
    }
    // Not the sim's profile, and a region that does not exist.
    g = runtime_file("bad")["clusterConfig"]["gardenerConfig"];
    g.erase("cloudProfile");
    g["region"] = "mars-1";
    g["providerSpecificConfig"]["gcpConfig"]["zones"] = json{"mars-1a"};
    const auto r = kprov({"provision", "-f", write("bad2.json", doc)});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("CloudProfile \"gcp\" does not exist"),
                             HasSubstr("exactly one CloudProfile of provider type gcp exists, "
                                       "\"gcp-test\"")));
    EXPECT_EQ(runtimes(), 0u);
    EXPECT_EQ(shoots(), 0u);
}

TEST_F(LandscapeCli, UpgradesSkipNoMinorAndMoveOffASecretBinding) {
    // A shoot on SecretBinding old-gcp, Kubernetes 1.33.5, made as the original provisioner did.
    const std::string runtime_id = shoot_on_secret_binding("legacy", "old-gcp");
    // 1.33.5 -> 1.35.9 skips 1.34: refused, nothing written.
    auto r = kprov({"upgrade-shoot", runtime_id, "-f",
                    write("skip.json", {{"gardenerConfig", {{"kubernetesVersion", "1.35.9"}}}})});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("gardenerConfig.kubernetesVersion: \"1.35.9\" skips a "
                                       "minor version"),
                             HasSubstr("upgrade to 1.34 first")));
    r = kprov({"history", runtime_id, "-o", "json"}, false);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out).size(), 1u) << r.out;

    // "1.34" becomes 1.34.11, and the same update moves the shoot to gcp-binding (same Secret).
    const auto up = write("up.json", {{"gardenerConfig", {{"kubernetesVersion", "1.34"}}}});
    r = kprov({"plan", runtime_id, "-f", up});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, AllOf(HasSubstr("1.34.11"), HasSubstr("secretBindingName"),
                             HasSubstr("credentialsBindingName")));
    EXPECT_THAT(r.err, HasSubstr("moves from SecretBinding \"old-gcp\" to CredentialsBinding "
                                 "\"gcp-binding\""));
    r = kprov({"upgrade-shoot", runtime_id, "-f", up, "--wait", "--timeout", "2m"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto live = *m_client->get_shoot("legacy");
    EXPECT_EQ(live["spec"]["kubernetes"]["version"], "1.34.11");
    EXPECT_EQ(live["spec"]["credentialsBindingName"], "gcp-binding");
    EXPECT_FALSE(live["spec"].contains("secretBindingName")) << live["spec"].dump();
}

TEST_F(LandscapeCli, AShootOnASecretBindingWithoutCredentialsBindingIsRefusedNamingWhatToCreate) {
    const std::string runtime_id = shoot_on_secret_binding("orphan", "orphan-gcp");
    const auto generation = (*m_client->get_shoot("orphan"))["metadata"]["generation"];

    const auto r =
        kprov({"upgrade-shoot", runtime_id, "-f",
               write("up.json", {{"gardenerConfig", {{"kubernetesVersion", "1.34.11"}}}})});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("SecretBinding \"orphan-gcp\""), HasSubstr("create one"),
                             HasSubstr("name: nobody, namespace: garden-kyma-dev")));
    EXPECT_EQ((*m_client->get_shoot("orphan"))["metadata"]["generation"], generation);
    const auto history = kprov({"history", runtime_id, "-o", "json"}, false);
    EXPECT_EQ(json::parse(history.out).size(), 1u) << history.out;
}

// issue 31: a shoot that still carries oidcConfig, upgraded to 1.32 in the current API. Gardener
// (and the sim) refuse the field there; kprov moves it to structured authentication in the same
// update, or refuses before writing anything what structured authentication cannot carry.
TEST_F(LandscapeCli, AnUpgradeTo132MovesTheShootsOidcConfigToStructuredAuthentication) {
    const json oidc = {{"clientID", "kyma-oidc"},
                       {"groupsClaim", "groups"},
                       {"issuerURL", "https://issuer.example.com"},
                       {"signingAlgs", {"RS256"}},
                       {"usernameClaim", "sub"},
                       {"usernamePrefix", "-"}};
    const std::string runtime_id = shoot_with_oidc_config("oidc-old", oidc);
    // What Gardener answers to the same update without the move (v1.107-v1.141).
    json unconverted = *m_client->get_shoot("oidc-old");
    unconverted["spec"]["kubernetes"]["version"] = "1.32.4";
    try {
        m_client->update_shoot(unconverted);
        ADD_FAILURE() << "the sim admitted oidcConfig on 1.32";
    } catch (const RemoteError& e) {
        EXPECT_EQ(e.http_status(), 422);
        EXPECT_THAT(std::string(e.what()),
                    AllOf(HasSubstr("spec.kubernetes.kubeAPIServer.oidcConfig: Invalid value"),
                          HasSubstr("for Kubernetes versions >= 1.32, oidcConfig field is no "
                                    "longer supported")));
    }

    const auto up = write("up.json", {{"gardenerConfig", {{"kubernetesVersion", "1.32.4"}}}});
    auto r = kprov({"plan", runtime_id, "-f", up});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, AllOf(HasSubstr("oidcConfig"), HasSubstr("structuredAuthentication")));
    // The shoot's creation at 1.31.8 failed (the sim's gardenlet reconciles 1.32-1.36 only),
    // and kprov's operation reads that stale Failed state right after its update (a separate
    // defect of the upgrade's wait, not of the move): Gardener's own reconcile of the update is
    // what is awaited below (a Create again: the first never succeeded). The update itself must
    // not be Gardener's 422.
    r = kprov({"upgrade-shoot", runtime_id, "-f", up});
    EXPECT_THAT(r.err, Not(HasSubstr("oidcConfig field is no longer supported"))) << r.err;
    json live;
    for (int i = 0; i < 600; ++i) {
        live = *m_client->get_shoot("oidc-old");
        if (live["metadata"]["generation"] == live["status"]["observedGeneration"] &&
            live.value("/status/lastOperation/state"_json_pointer, "") == "Succeeded")
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(live.value("/status/lastOperation/state"_json_pointer, ""), "Succeeded");
    EXPECT_EQ(live["spec"]["kubernetes"]["version"], "1.32.4");
    const json& server = live["spec"]["kubernetes"]["kubeAPIServer"];
    EXPECT_FALSE(server.contains("oidcConfig")) << server.dump();
    const std::string name = engine::structured_auth_config_map_name("oidc-old");
    EXPECT_EQ(server["structuredAuthentication"]["configMapName"], name);
    const auto config_map = m_client->get_config_map(name);
    ASSERT_TRUE(config_map.has_value());
    const std::string config = (*config_map)["data"]["config.yaml"].get<std::string>();
    EXPECT_THAT(config, AllOf(HasSubstr("https://issuer.example.com"), HasSubstr("kyma-oidc"),
                              HasSubstr("groups")));
    // The runtime's OIDC is what the shoot now has.
    r = kprov({"status", runtime_id, "-o", "json"}, false);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("https://issuer.example.com"));
}

TEST_F(LandscapeCli, AnOidcConfigStructuredAuthenticationCannotCarryIsRefusedBeforeAnyWrite) {
    const std::string runtime_id =
        shoot_with_oidc_config("oidc-ca", {{"clientID", "kyma-oidc"},
                                           {"issuerURL", "https://issuer.example.com"},
                                           {"requiredClaims", {{"tenant", "t-1"}}}});
    const auto generation = (*m_client->get_shoot("oidc-ca"))["metadata"]["generation"];
    const auto r =
        kprov({"upgrade-shoot", runtime_id, "-f",
               write("up.json", {{"gardenerConfig", {{"kubernetesVersion", "1.32.4"}}}})});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("spec.kubernetes.kubeAPIServer.oidcConfig.requiredClaims"),
                             HasSubstr("gardenerConfig.oidcConfig")));
    EXPECT_EQ((*m_client->get_shoot("oidc-ca"))["metadata"]["generation"], generation);
    const auto history = kprov({"history", runtime_id, "-o", "json"}, false);
    EXPECT_EQ(json::parse(history.out).size(), 1u) << history.out;
}

} // namespace
} // namespace kprov::cli
