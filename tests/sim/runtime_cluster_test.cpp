// adminkubeconfig and the runtime clusters' API behind it.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class RuntimeCluster : public ::testing::Test {
protected:
    SimFixture f;
    std::unique_ptr<Http> cluster;
    std::string server;
    std::string token;

    void SetUp() override {
        ASSERT_EQ(f.http->post(f.shoots(), shoot_body("c1").dump()).status, 201);
        ASSERT_TRUE(eventually([&] {
            return f.http->get(f.shoot("c1"))
                       .json["status"]
                       .value("lastOperation", Json::object())
                       .value("state", "") == "Succeeded";
        }));
        Resp r = request_kubeconfig(R"({"apiVersion":"authentication.gardener.cloud/v1alpha1",
                                        "kind":"AdminKubeconfigRequest","spec":{"expirationSeconds":28800}})");
        ASSERT_EQ(r.status, 201) << r.body;
        auto yaml = base64_decode(r.json["status"]["kubeconfig"].get<std::string>());
        ASSERT_TRUE(yaml);
        server = yaml_value(*yaml, "server");
        token = yaml_value(*yaml, "token");
        ASSERT_EQ(server, f.sim->url() + "/clusters/shoot--dev--c1");
        ASSERT_FALSE(token.empty());
        EXPECT_EQ(yaml_value(*yaml, "current-context"), "garden-dev--c1-external");
        cluster = std::make_unique<Http>(f.sim->url(), token);
    }

    Resp request_kubeconfig(const std::string& body) {
        return f.http->post(f.shoot("c1") + "/adminkubeconfig", body);
    }
    std::string c(const std::string& path) const { return "/clusters/shoot--dev--c1" + path; }
};

} // namespace

TEST_F(RuntimeCluster, AdminKubeconfigRequestRules) {
    Resp r = request_kubeconfig(R"({"spec":{"expirationSeconds":86400000}})");
    ASSERT_EQ(r.status, 201);
    EXPECT_EQ(r.json["spec"]["expirationSeconds"], 86400); // capped
    EXPECT_EQ(r.json["kind"], "AdminKubeconfigRequest");
    EXPECT_TRUE(r.json["status"]["expirationTimestamp"].is_string());
    Resp small = request_kubeconfig(R"({"spec":{"expirationSeconds":599}})");
    ASSERT_EQ(small.status, 422);
    EXPECT_EQ(small.json["details"]["causes"][0]["field"], "spec.expirationSeconds");
    EXPECT_EQ(f.http->post(f.shoot("missing") + "/adminkubeconfig", "{}").status, 404);
}

TEST_F(RuntimeCluster, KubeconfigBeforeTheApiServerIsUpIs422) {
    SimOptions slow = fast_options();
    slow.lifecycle.create_seconds = 30;
    SimFixture s(slow);
    s.http->post(s.shoots(), shoot_body("late").dump());
    Resp r = s.http->post(s.shoot("late") + "/adminkubeconfig", "{}");
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_NE(r.json["message"].get<std::string>().find("advertised address"), std::string::npos);
}

TEST_F(RuntimeCluster, NamespacesAndAlreadyExists) {
    Resp list = cluster->get(c("/api/v1/namespaces"));
    ASSERT_EQ(list.status, 200) << list.body;
    EXPECT_EQ(list.json["kind"], "NamespaceList");
    EXPECT_GE(list.json["items"].size(), 4u);
    Json ns = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "istio-system"}}}};
    Resp created = cluster->post(c("/api/v1/namespaces"), ns.dump());
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(created.json["status"]["phase"], "Active");
    Resp dup = cluster->post(c("/api/v1/namespaces"), ns.dump());
    ASSERT_EQ(dup.status, 409);
    EXPECT_EQ(dup.json["kind"], "Status");
    EXPECT_EQ(dup.json["reason"], "AlreadyExists");
    EXPECT_EQ(dup.json["message"], "namespaces \"istio-system\" already exists");
    EXPECT_EQ(dup.json["details"]["kind"], "namespaces");
    EXPECT_EQ(cluster->get(c("/api/v1/namespaces/istio-system")).status, 200);
    EXPECT_EQ(cluster->del(c("/api/v1/namespaces/istio-system")).json["status"], "Success");
    EXPECT_EQ(cluster->get(c("/api/v1/namespaces/istio-system")).status, 404);
}

