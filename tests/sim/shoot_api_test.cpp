// The shoot REST API: verbs, status codes, Status bodies, admission and defaulting.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class ShootApi : public ::testing::Test {
protected:
    SimFixture f;
    Resp create(const Json& body, const std::string& ns = "garden-dev") {
        return f.http->post(f.shoots(ns), body.dump());
    }
};

void expect_status(const Resp& r, int code, const std::string& reason) {
    ASSERT_EQ(r.status, code) << r.body;
    EXPECT_EQ(r.json["kind"], "Status");
    EXPECT_EQ(r.json["apiVersion"], "v1");
    EXPECT_EQ(r.json["status"], "Failure");
    EXPECT_EQ(r.json["code"], code);
    EXPECT_EQ(r.json["reason"], reason);
    EXPECT_TRUE(r.json["message"].is_string());
}

std::vector<std::string> cause_fields(const Resp& r) {
    std::vector<std::string> out;
    for (const auto& c : r.json["details"]["causes"])
        out.push_back(c["field"].get<std::string>());
    return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_F(ShootApi, CreateReturns201WithDefaultsAndGetReturnsTheStoredObject) {
    Resp r = create(shoot_body("c1"));
    ASSERT_EQ(r.status, 201) << r.body;
    const Json& s = r.json;
    EXPECT_EQ(s["metadata"]["generation"], 1);
    EXPECT_FALSE(s["metadata"]["uid"].get<std::string>().empty());
    EXPECT_FALSE(s["metadata"]["resourceVersion"].get<std::string>().empty());
    EXPECT_EQ(s["spec"]["dns"]["domain"], "c1.dev.sim.kprov.local");
    EXPECT_EQ(s["spec"]["provider"]["workers"][0]["cri"]["name"], "containerd");
    EXPECT_EQ(s["spec"]["provider"]["workers"][0]["machine"]["architecture"], "amd64");
    EXPECT_FALSE(s["spec"].contains("cloudProfileName")); // synced only below Kubernetes 1.34
    EXPECT_EQ(s["status"]["hibernated"], false);
    EXPECT_EQ(s["status"]["technicalID"], "");
    EXPECT_TRUE(s["status"]["gardener"].is_object());
    EXPECT_FALSE(s["spec"].contains("seedName")); // the scheduler sets it later

    Resp g = f.http->get(f.shoot("c1"));
    ASSERT_EQ(g.status, 200);
    EXPECT_EQ(g.json["metadata"]["uid"], s["metadata"]["uid"]);
    EXPECT_TRUE(eventually(
        [&] { return f.http->get(f.shoot("c1")).json["spec"]["seedName"] == "sim-seed"; }));
}

TEST_F(ShootApi, AGivenDomainIsKeptAndTheDefaultUsesTheProject) {
    Json b = shoot_body("c2");
    b["spec"]["dns"] = {{"domain", "my.example.org"}};
    EXPECT_EQ(create(b).json["spec"]["dns"]["domain"], "my.example.org");
}

TEST_F(ShootApi, DuplicateCreateIs409AlreadyExists) {
    ASSERT_EQ(create(shoot_body("c1")).status, 201);
    Resp r = create(shoot_body("c1"));
    expect_status(r, 409, "AlreadyExists");
    EXPECT_EQ(r.json["details"]["name"], "c1");
    EXPECT_EQ(r.json["details"]["group"], "core.gardener.cloud");
    EXPECT_EQ(r.json["details"]["kind"], "shoots");
    EXPECT_EQ(r.json["message"], "shoots.core.gardener.cloud \"c1\" already exists");
}

TEST_F(ShootApi, MissingShootIs404WithAStatusBody) {
    Resp r = f.http->get(f.shoot("nope"));
    expect_status(r, 404, "NotFound");
    EXPECT_EQ(r.json["message"], "shoots.core.gardener.cloud \"nope\" not found");
    EXPECT_EQ(r.json["details"]["kind"], "shoots");
    expect_status(f.http->del(f.shoot("nope")), 404, "NotFound");
}

TEST_F(ShootApi, UnknownSpecFieldIs422WithACause) {
    Json b = shoot_body("c1");
    b["spec"]["colour"] = "blue";
    Resp r = create(b);
    expect_status(r, 422, "Invalid");
    EXPECT_EQ(r.json["details"]["kind"], "Shoot");
    EXPECT_TRUE(has(cause_fields(r), "spec.colour")) << r.body;
    EXPECT_EQ(r.json["details"]["causes"][0]["reason"], "FieldValueForbidden");
}

TEST_F(ShootApi, FieldValidationStrictIs400AndWarnDropsTheFieldWithAWarning) {
    Json b = shoot_body("c1");
    b["spec"]["colour"] = "blue";
    Resp strict = f.http->post(f.shoots() + "?fieldValidation=Strict", b.dump());
    expect_status(strict, 400, "BadRequest");
    EXPECT_NE(strict.json["message"].get<std::string>().find("unknown field \"spec.colour\""),
              std::string::npos);
    Resp warn = f.http->post(f.shoots() + "?fieldValidation=Warn", b.dump());
    ASSERT_EQ(warn.status, 201) << warn.body;
    EXPECT_FALSE(warn.json["spec"].contains("colour"));
    EXPECT_NE(warn.header("Warning").find("unknown field"), std::string::npos);
}

TEST_F(ShootApi, MissingRequiredFieldsAre422WithEveryCause) {
    Json b = shoot_body("c1");
    b["spec"].erase("region");
    b["spec"]["provider"].erase("type");
    b["spec"]["kubernetes"].erase("version");
    b["spec"]["provider"]["workers"] = Json::array();
    Resp r = create(b);
    expect_status(r, 422, "Invalid");
    auto fields = cause_fields(r);
    EXPECT_TRUE(has(fields, "spec.region")) << r.body;
    EXPECT_TRUE(has(fields, "spec.provider.type")) << r.body;
    EXPECT_FALSE(has(fields, "spec.kubernetes.version")) << "defaulted by the mutator: " << r.body;
    EXPECT_TRUE(has(fields, "spec.provider.workers")) << r.body;
    EXPECT_EQ(r.json["details"]["causes"][0]["reason"], "FieldValueRequired");
    EXPECT_EQ(r.json["message"].get<std::string>().rfind(
                  "Shoot.core.gardener.cloud \"c1\" is invalid: [", 0),
              0u);
}

TEST_F(ShootApi, WorkerRulesAreChecked) {
    Json b = shoot_body("c1");
    b["spec"]["provider"]["workers"][0]["minimum"] = 5;
    b["spec"]["provider"]["workers"][0]["maximum"] = 2;
    b["spec"]["provider"]["workers"][0]["volume"]["size"] = "50GB";
    b["spec"]["provider"]["workers"].push_back(b["spec"]["provider"]["workers"][0]);
    Resp r = create(b);
    expect_status(r, 422, "Invalid");
    auto fields = cause_fields(r);
    EXPECT_TRUE(has(fields, "spec.provider.workers[0].maximum")) << r.body;
    EXPECT_TRUE(has(fields, "spec.provider.workers[0].volume.size")) << r.body;
    EXPECT_TRUE(has(fields, "spec.provider.workers[1].name")) << r.body;
}

TEST_F(ShootApi, WrongJsonTypeIs400) {
    Json b = shoot_body("c1");
    b["spec"]["provider"]["workers"][0]["maximum"] = "3";
    Resp r = create(b);
    expect_status(r, 400, "BadRequest");
    EXPECT_NE(r.json["message"].get<std::string>().find(
                  "Worker.spec.provider.workers.maximum of type int32"),
              std::string::npos);
    expect_status(f.http->post(f.shoots(), "{not json"), 400, "BadRequest");
}

TEST_F(ShootApi, NameRules) {
    expect_status(create(shoot_body("Bad_Name")), 422, "Invalid");
    expect_status(create(shoot_body("a--b")), 422, "Invalid");
    // project "dev" (3) + 18 = 21 is fine, 19 is too long
    EXPECT_EQ(create(shoot_body(std::string(18, 'a'))).status, 201);
    Resp r = create(shoot_body(std::string(19, 'b')));
    expect_status(r, 422, "Invalid");
    EXPECT_EQ(r.json["details"]["causes"][0]["reason"], "FieldValueTooLong");
}

TEST_F(ShootApi, AnyGardenNamespaceIsAcceptedOthersAreForbidden) {
    Json binding = {{"metadata", {{"name", "aws-kyma-dev"}}},
                    {"provider", {{"type", "aws"}}},
                    {"credentialsRef",
                     {{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"name", "aws"},
                      {"namespace", "garden-other"}}}};
    ASSERT_EQ(f.http
                  ->post("/apis/security.gardener.cloud/v1alpha1/namespaces/garden-other/"
                         "credentialsbindings",
                         binding.dump())
                  .status,
              201);
    EXPECT_EQ(create(shoot_body("c1", "garden-other"), "garden-other").status, 201);
    expect_status(create(shoot_body("c1", "default"), "default"), 403, "Forbidden");
    Json mismatch = shoot_body("c2", "garden-x");
    expect_status(create(mismatch, "garden-dev"), 400, "BadRequest");
}

TEST_F(ShootApi, LegacyFieldsAreAcceptedBelowKubernetes134) {
    ASSERT_EQ(f.http
                  ->post("/apis/core.gardener.cloud/v1beta1/namespaces/garden-dev/secretbindings",
                         legacy_secret_binding().dump())
                  .status,
              201);
    Resp r = create(legacy_shoot_body("old"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.json["spec"]["cloudProfile"]["name"], "aws");
    EXPECT_EQ(r.json["spec"]["secretBindingName"], "legacy-aws");
    Json both = shoot_body("both");
    both["spec"]["secretBindingName"] = "x";
    expect_status(create(both), 422, "Invalid");
    Json new_k8s = legacy_shoot_body("new");
    new_k8s["spec"]["kubernetes"]["version"] = "1.34.6";
    expect_status(create(new_k8s), 422, "Invalid");
}

TEST_F(ShootApi, StructuredAuthenticationNeedsItsConfigMap) {
    Json b = shoot_body("oidc");
    b["spec"]["kubernetes"]["kubeAPIServer"] = {
        {"structuredAuthentication", {{"configMapName", "oidc-cm"}}}};
    expect_status(create(b), 403, "Forbidden");
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "oidc-cm"}}},
               {"data", {{"config.yaml", "apiVersion: apiserver.config.k8s.io/v1beta1"}}}};
    ASSERT_EQ(f.http->post("/api/v1/namespaces/garden-dev/configmaps", cm.dump()).status, 201);
    expect_status(f.http->post("/api/v1/namespaces/garden-dev/configmaps", cm.dump()), 409,
                  "AlreadyExists");
    EXPECT_EQ(create(b).status, 201);
    EXPECT_EQ(
        f.http->get("/api/v1/namespaces/garden-dev/configmaps/oidc-cm").json["data"]["config.yaml"],
        "apiVersion: apiserver.config.k8s.io/v1beta1");
    expect_status(f.http->post("/api/v1/namespaces/default/configmaps", cm.dump()), 404,
                  "NotFound");
}

