// The simulated Kyma installer (kyma-installation.md §5.2, §5.3, §6.2, §6.3) and the release
// artifacts the sim serves.

#include "kyma_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

// Every distinct (state, description) the CR went through, in order, from a watch; the empty
// state of a new CR is left out (the watch may connect after it was created).
std::vector<std::string> transitions(WatchCollector& w) {
    std::vector<std::string> out;
    for (const auto& e : w.events()) {
        Json st = e["object"].value("status", Json::object());
        if (!st.is_object())
            st = Json::object();
        std::string s = st.value("state", "") + ": " + st.value("description", "");
        if (s != ": " && (out.empty() || out.back() != s))
            out.push_back(s);
    }
    return out;
}

// Watches the CR from the current resourceVersion, so that no event is missed even if the
// stream connects late.
std::unique_ptr<WatchCollector> watch_cr(KymaCluster& kc) {
    std::string rv = kc.get("/api/v1/namespaces").json["metadata"]["resourceVersion"];
    return std::make_unique<WatchCollector>(
        kc.f.sim->url(), "",
        kc.c(std::string(k_installations) +
             "?watch=true&fieldSelector=metadata.name%3Dkyma-installation&resourceVersion=" + rv));
}

Json describe(KymaCluster& kc) {
    return kc.f.http->get(std::string("/sim/clusters/") + KymaCluster::k_id + "/kyma").json;
}

} // namespace

TEST(KymaInstaller, InstallsComponentsInOrderAndRemovesTheLabel) {
    KymaCluster kc;
    kc.create_installation_crd();
    ASSERT_EQ(kc.create_cr({"cluster-essentials", "istio"}, {{"action", "install"}}).status, 201);
    auto w = watch_cr(kc);
    // Without the installer Deployment nothing happens.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(kc.status("state"), "");
    kc.deploy_installer("1.24.8");
    ASSERT_TRUE(kc.wait_done("Installed"));
    ASSERT_TRUE(w->wait_for([](const Json& e) {
        return e["object"].value("status", Json::object()).value("state", "") == "Installed";
    }));
    EXPECT_EQ(transitions(*w), (std::vector<std::string>{
                                   "InProgress: Verify installed components",
                                   "InProgress: install component cluster-essentials",
                                   "InProgress: install component istio",
                                   "Installed: Kyma installed",
                               }));
    Json cr = kc.cr();
    EXPECT_EQ(cr["status"]["version"], "0.0.1");
    EXPECT_EQ(cr["status"]["errorLog"], Json::array());
    for (const auto& c : cr["status"]["conditions"])
        EXPECT_EQ(c["status"], c["type"] == "Installed" ? "True" : "False") << c.dump();
    EXPECT_EQ(describe(kc)["installerImage"], "eu.gcr.io/kyma-project/kyma-installer:1.24.8");
    // Upgrade: labelled again while Installed, it runs again.
    ASSERT_EQ(kc.label("install"), 200);
    ASSERT_TRUE(eventually([&] { return describe(kc)["runs"].size() == 2; }));
    ASSERT_TRUE(kc.wait_done("Installed"));
    // Uninstall after an installation works, in reverse order.
    ASSERT_EQ(kc.label("uninstall"), 200);
    ASSERT_TRUE(kc.wait_done("Uninstalled"));
    EXPECT_EQ(kc.cr()["status"]["description"], "Selected Kyma components uninstalled");
    auto t = transitions(*w);
    EXPECT_NE(std::find(t.begin(), t.end(), "InProgress: uninstall component istio"), t.end());
    EXPECT_NE(std::find(t.begin(), t.end(), "InProgress: Verify components to uninstall"), t.end());
}