TEST_F(RuntimeCluster, ClusterRolesAndBindingsWithDeleteCollection) {
    Json role = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
        "metadata":{"name":"l2-operator","labels":{"app":"kyma"}},
        "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-edit":"true"}}]}})"_json;
    ASSERT_EQ(
        cluster->post(c("/apis/rbac.authorization.k8s.io/v1/clusterroles"), role.dump()).status,
        201);
    EXPECT_EQ(
        cluster->post(c("/apis/rbac.authorization.k8s.io/v1/clusterroles"), role.dump()).status,
        409);
    EXPECT_EQ(
        cluster->get(c("/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin")).status,
        200);
    auto binding = [](const std::string& name, bool managed) {
        Json b = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", {{"name", name}, {"labels", {{"app", "kyma"}}}}},
                  {"roleRef",
                   {{"apiGroup", "rbac.authorization.k8s.io"},
                    {"kind", "ClusterRole"},
                    {"name", "cluster-admin"}}},
                  {"subjects", Json::array({{{"kind", "Group"},
                                             {"name", "runtimeAdmin"},
                                             {"apiGroup", "rbac.authorization.k8s.io"}}})}};
        if (managed)
            b["metadata"]["labels"]["reconciler.kyma-project.io/managed-by"] = "reconciler";
        return b;
    };
    const std::string crbs = c("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings");
    ASSERT_EQ(cluster->post(crbs, binding("l2-operator", true).dump()).status, 201);
    ASSERT_EQ(cluster->post(crbs, binding("l3-operator-admin", true).dump()).status, 201);
    ASSERT_EQ(cluster->post(crbs, binding("keep-me", false).dump()).status, 201);
    Resp del = cluster->del(
        crbs + "?labelSelector=reconciler.kyma-project.io%2Fmanaged-by%3Dreconciler%2Capp%3Dkyma");
    ASSERT_EQ(del.status, 200) << del.body;
    EXPECT_EQ(del.json["kind"], "ClusterRoleBindingList");
    EXPECT_EQ(del.json["items"].size(), 2u);
    Resp left = cluster->get(crbs);
    ASSERT_EQ(left.json["items"].size(), 1u);
    EXPECT_EQ(left.json["items"][0]["metadata"]["name"], "keep-me");
}

TEST_F(RuntimeCluster, SecretsAndConfigMaps) {
    const std::string secrets = c("/api/v1/namespaces/kube-system/secrets");
    Json s = {{"metadata", {{"name", "creds"}}}, {"stringData", {{"user", "admin"}}}};
    Resp created = cluster->post(secrets, s.dump());
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(created.json["data"]["user"], base64_encode("admin"));
    EXPECT_EQ(created.json["type"], "Opaque");
    Json bad = {{"metadata", {{"name", "bad"}}}, {"data", {{"x", "not base64!"}}}};
    EXPECT_EQ(cluster->post(secrets, bad.dump()).status, 400);
    EXPECT_EQ(cluster->post(c("/api/v1/namespaces/missing/secrets"), s.dump()).status, 404);

    const std::string cms = c("/api/v1/namespaces/default/configmaps");
    Json cm = {{"metadata", {{"name", "cfg"}, {"labels", {{"a", "b"}}}}}, {"data", {{"k", "v"}}}};
    Resp cmr = cluster->post(cms, cm.dump());
    ASSERT_EQ(cmr.status, 201);
    Json upd = cmr.json;
    upd["data"]["k"] = "w";
    Resp u = cluster->put(cms + "/cfg", upd.dump());
    ASSERT_EQ(u.status, 200) << u.body;
    EXPECT_EQ(u.json["data"]["k"], "w");
    EXPECT_EQ(cluster->put(cms + "/cfg", upd.dump()).status, 409) << "stale resourceVersion";
    EXPECT_EQ(cluster->patch(cms + "/cfg", R"({"data":{"z":"1"}})", "application/merge-patch+json")
                  .json["data"]["z"],
              "1");
    EXPECT_EQ(cluster->get(cms + "?labelSelector=a%3Db").json["items"].size(), 1u);
    EXPECT_EQ(cluster->del(cms + "/cfg").status, 200);
    EXPECT_EQ(cluster->get(cms + "/cfg").status, 404);
}

