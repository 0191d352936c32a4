// The server around the APIs: authentication, HTTPS with the generated CA and client
// certificates, fault injection, request counters, discovery and Tables.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

TEST(Auth, AWrongTokenIs401AndNoTokenIsServedOverPlainHttp) {
    SimFixture f;
    Http wrong(f.sim->url(), "wrong");
    Resp r = wrong.get(f.shoots());
    ASSERT_EQ(r.status, 401);
    EXPECT_EQ(r.json["kind"], "Status");
    EXPECT_EQ(r.json["reason"], "Unauthorized");
    Http anonymous(f.sim->url(), "");
    EXPECT_EQ(anonymous.get(f.shoots()).status, 200);
    EXPECT_EQ(f.http->get(f.shoots()).status, 200);
}

TEST(Auth, TheKubeconfigCarriesTheTokenAndTheProjectNamespace) {
    SimFixture f;
    std::string kc = f.sim->gardener_kubeconfig();
    EXPECT_EQ(yaml_value(kc, "server"), f.sim->url());
    EXPECT_EQ(yaml_value(kc, "token"), "test-token");
    EXPECT_EQ(yaml_value(kc, "namespace"), "garden-dev");
    EXPECT_EQ(yaml_value(kc, "current-context"), "kprov-sim");
    EXPECT_EQ(yaml_value(kc, "certificate-authority-data"), "");
}

class Tls : public ::testing::Test {
protected:
    static SimOptions tls_options() {
        SimOptions o = fast_options();
        o.tls = true;
        return o;
    }
    SimFixture f{tls_options()};
    std::string ca_file = temp_file("ca.crt", f.sim->ca_pem());
};

TEST_F(Tls, HttpsWithTheGeneratedCaAndTheToken) {
    ASSERT_EQ(f.sim->url().rfind("https://127.0.0.1:", 0), 0u);
    Http h(f.sim->url(), f.sim->token(), ca_file);
    Resp r = h.get(f.shoots());
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json["kind"], "ShootList");
    std::string kc = f.sim->gardener_kubeconfig();
    auto ca = base64_decode(yaml_value(kc, "certificate-authority-data"));
    ASSERT_TRUE(ca);
    EXPECT_EQ(*ca, f.sim->ca_pem());
}

TEST_F(Tls, RefusedWithoutTheCa) {
    std::string other = temp_file("other.crt", Pki::generate({}).ca_pem());
    Http h(f.sim->url(), f.sim->token(), other);
    EXPECT_EQ(h.get(f.shoots()).status, 0)
        << "the server certificate must not verify against another CA";
}

TEST_F(Tls, NoCredentialsOverHttpsIs401) {
    Http h(f.sim->url(), "", ca_file);
    EXPECT_EQ(h.get(f.shoots()).status, 401);
    Http wrong(f.sim->url(), "wrong", ca_file);
    EXPECT_EQ(wrong.get(f.shoots()).status, 401);
}

TEST_F(Tls, ClientCertificateAuthentication) {
    CertPair client = f.sim->client_certificate("kprov-test");
    std::string crt = temp_file("client.crt", client.cert_pem);
    std::string key = temp_file("client.key", client.key_pem);
    Http h(f.sim->url(), "", ca_file, crt, key);
    Resp r = h.get(f.shoots());
    ASSERT_EQ(r.status, 200) << r.body;
    Resp created = h.post(f.shoots(), shoot_body("c1").dump());
    ASSERT_EQ(created.status, 201);
    EXPECT_EQ(created.json["metadata"]["annotations"]["gardener.cloud/created-by"],
              "kprov-sim-client-certificate");

    // A certificate from another CA fails the handshake.
    Pki other = Pki::generate({});
    CertPair foreign = other.issue_client("intruder", {});
    Http bad(f.sim->url(), "", ca_file, temp_file("f.crt", foreign.cert_pem),
             temp_file("f.key", foreign.key_pem));
    EXPECT_NE(bad.get(f.shoots()).status, 200);
}

TEST_F(Tls, RuntimeClusterKubeconfigCarriesTheCa) {
    Http h(f.sim->url(), f.sim->token(), ca_file);
    h.post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(eventually([&] {
        return h.get(f.shoot("c1"))
                   .json["status"]
                   .value("lastOperation", Json::object())
                   .value("state", "") == "Succeeded";
    }));
    Resp r = h.post(f.shoot("c1") + "/adminkubeconfig", "{}");
    ASSERT_EQ(r.status, 201);
    std::string kc = *base64_decode(r.json["status"]["kubeconfig"].get<std::string>());
    EXPECT_EQ(*base64_decode(yaml_value(kc, "certificate-authority-data")), f.sim->ca_pem());
    Http cluster(f.sim->url(), yaml_value(kc, "token"), ca_file);
    EXPECT_EQ(cluster.get("/clusters/shoot--dev--c1/api/v1/namespaces").status, 200);
}

