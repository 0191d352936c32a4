// The verbs of KubeClient: what goes on the wire, what comes back, pagination and logging.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"
#include "log_capture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using namespace testing;
using nlohmann::json;

class KubeClientTest : public ::testing::Test {
protected:
    KubeClientTest() { client = std::make_unique<KubeClient>(test_kubeconfig(), fake_options()); }
    // The options of `client`: the fake transport and clock.
    ClientOptions fake_options() const {
        ClientOptions options;
        options.transport = transport;
        options.clock = clock;
        return options;
    }
    net::HttpRequest last() { return transport->requests().back(); }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    std::unique_ptr<KubeClient> client;
};

TEST_F(KubeClientTest, GetSendsCredentialsAndAcceptsJson) {
    transport->reply(200, R"({"kind":"ConfigMap","metadata":{"name":"a"}})");
    const json object = client->get("/api/v1/namespaces/n/configmaps/a");
    EXPECT_EQ(object["metadata"]["name"], "a");
    const net::HttpRequest request = last();
    EXPECT_EQ(request.method, "GET");
    EXPECT_EQ(request.url, "https://api.test/api/v1/namespaces/n/configmaps/a");
    EXPECT_EQ(header_of(request, "Authorization"), std::string("Bearer ") + k_secret_token);
    EXPECT_EQ(header_of(request, "Accept"), "application/json");
    EXPECT_THAT(header_of(request, "User-Agent"), StartsWith("kprov/"));
    EXPECT_EQ(request.total_timeout, std::chrono::milliseconds(60'000));
    EXPECT_EQ(request.connect_timeout, std::chrono::milliseconds(10'000));
}

TEST_F(KubeClientTest, AbsenceIsNulloptForGetAndDelete) {
    transport->reply(404, status_body(404, "NotFound", "gone"));
    EXPECT_EQ(client->get_if_exists("/api/v1/namespaces/x"), std::nullopt);
    transport->reply(404, status_body(404, "NotFound", "gone"));
    EXPECT_EQ(client->delete_object("/api/v1/namespaces/x"), std::nullopt);
    transport->reply(404, status_body(404, "NotFound", "gone"));
    EXPECT_THROW(client->get("/api/v1/namespaces/x"), KubeError);
}

TEST_F(KubeClientTest, CreateUpdateAndCreateIfAbsent) {
    transport->reply(201, R"({"metadata":{"name":"a","resourceVersion":"1"}})");
    const json created = client->create("/api/v1/namespaces", {{"metadata", {{"name", "a"}}}});
    EXPECT_EQ(created["metadata"]["resourceVersion"], "1");
    EXPECT_EQ(last().method, "POST");
    EXPECT_EQ(header_of(last(), "Content-Type"), "application/json");
    EXPECT_EQ(json::parse(last().body), json({{"metadata", {{"name", "a"}}}}));

    transport->reply(200, R"({"metadata":{"name":"a","resourceVersion":"2"}})");
    client->update("/api/v1/namespaces/a",
                   {{"metadata", {{"name", "a"}, {"resourceVersion", "1"}}}});
    EXPECT_EQ(last().method, "PUT");
    EXPECT_EQ(last().url, "https://api.test/api/v1/namespaces/a");
    EXPECT_EQ(json::parse(last().body)["metadata"]["resourceVersion"], "1");

    transport->reply(409, status_body(409, "AlreadyExists", "exists"));
    EXPECT_FALSE(client->create_if_absent("/api/v1/namespaces", json::object()));
    transport->reply(201, "{}");
    EXPECT_TRUE(client->create_if_absent("/api/v1/namespaces", json::object()));
    transport->reply(409, status_body(409, "Conflict", "modified"));
    EXPECT_THROW(client->create_if_absent("/api/v1/namespaces", json::object()), KubeError);
}

TEST_F(KubeClientTest, MergePatch) {
    const std::string path = "/apis/core.gardener.cloud/v1beta1/namespaces/garden-p/shoots/s";
    transport->reply(200, R"({"metadata":{"name":"s","labels":{"a":"b"}}})");
    const json patched = client->merge_patch(path, {{"metadata", {{"labels", {{"a", "b"}}}}}});
    EXPECT_EQ(patched["metadata"]["labels"]["a"], "b");
    EXPECT_EQ(last().method, "PATCH");
    EXPECT_EQ(header_of(last(), "Content-Type"), "application/merge-patch+json");
    EXPECT_EQ(last().url, "https://api.test" + path);
    EXPECT_EQ(json::parse(last().body), json({{"metadata", {{"labels", {{"a", "b"}}}}}}));
}

TEST_F(KubeClientTest, DeleteAndDeleteCollectionBySelector) {
    transport->reply(200, R"({"kind":"Status","status":"Success"})");
    const auto answer = client->delete_object("/api/v1/namespaces/a");
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ((*answer)["status"], "Success");
    EXPECT_EQ(last().method, "DELETE");
    EXPECT_EQ(last().url, "https://api.test/api/v1/namespaces/a");

    transport->reply(200, "{}");
    client->delete_collection("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                              {"reconciler.kyma-project.io/managed-by=reconciler,app=kyma", "", 0});
    EXPECT_EQ(last().url, "https://api.test/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
                          "?labelSelector=reconciler.kyma-project.io%2Fmanaged-by%3Dreconciler%2C"
                          "app%3Dkyma");
}

TEST_F(KubeClientTest, ListFollowsContinueTokensAndKeepsTheFirstSnapshot) {
    transport->reply(200,
                     R"({"kind":"ShootList","metadata":{"resourceVersion":"100","continue":"t1",
        "remainingItemCount":2},"items":[{"n":1},{"n":2}]})");
    transport->reply(200,
                     R"({"metadata":{"resourceVersion":"100","continue":"t2"},"items":[{"n":3}]})");
    transport->reply(200, R"({"metadata":{"resourceVersion":"100"},"items":[{"n":4}]})");
    const json list = client->list("/s", {"a in (x,y)", "", 2});
    ASSERT_EQ(list["items"].size(), 4U);
    EXPECT_EQ(list["items"][3]["n"], 4);
    EXPECT_EQ(list["kind"], "ShootList");
    EXPECT_EQ(list["metadata"], json({{"resourceVersion", "100"}}));
    const auto requests = transport->requests();
    ASSERT_EQ(requests.size(), 3U);
    EXPECT_EQ(requests[0].url, "https://api.test/s?labelSelector=a%20in%20%28x%2Cy%29&limit=2");
    EXPECT_EQ(requests[1].url,
              "https://api.test/s?labelSelector=a%20in%20%28x%2Cy%29&limit=2&continue=t1");
    EXPECT_EQ(requests[2].url,
              "https://api.test/s?labelSelector=a%20in%20%28x%2Cy%29&limit=2&continue=t2");
}

TEST_F(KubeClientTest, ListStartsOverWhenTheContinueTokenExpired) {
    transport->reply(200,
                     R"({"metadata":{"resourceVersion":"1","continue":"t1"},"items":[{"n":1}]})");
    transport->reply(410, status_body(410, "Expired", "continue token expired"));
    transport->reply(200, R"({"metadata":{"resourceVersion":"7"},"items":[{"n":1},{"n":2}]})");
    const json list = client->list("/s");
    EXPECT_EQ(list["items"].size(), 2U);
    EXPECT_EQ(list["metadata"]["resourceVersion"], "7");
    EXPECT_EQ(transport->requests()[2].url, "https://api.test/s?limit=500");
}

TEST_F(KubeClientTest, LogsOneDebugLinePerRequestAndServerWarningsButNoSecrets) {
    LogCapture log;
    ClientOptions options = fake_options();
    options.log = log.logger();
    KubeClient logged(test_kubeconfig(), options);
    transport->reply(200, "{}", {{"warning", "299 - \"unknown field \\\"spec.foo\\\"\""}});
    logged.get("/api/v1/namespaces?limit=1");
    transport->reply(500, status_body(500, "InternalError", "oops"));
    options.retry.max_attempts = 1;
    KubeClient single(test_kubeconfig(), options);
    EXPECT_THROW(single.get("/x"), KubeError);
    const std::string text = log.text();
    EXPECT_THAT(text, HasSubstr("debug kube: GET /api/v1/namespaces?limit=1 -> 200 in 0ms"));
    EXPECT_THAT(text,
                HasSubstr("warning kube: GET /api/v1/namespaces?limit=1: server warning: 299"));
    EXPECT_THAT(text, HasSubstr("debug kube: GET /x -> 500 in 0ms"));
    EXPECT_THAT(text, Not(HasSubstr(k_secret_token)));
}

// The retry loop logs to the client's logger (ClientOptions::log), not to a process-wide one.
TEST_F(KubeClientTest, LogsRetriesToTheClientsLogger) {
    LogCapture log;
    ClientOptions options = fake_options();
    options.log = log.logger();
    KubeClient logged(test_kubeconfig(), options);
    transport->reply(503, status_body(503, "ServiceUnavailable", "busy"));
    transport->reply(200, "{}");
    logged.get("/y");
    EXPECT_THAT(log.text(), HasSubstr("debug kube: GET /y: retrying in "));
    EXPECT_THAT(log.text(), HasSubstr("ms (503)"));
}

TEST_F(KubeClientTest, AnswerThatIsNotJsonIsAnError) {
    transport->reply(200, "<html>");
    try {
        client->get("/x");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "kube: GET /x: 200 answer is not JSON");
    }
}

TEST(UrlEncode, EncodesAllButUnreserved) {
    EXPECT_EQ(url_encode("a-b_c.d~e"), "a-b_c.d~e");
    EXPECT_EQ(url_encode("k=v,x!=y /"), "k%3Dv%2Cx%21%3Dy%20%2F");
}

} // namespace
} // namespace kprov::gardener