TEST_F(ShootApi, PutNeedsTheCurrentResourceVersion) {
    Json s = create(shoot_body("c1")).json;
    Json no_rv = s;
    no_rv["metadata"].erase("resourceVersion");
    expect_status(f.http->put(f.shoot("c1"), no_rv.dump()), 422, "Invalid");

    // The shoot's creation writes its status meanwhile: a 409 then is the rule at work, and the
    // client reads again (a 409 on every try would be the bug).
    Json current;
    Resp ok;
    for (int attempt = 0; attempt < 20; ++attempt) {
        current = f.http->get(f.shoot("c1")).json;
        current["spec"]["provider"]["workers"][0]["maximum"] = 5;
        ok = f.http->put(f.shoot("c1"), current.dump());
        if (ok.status != 409)
            break;
    }
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(ok.json["spec"]["provider"]["workers"][0]["maximum"], 5);
    EXPECT_GT(ok.json["metadata"]["generation"].get<int>(),
              current["metadata"]["generation"].get<int>());

    Resp stale = f.http->put(f.shoot("c1"), current.dump()); // same, now stale, resourceVersion
    expect_status(stale, 409, "Conflict");
    EXPECT_NE(stale.json["message"].get<std::string>().find("the object has been modified"),
              std::string::npos);
}

