// The lifecycle engine: Create/Reconcile/Delete through Processing to Succeeded, generations,
// deletion confirmation, hibernation, injected failures.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class Lifecycle : public ::testing::Test {
protected:
    SimFixture f;
    Json get(const std::string& name) { return f.http->get(f.shoot(name)).json; }
    static std::string state(const Json& s) {
        return s["status"].value("lastOperation", Json::object()).value("type", "") + "/" +
               s["status"].value("lastOperation", Json::object()).value("state", "");
    }
    bool reaches(const std::string& name, const std::string& want, double seconds = 5) {
        return eventually([&] { return state(get(name)) == want; }, seconds);
    }
    void confirm_deletion(const std::string& name) {
        ASSERT_EQ(
            f.http
                ->patch(
                    f.shoot(name),
                    R"({"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}})",
                    "application/merge-patch+json")
                .status,
            200);
    }
};

} // namespace

TEST_F(Lifecycle, CreateGoesThroughProcessingWithProgressToSucceeded) {
    std::string rv = f.http->get(f.shoots()).json["metadata"]["resourceVersion"];
    WatchCollector watch(f.sim->url(), f.sim->token(),
                         f.shoots() + "?watch=1&resourceVersion=" + rv);
    ASSERT_EQ(f.http->post(f.shoots(), shoot_body("c1").dump()).status, 201);
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    Json s = get("c1");
    EXPECT_EQ(s["status"]["lastOperation"]["progress"], 100);
    EXPECT_EQ(s["status"]["observedGeneration"], s["metadata"]["generation"]);
    EXPECT_EQ(s["status"]["seedName"], "sim-seed");
    EXPECT_EQ(s["spec"]["seedName"], "sim-seed");
    EXPECT_EQ(s["status"]["technicalID"], "shoot--dev--c1");
    EXPECT_EQ(s["metadata"]["finalizers"][0], "gardener");
    EXPECT_EQ(s["metadata"]["labels"]["shoot.gardener.cloud/status"], "healthy");
    EXPECT_EQ(s["status"]["advertisedAddresses"][0]["name"], "external");
    bool hibernation_possible = false;
    for (const auto& c : s["status"]["constraints"])
        hibernation_possible =
            hibernation_possible || (c["type"] == "HibernationPossible" && c["status"] == "True");
    EXPECT_TRUE(hibernation_possible);

    ASSERT_TRUE(watch.wait_for([](const Json& e) {
        return e["object"]["status"].value("lastOperation", Json::object()).value("state", "") ==
               "Succeeded";
    }));
    std::vector<int> progress;
    std::uint64_t last_rv = 0;
    for (const auto& e : watch.events()) {
        std::uint64_t rv_now =
            std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
        EXPECT_GT(rv_now, last_rv) << "resourceVersions must grow";
        last_rv = rv_now;
        const Json lo = e["object"]["status"].value("lastOperation", Json::object());
        if (lo.value("state", "") == "Processing")
            progress.push_back(lo["progress"]);
    }
    ASSERT_GE(progress.size(), 2u) << "expected Processing events with progress";
    EXPECT_EQ(progress.front(), 0);
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    EXPECT_EQ(watch.events().front()["type"], "ADDED");
}

TEST_F(Lifecycle, ObservedGenerationCatchesUpAfterAnUpdate) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    Resp r = f.http->patch(f.shoot("c1"), R"({"spec":{"kubernetes":{"version":"1.35.4"}}})",
                           "application/merge-patch+json");
    ASSERT_EQ(r.status, 200);
    long long generation = r.json["metadata"]["generation"];
    EXPECT_LT(r.json["status"]["observedGeneration"].get<long long>(), generation);
    ASSERT_TRUE(reaches("c1", "Reconcile/Succeeded"));
    EXPECT_EQ(get("c1")["status"]["observedGeneration"], generation);
}

TEST_F(Lifecycle, ReconcileAnnotationBumpsTheGenerationAndIsRemoved) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    long long before = get("c1")["metadata"]["generation"];
    Resp r = f.http->patch(
        f.shoot("c1"), R"({"metadata":{"annotations":{"gardener.cloud/operation":"reconcile"}}})",
        "application/merge-patch+json");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json["metadata"]["generation"], before + 1);
    EXPECT_FALSE(r.json["metadata"]["annotations"].contains("gardener.cloud/operation"));
    EXPECT_TRUE(reaches("c1", "Reconcile/Succeeded"));
    EXPECT_EQ(f.http
                  ->patch(f.shoot("c1"),
                          R"({"metadata":{"annotations":{"gardener.cloud/operation":"bogus"}}})",
                          "application/merge-patch+json")
                  .status,
              422);
}