TEST(Faults, RuleWith429AndRetryAfterThenRecovery) {
    SimFixture f;
    Resp add = f.http->post(
        "/sim/faults",
        R"({"status":429,"retryAfterSeconds":2,"count":2,"pathPrefix":"/apis/core.gardener.cloud"})");
    ASSERT_EQ(add.status, 201) << add.body;
    Resp r = f.http->get(f.shoots());
    ASSERT_EQ(r.status, 429);
    EXPECT_EQ(r.header("Retry-After"), "2");
    EXPECT_EQ(r.json["reason"], "TooManyRequests");
    EXPECT_EQ(r.json["details"]["retryAfterSeconds"], 2);
    EXPECT_EQ(f.http->get("/version").status, 200) << "outside the path prefix";
    EXPECT_EQ(f.http->get(f.shoots()).status, 429);
    EXPECT_EQ(f.http->get(f.shoots()).status, 200) << "count exhausted";
    EXPECT_TRUE(f.http->get("/sim/faults").json["rules"].empty());
}

TEST(Faults, FailRateLatencyAndDroppedConnections) {
    SimOptions o = fast_options();
    o.fail_rate = 1.0;
    SimFixture f(o);
    Resp r = f.http->get(f.shoots());
    EXPECT_TRUE(r.status == 500 || r.status == 503) << r.status;
    EXPECT_EQ(r.json["kind"], "Status");
    f.http->post("/sim/settings", R"({"failRate":0,"latencyMs":150})");
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(f.http->get(f.shoots()).status, 200);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
    f.http->post("/sim/settings", R"({"latencyMs":0})");
    f.http->post("/sim/faults", R"({"drop":true,"count":1,"method":"GET"})");
    EXPECT_EQ(f.http->get(f.shoots()).status, 0) << "the connection is cut";
    EXPECT_EQ(f.http->get(f.shoots()).status, 200);
    f.http->post("/sim/faults", R"({"status":503,"rate":0.0})");
    EXPECT_EQ(f.http->get(f.shoots()).status, 200) << "rate 0 never fires";
    EXPECT_EQ(f.http->del("/sim/faults").status, 200);
    EXPECT_EQ(f.http->post("/sim/faults", R"({"status":200})").status, 400);
}

TEST(Stats, CountsPerVerbAndPathTemplate) {
    SimFixture f;
    f.http->post(f.shoots(), shoot_body("c1").dump());
    f.http->get(f.shoot("c1"));
    f.http->get(f.shoot("c1"));
    f.http->get(f.shoots());
    Http(f.sim->url(), "wrong").get(f.shoot("c1"));
    Resp s = f.http->get("/sim/stats");
    ASSERT_EQ(s.status, 200);
    const Json& req = s.json["requests"];
    EXPECT_EQ(req["POST /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots"], 1);
    EXPECT_EQ(req["GET /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}"], 3);
    EXPECT_EQ(req["GET /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots"], 1);
    EXPECT_EQ(s.json["total"], 5);
    EXPECT_EQ(s.json["responses"]["401"], 1);
    ASSERT_EQ(f.http->post("/sim/stats/reset", "").status, 200);
    EXPECT_EQ(f.http->get("/sim/stats").json["total"], 0);
    EXPECT_EQ(f.http->get("/sim").status, 200);
    EXPECT_EQ(f.http->get("/sim/nope").status, 404);
}

TEST(Discovery, GroupsResourcesVersionAndTables) {
    SimFixture f;
    EXPECT_EQ(f.http->get("/version").json["gitVersion"], "v1.32.0-kprov-sim");
    EXPECT_EQ(f.http->get("/api").json["versions"][0], "v1");
    Resp groups = f.http->get("/apis");
    ASSERT_EQ(groups.json["kind"], "APIGroupList");
    EXPECT_EQ(groups.json["groups"][0]["name"], "core.gardener.cloud");
    Resp res = f.http->get("/apis/core.gardener.cloud/v1beta1");
    ASSERT_EQ(res.json["kind"], "APIResourceList");
    std::vector<std::string> names;
    for (const auto& r : res.json["resources"])
        names.push_back(r["name"]);
    EXPECT_NE(std::find(names.begin(), names.end(), "shoots"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "shoots/adminkubeconfig"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "seeds"), names.end());
    EXPECT_EQ(f.http->get("/openapi/v2").status, 200); // openapi_test.cpp checks the contents

    f.http->post(f.shoots(), shoot_body("c1").dump());
    Resp table = f.http->get(
        f.shoots(), {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
    ASSERT_EQ(table.json["kind"], "Table") << table.body;
    EXPECT_EQ(table.json["columnDefinitions"][0]["name"], "Name");
    ASSERT_EQ(table.json["rows"].size(), 1u);
    EXPECT_EQ(table.json["rows"][0]["cells"][0], "c1");
    EXPECT_EQ(table.json["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST(Health, HealthzNeedsNoToken) {
    SimFixture f;
    Http anon(f.sim->url(), "wrong");
    EXPECT_EQ(anon.get("/healthz").body, "ok");
}
