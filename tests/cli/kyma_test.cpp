// Installing Kyma (issue 16) against kprov-sim over real HTTP, on SQLite and PostgreSQL: the
// test matrix of kyma-installation.md §6.4. kprov's installation-cr backend writes the
// release's objects, the Installation CR and the override objects to the simulated runtime
// cluster, whose simulated Kyma installer runs them component by component; the stages read
// its state back. Messages, components and reasons are compared literally.

#include "cli/operations_fixture.hpp"
#include "gardener/kube_client.hpp"
#include "support/child_process.hpp"

#include <set>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;

const json k_components = json::parse(R"([
  {"component": "cluster-essentials", "namespace": "kyma-system"},
  {"component": "istio", "namespace": "istio-system",
   "configuration": [{"key": "global.proxy.cpu", "value": "100m"},
                     {"key": "istio.token", "value": "t0ken", "secret": true}],
   "conflictStrategy": "Replace"},
  {"component": "xip-patch", "namespace": "kyma-installer"},
  {"component": "serverless", "namespace": "kyma-system",
   "sourceURL": "https://charts.example.com/serverless.tgz"},
  {"component": "compass-runtime-agent", "namespace": "compass-system"}
])");

class Kyma : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override {
        open(GetParam());
        if (HasFatalFailure() || IsSkipped())
            return;
        const std::string releases = m_sim->url + "/sim/kyma-releases";
        setenv("KPROV_KYMA_RELEASES_URL", releases.c_str(), 1);
        setenv("KPROV_KYMA_DEV_RELEASES_URL", releases.c_str(), 1);
        // Kyma 1.x's installer is no longer the default (lifecycle-manager is): named here.
        setenv("KPROV_KYMA_INSTALLER", "installation-cr", 1);
        unsetenv("KPROV_KCP_KUBECONFIG_PATH");
        unsetenv("APP_PROVISIONING_TIMEOUT_INSTALLATION");
        sim_post("/sim/settings", {{"kymaComponentSeconds", 0.05}});
    }
    void TearDown() override {
        if (m_gardener)
            sim_post("/sim/settings", {{"kymaComponentSeconds", 1}, {"kymaBackoffFactor", -1}});
        for (const char* name : {"KPROV_KYMA_RELEASES_URL", "KPROV_KYMA_DEV_RELEASES_URL",
                                 "KPROV_KYMA_INSTALLER", "APP_PROVISIONING_TIMEOUT_INSTALLATION"})
            unsetenv(name);
        OperationsBase::TearDown();
    }

    json sim_get(const std::string& path) { return m_gardener->kube().get(path); }

    static json kyma_config(const std::string& version = "1.24.11",
                            const json& components = k_components) {
        return {{"version", version},
                {"profile", "Production"},
                {"components", components},
                {"configuration",
                 {{{"key", "global.domainName"}, {"value", "kyma.example.com"}},
                  {{"key", "global.adminPassword"}, {"value", "pa55"}, {"secret", true}}}}};
    }

    // A GCP runtime file with `kyma` as its kymaConfig; returns the file and the shoot name.
    std::pair<std::string, std::string> kyma_runtime_file(const json& kyma = kyma_config()) {
        auto [file, shoot] = runtime_file("gcp");
        json document = read_runtime_file(file);
        document["kymaConfig"] = kyma;
        std::ofstream(file) << document.dump();
        return {file, shoot};
    }

    std::string kyma_file(const json& kyma) {
        static int counter = 0;
        const std::string file = m_dir.file("kyma-" + std::to_string(++counter) + ".json");
        std::ofstream(file) << json{{"kymaConfig", kyma}}.dump();
        return file;
    }

    static std::string cluster_of(const std::string& shoot) {
        return "shoot--" + std::string(k_project) + "--" + shoot;
    }
    json knobs(const std::string& shoot, const json& body) {
        return sim_post("/sim/clusters/" + cluster_of(shoot) + "/kyma", body);
    }
    json installer_state(const std::string& shoot) {
        return sim_get("/sim/clusters/" + cluster_of(shoot) + "/kyma");
    }

    // A client of the runtime's cluster, with the admin kubeconfig kprov hands out.
    std::unique_ptr<gardener::KubeClient> runtime_cluster(const std::string& runtime_id) {
        const auto r = kprov({"kubeconfig", runtime_id});
        EXPECT_EQ(r.code, 0) << r.err;
        return std::make_unique<gardener::KubeClient>(gardener::parse_kubeconfig(r.out, "test"));
    }

    // Provisions `file` with --wait; returns the runtime id.
    std::string provision(const std::string& file, int expected_code = 0) {
        const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
        EXPECT_EQ(r.code, expected_code) << r.err;
        const json status = json::parse(r.out, nullptr, false);
        return status.is_object() ? status.value("runtimeID", "") : "";
    }

    std::vector<std::string> messages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : m_store->transitions_of(operation_id))
            out.push_back(t.message);
        return out;
    }

    // Requests to the runtime cluster (path /clusters/...) counted by /sim/stats.
    std::map<std::string, int> cluster_requests() {
        std::map<std::string, int> out;
        const json stats = sim_get("/sim/stats"); // not a temporary: items() refers into it
        for (const auto& [key, count] : stats["requests"].items())
            if (key.find(" /clusters/") != std::string::npos)
                out[key] = count.get<int>();
        return out;
    }
};