TEST_F(RuntimeCluster, TokensAreCheckedPerCluster) {
    Http wrong(f.sim->url(), "not-a-token");
    EXPECT_EQ(wrong.get(c("/api/v1/namespaces")).status, 401);
    Http garden_token(f.sim->url(), f.sim->token());
    EXPECT_EQ(garden_token.get(c("/api/v1/namespaces")).status, 401);
    Http no_token(f.sim->url(), "");
    EXPECT_EQ(no_token.get(c("/api/v1/namespaces")).status, 200)
        << "plain HTTP without credentials is served";
    EXPECT_EQ(cluster->get(f.shoots()).status, 401) << "a cluster token is no Gardener token";
}

TEST_F(RuntimeCluster, DiscoveryAndVersion) {
    EXPECT_EQ(cluster->get(c("/version")).json["major"], "1");
    EXPECT_EQ(cluster->get(c("/api")).json["versions"][0], "v1");
    Resp rbac = cluster->get(c("/apis/rbac.authorization.k8s.io/v1"));
    ASSERT_EQ(rbac.status, 200);
    EXPECT_EQ(rbac.json["kind"], "APIResourceList");
}

TEST_F(RuntimeCluster, AHibernatedClusterIsUnavailableAndADeletedOneIsGone) {
    f.http->patch(f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":true}}})",
                  "application/merge-patch+json");
    ASSERT_TRUE(eventually(
        [&] { return f.http->get(f.shoot("c1")).json["status"]["hibernated"] == true; }));
    EXPECT_EQ(cluster->get(c("/api/v1/namespaces")).status, 503);
    f.http->patch(f.shoot("c1"),
                  R"({"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}})",
                  "application/merge-patch+json");
    f.http->del(f.shoot("c1"));
    ASSERT_TRUE(eventually([&] { return f.http->get(f.shoot("c1")).status == 404; }));
    EXPECT_EQ(cluster->get(c("/api/v1/namespaces")).status, 401)
        << "the cluster's tokens died with it";
}

TEST_F(RuntimeCluster, ServesOpenApiForItsKinds) {
    Resp index = cluster->get(c("/openapi/v3"));
    ASSERT_EQ(index.status, 200) << index.body;
    std::string url = index.json["paths"]["api/v1"]["serverRelativeURL"];
    Resp core = cluster->get(c(url));
    ASSERT_EQ(core.status, 200) << core.body;
    const Json& cm = core.json["components"]["schemas"]["io.k8s.api.core.v1.ConfigMap"];
    EXPECT_EQ(cm["properties"]["data"]["additionalProperties"]["type"], "string");
    EXPECT_EQ(cm["x-kubernetes-group-version-kind"][0]["kind"], "ConfigMap");
    Resp v2 = cluster->get(c("/openapi/v2"));
    ASSERT_EQ(v2.status, 200);
    EXPECT_TRUE(v2.json["definitions"].contains("io.k8s.api.rbac.v1.ClusterRole"));
    EXPECT_FALSE(v2.json["definitions"].contains(
        "com.github.gardener.gardener.pkg.apis.core.v1beta1.Shoot"));
    // The same table decodes: a ConfigMap value that is not a string is a 400.
    Resp bad = cluster->post(c("/api/v1/namespaces/default/configmaps"),
                             R"({"metadata":{"name":"n"},"data":{"k":1}})");
    EXPECT_EQ(bad.status, 400) << bad.body;
}