TEST(KymaInstaller, FailuresRecoverUpToFiveTimesThenItGivesUp) {
    KymaCluster kc(0.02); // backoffs 0.04 .. 0.16 s
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.knobs({{"failures", {{"istio", 5}}}, {"failureLog", "helm: boom"}}).status, 200);
    auto w = watch_cr(kc);
    ASSERT_EQ(kc.create_cr({"istio", "core"}, {{"action", "install"}}).status, 201);
    // While retrying the state is Error and the label stays (recoverable).
    ASSERT_TRUE(eventually([&] { return kc.status("state") == "Error"; }));
    Json during = kc.cr();
    EXPECT_EQ(during["metadata"]["labels"]["action"], "install");
    EXPECT_EQ(during["status"]["description"], "install component istio");
    ASSERT_TRUE(kc.wait_done("Installed", 15));
    // The errorLog had reached 5 occurrences of one entry before success cleared it.
    ASSERT_TRUE(w->wait_for([](const Json& e) {
        return e["object"].value("status", Json::object()).value("state", "") == "Installed";
    }));
    int most = 0;
    for (const auto& e : w->events())
        for (const auto& entry :
             e["object"].value("status", Json::object()).value("errorLog", Json::array()))
            most = std::max(most, entry.value("occurrences", 0));
    EXPECT_EQ(most, 5);
    ASSERT_TRUE(kc.knobs({{"failures", {{"core", 6}}}}).status == 200);
    ASSERT_EQ(kc.label("install"), 200);
    ASSERT_TRUE(kc.wait_done("Error", 15));
    Json cr = kc.cr();
    ASSERT_EQ(cr["status"]["errorLog"].size(), 1u);
    EXPECT_EQ(cr["status"]["errorLog"][0]["component"], "core");
    EXPECT_EQ(cr["status"]["errorLog"][0]["log"], "helm: boom");
    EXPECT_EQ(cr["status"]["description"], "install component core");
    EXPECT_EQ(describe(kc)["runs"][1]["result"], "gave up: core");
    EXPECT_EQ(cr["status"]["errorLog"][0]["occurrences"].get<int>(), KymaInstaller::k_max_attempts);
}

TEST(KymaInstaller, AnUninstallDuringAnInstallIsLostAndAnEmptyStateIgnoresIt) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.create_cr({"a", "b", "c"}, {}).status, 201);
    ASSERT_EQ(kc.label_reading_again("uninstall"), 200); // state "": not honoured
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(kc.status("state"), "");
    EXPECT_EQ(describe(kc)["runs"].size(), 0u);
    ASSERT_EQ(kc.label_reading_again("install"), 200);
    ASSERT_TRUE(eventually([&] { return kc.status("description") == "install component a"; }));
    ASSERT_EQ(kc.label_reading_again("uninstall"), 200);
    ASSERT_TRUE(kc.wait_done("Installed"));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    Json d = describe(kc);
    ASSERT_EQ(d["runs"].size(), 1u);
    EXPECT_EQ(d["runs"][0]["operation"], "install");
    // The history shows the client's uninstall label, with resourceVersions from the world's
    // one counter, so it orders against Gardener writes too.
    bool seen = false;
    for (const auto& h : d["history"])
        seen = seen || (h["by"] == "client" && h["action"] == "uninstall");
    EXPECT_TRUE(seen);
}

TEST(KymaInstaller, NeverFinishStaysInProgressAndAStaleClientPutConflicts) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.knobs({{"neverFinish", true}}).status, 200);
    ASSERT_EQ(kc.create_cr({"a"}, {{"action", "install"}}).status, 201);
    Json first = kc.cr();
    ASSERT_TRUE(eventually([&] { return kc.status("description") == "install component a"; }));
    EXPECT_EQ(kc.put(kc.cr_path(), first).status, 409); // the installer wrote meanwhile
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(kc.cr()["status"]["state"], "InProgress");
    ASSERT_EQ(kc.knobs({{"neverFinish", false}}).status, 200);
    EXPECT_TRUE(kc.wait_done("Installed"));
}

TEST(KymaInstaller, OverridesAreEvaluatedPerComponent) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    const std::string cms = "/api/v1/namespaces/kyma-installer/configmaps";
    const std::string secrets = "/api/v1/namespaces/kyma-installer/secrets";
    auto meta = [](const std::string& name, Json labels) {
        return Json{{"name", name}, {"labels", std::move(labels)}};
    };
    kc.post(cms, {{"metadata", meta("global-installer-config",
                                    {{"installer", "overrides"}, {"conflict-strategy", ""}})},
                  {"data", {{"global.domain", "a.example"}, {"shared", "common"}}}});
    // The global Secret carries component: "" (the original provisioner's quirk): it is no
    // common override and reaches no real component.
    kc.post(secrets, {{"metadata", meta("global-installer-config",
                                        {{"installer", "overrides"}, {"component", ""}})},
                      {"data", {{"global.secret", base64_encode("hidden")}}}});
    kc.post(cms, {{"metadata", meta("istio-installer-config",
                                    {{"installer", "overrides"}, {"component", "istio"}})},
                  {"data", {{"shared", "from-cm"}, {"cm.only", "1"}}}});
    kc.post(secrets, {{"metadata", meta("istio-installer-config",
                                        {{"installer", "overrides"}, {"component", "istio"}})},
                      {"data", {{"shared", base64_encode("from-secret")}}}});
    // A Replace by the client is the client's business: the sim stores what it is sent.
    Json replaced = kc.get(cms + "/istio-installer-config").json;
    replaced["data"] = {{"shared", "from-cm"}, {"replaced", "yes"}};
    ASSERT_EQ(kc.put(cms + "/istio-installer-config", replaced).status, 200);
    ASSERT_EQ(kc.create_cr({"core", "istio"}, {{"action", "install"}}).status, 201);
    ASSERT_TRUE(kc.wait_done("Installed"));
    Json o =
        kc.f.http->get(std::string("/sim/clusters/") + KymaCluster::k_id + "/kyma/overrides").json;
    EXPECT_EQ(o["core"], (Json{{"global.domain", "a.example"}, {"shared", "common"}}));
    EXPECT_EQ(
        o["istio"],
        (Json{{"global.domain", "a.example"}, {"shared", "from-secret"}, {"replaced", "yes"}}));
}