INSTANTIATE_TEST_SUITE_P(Stores, Kyma, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

// §6.4 row 1: the exact object set, the message sequence, SUCCEEDED.
TEST_P(Kyma, ProvisioningInstallsTheConfigWithTheOriginalsObjectsAndMessages) {
    // Each component long enough for a pass to see it on a loaded machine (sanitizers, CI).
    sim_post("/sim/settings", {{"kymaComponentSeconds", 0.3}});
    const auto [file, shoot] = kyma_runtime_file();
    const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("install component istio")) << "--wait shows the installer";
    const std::string id = json::parse(r.out)["runtimeID"];
    const auto op =
        expect_succeeded(id, OperationType::Provision,
                         {"StartingInstallation", "WaitingForInstallation", "Finished"});
    const auto messages = messages_of(op.id);
    EXPECT_THAT(messages,
                IsSupersetOf({std::string("Operation in progress. Stage StartingInstallation"),
                              std::string("Operation in progress. Stage WaitingForInstallation"),
                              std::string("Installation completed: Kyma installed"),
                              std::string("Operation succeeded")}));
    // The installer's progress in order, as kprov saw it through its watch (each component
    // takes 300 ms, so none should be missed; a poll every 30 s would see none).
    std::vector<std::string> progress;
    for (const auto& m : messages)
        if (m.rfind("Installation in progress: ", 0) == 0)
            progress.push_back(m.substr(26));
    EXPECT_THAT(progress, IsSupersetOf({std::string("install component cluster-essentials"),
                                        std::string("install component compass-runtime-agent")}));
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end(), [](const auto& a, const auto& b) {
        auto rank = [](const std::string& m) {
            const std::vector<std::string> order = {
                "Verify installed components",  "install component cluster-essentials",
                "install component istio",      "install component xip-patch",
                "install component serverless", "install component compass-runtime-agent"};
            return std::find(order.begin(), order.end(), m) - order.begin();
        };
        return rank(a) < rank(b);
    })) << ::testing::PrintToString(progress);

    const auto cluster = runtime_cluster(id);
    // The Installation CR: the stored components in order, the profile, sourceURL.
    const json cr =
        cluster->get("/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations/"
                     "kyma-installation");
    EXPECT_EQ(cr["spec"]["profile"], "production");
    std::vector<std::string> names;
    for (const auto& c : cr["spec"]["components"])
        names.push_back(c["name"]);
    EXPECT_EQ(names, (std::vector<std::string>{"cluster-essentials", "istio", "xip-patch",
                                               "serverless", "compass-runtime-agent"}));
    EXPECT_EQ(cr["spec"]["components"][3]["source"]["url"],
              "https://charts.example.com/serverless.tgz");
    EXPECT_FALSE(cr["spec"]["components"][0].contains("source"));
    EXPECT_EQ(cr["spec"]["components"][1]["release"], "");
    EXPECT_EQ(cr["spec"]["version"], "0.0.1") << "passed through from the release";
    EXPECT_EQ(cr["metadata"]["labels"].value("kyma-project.io/installation", "x"), "");
    EXPECT_EQ(cr["status"]["state"], "Installed");

    // The override objects: names, labels, data.
    const json global =
        cluster->get("/api/v1/namespaces/kyma-installer/configmaps/global-installer-config");
    EXPECT_EQ(global["metadata"]["labels"],
              (json{{"installer", "overrides"}, {"conflict-strategy", ""}}));
    EXPECT_EQ(global["data"], (json{{"global.domainName", "kyma.example.com"}}));
    const json global_secret =
        cluster->get("/api/v1/namespaces/kyma-installer/secrets/global-installer-config");
    EXPECT_FALSE(global_secret["metadata"]["labels"].contains("component"))
        << "the deliberate fix of §7.4";
    EXPECT_EQ(global_secret["data"], (json{{"global.adminPassword", "cGE1NQ=="}}));
    const json istio =
        cluster->get("/api/v1/namespaces/kyma-installer/configmaps/istio-installer-config");
    EXPECT_EQ(istio["metadata"]["labels"], (json{{"installer", "overrides"},
                                                 {"component", "istio"},
                                                 {"conflict-strategy", "Replace"}}));
    EXPECT_EQ(istio["data"], (json{{"global.proxy.cpu", "100m"}}));
    const json istio_secret =
        cluster->get("/api/v1/namespaces/kyma-installer/secrets/istio-installer-config");
    EXPECT_EQ(istio_secret["data"], (json{{"istio.token", "dDBrZW4="}}));
    for (const char* c :
         {"cluster-essentials", "xip-patch", "serverless", "compass-runtime-agent"}) {
        const json map = cluster->get(std::string("/api/v1/namespaces/kyma-installer/configmaps/") +
                                      c + "-installer-config");
        EXPECT_EQ(map["metadata"]["labels"]["component"], c);
        EXPECT_TRUE(map.value("data", json::object()).empty()) << c;
    }
    // What the installer saw: secret global overrides reach every component (the original's
    // global Secret never reached any), the component's own on top.
    const json overrides = sim_get("/sim/clusters/" + cluster_of(shoot) + "/kyma/overrides");
    EXPECT_EQ(overrides["istio"]["global.adminPassword"], "pa55");
    EXPECT_EQ(overrides["istio"]["istio.token"], "t0ken");
    EXPECT_EQ(overrides["cluster-essentials"]["global.domainName"], "kyma.example.com");
    EXPECT_FALSE(overrides["cluster-essentials"].contains("istio.token"));
    // The installer's Deployment of the release.
    EXPECT_EQ(installer_state(shoot)["installerImage"],
              "eu.gcr.io/kyma-project/kyma-installer:1.24.11");

    // status: the active config and what kprov knows of the installation.
    const auto status = kprov({"status", id, "-o", "json"});
    ASSERT_EQ(status.code, 0) << status.err;
    const json s = json::parse(status.out);
    const json& kyma = s["runtimeConfiguration"]["kymaConfig"];
    EXPECT_EQ(kyma["version"], "1.24.11");
    EXPECT_EQ(kyma["profile"], "Production");
    EXPECT_EQ(kyma["components"].size(), 5u);
    EXPECT_EQ(kyma["components"][1]["configuration"][1],
              (json{{"key", "istio.token"}, {"value", "t0ken"}, {"secret", true}}));
    EXPECT_EQ(s["kymaInstallation"]["state"], "Installed");
    const auto table = kprov({"status", id});
    EXPECT_THAT(table.out,
                HasSubstr("1.24.11 Production (5 components: cluster-essentials, istio"));
}

