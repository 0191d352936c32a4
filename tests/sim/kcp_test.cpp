// The KCP cluster API at <url>/kcp: kubeconfig and authentication, the Kyma schema (422s and
// pruning), updates with resourceVersions, the status subresource, finalizers, selectors,
// watches, counters and the KLM knobs.

#include "cli.hpp"
#include "kcp_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

Json kyma_body(const std::string& name, const Json& spec) {
    return {{"apiVersion", "operator.kyma-project.io/v1beta2"},
            {"kind", "Kyma"},
            {"metadata", {{"name", name}}},
            {"spec", spec}};
}

std::vector<std::string> cause_fields(const Resp& r) {
    std::vector<std::string> out;
    for (const auto& c : r.json["details"].value("causes", Json::array()))
        out.push_back(c.value("field", ""));
    return out;
}

} // namespace

TEST(Kcp, KubeconfigAndAuthentication) {
    KcpWorld w;
    std::string kc = w.f.sim->kcp_kubeconfig();
    EXPECT_EQ(yaml_value(kc, "server"), w.f.sim->url() + "/kcp");
    EXPECT_EQ(yaml_value(kc, "token"), "kcp-test-token");
    EXPECT_EQ(yaml_value(kc, "namespace"), "kcp-system");
    EXPECT_EQ(w.kcp->get("/kcp/api/v1/namespaces/kcp-system").status, 200);
    EXPECT_EQ(Http(w.f.sim->url(), "wrong").get("/kcp/api/v1/namespaces").status, 401);
    // The Gardener token is not the KCP's, and the other way round.
    EXPECT_EQ(Http(w.f.sim->url(), w.f.sim->token()).get("/kcp/api/v1/namespaces").status, 401);
    EXPECT_EQ(w.kcp->get(w.f.shoots()).status, 401);
    // Plain HTTP without credentials is served, as for every API of the sim.
    EXPECT_EQ(Http(w.f.sim->url(), "").get(w.kymas()).status, 200);

    Resp apis = w.kcp->get("/kcp/apis/operator.kyma-project.io/v1beta2");
    ASSERT_EQ(apis.status, 200);
    EXPECT_NE(apis.body.find("\"kymas/status\""), std::string::npos);
    EXPECT_EQ(w.kcp->get("/kcp/apis/core.gardener.cloud/v1beta1").status, 404);

    CliOptions o = parse_cli(
        {"--kcp-kubeconfig-out", "/tmp/x", "--klm-module-seconds", "0.25", "--kcp-token", "t"});
    EXPECT_EQ(o.kcp_kubeconfig_out, "/tmp/x");
    EXPECT_EQ(o.sim.klm.module_seconds, 0.25);
    EXPECT_EQ(o.sim.kcp_token, "t");
    EXPECT_THROW(parse_cli({"--klm-module-seconds", "-1"}), std::invalid_argument);
}