TEST_F(Lifecycle, DeletionNeedsConfirmationThenTheShootIsGone) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    Resp refused = f.http->del(f.shoot("c1"));
    ASSERT_EQ(refused.status, 403);
    EXPECT_EQ(refused.json["reason"], "Forbidden");
    EXPECT_EQ(refused.json["message"],
              "shoots.core.gardener.cloud \"c1\" is forbidden: must have a "
              "\"confirmation.gardener.cloud/deletion\" annotation to delete");
    confirm_deletion("c1");
    Resp accepted = f.http->del(f.shoot("c1"));
    ASSERT_EQ(accepted.status, 200) << accepted.body;
    EXPECT_TRUE(accepted.json["metadata"].contains("deletionTimestamp"));
    Resp again = f.http->del(f.shoot("c1"));
    if (again.status == 200) {
        EXPECT_EQ(again.json["metadata"]["deletionTimestamp"],
                  accepted.json["metadata"]["deletionTimestamp"]);
    } else {
        EXPECT_EQ(again.status, 404); // already gone: delete-seconds is short
    }
    Json spec_change = R"({"spec":{"purpose":"testing"}})"_json;
    Resp during = f.http->patch(f.shoot("c1"), spec_change.dump(), "application/merge-patch+json");
    EXPECT_TRUE(during.status == 422 || during.status == 404) << during.body;
    EXPECT_TRUE(eventually([&] { return f.http->get(f.shoot("c1")).status == 404; }));
}

TEST_F(Lifecycle, DeleteGoesThroughDeleteProcessing) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    confirm_deletion("c1");
    std::string rv = get("c1")["metadata"]["resourceVersion"];
    WatchCollector watch(f.sim->url(), f.sim->token(),
                         f.shoots() + "?watch=1&resourceVersion=" + rv);
    ASSERT_EQ(f.http->del(f.shoot("c1")).status, 200);
    ASSERT_TRUE(watch.wait_for([](const Json& e) { return e["type"] == "DELETED"; }));
    bool saw_processing = false;
    for (const auto& e : watch.events()) {
        const Json lo = e["object"]["status"].value("lastOperation", Json::object());
        saw_processing = saw_processing || (lo.value("type", "") == "Delete" &&
                                            lo.value("state", "") == "Processing");
    }
    EXPECT_TRUE(saw_processing);
    Json last = watch.events().back()["object"];
    EXPECT_EQ(last["status"]["lastOperation"]["state"], "Succeeded");
}

TEST_F(Lifecycle, HibernationFollowsTheSpecAfterHibernateSeconds) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    Resp r = f.http->patch(f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":true}}})",
                           "application/merge-patch+json");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json["status"]["hibernated"], false);
    ASSERT_TRUE(eventually([&] {
        Json s = get("c1");
        return s["status"]["hibernated"] == true &&
               s["status"]["observedGeneration"] == s["metadata"]["generation"] &&
               state(s) == "Reconcile/Succeeded";
    }));
    EXPECT_EQ(get("c1")["status"]["conditions"][0]["reason"], "ConditionNotChecked");
    f.http->patch(f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":false}}})",
                  "application/merge-patch+json");
    EXPECT_TRUE(eventually([&] {
        return get("c1")["status"]["hibernated"] == false &&
               state(get("c1")) == "Reconcile/Succeeded";
    }));
}

TEST_F(Lifecycle, HibernationIsRefusedWhenNotPossible) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    Resp hook = f.http->post("/sim/shoots/garden-dev/c1/hibernation-possible",
                             R"({"possible":false,"message":"webhook x blocks it"})");
    ASSERT_EQ(hook.status, 200) << hook.body;
    Resp r = f.http->patch(f.shoot("c1"), R"({"spec":{"hibernation":{"enabled":true}}})",
                           "application/merge-patch+json");
    ASSERT_EQ(r.status, 403) << r.body;
    EXPECT_NE(r.json["message"].get<std::string>().find("webhook x blocks it"), std::string::npos);
}