TEST_P(Kyma, ARuntimeWithoutKymaMakesNoInstallerCall) {
    const auto [file, shoot] = runtime_file("gcp");
    sim_post("/sim/stats/reset", json::object());
    const std::string id = provision(file);
    expect_succeeded(id, OperationType::ProvisionNoInstall, {"CreatingBindingsForOperators"});
    for (const auto& [request, count] : cluster_requests()) {
        EXPECT_EQ(request.find("installer.kyma-project.io"), std::string::npos) << request;
        EXPECT_EQ(request.find("kyma-installer"), std::string::npos) << request;
    }
    ASSERT_EQ(kprov({"deprovision", id, "--yes", "--wait"}).code, 0);
    EXPECT_EQ(m_store->last_operation(id)->type, OperationType::DeprovisionNoInstall);
}

// §6.4 row 2.
TEST_P(Kyma, AComponentThatFailsFewerThanSixTimesRecovers) {
    const auto [file, shoot] = kyma_runtime_file();
    knobs(shoot, {{"failures", {{"istio", 2}}}}); // kept until the cluster exists
    // The error stands 1 s, then 2 s, before each retry: long enough to be seen under load.
    sim_post("/sim/settings", {{"kymaBackoffFactor", 0.1}});
    const std::string id = provision(file);
    const auto op = expect_succeeded(id, OperationType::Provision, {"WaitingForInstallation"});
    EXPECT_THAT(messages_of(op.id),
                ::testing::Contains("Installation error occurred: installation error occurred: "
                                    "install component istio"));
}

