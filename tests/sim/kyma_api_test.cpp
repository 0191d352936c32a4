// The runtime cluster's API surface for Kyma installations (kyma-installation.md §6.1): CRDs
// before custom resources, strict updates, key and label validation, generic kinds, Service
// Catalog, watches and per-resource faults.

#include "kyma_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {} // namespace

TEST(KymaApi, InstallationsAre404UntilTheirCrdExists) {
    KymaCluster kc;
    Resp before = kc.create_cr({"a"}, {{"action", "install"}});
    EXPECT_EQ(before.status, 404) << before.body;
    EXPECT_EQ(kc.get("/apis/installer.kyma-project.io/v1alpha1").status, 404);
    kc.create_installation_crd();
    Resp disc = kc.get("/apis/installer.kyma-project.io/v1alpha1");
    ASSERT_EQ(disc.status, 200) << disc.body;
    EXPECT_EQ(disc.json["resources"][0]["name"], "installations");
    Resp created = kc.create_cr({"a"}, {{"action", "install"}});
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(kc.create_cr({"a"}, {}).json["reason"], "AlreadyExists");
    // A Kubernetes 1.3x cluster serves CRDs through v1 only.
    Resp v1 = kc.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                     "installations.installer.kyma-project.io");
    ASSERT_EQ(v1.status, 200);
    EXPECT_EQ(v1.json["apiVersion"], "apiextensions.k8s.io/v1");
    Resp group = kc.get("/apis/apiextensions.k8s.io");
    ASSERT_EQ(group.json["versions"].size(), 1u);
    EXPECT_EQ(group.json["preferredVersion"]["version"], "v1");
}

TEST(KymaApi, CrdEstablishmentDelay) {
    KymaCluster kc;
    ASSERT_EQ(kc.knobs({{"crdEstablishSeconds", 0.3}}).status, 200);
    // The knob that switched v1beta1 CRDs off is gone: the Kubernetes version decides.
    EXPECT_EQ(kc.knobs({{"serveV1beta1Crds", true}}).status, 400);
    Json crd = {{"metadata", {{"name", "installations.installer.kyma-project.io"}}},
                {"spec", {{"group", "installer.kyma-project.io"}}}};
    ASSERT_EQ(kc.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).status, 201);
    EXPECT_EQ(kc.create_cr({"a"}, {}).status, 404); // not established yet
    const std::string path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                             "installations.installer.kyma-project.io";
    EXPECT_FALSE(kc.get(path).json.contains("status"));
    EXPECT_TRUE(eventually([&] { return kc.create_cr({"a"}, {}).status == 201; }, 3));
    // The controller's status write: conditions NamesAccepted and Established.
    Json conditions = kc.get(path).json["status"]["conditions"];
    ASSERT_EQ(conditions.size(), 2u);
    EXPECT_EQ(conditions[1]["type"], "Established");
    EXPECT_EQ(conditions[1]["status"], "True");
}

TEST(KymaApi, CustomResourcesNeedAResourceVersionAndStaleOnesConflict) {
    KymaCluster kc;
    kc.create_installation_crd();
    ASSERT_EQ(kc.create_cr({"a"}, {}).status, 201);
    Json obj = kc.cr();
    Json unconditional = obj;
    unconditional["metadata"].erase("resourceVersion");
    Resp r = kc.put(kc.cr_path(), unconditional);
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.json["details"]["causes"][0]["field"], "metadata.resourceVersion");
    // status is written through the main resource (no /status subresource)
    Json with_status = obj;
    with_status["status"] = {{"state", "InProgress"}};
    Resp ok = kc.put(kc.cr_path(), with_status);
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(ok.json["status"]["state"], "InProgress");
    EXPECT_NE(ok.json["metadata"]["resourceVersion"], obj["metadata"]["resourceVersion"]);
    EXPECT_EQ(kc.put(kc.cr_path(), obj).status, 409); // stale
    EXPECT_EQ(kc.get(kc.cr_path() + "/status").status, 404);
    // core kinds take an update without resourceVersion
    Json cm = {{"metadata", {{"name", "x"}}}, {"data", {{"a", "1"}}}};
    ASSERT_EQ(kc.post("/api/v1/namespaces/default/configmaps", cm).status, 201);
    cm["data"]["a"] = "2";
    EXPECT_EQ(kc.put("/api/v1/namespaces/default/configmaps/x", cm).status, 200);
}