TEST(KymaInstaller, DeletedCrAndInstallerStopTheRun) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.knobs({{"neverFinish", true}}).status, 200);
    ASSERT_EQ(kc.create_cr({"a"}, {{"action", "install"}}).status, 201);
    ASSERT_TRUE(eventually([&] { return describe(kc)["mode"] == "install"; }));
    ASSERT_EQ(kc.knobs({{"deleteInstallation", true}}).status, 200);
    ASSERT_TRUE(eventually([&] { return describe(kc)["mode"] == "idle"; }));
    EXPECT_EQ(describe(kc)["runs"][0]["result"], "aborted: the Installation was deleted");
    // A pre-created CR in an arbitrary state is left alone without an action label.
    ASSERT_EQ(kc.knobs({{"installation", {{"state", "Uninstalled"}}}}).status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(kc.cr()["status"]["state"], "Uninstalled");
}

TEST(KymaInstaller, KnobsForEveryNewClusterComeFromSettings) {
    KymaCluster kc;
    Json settings = {{"kymaComponentSeconds", 0.02},
                     {"clusterDefaults", {{"failures", {{"istio", 1}}}}}};
    Json bad = {{"kymaComponentSeconds", 9}, {"clusterDefaults", {{"nope", 1}}}};
    EXPECT_EQ(kc.f.http->post("/sim/settings", bad.dump()).status, 400);
    EXPECT_EQ(kc.f.http->get("/sim/settings").json["kymaComponentSeconds"], 0.05);
    ASSERT_EQ(kc.f.http->post("/sim/settings", settings.dump()).status, 200);
    ASSERT_EQ(kc.f.http->post(kc.f.shoots(), shoot_body("c3").dump()).status, 201);
    ASSERT_TRUE(eventually(
        [&] { return kc.f.http->get("/sim/clusters/shoot--dev--c3/kyma").status == 200; }));
    Json d = kc.f.http->get("/sim/clusters/shoot--dev--c3/kyma").json;
    EXPECT_EQ(d["knobs"]["failures"]["istio"], 1);
    EXPECT_EQ(kc.f.http->get("/sim/settings").json["kymaComponentSeconds"], 0.02);
}