TEST_F(ShootApi, ImmutableFieldsAndNameMismatch) {
    create(shoot_body("c1"));
    Json s = f.http->get(f.shoot("c1")).json;
    Json region = s;
    region["spec"]["region"] = "us-east-1";
    Resp r = f.http->put(f.shoot("c1"), region.dump());
    expect_status(r, 422, "Invalid");
    EXPECT_TRUE(has(cause_fields(r), "spec.region"));
    Json renamed = s;
    renamed["metadata"]["name"] = "c2";
    expect_status(f.http->put(f.shoot("c1"), renamed.dump()), 400, "BadRequest");
}

TEST_F(ShootApi, MergePatchJsonPatchAndApply) {
    create(shoot_body("c1"));
    Resp m = f.http->patch(f.shoot("c1"),
                           R"({"metadata":{"labels":{"team":"a"}},"spec":{"purpose":"testing"}})",
                           "application/merge-patch+json");
    ASSERT_EQ(m.status, 200) << m.body;
    EXPECT_EQ(m.json["metadata"]["labels"]["team"], "a");
    EXPECT_EQ(m.json["spec"]["purpose"], "testing");

    Resp j = f.http->patch(f.shoot("c1"),
                           R"([{"op":"test","path":"/spec/purpose","value":"testing"},
                               {"op":"replace","path":"/spec/provider/workers/0/maximum","value":7}])",
                           "application/json-patch+json");
    ASSERT_EQ(j.status, 200) << j.body;
    EXPECT_EQ(j.json["spec"]["provider"]["workers"][0]["maximum"], 7);
    expect_status(f.http->patch(f.shoot("c1"),
                                R"([{"op":"test","path":"/spec/purpose","value":"x"}])",
                                "application/json-patch+json"),
                  422, "Invalid");

    std::string stale = R"({"metadata":{"resourceVersion":"1"},"spec":{"purpose":"evaluation"}})";
    expect_status(f.http->patch(f.shoot("c1"), stale, "application/merge-patch+json"), 409,
                  "Conflict");
    expect_status(f.http->patch(f.shoot("c1"), "{}", "text/plain"), 415, "UnsupportedMediaType");

    Json apply = f.http->get(f.shoot("c1")).json;
    apply["metadata"].erase("resourceVersion");
    apply["metadata"]["annotations"]["confirmation.gardener.cloud/deletion"] = "true";
    expect_status(f.http->patch(f.shoot("c1"), apply.dump(), "application/apply-patch+yaml"), 422,
                  "Invalid");
    Resp a = f.http->patch(f.shoot("c1") + "?fieldManager=provisioner&force=true", apply.dump(),
                           "application/apply-patch+yaml");
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["metadata"]["annotations"]["confirmation.gardener.cloud/deletion"], "true");

    Resp sm = f.http->patch(
        f.shoot("c1"), R"({"spec":{"provider":{"workers":[{"name":"cpu-worker-0","maximum":9}]}}})",
        "application/strategic-merge-patch+json");
    ASSERT_EQ(sm.status, 200) << sm.body;
    EXPECT_EQ(sm.json["spec"]["provider"]["workers"][0]["maximum"], 9);
    EXPECT_EQ(sm.json["spec"]["provider"]["workers"][0]["machine"]["type"], "m5.xlarge");
}