TEST(KymaApi, KeysLabelsAndMissingNamespacesAreRefused) {
    KymaCluster kc;
    Json cm = {{"metadata", {{"name", "global-installer-config"}}}, {"data", {{"a", "1"}}}};
    Resp missing = kc.post("/api/v1/namespaces/kyma-installer/configmaps", cm);
    ASSERT_EQ(missing.status, 404);
    EXPECT_EQ(missing.json["message"], "namespaces \"kyma-installer\" not found");
    kc.post("/api/v1/namespaces", {{"metadata", {{"name", "kyma-installer"}}}});
    Json bad_key = cm;
    bad_key["data"] = {{"global.domain name", "x"}};
    Resp r = kc.post("/api/v1/namespaces/kyma-installer/configmaps", bad_key);
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.json["details"]["causes"][0]["field"], "data[global.domain name]");
    Json long_key = cm;
    long_key["data"] = {{std::string(254, 'k'), "x"}};
    EXPECT_EQ(kc.post("/api/v1/namespaces/kyma-installer/configmaps", long_key).status, 422);
    Json secret = {{"metadata", {{"name", "s"}}}, {"data", {{"bad key!", "eA=="}}}};
    EXPECT_EQ(kc.post("/api/v1/namespaces/kyma-installer/secrets", secret).status, 422);
    for (const std::string& value : {std::string("-x"), std::string(64, 'v'), std::string("a b")}) {
        Json labelled = cm;
        labelled["metadata"]["labels"] = {{"installer", value}};
        EXPECT_EQ(kc.post("/api/v1/namespaces/kyma-installer/configmaps", labelled).status, 422)
            << value;
    }
    // An empty label value is fine, and selectors see key, !key and key=value.
    Json global = cm;
    global["metadata"]["labels"] = {{"installer", "overrides"}, {"conflict-strategy", ""}};
    ASSERT_EQ(kc.post("/api/v1/namespaces/kyma-installer/configmaps", global).status, 201);
    Json comp = cm;
    comp["metadata"] = {{"name", "istio-installer-config"},
                        {"labels", {{"installer", "overrides"}, {"component", "istio"}}}};
    ASSERT_EQ(kc.post("/api/v1/namespaces/kyma-installer/configmaps", comp).status, 201);
    auto names = [&](const std::string& selector) {
        std::vector<std::string> out;
        Resp l = kc.get("/api/v1/namespaces/kyma-installer/configmaps?labelSelector=" + selector);
        for (const auto& i : l.json["items"])
            out.push_back(i["metadata"]["name"]);
        return out;
    };
    EXPECT_EQ(names("installer%3Doverrides,!component"),
              std::vector<std::string>{"global-installer-config"});
    EXPECT_EQ(names("component"), std::vector<std::string>{"istio-installer-config"});
    EXPECT_EQ(names("component%3Distio"), std::vector<std::string>{"istio-installer-config"});
}