TEST(KymaReleases, ArtifactsAreServedPerVersion) {
    SimFixture f(fast_options());
    Http anonymous(f.sim->url(), "");
    Resp r = anonymous.get("/sim/kyma-releases/1.24.11/kyma-installer-cluster.yaml");
    ASSERT_EQ(r.status, 200);
    std::vector<std::string> docs;
    for (std::size_t start = 0;;) {
        std::size_t sep = r.body.find("\n---\n", start);
        docs.push_back(
            r.body.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
        if (sep == std::string::npos)
            break;
        start = sep + 5;
    }
    ASSERT_GE(docs.size(), 10u);
    auto has = [&](const std::string& text) {
        return std::any_of(docs.begin(), docs.end(),
                           [&](const std::string& d) { return d.find(text) != std::string::npos; });
    };
    for (const char* kind :
         {"kind: Namespace", "kind: LimitRange", "kind: PriorityClass",
          "name: installations.installer.kyma-project.io", "name: releases.release.kyma-project.io",
          "kind: ServiceAccount", "kind: Deployment", "kind: ClusterRole\n",
          "kind: ClusterRoleBinding", "kind: Installation\n"})
        EXPECT_TRUE(has(kind)) << kind;
    // 1.24.11 uses API versions a 1.3x cluster serves; 1.13.0 those Kubernetes removed.
    EXPECT_TRUE(has("apiVersion: apiextensions.k8s.io/v1\n"));
    EXPECT_FALSE(has("v1beta1"));
    EXPECT_FALSE(has("kind: PodSecurityPolicy"));
    Resp old = anonymous.get("/sim/kyma-releases/1.13.0/kyma-installer-cluster.yaml");
    ASSERT_EQ(old.status, 200);
    EXPECT_NE(old.body.find("apiVersion: apiextensions.k8s.io/v1beta1\n"), std::string::npos);
    EXPECT_NE(old.body.find("apiVersion: policy/v1beta1\nkind: PodSecurityPolicy"),
              std::string::npos);
    EXPECT_TRUE(has("image: eu.gcr.io/kyma-project/kyma-installer:1.24.11"));
    EXPECT_NE(docs.back().find("    action: install"), std::string::npos);
    EXPECT_NE(docs.back().find("  version: \"0.0.1\""), std::string::npos);
    EXPECT_EQ(anonymous.get("/sim/kyma-releases/1.24.11/tiller.yaml").status, 404);
    Resp tiller = anonymous.get("/sim/kyma-releases/1.13.0/tiller.yaml");
    ASSERT_EQ(tiller.status, 200);
    EXPECT_NE(tiller.body.find("name: tiller-deploy"), std::string::npos);
    Resp pr = anonymous.get("/sim/kyma-releases/PR-1234/kyma-installer-cluster.yaml");
    ASSERT_EQ(pr.status, 200);
    EXPECT_NE(pr.body.find("kyma-installer:PR-1234"), std::string::npos);
    EXPECT_EQ(anonymous.get("/sim/kyma-releases/main/kyma-installer-cluster.yaml").status, 200);
    EXPECT_EQ(anonymous.get("/sim/kyma-releases/main-abc123/kyma-installer-cluster.yaml").status,
              200);
    EXPECT_EQ(anonymous.get("/sim/kyma-releases/9.9.9/kyma-installer-cluster.yaml").status, 404);
    EXPECT_EQ(anonymous.get("/sim/kyma-releases").json["versions"][0], "1.24.11");
}

TEST(KymaInstaller, HibernationKeepsTheStateAndTheUninstallLabelPrecedesTheShootDelete) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.create_cr({"a"}, {{"action", "install"}}).status, 201);
    ASSERT_TRUE(kc.wait_done("Installed"));
    kc.f.http->patch(kc.f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":true}}})",
                     "application/merge-patch+json");
    ASSERT_TRUE(eventually(
        [&] { return kc.f.http->get(kc.f.shoot("c1")).json["status"]["hibernated"] == true; }));
    EXPECT_EQ(kc.get(kc.cr_path()).status, 503);
    kc.f.http->patch(kc.f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":false}}})",
                     "application/merge-patch+json");
    ASSERT_TRUE(eventually([&] { return kc.status("state") == "Installed"; }));
    // What kprov's deprovisioning does: label uninstall, then delete the shoot at once.
    ASSERT_EQ(kc.label("uninstall"), 200);
    std::uint64_t label_rv = std::stoull(kc.cr()["metadata"]["resourceVersion"].get<std::string>());
    Json history = describe(kc)["history"];
    kc.f.http->patch(
        kc.f.shoot("c1"),
        R"({"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}})",
        "application/merge-patch+json");
    Resp deleted = kc.f.http->del(kc.f.shoot("c1"));
    ASSERT_EQ(deleted.status, 200);
    std::uint64_t delete_rv =
        std::stoull(deleted.json["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_LT(label_rv, delete_rv);
    bool seen = false;
    for (const auto& h : history)
        seen = seen || (h["action"] == "uninstall" && h["by"] == "client" &&
                        std::stoull(h["resourceVersion"].get<std::string>()) < delete_rv);
    EXPECT_TRUE(seen);
    // /sim/writes lists the runtime-cluster PUT before the shoot DELETE as well.
    Json writes = kc.f.http->get("/sim/writes").json;
    int put_at = -1, delete_at = -1;
    for (int i = 0; i < static_cast<int>(writes.size()); ++i) {
        if (writes[i]["verb"] == "PUT" && writes[i]["path"] == kc.c(kc.cr_path()))
            put_at = i;
        if (writes[i]["verb"] == "DELETE" && writes[i]["path"] == kc.f.shoot("c1"))
            delete_at = i;
    }
    EXPECT_GE(put_at, 0);
    EXPECT_LT(put_at, delete_at);
}

TEST(KymaInstaller, TillerGetsAPodWithAScriptablePhase) {
    KymaCluster kc;
    ASSERT_EQ(kc.knobs({{"tillerPodPhase", "Pending"}}).status, 200);
    ASSERT_EQ(kc.post("/apis/apps/v1/namespaces/kube-system/deployments",
                      {{"metadata", {{"name", "tiller-deploy"}}}})
                  .status,
              201);
    auto phase = [&] {
        Json pods = kc.get("/api/v1/namespaces/kube-system/pods?labelSelector=name%3Dtiller").json;
        return pods["items"].size() == 1 ? pods["items"][0]["status"]["phase"].get<std::string>()
                                         : "";
    };
    EXPECT_EQ(phase(), "Pending");
    ASSERT_EQ(kc.knobs({{"tillerPodPhase", "Running"}}).status, 200);
    EXPECT_EQ(phase(), "Running");
}

TEST(KymaInstaller, AnUninstallInProgressIsHonouredWhenUninstallingIsTrue) {
    KymaCluster kc;
    kc.deploy_installer();
    Json status = {{"state", "InProgress"},
                   {"conditions", Json::array({{{"type", "Uninstalling"}, {"status", "True"}}})}};
    Json cr = {{"labels", {{"action", "uninstall"}}},
               {"spec", {{"components", Json::array({{{"name", "a"}}})}}},
               {"status", status}};
    ASSERT_EQ(kc.knobs({{"installation", cr}}).status, 200);
    EXPECT_TRUE(kc.wait_done("Uninstalled"));
    // Without the Uninstalling condition the same request is not honoured.
    status["conditions"] = Json::array();
    cr["status"] = status;
    ASSERT_EQ(kc.knobs({{"installation", cr}}).status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(kc.status("state"), "InProgress");
    EXPECT_EQ(describe(kc)["runs"].size(), 1u);
}

TEST(KymaInstaller, AFailingVerificationKeepsTheLabelAndIsRetried) {
    KymaCluster kc;
    kc.create_installation_crd();
    kc.deploy_installer();
    ASSERT_EQ(kc.knobs({{"verifyFailures", 2}}).status, 200);
    auto w = watch_cr(kc);
    ASSERT_EQ(kc.create_cr({"a"}, {{"action", "install"}}).status, 201);
    ASSERT_TRUE(kc.wait_done("Installed"));
    ASSERT_TRUE(w->wait_for([](const Json& e) {
        return e["object"].value("status", Json::object()).value("state", "") == "Installed";
    }));
    EXPECT_EQ(transitions(*w), (std::vector<std::string>{
                                   "InProgress: Verify installed components",
                                   "Error: Verifying installed components",
                                   "InProgress: Verify installed components",
                                   "Error: Verifying installed components",
                                   "InProgress: Verify installed components",
                                   "InProgress: install component a",
                                   "Installed: Kyma installed",
                               }));
    // Six failing verifications: it gives up with the label kept (recoverable for kprov) and
    // waits for the CR to change.
    ASSERT_EQ(kc.knobs({{"verifyFailures", 6}}).status, 200);
    ASSERT_EQ(kc.label("install"), 200);
    ASSERT_TRUE(eventually([&] {
        return describe(kc)["runs"][1]["result"] == "gave up: Verifying installed components";
    }));
    Json cr = kc.cr();
    EXPECT_EQ(cr["metadata"]["labels"]["action"], "install");
    EXPECT_EQ(cr["status"]["errorLog"][0]["component"], "Kyma Operator");
    EXPECT_EQ(cr["status"]["errorLog"][0]["occurrences"], 6);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(describe(kc)["runs"].size(), 2u);
    ASSERT_EQ(kc.label("install"), 200); // a write by the client starts it again
    EXPECT_TRUE(kc.wait_done("Installed"));
}

TEST(KymaInstaller, CopesWithAMalformedStatusWrittenByAClient) {
    KymaCluster kc;
    kc.deploy_installer();
    ASSERT_EQ(kc.knobs({{"failures", {{"a", 1}}}}).status, 200);
    Json cr = {{"labels", {{"action", "install"}}},
               {"spec", {{"components", Json::array({{{"name", "a"}}})}}},
               {"status", {{"errorLog", Json::array({"x"})}, {"conditions", Json::array({1})}}}};
    ASSERT_EQ(kc.knobs({{"installation", cr}}).status, 200);
    EXPECT_TRUE(kc.wait_done("Installed"));
    EXPECT_EQ(kc.get(kc.cr_path()).status, 200);
}