TEST(Kcp, KymaSchemaRefusesWhatTheCrdRefuses) {
    KcpWorld w;
    auto post = [&](const Json& spec) {
        return w.kcp->post(w.kymas(), kyma_body("k", spec).dump());
    };
    Resp no_channel = post({{"modules", Json::array()}});
    ASSERT_EQ(no_channel.status, 422) << no_channel.body;
    EXPECT_EQ(no_channel.json["reason"], "Invalid");
    EXPECT_EQ(cause_fields(no_channel), std::vector<std::string>{"spec.channel"});

    for (const char* bad : {"Regular", "ab", "regular1", "abcdefghijklmnopqrstuvwxyzabcdefg"}) {
        Resp r = post({{"channel", bad}});
        EXPECT_EQ(r.status, 422) << bad;
        EXPECT_EQ(cause_fields(r).at(0), "spec.channel") << bad;
    }
    Resp all = post({{"channel", 3},
                     {"modules",
                      {{{"channel", "Xyz"}},
                       {{"name", "istio"}, {"customResourcePolicy", "Sometimes"}},
                       {{"name", "istio"}, {"managed", "yes"}}}}});
    ASSERT_EQ(all.status, 422);
    EXPECT_EQ(
        cause_fields(all),
        (std::vector<std::string>{"spec.channel", "spec.modules[0].name", "spec.modules[0].channel",
                                  "spec.modules[1].customResourcePolicy", "spec.modules[2]",
                                  "spec.modules[2].managed"}));
    EXPECT_EQ(all.json["details"]["causes"][4]["reason"], "FieldValueDuplicate");
    EXPECT_EQ(all.json["details"]["causes"][3]["reason"], "FieldValueNotSupported");

    // version is not in the schema: pruned, with a warning; Strict refuses it.
    Json spec = {{"channel", "fast"}, {"modules", {{{"name", "istio"}, {"version", "1.2.3"}}}}};
    Resp strict = w.kcp->post(w.kymas() + "?fieldValidation=Strict", kyma_body("k", spec).dump());
    ASSERT_EQ(strict.status, 400);
    EXPECT_NE(strict.json["message"].get<std::string>().find("spec.modules[0].version"),
              std::string::npos);
    Resp ok = post(spec);
    ASSERT_EQ(ok.status, 201) << ok.body;
    EXPECT_FALSE(ok.json["spec"]["modules"][0].contains("version"));
    EXPECT_EQ(ok.json["spec"]["modules"][0]["managed"], true);
    EXPECT_EQ(ok.json["spec"]["modules"][0]["customResourcePolicy"], "CreateAndDelete");
    EXPECT_EQ(ok.json["metadata"]["generation"], 1);
    EXPECT_NE(ok.header("Warning").find("unknown field \\\"spec.modules[0].version\\\""),
              std::string::npos);
    EXPECT_EQ(post({{"channel", "fast"}}).status, 409); // AlreadyExists
    // A namespace that does not exist.
    EXPECT_EQ(w.kcp
                  ->post("/kcp/apis/operator.kyma-project.io/v1beta2/namespaces/nope/kymas",
                         kyma_body("k", spec).dump())
                  .status,
              404);
}

TEST(Kcp, UpdatesNeedTheCurrentResourceVersionAndKeepTheStatus) {
    KcpWorld w(60); // the KLM writes nothing in this test's time (no Secret either)
    Resp created = w.kcp->post(w.kymas(), kyma_body("k", {{"channel", "regular"}}).dump());
    ASSERT_EQ(created.status, 201);
    ASSERT_TRUE(w.wait_state("k", "Error")); // no Secret
    Json k = w.get("k");
    Json stale = k;

    Json no_rv = k;
    no_rv["metadata"].erase("resourceVersion");
    Resp r = w.kcp->put(w.kyma("k"), no_rv.dump());
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(cause_fields(r), std::vector<std::string>{"metadata.resourceVersion"});

    k["spec"]["channel"] = "fast";
    k["status"] = {{"state", "Ready"}}; // ignored: status is a subresource
    Resp put = w.kcp->put(w.kyma("k"), k.dump());
    ASSERT_EQ(put.status, 200) << put.body;
    EXPECT_EQ(put.json["metadata"]["generation"], 2);
    EXPECT_EQ(put.json["status"]["state"], "Error");
    EXPECT_EQ(w.kcp->put(w.kyma("k"), stale.dump()).status, 409);

    // A metadata-only change keeps the generation.
    Resp labelled = w.kcp->patch(w.kyma("k"), R"({"metadata":{"labels":{"a":"b"}}})",
                                 "application/merge-patch+json");
    ASSERT_EQ(labelled.status, 200);
    EXPECT_EQ(labelled.json["metadata"]["generation"], 2);
    EXPECT_EQ(
        w.kcp->patch(w.kyma("k"), R"({"spec":{"channel":"X"}})", "application/merge-patch+json")
            .status,
        422);

    // The status subresource writes the status only.
    Resp status = w.kcp->patch(w.kyma("k") + "/status",
                               R"({"spec":{"channel":"dev"},"status":{"state":"Warning"}})",
                               "application/merge-patch+json");
    ASSERT_EQ(status.status, 200) << status.body;
    EXPECT_EQ(status.json["status"]["state"], "Warning");
    EXPECT_EQ(status.json["spec"]["channel"], "fast");
    EXPECT_EQ(w.kcp->get(w.kyma("k") + "/status").status, 200);
    EXPECT_EQ(w.kcp->get(w.kyma("k") + "/scale").status, 404);
}