TEST_P(Kyma, AComponentThatKeepsFailingFailsTheOperationWithItsName) {
    const auto [file, shoot] = kyma_runtime_file();
    knobs(shoot, {{"failures", {{"serverless", 6}}}});
    const std::string id = provision(file, 3);
    const auto op = *m_store->last_operation(id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.message, "installation error occurred: install component serverless");
    EXPECT_EQ(op.last_error.reason, "serverless");
    EXPECT_EQ(op.last_error.component, "kyma installer");
}

// Kyma 1.13.0's installer YAML has CRDs of apiextensions.k8s.io/v1beta1, which Kubernetes
// stopped serving in 1.22: on a cluster of today the operation fails at once (no retries until
// the installation timeout), naming the refused apiVersion and kind.
TEST_P(Kyma, AReleaseWithApiVersionsTheClusterDoesNotServeFailsTheOperation) {
    const auto [file, shoot] = kyma_runtime_file(kyma_config("1.13.0"));
    const std::string id = provision(file, 3);
    const auto op = *m_store->last_operation(id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.stage, "StartingInstallation");
    EXPECT_THAT(op.message,
                HasSubstr("the runtime cluster does not serve apiextensions.k8s.io/v1beta1 "
                          "CustomResourceDefinition (\"installations.installer.kyma-project.io\" "
                          "of the installer YAML of Kyma 1.13.0)"));
    EXPECT_EQ(op.last_error.component, "kyma installer");
    // The objects before the CRD were applied, the Installation CR never was.
    EXPECT_TRUE(installer_state(shoot)["installation"].is_null());
}

TEST_P(Kyma, AnInstallationThatNeverEndsTimesOut) {
    setenv("APP_PROVISIONING_TIMEOUT_INSTALLATION", "2s", 1);
    const auto [file, shoot] = kyma_runtime_file();
    knobs(shoot, {{"neverFinish", true}});
    const std::string id = provision(file, 3);
    const auto op = *m_store->last_operation(id);
    EXPECT_EQ(op.message, "error: timeout while processing operation");
    EXPECT_EQ(op.last_error.reason, "err_provisioner_timeout");
    EXPECT_EQ(op.stage, "WaitingForInstallation");
}

