// The simulated Kyma Lifecycle Manager: the lifecycle of a Kyma through its kubeconfig Secret,
// module states, deletion with the KLM finalizer, and the faults that keep a Kyma Deleting.

#include "kcp_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

std::string operation(const Json& kyma) {
    return kyma["status"]["lastOperation"].value("operation", "");
}

bool has_finalizer(const Json& kyma) {
    for (const auto& f : kyma["metadata"].value("finalizers", Json::array()))
        if (f == "operator.kyma-project.io/Kyma")
            return true;
    return false;
}

Json condition(const Json& kyma, const std::string& type) {
    for (const auto& c : kyma["status"].value("conditions", Json::array()))
        if (c.value("type", "") == type)
            return c;
    return Json();
}

// The /sim/kcp/kymas entry of one Kyma.
Json klm_view(KcpWorld& w, const std::string& name) {
    Json all = w.f.http->get("/sim/kcp/kymas").json;
    for (const auto& k : all["kymas"])
        if (k.value("name", "") == name)
            return k;
    return Json();
}

} // namespace

TEST(Klm, KymaBecomesReadyThroughItsSecretAndWatchersSeeEveryStep) {
    KcpWorld w(0.3);
    std::string config = w.runtime("c1");
    // From the list's version: the events come however late the stream connects.
    const std::string from =
        w.kcp->get(w.kymas()).json["metadata"]["resourceVersion"].get<std::string>();
    WatchCollector watch(w.f.sim->url(), w.f.sim->kcp_token(),
                         w.kymas() + "?watch=1&resourceVersion=" + from);
    ASSERT_EQ(w.secret("kubeconfig-rt1", "rt1", config).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio", "btp-operator"}).status, 201);

    ASSERT_TRUE(w.wait_state("rt1", "Processing", 2));
    Json processing = w.get("rt1");
    EXPECT_TRUE(has_finalizer(processing));
    EXPECT_EQ(processing["metadata"]["labels"]["operator.kyma-project.io/managed-by"],
              "lifecycle-manager");
    EXPECT_EQ(operation(processing), "waiting for all modules to become ready");
    EXPECT_EQ(w.module("rt1", "istio")["state"], "Processing");

    ASSERT_TRUE(w.wait_state("rt1", "Ready", 5));
    Json ready = w.get("rt1");
    EXPECT_EQ(operation(ready), "kyma is ready");
    EXPECT_EQ(ready["status"]["activeChannel"], "regular");
    for (const char* type : {"CRDsSync", "Modules", "ModuleCatalog"}) {
        EXPECT_EQ(condition(ready, type)["status"], "True") << type;
        EXPECT_EQ(condition(ready, type)["reason"], "Ready");
    }
    EXPECT_EQ(condition(ready, "Modules")["message"], "all modules are in ready state");
    Json istio = w.module("rt1", "istio");
    EXPECT_EQ(istio["state"], "Ready");
    EXPECT_EQ(istio["channel"], "regular");
    EXPECT_FALSE(istio.value("version", "").empty());
    EXPECT_EQ(istio["manifest"]["kind"], "Manifest");
    EXPECT_EQ(istio["manifest"]["metadata"]["namespace"], "kcp-system");
    EXPECT_EQ(istio["manifest"]["metadata"]["name"].get<std::string>().rfind("rt1-istio-", 0), 0u);

    // The module time is respected, and the ticker wrote Ready at once (not at the next poll).
    Json view = klm_view(w, "rt1");
    EXPECT_EQ(view["runtime"], "shoot--dev--c1");
    EXPECT_EQ(view["secrets"], 1);
    EXPECT_TRUE(view["reachable"].get<bool>());
    long long took =
        view["readyAtUnixMs"].get<long long>() - view["reachedAtUnixMs"].get<long long>();
    EXPECT_GE(took, 300);
    EXPECT_LT(took, 900);

    // The watch saw the first write of the KLM, the modules Processing and then Ready.
    auto state_seen = [&](const std::string& state) {
        return watch.wait_for(
            [&](const Json& e) {
                return e["type"] == "MODIFIED" &&
                       e["object"].value("status", Json::object()).value("state", "") == state;
            },
            2);
    };
    EXPECT_TRUE(state_seen("Processing"));
    EXPECT_TRUE(state_seen("Ready"));
    EXPECT_TRUE(watch.wait_for([](const Json& e) {
        return e["object"]
                   .value("status", Json::object())
                   .value("lastOperation", Json::object())
                   .value("operation", "") == "started processing";
    }));

    // Deletion: Deleting while the modules go, then the finalizer is dropped and it is gone.
    Resp del = w.kcp->del(w.kyma("rt1"));
    ASSERT_EQ(del.status, 200) << del.body;
    EXPECT_TRUE(del.json["metadata"].contains("deletionTimestamp"));
    ASSERT_TRUE(w.wait_state("rt1", "Deleting", 2));
    EXPECT_EQ(operation(w.get("rt1")), "waiting for modules to be deleted");
    ASSERT_TRUE(w.wait_gone("rt1", 3));
    EXPECT_TRUE(watch.wait_for([](const Json& e) { return e["type"] == "DELETED"; }));
}

TEST(Klm, UnknownModuleIsErrorThenWarningAndUnmanagedIsUnmanaged) {
    KcpWorld w(0.2);
    ASSERT_EQ(w.secret("kc", "rt1", w.runtime("c1")).status, 201);
    ASSERT_EQ(
        w.create("rt1", {"keda", "no-such-module", {{"name", "telemetry"}, {"managed", false}}})
            .status,
        201);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 2));
    std::string message =
        "no ModuleReleaseMeta found  for module \"no-such-module\" in namespace \"kcp-system\"";
    EXPECT_EQ(w.module("rt1", "no-such-module")["state"], "Error");
    EXPECT_EQ(w.module("rt1", "no-such-module")["message"], message);
    ASSERT_TRUE(w.wait_state("rt1", "Warning", 3));
    Json k = w.get("rt1");
    EXPECT_EQ(w.module("rt1", "no-such-module")["state"], "Warning");
    EXPECT_EQ(w.module("rt1", "no-such-module")["message"], message);
    EXPECT_EQ(w.module("rt1", "keda")["state"], "Ready");
    EXPECT_EQ(w.module("rt1", "telemetry")["state"], "Unmanaged");
    EXPECT_EQ(condition(k, "Modules")["status"], "False");
    EXPECT_EQ(k["status"]["activeChannel"], "regular");

    // A catalog that knows the module: a new Kyma gets it Ready; unmanaged ones do not block.
    ASSERT_EQ(
        w.knobs({{"catalog", {"keda", {{"name", "no-such-module"}, {"version", "9.9.9"}}}}}).status,
        200);
    ASSERT_EQ(w.secret("kc2", "rt2", w.admin_kubeconfig("c1")).status, 201);
    ASSERT_EQ(
        w.create("rt2", {"no-such-module", {{"name", "telemetry"}, {"managed", false}}}, "fast")
            .status,
        201);
    ASSERT_TRUE(w.wait_state("rt2", "Ready", 3));
    EXPECT_EQ(w.module("rt2", "no-such-module")["version"], "9.9.9");
    EXPECT_EQ(w.module("rt2", "no-such-module")["channel"], "fast");
    EXPECT_EQ(w.get("rt2")["status"]["activeChannel"], "fast");
}