TEST(Kcp, FinalizersDelayTheDeletion) {
    KcpWorld w(60);
    Json body = kyma_body("k", {{"channel", "regular"}});
    body["metadata"]["finalizers"] = {"example.com/keep"};
    Resp created = w.kcp->post(w.kymas(), body.dump());
    ASSERT_EQ(created.status, 201);
    // From the created version: every later event comes however late the stream connects.
    WatchCollector watch(w.f.sim->url(), w.f.sim->kcp_token(),
                         w.kymas() +
                             "?watch=true&fieldSelector=metadata.name%3Dk&resourceVersion=" +
                             created.json["metadata"]["resourceVersion"].get<std::string>());
    Resp del = w.kcp->del(w.kyma("k"));
    ASSERT_EQ(del.status, 200) << del.body;
    EXPECT_TRUE(del.json["metadata"].contains("deletionTimestamp"));
    EXPECT_EQ(del.json["metadata"]["generation"], 2);
    Json k = w.get("k");
    ASSERT_FALSE(k.is_null());
    EXPECT_EQ(k["metadata"]["deletionTimestamp"], del.json["metadata"]["deletionTimestamp"]);
    // No new finalizers once deleting; the deletion timestamp cannot be removed.
    Json more = k;
    more["metadata"]["finalizers"].push_back("example.com/more");
    Resp refused = w.kcp->put(w.kyma("k"), more.dump());
    ASSERT_EQ(refused.status, 422) << refused.body;
    EXPECT_EQ(cause_fields(refused), std::vector<std::string>{"metadata.finalizers"});
    Resp kept = w.kcp->patch(w.kyma("k"), R"({"metadata":{"deletionTimestamp":null}})",
                             "application/merge-patch+json");
    ASSERT_EQ(kept.status, 200);
    EXPECT_TRUE(kept.json["metadata"].contains("deletionTimestamp"));
    // The last finalizer goes: so does the object.
    Resp last = w.kcp->patch(w.kyma("k"), R"({"metadata":{"finalizers":null}})",
                             "application/merge-patch+json");
    ASSERT_EQ(last.status, 200) << last.body;
    EXPECT_EQ(w.kcp->get(w.kyma("k")).status, 404);
    EXPECT_TRUE(watch.wait_for([](const Json& e) { return e["type"] == "DELETED"; }));
    std::size_t modified = 0;
    for (const auto& e : watch.events())
        modified += e["type"] == "MODIFIED" ? 1 : 0;
    EXPECT_GE(modified, 1u);
}

