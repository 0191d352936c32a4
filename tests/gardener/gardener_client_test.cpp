// GardenerClient and RuntimeClusterClient: paths, bodies and how absence is reported.

#include "engine/error.hpp"
#include "fakes.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kube_error.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "net/base64.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::HasSubstr;
using namespace testing;
using nlohmann::json;

const std::string k_shoots =
    "https://api.test/apis/core.gardener.cloud/v1beta1/namespaces/garden-proj/shoots";

class GardenerClientTest : public ::testing::Test {
protected:
    GardenerClientTest()
        : gardener(test_kubeconfig(), "proj", options()) {}
    ClientOptions options() {
        ClientOptions o;
        o.transport = transport;
        o.clock = std::make_shared<FakeClock>();
        return o;
    }
    net::HttpRequest last() { return transport->requests().back(); }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    GardenerClient gardener;
};

TEST_F(GardenerClientTest, ShootsLiveInTheProjectNamespace) {
    EXPECT_EQ(gardener.namespace_name(), "garden-proj");
    transport->reply(200, R"({"metadata":{"name":"c1"}})");
    const auto shoot = gardener.get_shoot("c1");
    ASSERT_TRUE(shoot.has_value());
    EXPECT_EQ(last().url, k_shoots + "/c1");
    transport->reply(
        404, status_body(404, "NotFound", "shoots.core.gardener.cloud \\\"c2\\\" not found"));
    EXPECT_EQ(gardener.get_shoot("c2"), std::nullopt);
}

TEST_F(GardenerClientTest, ListCreateUpdatePatchDelete) {
    transport->reply(200, R"({"metadata":{"resourceVersion":"9"},"items":[{"a":1}]})");
    const json list = gardener.list_shoots("account=ga");
    EXPECT_EQ(list["items"].size(), 1U);
    EXPECT_EQ(last().url, k_shoots + "?labelSelector=account%3Dga&limit=500");

    transport->reply(201, R"({"metadata":{"name":"c1","resourceVersion":"1"}})");
    gardener.create_shoot({{"metadata", {{"name", "c1"}}}});
    EXPECT_EQ(last().method, "POST");
    EXPECT_EQ(last().url, k_shoots);

    transport->reply(200, "{}");
    gardener.update_shoot({{"metadata", {{"name", "c1"}, {"resourceVersion", "1"}}}});
    EXPECT_EQ(last().method, "PUT");
    EXPECT_EQ(last().url, k_shoots + "/c1");
    EXPECT_THROW(gardener.update_shoot(json::object()), Error);

    transport->reply(200, "{}");
    gardener.patch_shoot("c1", {{"spec", {{"hibernation", {{"enabled", true}}}}}});
    EXPECT_EQ(last().method, "PATCH");
    EXPECT_EQ(header_of(last(), "Content-Type"), "application/merge-patch+json");

    transport->reply(200, R"({"metadata":{"deletionTimestamp":"2024-01-01T00:00:00Z"}})");
    EXPECT_TRUE(gardener.delete_shoot("c1"));
    EXPECT_EQ(last().method, "DELETE");
    transport->reply(404, status_body(404, "NotFound", "gone"));
    EXPECT_FALSE(gardener.delete_shoot("c1"));
}

TEST_F(GardenerClientTest, ErrorsSayGardenerAndTheComponent) {
    transport->reply(403, status_body(403, "Forbidden", "deletion not confirmed"));
    try {
        gardener.delete_shoot("c1");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "gardener: DELETE /apis/core.gardener.cloud/v1beta1/namespaces/"
                               "garden-proj/shoots/c1: 403 Forbidden: deletion not confirmed");
        EXPECT_EQ(e.component(), "k8s client - gardener");
    }
}

TEST_F(GardenerClientTest, AdminKubeconfigIsRequestedAndDecoded) {
    const std::string kubeconfig = "apiVersion: v1\nkind: Config\n";
    transport->reply(201, json({{"kind", "AdminKubeconfigRequest"},
                                {"status",
                                 {{"kubeconfig", net::base64_encode(kubeconfig)},
                                  {"expirationTimestamp", "2024-01-01T08:00:00Z"}}}})
                              .dump());
    EXPECT_EQ(gardener.admin_kubeconfig("c1", std::chrono::hours(8)), kubeconfig);
    EXPECT_EQ(last().method, "POST");
    EXPECT_EQ(last().url, k_shoots + "/c1/adminkubeconfig");
    EXPECT_EQ(json::parse(last().body),
              json::parse(R"({"apiVersion":"authentication.gardener.cloud/v1alpha1",
                   "kind":"AdminKubeconfigRequest","spec":{"expirationSeconds":28800}})"));

    transport->reply(201, R"({"status":{}})");
    EXPECT_THROW(gardener.admin_kubeconfig("c1", std::chrono::hours(8)), KubeError);
}