// kyma-lifecycle-manager.md §5: a ModuleTemplate labelled internal or beta is usable only by a
// Kyma with the same label "true" (any case); otherwise the lookup fails, also for a module
// that was Ready (KLM deletes its Manifest).
TEST(Klm, InternalAndBetaModulesNeedTheKymasLabel) {
    KcpWorld w(0.2);
    ASSERT_EQ(w.knobs({{"catalog",
                        {"istio",
                         {{"name", "connectivity-proxy"}, {"internal", true}},
                         {{"name", "preview"}, {"beta", true}, {"version", "0.1.0"}}}}})
                  .status,
              200);
    EXPECT_EQ(w.knobs({{"catalog", {{{"name", "x"}, {"internal", "yes"}}}}}).status, 400);
    EXPECT_EQ(w.knobs({{"catalog", {{{"name", "x"}, {"alpha", true}}}}}).status, 400);
    const Json knobs = w.f.http->get("/sim/kcp/klm").json;
    EXPECT_EQ(knobs["catalog"][0], (Json{{"name", "connectivity-proxy"},
                                         {"version", "1.0.0"},
                                         {"internal", true},
                                         {"beta", false}}));

    ASSERT_EQ(w.secret("kc", "rt1", w.runtime("c1")).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio", "connectivity-proxy", "preview"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 3));
    EXPECT_NE(w.module("rt1", "istio")["state"], "Error");
    EXPECT_EQ(w.module("rt1", "connectivity-proxy")["state"], "Error");
    EXPECT_EQ(w.module("rt1", "connectivity-proxy")["message"],
              "module template not allowed: internal module");
    EXPECT_EQ(w.module("rt1", "preview")["message"], "module template not allowed: beta module");

    // Labelled: every module becomes Ready.
    Json labelled = w.get("rt1");
    labelled["metadata"]["labels"]["operator.kyma-project.io/internal"] = "TRUE";
    labelled["metadata"]["labels"]["operator.kyma-project.io/beta"] = "true";
    ASSERT_EQ(w.kcp->put(w.kyma("rt1"), labelled.dump()).status, 200);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
    EXPECT_EQ(w.module("rt1", "preview")["version"], "0.1.0");

    // The label taken away again: the internal module is refused once more.
    labelled = w.get("rt1");
    labelled["metadata"]["labels"]["operator.kyma-project.io/internal"] = "false";
    ASSERT_EQ(w.kcp->put(w.kyma("rt1"), labelled.dump()).status, 200);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 3));
    EXPECT_EQ(w.module("rt1", "connectivity-proxy")["message"],
              "module template not allowed: internal module");
    EXPECT_EQ(w.module("rt1", "preview")["state"], "Ready");
}