TEST_F(Lifecycle, AShootToldToFailEndsFailedWithTheCodes) {
    SimOptions slow = fast_options();
    slow.lifecycle.create_seconds = 2;
    SimFixture s(slow);
    ASSERT_EQ(s.http->post(s.shoots(), shoot_body("c1").dump()).status, 201);
    Resp plan = s.http->post(
        "/sim/shoots/garden-dev/c1/fail",
        R"({"codes":["ERR_INFRA_QUOTA_EXCEEDED"],"type":"Create","immediately":true})");
    ASSERT_EQ(plan.status, 200) << plan.body;
    ASSERT_TRUE(eventually([&] {
        return s.http->get(s.shoot("c1"))
                   .json["status"]
                   .value("lastOperation", Json::object())
                   .value("state", "") == "Failed";
    }));
    Json st = s.http->get(s.shoot("c1")).json;
    EXPECT_EQ(st["status"]["lastOperation"]["type"], "Create");
    EXPECT_EQ(st["status"]["lastErrors"][0]["codes"][0], "ERR_INFRA_QUOTA_EXCEEDED");
    EXPECT_EQ(st["metadata"]["labels"]["shoot.gardener.cloud/status"], "unhealthy");
    // Failed is terminal until a retry.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(s.http->get(s.shoot("c1")).json["status"]["lastOperation"]["state"], "Failed");
    Resp retry = s.http->patch(
        s.shoot("c1"), R"({"metadata":{"annotations":{"gardener.cloud/operation":"retry"}}})",
        "application/merge-patch+json");
    ASSERT_EQ(retry.status, 200);
    EXPECT_FALSE(retry.json["metadata"]["annotations"].contains("gardener.cloud/operation"));
    ASSERT_TRUE(eventually([&] {
        return s.http->get(s.shoot("c1")).json["status"]["lastOperation"]["state"] == "Processing";
    }));
    EXPECT_EQ(s.http->get(s.shoot("c1")).json["status"]["lastOperation"]["type"], "Create");
}

TEST_F(Lifecycle, ARetryableErrorIsRetriedThenSucceeds) {
    ASSERT_EQ(
        f.http
            ->post(
                "/sim/shoots/fail-next",
                R"({"codes":["ERR_RETRYABLE_INFRA_DEPENDENCIES"],"state":"Error","type":"Create"})")
            .status,
        200);
    f.http->post(f.shoots(), shoot_body("c1").dump());
    std::string seen;
    ASSERT_TRUE(eventually([&] {
        Json s = get("c1");
        std::string st = state(s);
        if (st == "Create/Error") {
            seen = s["status"]["lastOperation"]["description"];
            EXPECT_EQ(s["status"]["lastErrors"][0]["codes"][0], "ERR_RETRYABLE_INFRA_DEPENDENCIES");
        }
        return st == "Create/Succeeded";
    }));
    EXPECT_NE(seen.find("Operation will be retried."), std::string::npos);
    EXPECT_FALSE(get("c1")["status"].contains("lastErrors"));
}

TEST_F(Lifecycle, DeletionCanFailAndForceDeletionFinishesIt) {
    f.http->post(f.shoots(), shoot_body("c1").dump());
    ASSERT_TRUE(reaches("c1", "Create/Succeeded"));
    f.http->post("/sim/shoots/garden-dev/c1/fail",
                 R"({"codes":["ERR_CLEANUP_CLUSTER_RESOURCES"],"type":"Delete"})");
    confirm_deletion("c1");
    ASSERT_EQ(f.http->del(f.shoot("c1")).status, 200);
    ASSERT_TRUE(reaches("c1", "Delete/Failed"));
    Resp force = f.http->patch(
        f.shoot("c1"),
        R"({"metadata":{"annotations":{"confirmation.gardener.cloud/force-deletion":"true"}}})",
        "application/merge-patch+json");
    ASSERT_EQ(force.status, 200) << force.body;
    EXPECT_TRUE(eventually([&] { return f.http->get(f.shoot("c1")).status == 404; }));
}

TEST_F(Lifecycle, SettingsCanChangeDurationsAtRuntime) {
    Resp r = f.http->post("/sim/settings", R"({"createSeconds":0})");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json["createSeconds"], 0);
    f.http->post(f.shoots(), shoot_body("fast").dump());
    EXPECT_TRUE(reaches("fast", "Create/Succeeded", 1));
    EXPECT_EQ(f.http->post("/sim/settings", R"({"nope":1})").status, 400);
}