TEST_F(GardenerClientTest, SeedsAreClusterScoped) {
    transport->reply(200, R"({"spec":{"provider":{"type":"aws"}}})");
    EXPECT_EQ((*gardener.get_seed("aws-eu1"))["spec"]["provider"]["type"], "aws");
    EXPECT_EQ(last().url, "https://api.test/apis/core.gardener.cloud/v1beta1/seeds/aws-eu1");
}

TEST_F(GardenerClientTest, ConfigMapCreateOrUpdate) {
    const json desired = {{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", "oidc"}}},
                          {"data", {{"config.yaml", "x"}}}};
    const std::string path = "https://api.test/api/v1/namespaces/garden-proj/configmaps";
    // Absent: created.
    transport->reply(404, status_body(404, "NotFound", "no"));
    transport->reply(201, "{}");
    gardener.create_or_update_config_map(desired);
    EXPECT_EQ(last().method, "POST");
    EXPECT_EQ(last().url, path);
    // Present: replaced with its resourceVersion; a conflict reads again.
    transport->reply(200, R"({"metadata":{"name":"oidc","resourceVersion":"3"}})");
    transport->reply(409, status_body(409, "Conflict", "modified"));
    transport->reply(200, R"({"metadata":{"name":"oidc","resourceVersion":"4"}})");
    transport->reply(200, "{}");
    gardener.create_or_update_config_map(desired);
    EXPECT_EQ(last().method, "PUT");
    EXPECT_EQ(last().url, path + "/oidc");
    EXPECT_EQ(json::parse(last().body)["metadata"]["resourceVersion"], "4");
    EXPECT_EQ(json::parse(last().body)["data"], desired["data"]);
}

TEST(RuntimeClusterClient, FromAdminKubeconfigText) {
    auto transport = std::make_shared<FakeTransport>();
    ClientOptions options;
    options.transport = transport;
    options.clock = std::make_shared<FakeClock>();
    const std::string kubeconfig = R"(
apiVersion: v1
kind: Config
current-context: garden-p--c1-external
clusters:
- name: garden-p--c1-external
  cluster: {server: "https://api.c1.example"}
users:
- name: garden-p--c1-external
  user: {token: abc}
contexts:
- name: garden-p--c1-external
  context: {cluster: garden-p--c1-external, user: garden-p--c1-external}
)";
    auto cluster = RuntimeClusterClient::from_kubeconfig(kubeconfig, options);

    transport->reply(409, status_body(409, "AlreadyExists", "exists"));
    EXPECT_FALSE(cluster.create_namespace("istio-system", nullptr));
    EXPECT_EQ(transport->requests().back().url, "https://api.c1.example/api/v1/namespaces");
    EXPECT_EQ(json::parse(transport->requests().back().body),
              json::parse(
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"istio-system"}})"));

    transport->reply(201, "{}");
    EXPECT_TRUE(cluster.create_cluster_role({{"metadata", {{"name", "l2-operator"}}}}));
    EXPECT_EQ(transport->requests().back().url,
              "https://api.c1.example/apis/rbac.authorization.k8s.io/v1/clusterroles");

    transport->reply(201, "{}");
    EXPECT_TRUE(cluster.create_cluster_role_binding({{"metadata", {{"name", "l2"}}}}));

    transport->reply(200, "{}");
    cluster.delete_cluster_role_bindings("app=kyma");
    EXPECT_EQ(transport->requests().back().method, "DELETE");
    EXPECT_EQ(transport->requests().back().url,
              "https://api.c1.example/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
              "?labelSelector=app%3Dkyma");

    transport->reply(404, status_body(404, "NotFound", "no"));
    EXPECT_EQ(cluster.get_secret("kyma-system", "s"), std::nullopt);
    EXPECT_EQ(transport->requests().back().url,
              "https://api.c1.example/api/v1/namespaces/kyma-system/secrets/s");

    transport->reply(500, status_body(500, "InternalError", "etcd"));
    options.retry.max_attempts = 1;
    auto single = RuntimeClusterClient::from_kubeconfig(kubeconfig, options);
    try {
        single.create_secret("ns", {{"metadata", {{"name", "s"}}}});
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_THAT(e.what(),
                    HasSubstr("runtime cluster: POST /api/v1/namespaces/ns/secrets: 500"));
        EXPECT_EQ(e.component(), "k8s client - cluster");
    }
}

TEST(RuntimeClusterClient, BrokenKubeconfigIsAConfigErrorWithoutItsContent) {
    try {
        RuntimeClusterClient::from_kubeconfig("users: [{name: u, user: {token: leaked}}]\n");
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("kubeconfig <runtime cluster admin kubeconfig>"));
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("leaked")));
    }
}

} // namespace
} // namespace kprov::gardener