TEST(KymaApi, GenericKindsOfTheInstallerYaml) {
    KymaCluster kc;
    kc.deploy_installer();
    Resp dup = kc.post("/apis/apps/v1/namespaces/kyma-installer/deployments",
                       {{"metadata", {{"name", "kyma-installer"}}}});
    ASSERT_EQ(dup.status, 409);
    EXPECT_EQ(dup.json["reason"], "AlreadyExists");
    struct Kind {
        std::string collection;
        std::string name;
    };
    for (const Kind& kind : std::vector<Kind>{
             {"/api/v1/namespaces/kyma-installer/serviceaccounts", "kyma-installer"},
             {"/api/v1/namespaces/kyma-installer/services", "svc"},
             {"/api/v1/namespaces/kyma-installer/limitranges", "kyma-default"},
             {"/apis/batch/v1/namespaces/kyma-installer/jobs", "job"},
             {"/apis/rbac.authorization.k8s.io/v1/clusterroles", "kyma-installer-reader"},
             {"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "kyma-installer"},
             {"/apis/scheduling.k8s.io/v1/priorityclasses", "kyma-system-priority"},
             {"/apis/policy/v1/namespaces/kyma-installer/poddisruptionbudgets", "pdb"}}) {
        Json obj = {{"metadata", {{"name", kind.name}}}};
        Resp created = kc.post(kind.collection, obj);
        ASSERT_EQ(created.status, 201) << kind.collection << created.body;
        EXPECT_EQ(kc.post(kind.collection, obj).status, 409) << kind.collection;
        Json got = kc.get(kind.collection + "/" + kind.name).json;
        got["metadata"]["labels"]["x"] = "y";
        Resp updated = kc.put(kind.collection + "/" + kind.name, got);
        EXPECT_EQ(updated.status, 200) << kind.collection;
        EXPECT_NE(updated.json["metadata"]["resourceVersion"], got["metadata"]["resourceVersion"]);
    }
    EXPECT_EQ(kc.k->del(kc.c("/apis/apps/v1/namespaces/kyma-installer/deployments/kyma-installer"))
                  .status,
              200);
    Resp disc = kc.get("/apis");
    std::string groups = disc.body;
    for (const char* g : {"apps", "batch", "policy", "scheduling.k8s.io", "apiextensions.k8s.io"})
        EXPECT_NE(groups.find(g), std::string::npos) << g;
}

TEST(KymaApi, AWatchSeesTheStatusChangeAtOnce) {
    KymaCluster kc;
    kc.create_installation_crd();
    ASSERT_EQ(kc.create_cr({"a"}, {}).status, 201);
    std::string rv = kc.cr()["metadata"]["resourceVersion"];
    WatchCollector w(kc.f.sim->url(), "",
                     kc.c(std::string(k_installations) +
                          "?watch=true&fieldSelector=metadata.name%3Dkyma-installation"
                          "&resourceVersion=" +
                          rv));
    ASSERT_EQ(kc.knobs({{"state", "Bogus"}}).status, 200);
    auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(w.wait_for([](const Json& e) {
        return e["type"] == "MODIFIED" && e["object"]["status"]["state"] == "Bogus";
    }));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
    ASSERT_EQ(kc.knobs({{"deleteInstallation", true}}).status, 200);
    EXPECT_TRUE(w.wait_for([](const Json& e) { return e["type"] == "DELETED"; }));
    EXPECT_EQ(kc.get(kc.cr_path()).status, 404);
}

TEST(KymaApi, ServiceCatalogWhenInstalled) {
    KymaCluster kc;
    const std::string sc = "/apis/servicecatalog.k8s.io/v1beta1";
    EXPECT_EQ(kc.get(sc + "/clusterservicebrokers").status, 404);
    Json catalog = {
        {"brokers", Json::array({{{"name", "sm-broker"}, {"url", "https://service-manager.x/b"}},
                                 {{"name", "helm-broker"}, {"url", "http://helm-broker"}}})},
        {"classes", Json::array({{{"name", "class-1"}, {"broker", "sm-broker"}}})},
        {"instances",
         Json::array({{{"namespace", "prod"}, {"name", "i1"}, {"class", "class-1"}}})}};
    ASSERT_EQ(kc.knobs({{"serviceCatalog", catalog}, {"failInstanceDeletion", true}}).status, 200);
    Resp brokers = kc.get(sc + "/clusterservicebrokers");
    ASSERT_EQ(brokers.status, 200) << brokers.body;
    EXPECT_EQ(brokers.json["items"].size(), 2u);
    // The cleanup's chain: broker name -> classes -> instances by SHA-224 label values.
    Json classes = kc.get(sc + "/clusterserviceclasses").json["items"];
    ASSERT_EQ(classes.size(), 1u);
    std::string broker_hash =
        classes[0]["metadata"]["labels"]["servicecatalog.k8s.io/spec.clusterServiceBrokerName"];
    EXPECT_EQ(broker_hash.size(), 56u);
    EXPECT_EQ(kc.get(sc +
                     "/clusterserviceclasses?labelSelector=servicecatalog.k8s.io/"
                     "spec.clusterServiceBrokerName%3D" +
                     broker_hash)
                  .json["items"]
                  .size(),
              1u);
    Json instances = kc.get(sc + "/serviceinstances").json["items"];
    ASSERT_EQ(instances.size(), 1u);
    EXPECT_EQ(kc.k->del(kc.c(sc + "/namespaces/prod/serviceinstances/i1")).status, 500);
    ASSERT_EQ(kc.knobs({{"failInstanceDeletion", false}}).status, 200);
    EXPECT_EQ(kc.k->del(kc.c(sc + "/namespaces/prod/serviceinstances/i1")).status, 200);
    Json broker = kc.get(sc + "/clusterservicebrokers/sm-broker").json;
    broker["metadata"]["finalizers"] = Json::array();
    EXPECT_EQ(kc.put(sc + "/clusterservicebrokers/sm-broker", broker).status, 200);
    Resp crds = kc.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
    EXPECT_EQ(crds.json["items"].size(), 3u);
    ASSERT_EQ(kc.knobs({{"serviceCatalog", false}}).status, 200);
    EXPECT_EQ(kc.get(sc + "/clusterservicebrokers").status, 404);
}

TEST(KymaApi, FaultsPerVerbAndResourceOnARuntimeCluster) {
    KymaCluster kc;
    kc.create_installation_crd();
    ASSERT_EQ(kc.create_cr({"a"}, {}).status, 201);
    Json rule = {
        {"pathPrefix", kc.c(k_installations)}, {"method", "PUT"}, {"status", 409}, {"count", 1}};
    ASSERT_EQ(kc.f.http->post("/sim/faults", rule.dump()).status, 201);
    EXPECT_EQ(kc.label("install"), 409);
    EXPECT_EQ(kc.label("install"), 200);
    // By resource name, on any cluster and namespace: the next two config map writes fail.
    rule = {{"resource", "configmaps"}, {"method", "POST"}, {"status", 500}, {"count", 2}};
    ASSERT_EQ(kc.f.http->post("/sim/faults", rule.dump()).status, 201);
    Json cm = {{"metadata", {{"name", "x"}}}};
    EXPECT_EQ(kc.post("/api/v1/namespaces/default/configmaps", cm).status, 500);
    EXPECT_EQ(kc.post("/api/v1/namespaces/kube-system/configmaps", cm).status, 500);
    EXPECT_EQ(kc.post("/api/v1/namespaces/default/secrets", cm).status, 201);
    EXPECT_EQ(kc.post("/api/v1/namespaces/default/configmaps", cm).status, 201);
    // A connection reset.
    rule = {{"resource", "installations"}, {"method", "GET"}, {"drop", true}, {"count", 1}};
    ASSERT_EQ(kc.f.http->post("/sim/faults", rule.dump()).status, 201);
    EXPECT_EQ(kc.get(kc.cr_path()).status, 0);
    EXPECT_EQ(kc.get(kc.cr_path()).status, 200);
}

TEST(KymaApi, KnobsAndBadKnobs) {
    KymaCluster kc;
    EXPECT_EQ(kc.knobs({{"nope", 1}}).status, 400);
    EXPECT_EQ(kc.knobs({{"failures", {{"istio", -1}}}}).status, 400);
    EXPECT_EQ(kc.knobs({{"state", "Bogus"}}).status, 404); // no Installation yet
    Resp pre =
        kc.knobs({{"installation", {{"state", "Installed"}, {"labels", {{"action", "install"}}}}}});
    ASSERT_EQ(pre.status, 200) << pre.body;
    EXPECT_EQ(kc.cr()["status"]["state"], "Installed");
    // addressed by shoot name as well; unknown clusters keep knobs for later
    EXPECT_EQ(kc.f.http->get("/sim/clusters/c1/kyma").json["cluster"], KymaCluster::k_id);
    Resp later = kc.f.http->post("/sim/clusters/shoot--dev--c2/kyma",
                                 Json{{"failures", {{"istio", 2}}}}.dump());
    EXPECT_EQ(later.status, 202);
    EXPECT_EQ(kc.f.http->get("/sim/clusters/shoot--dev--c2/kyma").status, 404);
    ASSERT_EQ(kc.f.http->post(kc.f.shoots(), shoot_body("c2").dump()).status, 201);
    ASSERT_TRUE(eventually(
        [&] { return kc.f.http->get("/sim/clusters/shoot--dev--c2/kyma").status == 200; }));
    EXPECT_EQ(
        kc.f.http->get("/sim/clusters/shoot--dev--c2/kyma").json["knobs"]["failures"]["istio"], 2);
}