TEST(Klm, SecretRulesZeroOneOrTwo) {
    KcpWorld w(0.1);
    std::string config = w.runtime("c1");
    ASSERT_EQ(w.create("rt1", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 2));
    Json k = w.get("rt1");
    EXPECT_EQ(operation(k), "skr client context not found");
    EXPECT_FALSE(has_finalizer(k)); // never reached, so no finalizer
    EXPECT_EQ(w.module("rt1", "istio")["state"], "Error");
    EXPECT_EQ(w.module("rt1", "istio")["message"],
              "failed to find the secret with label operator.kyma-project.io/kyma-name=rt1: "
              "access secret not found");

    EXPECT_EQ(klm_view(w, "rt1")["secrets"], 0);

    ASSERT_EQ(w.secret("one", "rt2", config).status, 201);
    ASSERT_EQ(w.secret("two", "rt2", config).status, 201);
    ASSERT_EQ(w.create("rt2", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt2", "Error", 2));
    EXPECT_EQ(operation(w.get("rt2")),
              "could not safely identify the rest config source: more than one secret found");
    EXPECT_FALSE(has_finalizer(w.get("rt2")));
    EXPECT_EQ(klm_view(w, "rt2")["secrets"], 2);

    ASSERT_EQ(w.kcp->del(w.secrets() + "/two").status, 200);
    ASSERT_TRUE(w.wait_state("rt2", "Ready", 3));
    EXPECT_TRUE(has_finalizer(w.get("rt2")));
    // A Secret of another Kyma does not count; rt1 finds its own once it exists.
    ASSERT_EQ(w.secret("other", "rt9", config).status, 201);
    EXPECT_EQ(klm_view(w, "rt2")["secrets"], 1);
    EXPECT_EQ(w.state("rt1"), "Error");
    ASSERT_EQ(w.secret("mine", "rt1", config).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
}

TEST(Klm, AKymaWithoutTheFinalizerGoesAtOnce) {
    KcpWorld w(0.1);
    ASSERT_EQ(w.create("lonely", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("lonely", "Error", 2));
    Resp del = w.kcp->del(w.kyma("lonely"));
    ASSERT_EQ(del.status, 200);
    EXPECT_EQ(del.json["status"], "Success");
    EXPECT_EQ(w.kcp->get(w.kyma("lonely")).status, 404);
}

TEST(Klm, BadOrExpiredCredentialsAndAMissingClusterMakeTheRuntimeUnreachable) {
    KcpWorld w(0.1);
    std::string config = w.runtime("c1");
    ASSERT_EQ(w.secret("kc", "rt1", config).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));

    Resp expired = w.f.http->post("/sim/clusters/c1/expire-tokens", "");
    ASSERT_EQ(expired.status, 200) << expired.body;
    EXPECT_GE(expired.json["expired"].get<int>(), 1);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 3));
    EXPECT_NE(operation(w.get("rt1")).find("Unauthorized"), std::string::npos);
    EXPECT_EQ(w.module("rt1", "istio")["state"], "Error");
    EXPECT_TRUE(has_finalizer(w.get("rt1")));

    // A fresh kubeconfig in the same Secret brings it back.
    ASSERT_EQ(w.set_config("kc", w.admin_kubeconfig("c1")), 200);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));

    // A kubeconfig for a server that is not one of this sim's clusters.
    std::string yaml = *base64_decode(w.admin_kubeconfig("c1"));
    std::string elsewhere = yaml;
    elsewhere.replace(elsewhere.find("/clusters/"), 10, "/nowhere/");
    ASSERT_EQ(w.set_config("kc", base64_encode(elsewhere)), 200);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 3));
    EXPECT_NE(operation(w.get("rt1")).find("not a runtime cluster"), std::string::npos);

    // The shoot deleted: its cluster is gone.
    ASSERT_EQ(w.set_config("kc", base64_encode(yaml)), 200);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
    ASSERT_EQ(w.delete_shoot("c1"), 200);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 5));
    EXPECT_NE(operation(w.get("rt1")).find("unable to handle the request"), std::string::npos);
}