// §6.4 row 3: kprov killed after the trigger, before the next probe: no second trigger.
TEST_P(Kyma, ARestartAfterTheTriggerDoesNotTriggerAgain) {
    const auto [file, shoot] = kyma_runtime_file();
    knobs(shoot, {{"neverFinish", true}});
    auto r = kprov({"provision", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string op_id = json::parse(r.out)["id"];
    const std::string id = json::parse(r.out)["runtimeID"];

    std::vector<std::string> env = kprov::testing::environment_without_settings();
    for (const char* name :
         {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "APP_DATABASE_SECRET_KEY", "KPROV_TENANT",
          "KPROV_KYMA_RELEASES_URL", "KPROV_KYMA_DEV_RELEASES_URL", "KPROV_KYMA_INSTALLER"})
        if (const char* value = getenv(name))
            env.push_back(std::string(name) + "=" + value);
    kprov::testing::ChildProcess child({KPROV_BINARY, "wait", op_id, "--store", m_store_url,
                                        "--gardener-kubeconfig", m_sim->kubeconfig.string(),
                                        "--gardener-project", k_project},
                                       env, m_dir.file("wait.out"), m_dir.file("wait.err"));
    // Kill it once the installation was triggered and kprov waits for it.
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline &&
           stored_operation(op_id).stage != "WaitingForInstallation")
        std::this_thread::sleep_for(20ms);
    ASSERT_EQ(stored_operation(op_id).stage, "WaitingForInstallation");
    child.signal(SIGKILL);
    child.wait();
    knobs(shoot, {{"neverFinish", false}});
    // Another process takes over once the killed one's lease has expired.
    r = kprov({"wait", op_id, "--timeout", "2m"});
    ASSERT_EQ(r.code, 0) << r.err;
    expect_succeeded(id, OperationType::Provision, {"WaitingForInstallation"});
    int triggers = 0;
    const json installer = installer_state(shoot);
    for (const auto& h : installer["history"])
        if (h["by"] == "client" && h["action"] == "install")
            ++triggers;
    EXPECT_EQ(triggers, 1) << installer["history"].dump(1);
}

// §6.4 rows 4 and 5.
TEST_P(Kyma, AnUpgradeSwitchesTheConfigReinstallsAndCanBeRolledBack) {
    const auto [file, shoot] = kyma_runtime_file();
    const std::string id = provision(file);
    const std::string before = m_store->find_runtime(id)->kyma->id;

    auto r =
        kprov({"upgrade-kyma", id, "-f", kyma_file(kyma_config("1.24.8")), "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto op = expect_succeeded(id, OperationType::Upgrade,
                                     {"WaitingForInstallation", "UpdatingUpgradeState"});
    EXPECT_EQ(m_store->transitions_of(op.id).front().from_stage, "StartingUpgrade");
    const auto record = m_store->find_runtime_upgrade(op.id);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->state, engine::UpgradeState::Succeeded);
    EXPECT_EQ(record->pre_upgrade_kyma_config_id, before);
    const auto upgraded = m_store->find_runtime(id)->kyma;
    EXPECT_EQ(upgraded->id, record->post_upgrade_kyma_config_id);
    EXPECT_EQ(upgraded->release.version, "1.24.8");
    // The installer Deployment was recreated from the new release, and ran again.
    const json installer = installer_state(shoot);
    EXPECT_EQ(installer["installerImage"], "eu.gcr.io/kyma-project/kyma-installer:1.24.8");
    EXPECT_GE(installer["runs"].size(), 2u);

    // Rollback: the store only.
    sim_post("/sim/stats/reset", json::object());
    r = kprov({"rollback-kyma", id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["runtimeConfiguration"]["kymaConfig"]["version"], "1.24.11");
    EXPECT_EQ(m_store->find_runtime(id)->kyma->id, before);
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, engine::UpgradeState::RolledBack);
    EXPECT_TRUE(cluster_requests().empty()) << "a rollback touches nothing on the cluster";
    // Only the last operation, finished, can be rolled back; it is no longer an upgrade's to undo.
    r = kprov({"rollback-kyma", id});
    EXPECT_EQ(r.code, 0) << "the same finished upgrade is still the last operation: " << r.err;
}

TEST_P(Kyma, AnUpgradeOfAClusterWithoutTheCrFailsAtOnce) {
    const auto [file, shoot] = kyma_runtime_file();
    const std::string id = provision(file);
    knobs(shoot, {{"deleteInstallation", true}});
    // Without --wait it runs here until its first wait: this one fails at once.
    auto r = kprov({"upgrade-kyma", id, "-f", kyma_file(kyma_config("1.24.8")), "-o", "json"});
    EXPECT_EQ(r.code, 3) << r.err;
    const json started = json::parse(r.out);
    EXPECT_EQ(started["operation"], "Upgrade");
    EXPECT_EQ(started["state"], "Failed");
    r = kprov({"wait", started["id"]});
    EXPECT_EQ(r.code, 3) << r.err;
    const auto op = *m_store->last_operation(id);
    EXPECT_EQ(op.message,
              "error: Installation CR not found in the cluster, cannot trigger upgrade");
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, engine::UpgradeState::Failed);
    EXPECT_EQ(m_store->find_runtime(id)->kyma->release.version, "1.24.8")
        << "the new config stays active after a failure (§3.3)";
}