TEST(Kcp, SecretsSelectorsWatchResumeAndCounters) {
    KcpWorld w;
    ASSERT_EQ(w.secret("a", "k1", base64_encode("x")).status, 201);
    ASSERT_EQ(w.secret("b", "k2", base64_encode("y")).status, 201);
    Resp selected =
        w.kcp->get(w.secrets() + "?labelSelector=operator.kyma-project.io%2Fkyma-name%3Dk2");
    ASSERT_EQ(selected.status, 200) << selected.body;
    ASSERT_EQ(selected.json["items"].size(), 1u);
    EXPECT_EQ(selected.json["items"][0]["metadata"]["name"], "b");
    Json cm = {{"metadata", {{"name", "cfg"}}}, {"data", {{"k", "v"}}}};
    EXPECT_EQ(w.kcp->post("/kcp/api/v1/namespaces/kcp-system/configmaps", cm.dump()).status, 201);
    EXPECT_EQ(w.kcp->del("/kcp/api/v1/namespaces/kcp-system").status, 403);

    Resp list = w.kcp->get(w.kymas());
    std::string rv = list.json["metadata"]["resourceVersion"];
    ASSERT_EQ(w.kcp->post(w.kymas(), kyma_body("k1", {{"channel", "regular"}}).dump()).status, 201);
    WatchCollector resumed(w.f.sim->url(), w.f.sim->kcp_token(),
                           w.kymas() + "?watch=1&resourceVersion=" + rv);
    EXPECT_TRUE(resumed.wait_for([](const Json& e) {
        return e["type"] == "ADDED" && e["object"]["metadata"]["name"] == "k1";
    }));
    // The KLM's status write (no Secret for k1's name... there is one, with no kubeconfig).
    EXPECT_TRUE(resumed.wait_for([](const Json& e) {
        return e["type"] == "MODIFIED" &&
               e["object"].value("status", Json::object()).value("state", "") == "Error";
    }));

    Json stats = w.f.http->get("/sim/stats").json["requests"];
    EXPECT_EQ(
        stats.value("POST /kcp/apis/operator.kyma-project.io/v1beta2/namespaces/{namespace}/kymas",
                    0),
        1);
    EXPECT_EQ(stats.value("GET /kcp/api/v1/namespaces/{namespace}/secrets", 0), 1);
    EXPECT_EQ(
        stats.value("WATCH /kcp/apis/operator.kyma-project.io/v1beta2/namespaces/{namespace}/kymas",
                    0),
        1);
    EXPECT_GE(
        stats.value(
            "GET /kcp/apis/operator.kyma-project.io/v1beta2/namespaces/{namespace}/kymas/{name}",
            0),
        0);
    w.kcp->get(w.kyma("k1"));
    stats = w.f.http->get("/sim/stats").json["requests"];
    EXPECT_GE(
        stats.value(
            "GET /kcp/apis/operator.kyma-project.io/v1beta2/namespaces/{namespace}/kymas/{name}",
            0),
        1);
    // Faults address KCP resources like any other.
    ASSERT_EQ(
        w.f.http->post("/sim/faults", R"({"resource":"kymas","status":503,"count":1})").status,
        201);
    EXPECT_EQ(w.kcp->get(w.kyma("k1")).status, 503);
    EXPECT_EQ(w.kcp->get(w.kyma("k1")).status, 200);
}

TEST(Kcp, KlmKnobsAreCheckedAndReported) {
    KcpWorld w;
    Resp knobs = w.f.http->get("/sim/kcp/klm");
    ASSERT_EQ(knobs.status, 200);
    EXPECT_EQ(knobs.json["moduleSeconds"], 0.2);
    bool istio = false;
    for (const auto& m : knobs.json["catalog"])
        istio |= m["name"] == "istio";
    EXPECT_TRUE(istio);
    for (const char* bad :
         {R"({"moduleSecond":1})", R"({"moduleSeconds":-1})", R"({"stuckModules":"x"})",
          R"({"catalog":[{"name":""}]})", R"({"catalog":[{"name":"a","extra":1}]})",
          R"({"unreachable":[1]})", "[]"})
        EXPECT_EQ(w.f.http->post("/sim/kcp/klm", bad).status, 400) << bad;
    Resp set = w.knobs({{"moduleSeconds", 0.5}, {"stuckModules", {"serverless"}}});
    ASSERT_EQ(set.status, 200);
    EXPECT_EQ(set.json["moduleSeconds"], 0.5);
    EXPECT_EQ(set.json["stuckModules"], Json::array({"serverless"}));
    EXPECT_EQ(w.f.http->get("/sim/kcp/klm").json["moduleSeconds"], 0.5);
    EXPECT_EQ(w.f.http->post("/sim/clusters/nope/expire-tokens", "").status, 404);
}