TEST(Klm, StuckModuleKeepsTheKymaUntilTheSecretIsDeleted) {
    KcpWorld w(0.1);
    ASSERT_EQ(w.knobs({{"stuckModules", {"serverless"}}}).status, 200);
    ASSERT_EQ(w.secret("kc", "rt1", w.runtime("c1")).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio", "serverless"}).status, 201);
    ASSERT_TRUE(eventually([&] { return w.module("rt1", "istio").value("state", "") == "Ready"; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(400)); // four module durations
    EXPECT_EQ(w.state("rt1"), "Processing");
    EXPECT_EQ(w.module("rt1", "serverless")["state"], "Processing");

    ASSERT_EQ(w.kcp->del(w.kyma("rt1")).status, 200);
    ASSERT_TRUE(w.wait_state("rt1", "Deleting", 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    EXPECT_EQ(w.state("rt1"), "Deleting");
    EXPECT_TRUE(has_finalizer(w.get("rt1")));

    ASSERT_EQ(w.kcp->del(w.secrets() + "/kc").status, 200);
    EXPECT_TRUE(w.wait_gone("rt1", 2));
}

TEST(Klm, UnreachableRuntimeKeepsTheKymaDeletingUntilTheSecretIsDeleted) {
    KcpWorld w(0.1);
    ASSERT_EQ(w.secret("kc", "rt1", w.runtime("c1")).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
    ASSERT_EQ(w.knobs({{"unreachable", {"rt1"}}}).status, 200);
    ASSERT_TRUE(w.wait_state("rt1", "Error", 2));
    EXPECT_EQ(w.module("rt1", "istio")["state"], "Error");
    EXPECT_NE(operation(w.get("rt1")).find("context deadline exceeded"), std::string::npos);

    ASSERT_EQ(w.kcp->del(w.kyma("rt1")).status, 200);
    ASSERT_TRUE(w.wait_state("rt1", "Deleting", 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    EXPECT_EQ(w.state("rt1"), "Deleting");
    EXPECT_FALSE(klm_view(w, "rt1")["reachable"].get<bool>());

    ASSERT_EQ(w.kcp->del(w.secrets() + "/kc").status, 200);
    EXPECT_TRUE(w.wait_gone("rt1", 2));
    // The runtime cluster id works as well as the Kyma name.
    ASSERT_EQ(w.knobs({{"unreachable", {"shoot--dev--c1"}}}).status, 200);
    ASSERT_EQ(w.secret("kc2", "rt2", w.admin_kubeconfig("c1")).status, 201);
    ASSERT_EQ(w.create("rt2", Json::array()).status, 201);
    ASSERT_TRUE(w.wait_state("rt2", "Error", 2));
    ASSERT_EQ(w.knobs({{"unreachable", Json::array()}}).status, 200);
    ASSERT_TRUE(w.wait_state("rt2", "Ready", 2)); // an empty module list after the delay
}

TEST(Klm, TheSpecReadOnTheFirstPassCountsAndChannelNoneIsRefused) {
    KcpWorld w(0.1);
    std::string config = w.runtime("c1");
    ASSERT_EQ(w.secret("kc", "rt1", config).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
    // KLM takes the spec from the runtime's Kyma after the first sync: edits have no effect.
    Resp patched = w.kcp->patch(w.kyma("rt1"), R"({"spec":{"modules":[{"name":"keda"}]}})",
                                "application/merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(patched.json["metadata"]["generation"], 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(w.state("rt1"), "Ready");
    EXPECT_TRUE(w.module("rt1", "keda").is_null());
    EXPECT_EQ(w.module("rt1", "istio")["state"], "Ready");

    ASSERT_EQ(w.secret("kc2", "rt2", config).status, 201);
    ASSERT_EQ(w.create("rt2", {"istio"}, "none").status, 201);
    ASSERT_TRUE(w.wait_state("rt2", "Error", 2));
    EXPECT_EQ(operation(w.get("rt2")),
              "invalid kyma spec: value \"none\" is not allowed in spec.channel");
}

TEST(Klm, WritesListTheKymaDeletionAndItsRemovalBeforeTheShootDeletion) {
    KcpWorld w(0.1);
    ASSERT_EQ(w.secret("kc", "rt1", w.runtime("c1")).status, 201);
    ASSERT_EQ(w.create("rt1", {"istio"}).status, 201);
    ASSERT_TRUE(w.wait_state("rt1", "Ready", 3));
    ASSERT_EQ(w.kcp->del(w.kyma("rt1")).status, 200);
    ASSERT_TRUE(w.wait_gone("rt1", 3));
    ASSERT_EQ(w.delete_shoot("c1"), 200);
    std::vector<std::string> order;
    for (const auto& e : w.f.http->get("/sim/writes").json)
        order.push_back(e["verb"].get<std::string>() + " " + e["path"].get<std::string>());
    auto at = [&](const std::string& entry) {
        return std::find(order.begin(), order.end(), entry) - order.begin();
    };
    std::string kyma_path = w.kyma("rt1");
    auto n = static_cast<long>(order.size());
    ASSERT_LT(at("DELETE " + kyma_path), n);
    ASSERT_LT(at("REMOVED " + kyma_path), n);
    ASSERT_LT(at("DELETE " + w.f.shoot("c1")), n);
    EXPECT_LT(at("POST " + w.kymas()), at("DELETE " + kyma_path));
    EXPECT_LT(at("DELETE " + kyma_path), at("REMOVED " + kyma_path));
    EXPECT_LT(at("REMOVED " + kyma_path), at("DELETE " + w.f.shoot("c1")));
}