TEST_P(Kyma, AnUpgradeOfARuntimeWithoutKymaIsRefused) {
    const auto [file, shoot] = runtime_file("gcp");
    const std::string id = provision(file);
    const auto r = kprov({"upgrade-kyma", id, "-f", kyma_file(kyma_config("1.24.8"))});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("Kyma configuration of the cluster is managed by Reconciler"));
}

// §6.4 row 6: the decision table, the start stage, and the uninstall label before the DELETE.
TEST_P(Kyma, DeprovisioningUninstallsBeforeTheShootIsDeleted) {
    const auto [file, shoot] = kyma_runtime_file();
    const std::string id = provision(file);
    sim_post("/sim/stats/reset", json::object());
    ASSERT_EQ(kprov({"deprovision", id, "--yes", "--wait"}).code, 0);
    const auto op =
        expect_succeeded(id, OperationType::Deprovision,
                         {"TriggerKymaUninstall", "DeprovisionCluster", "WaitForClusterDeletion"});
    EXPECT_EQ(m_store->transitions_of(op.id).front().from_stage, "CleanupCluster");
    int label = -1, remove = -1, index = 0;
    for (const auto& w : sim_get("/sim/writes")) {
        const std::string path = w["path"];
        if (w["verb"] == "PUT" &&
            path.find("/installations/kyma-installation") != std::string::npos &&
            w["body"].get<std::string>().find("\"uninstall\"") != std::string::npos)
            label = index;
        if (w["verb"] == "DELETE" && path.find("/shoots/" + shoot) != std::string::npos)
            remove = index;
        ++index;
    }
    EXPECT_GE(label, 0) << sim_get("/sim/writes").dump(1).substr(0, 4000);
    EXPECT_GT(remove, label);
}

TEST_P(Kyma, DeprovisioningAClusterWithoutTheCrGoesWithoutUninstall) {
    const auto [file, shoot] = kyma_runtime_file();
    const std::string id = provision(file);
    knobs(shoot, {{"deleteInstallation", true}});
    ASSERT_EQ(kprov({"deprovision", id, "--yes", "--wait"}).code, 0);
    const auto op = expect_succeeded(id, OperationType::DeprovisionNoInstall, {"Finished"});
    EXPECT_EQ(m_store->transitions_of(op.id).front().from_stage, "DeprovisionCluster");
}