TEST_F(ShootApi, ANoOpPatchKeepsTheResourceVersion) {
    create(shoot_body("c1"));
    ASSERT_TRUE(eventually(
        [&] { return f.http->get(f.shoot("c1")).json["status"].contains("lastOperation"); }));
    Json before = f.http->get(f.shoot("c1")).json;
    Resp r = f.http->patch(f.shoot("c1"), R"({"spec":{"region":"eu-central-1"}})",
                           "application/merge-patch+json");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json["metadata"]["generation"], before["metadata"]["generation"]);
}

TEST_F(ShootApi, ListWithLabelSelectorAndPagination) {
    for (const char* n : {"a1", "a2", "a3", "b1"}) {
        Json b = shoot_body(n);
        b["metadata"]["labels"]["group"] = std::string(n).substr(0, 1);
        ASSERT_EQ(create(b).status, 201);
    }
    Resp all = f.http->get(f.shoots());
    ASSERT_EQ(all.status, 200);
    EXPECT_EQ(all.json["kind"], "ShootList");
    EXPECT_EQ(all.json["items"].size(), 4u);
    EXPECT_FALSE(all.json["metadata"]["resourceVersion"].get<std::string>().empty());

    Resp a = f.http->get(f.shoots() + "?labelSelector=group%3Da");
    EXPECT_EQ(a.json["items"].size(), 3u);
    Resp notin = f.http->get(f.shoots() + "?labelSelector=group%20notin%20(a)");
    ASSERT_EQ(notin.json["items"].size(), 1u);
    EXPECT_EQ(notin.json["items"][0]["metadata"]["name"], "b1");
    Resp field = f.http->get(f.shoots() + "?fieldSelector=metadata.name%3Da2");
    ASSERT_EQ(field.json["items"].size(), 1u);
    expect_status(f.http->get(f.shoots() + "?fieldSelector=spec.purpose%3Dx"), 400, "BadRequest");
    expect_status(f.http->get(f.shoots() + "?labelSelector=in%20in%20in"), 400, "BadRequest");

    std::vector<std::string> names;
    std::string cont;
    int pages = 0;
    do {
        Resp page =
            f.http->get(f.shoots() + "?limit=3" + (cont.empty() ? "" : "&continue=" + cont));
        ASSERT_EQ(page.status, 200) << page.body;
        for (const auto& i : page.json["items"])
            names.push_back(i["metadata"]["name"]);
        cont = page.json["metadata"].value("continue", "");
        if (!cont.empty()) {
            EXPECT_EQ(page.json["metadata"]["remainingItemCount"], 1);
        }
        ++pages;
    } while (!cont.empty() && pages < 5);
    EXPECT_EQ(pages, 2);
    EXPECT_EQ(names, (std::vector<std::string>{"a1", "a2", "a3", "b1"}));
    Resp cross = f.http->get("/apis/core.gardener.cloud/v1beta1/shoots");
    EXPECT_EQ(cross.json["items"].size(), 4u);
}

TEST_F(ShootApi, DryRunStoresNothing) {
    Resp r = f.http->post(f.shoots() + "?dryRun=All", shoot_body("dry").dump());
    EXPECT_EQ(r.status, 201);
    EXPECT_EQ(f.http->get(f.shoot("dry")).status, 404);
}

TEST_F(ShootApi, SeedsAreServedReadOnly) {
    Resp list = f.http->get("/apis/core.gardener.cloud/v1beta1/seeds");
    ASSERT_EQ(list.status, 200);
    ASSERT_EQ(list.json["items"].size(), 1u);
    EXPECT_EQ(list.json["items"][0]["metadata"]["name"], "sim-seed");
    Resp seed = f.http->get("/apis/core.gardener.cloud/v1beta1/seeds/sim-seed");
    EXPECT_EQ(seed.json["spec"]["provider"]["type"], "aws");
    EXPECT_EQ(seed.json["spec"]["provider"]["region"], "eu-central-1");
    EXPECT_EQ(f.http->get("/apis/core.gardener.cloud/v1beta1/seeds/other").status, 404);
    EXPECT_EQ(f.http->post("/apis/core.gardener.cloud/v1beta1/seeds", "{}").status, 405);
}