// §6.4 row 7: Merge keeps keys the cluster has, Replace drops them.
TEST_P(Kyma, MergeKeepsOldOverridesAndReplaceDropsThem) {
    json components = k_components;
    components[0]["configuration"] = {{{"key", "old.key"}, {"value", "1"}}};
    components[1]["configuration"] = {{{"key", "old.key"}, {"value", "1"}}};
    const auto [file, shoot] = kyma_runtime_file(kyma_config("1.24.11", components));
    const std::string id = provision(file);
    components[0]["configuration"] = {{{"key", "new.key"}, {"value", "2"}}}; // Merge (default)
    components[1]["configuration"] = {{{"key", "new.key"}, {"value", "2"}}}; // Replace
    const auto r =
        kprov({"upgrade-kyma", id, "-f", kyma_file(kyma_config("1.24.11", components)), "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto cluster = runtime_cluster(id);
    EXPECT_EQ(cluster->get("/api/v1/namespaces/kyma-installer/configmaps/"
                           "cluster-essentials-installer-config")["data"],
              (json{{"old.key", "1"}, {"new.key", "2"}}));
    EXPECT_EQ(cluster->get("/api/v1/namespaces/kyma-installer/configmaps/"
                           "istio-installer-config")["data"],
              (json{{"new.key", "2"}}));
}

// §6.3: faults of the runtime cluster on the way are ridden out.
TEST_P(Kyma, AConflictOnTheLabelAndALateCrdAreRiddenOut) {
    const auto [file, shoot] = kyma_runtime_file();
    knobs(shoot, {{"crdEstablishSeconds", 0.3}});
    sim_post("/sim/faults",
             {{"pathPrefix", "/clusters/" + cluster_of(shoot) +
                                 "/apis/installer.kyma-project.io/v1alpha1/namespaces/"
                                 "default/installations/kyma-installation"},
              {"method", "PUT"},
              {"status", 409},
              {"count", 1}});
    const std::string id = provision(file);
    m_gardener->kube().delete_object("/sim/faults");
    expect_succeeded(id, OperationType::Provision, {"WaitingForInstallation"});
    int triggers = 0;
    const json installer = installer_state(shoot);
    for (const auto& h : installer["history"])
        if (h["by"] == "client" && h["action"] == "install")
            ++triggers;
    EXPECT_EQ(triggers, 1) << installer["history"].dump(1);
}

// §4.3: Service Catalog instances of the selected brokers are deleted and every broker's
// finalizers stripped before the uninstall.
TEST_P(Kyma, DeprovisioningCleansUpServiceCatalog) {
    const auto [file, shoot] = kyma_runtime_file();
    const std::string id = provision(file);
    knobs(shoot, {{"serviceCatalog",
                   {{"brokers",
                     {{{"name", "sm-broker"}, {"url", "https://service-manager.example.com/b"}},
                      {{"name", "other-broker"}, {"url", "https://other.example.com"}}}},
                    {"classes",
                     {{{"name", "sm-class"}, {"broker", "sm-broker"}},
                      {{"name", "other-class"}, {"broker", "other-broker"}}}},
                    {"instances",
                     {{{"namespace", "apps"}, {"name", "db"}, {"class", "sm-class"}},
                      {{"namespace", "apps"}, {"name", "cache"}, {"class", "other-class"}}}}}}});
    sim_post("/sim/stats/reset", json::object());
    ASSERT_EQ(kprov({"deprovision", id, "--yes", "--wait"}).code, 0);
    expect_succeeded(id, OperationType::Deprovision, {"TriggerKymaUninstall"});
    std::set<std::string> deleted, stripped;
    for (const auto& w : sim_get("/sim/writes")) {
        const std::string path = w["path"];
        if (w["verb"] == "DELETE")
            deleted.insert(path);
        if (w["verb"] == "PUT" && path.find("/clusterservicebrokers/") != std::string::npos &&
            json::parse(w["body"].get<std::string>())["metadata"]
                .value("finalizers", json::array({"x"}))
                .empty())
            stripped.insert(path.substr(path.rfind('/') + 1));
    }
    const std::string instances = "/clusters/" + cluster_of(shoot) +
                                  "/apis/servicecatalog.k8s.io/v1beta1/namespaces/apps/"
                                  "serviceinstances/";
    EXPECT_TRUE(deleted.count(instances + "db")) << sim_get("/sim/writes").dump(1).substr(0, 3000);
    EXPECT_FALSE(deleted.count(instances + "cache")) << "not a service-manager broker's";
    EXPECT_EQ(stripped, (std::set<std::string>{"sm-broker", "other-broker"}));
}

TEST_P(Kyma, WithoutAnInstallerAKymaConfigIsRefusedAndNothingStored) {
    setenv("KPROV_KYMA_INSTALLER", "none", 1);
    const auto [file, shoot] = kyma_runtime_file();
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("KPROV_KYMA_INSTALLER"));
    EXPECT_THAT(r.err, HasSubstr("kymaConfig"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(this->shoot(shoot).has_value());
}

// The default installer is Kyma Lifecycle Manager; without a KCP a kymaConfig is refused at
// request time, naming what to configure, and a runtime without one still provisions.
TEST_P(Kyma, ByDefaultWithoutAKcpAKymaConfigIsRefusedNamingTheSettings) {
    unsetenv("KPROV_KYMA_INSTALLER");
    const auto [file, shoot] = kyma_runtime_file();
    for (const char* command : {"plan", "provision"}) {
        const auto r = kprov({command, "-f", file});
        EXPECT_EQ(r.code, 2) << command << ": " << r.err;
        EXPECT_THAT(r.err, HasSubstr("kymaConfig"));
        EXPECT_THAT(r.err, HasSubstr("KPROV_KYMA_INSTALLER=lifecycle-manager"));
        EXPECT_THAT(r.err, HasSubstr("KPROV_KCP_KUBECONFIG_PATH"));
        EXPECT_THAT(r.err, HasSubstr("KPROV_KYMA_INSTALLER=installation-cr"));
    }
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(this->shoot(shoot).has_value());
    const auto [plain, plain_shoot] = runtime_file("gcp");
    const auto r = kprov({"provision", "-f", plain});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(all_runtimes().size(), 1u);
}

TEST_P(Kyma, AnUnknownReleaseFailsTheRequestWithTheOriginalsMessage) {
    const auto [file, shoot] = kyma_runtime_file(kyma_config("9.9.9"));
    const auto r = kprov({"provision", "-f", file});
    EXPECT_NE(r.code, 0);
    EXPECT_THAT(r.err, HasSubstr("Failed to download installer YAML release for version 9.9.9"));
    EXPECT_TRUE(all_runtimes().empty());
}

TEST_P(Kyma, PlanListsTheReleaseComponentsAndOverrideObjects) {
    const auto [file, shoot] = kyma_runtime_file();
    const auto r = kprov({"plan", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("Kyma 1.24.11 (Production), installer from " + m_sim->url +
                                 "/sim/kyma-releases/1.24.11/kyma-installer-cluster.yaml"));
    EXPECT_THAT(r.err, HasSubstr("4. serverless in kyma-system from "
                                 "https://charts.example.com/serverless.tgz"));
    const json list = json::parse(r.out);
    std::set<std::string> objects;
    for (const auto& item : list["items"])
        objects.insert(item["kind"].get<std::string>() + " " +
                       item["metadata"]["name"].get<std::string>());
    EXPECT_TRUE(objects.count("ConfigMap global-installer-config"));
    EXPECT_TRUE(objects.count("Secret istio-installer-config"));
    EXPECT_EQ(r.out.find("t0ken"), std::string::npos) << "secret values stay out of a plan";
    EXPECT_EQ(r.out.find("dDBrZW4="), std::string::npos);
}

} // namespace
} // namespace kprov::cli
