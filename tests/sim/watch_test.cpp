// Watches: events, resuming from a resourceVersion, 410 after compaction, bookmarks, drops.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class Watch : public ::testing::Test {
protected:
    SimFixture f;
    std::string list_rv() { return f.http->get(f.shoots()).json["metadata"]["resourceVersion"]; }
    std::string watch_path(const std::string& rv, const std::string& extra = "") {
        return f.shoots() + "?watch=1&resourceVersion=" + rv + extra;
    }
    static bool is_type(const Json& e, const std::string& type, const std::string& name) {
        return e["type"] == type && e["object"]["metadata"].value("name", "") == name;
    }
};

} // namespace

TEST_F(Watch, WithoutAResourceVersionItStartsWithAddedEventsForEveryShoot) {
    f.http->post(f.shoots(), shoot_body("a").dump());
    f.http->post(f.shoots(), shoot_body("b").dump());
    WatchCollector w(f.sim->url(), f.sim->token(), f.shoots() + "?watch=true&timeoutSeconds=1");
    ASSERT_TRUE(w.wait_for([](const Json& e) { return is_type(e, "ADDED", "b"); }));
    ASSERT_TRUE(eventually([&] { return w.finished(); }, 3)) << "timeoutSeconds ends the stream";
    EXPECT_EQ(w.status(), 200);
    EXPECT_TRUE(is_type(w.events()[0], "ADDED", "a"));
}

TEST_F(Watch, ResumesAfterAResourceVersion) {
    f.http->post(f.shoots(), shoot_body("a").dump());
    std::string rv = list_rv();
    f.http->post(f.shoots(), shoot_body("b").dump());
    WatchCollector w(f.sim->url(), f.sim->token(), watch_path(rv, "&timeoutSeconds=2"));
    ASSERT_TRUE(w.wait_for([](const Json& e) { return is_type(e, "ADDED", "b"); }));
    for (const auto& e : w.events())
        EXPECT_FALSE(is_type(e, "ADDED", "a"))
            << "events at or before the resourceVersion are not replayed";
    f.http->patch(f.shoot("b"), R"({"metadata":{"labels":{"x":"y"}}})",
                  "application/merge-patch+json");
    EXPECT_TRUE(w.wait_for([](const Json& e) {
        return is_type(e, "MODIFIED", "b") &&
               e["object"]["metadata"]["labels"].value("x", "") == "y";
    }));
}

TEST_F(Watch, LabelAndFieldSelectorsFilterEvents) {
    std::string rv = list_rv();
    WatchCollector w(f.sim->url(), f.sim->token(),
                     watch_path(rv, "&fieldSelector=metadata.name%3Db&timeoutSeconds=2"));
    f.http->post(f.shoots(), shoot_body("a").dump());
    f.http->post(f.shoots(), shoot_body("b").dump());
    ASSERT_TRUE(w.wait_for([](const Json& e) { return is_type(e, "ADDED", "b"); }));
    for (const auto& e : w.events())
        EXPECT_EQ(e["object"]["metadata"]["name"], "b");
}

TEST_F(Watch, ReplayedEventsAreWholeAndFollowTheSelectors) {
    // Events from the history (a watch resumed from an older version) carry the whole object,
    // though the history keeps only what selectors read of it besides the event's text.
    std::string rv = list_rv();
    f.http->post(f.shoots(), shoot_body("a").dump());
    f.http->post(f.shoots(), shoot_body("b").dump());
    f.http->patch(f.shoot("b"), R"({"metadata":{"labels":{"team":"x"}}})",
                  "application/merge-patch+json");
    WatchCollector by_name(f.sim->url(), f.sim->token(),
                           watch_path(rv, "&fieldSelector=metadata.name%3Db&timeoutSeconds=2"));
    ASSERT_TRUE(by_name.wait_for([](const Json& e) { return is_type(e, "MODIFIED", "b"); }));
    for (const auto& e : by_name.events()) {
        EXPECT_EQ(e["object"]["metadata"]["name"], "b");
        EXPECT_TRUE(e["object"].contains("spec")) << e.dump();
    }
    WatchCollector by_label(f.sim->url(), f.sim->token(),
                            watch_path(rv, "&labelSelector=team%3Dx&timeoutSeconds=2"));
    ASSERT_TRUE(by_label.wait_for([](const Json& e) { return is_type(e, "MODIFIED", "b"); }));
    for (const auto& e : by_label.events())
        EXPECT_EQ(e["object"]["metadata"]["labels"].value("team", ""), "x");
}

TEST_F(Watch, ACompactedResourceVersionIs410Gone) {
    f.http->post(f.shoots(), shoot_body("a").dump());
    std::string old_rv = list_rv();
    f.http->patch(f.shoot("a"), R"({"metadata":{"labels":{"x":"y"}}})",
                  "application/merge-patch+json");
    Resp c = f.http->post("/sim/watch/compact", "{}");
    ASSERT_EQ(c.status, 200);
    Resp gone = f.http->get(watch_path(old_rv));
    ASSERT_EQ(gone.status, 410) << gone.body;
    EXPECT_EQ(gone.json["kind"], "Status");
    EXPECT_EQ(gone.json["reason"], "Expired");
    EXPECT_NE(gone.json["message"].get<std::string>().find("too old resource version"),
              std::string::npos);
    // The list after compaction gives a version that works.
    WatchCollector w(f.sim->url(), f.sim->token(),
                     watch_path(c.json["compactedTo"], "&timeoutSeconds=1"));
    ASSERT_TRUE(eventually([&] { return w.finished(); }, 3));
    EXPECT_EQ(w.status(), 200);
}

TEST_F(Watch, A410CanComeAsAnErrorEvent) {
    f.http->post(f.shoots(), shoot_body("a").dump());
    std::string old_rv = list_rv();
    f.http->patch(f.shoot("a"), R"({"metadata":{"labels":{"x":"y"}}})",
                  "application/merge-patch+json");
    f.http->post("/sim/watch/compact", "{}");
    f.http->post("/sim/settings", R"({"watchExpiredAsEvent":true})");
    Resp r = f.http->get(watch_path(old_rv));
    ASSERT_EQ(r.status, 200);
    Json e = Json::parse(r.body.substr(0, r.body.find('\n')));
    EXPECT_EQ(e["type"], "ERROR");
    EXPECT_EQ(e["object"]["code"], 410);
}

TEST_F(Watch, AnOverflowingHistoryAlsoExpiresOldVersions) {
    SimOptions o = fast_options();
    o.watch_history = 3;
    SimFixture small(o);
    small.http->post(small.shoots(), shoot_body("a").dump());
    std::string rv = small.http->get(small.shoots()).json["metadata"]["resourceVersion"];
    for (int i = 0; i < 5; ++i)
        small.http->patch(small.shoot("a"),
                          R"({"metadata":{"labels":{"n":")" + std::to_string(i) + R"("}}})",
                          "application/merge-patch+json");
    EXPECT_EQ(small.http->get(small.shoots() + "?watch=1&resourceVersion=" + rv).status, 410);
}

TEST_F(Watch, BookmarksCarryTheLatestResourceVersion) {
    f.http->post(f.shoots(), shoot_body("a").dump());
    ASSERT_TRUE(eventually([&] {
        return f.http->get(f.shoot("a"))
                   .json["status"]
                   .value("lastOperation", Json::object())
                   .value("state", "") == "Succeeded";
    }));
    std::string rv = list_rv();
    WatchCollector w(f.sim->url(), f.sim->token(),
                     watch_path(rv, "&allowWatchBookmarks=true&timeoutSeconds=2"));
    ASSERT_TRUE(w.wait_for([](const Json& e) { return e["type"] == "BOOKMARK"; }));
    for (const auto& e : w.events())
        if (e["type"] == "BOOKMARK") {
            EXPECT_EQ(e["object"]["kind"], "Shoot");
            EXPECT_GE(std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>()),
                      1u);
        }
}

TEST_F(Watch, DropClosesEveryStream) {
    std::string rv = list_rv();
    WatchCollector a(f.sim->url(), f.sim->token(), watch_path(rv));
    WatchCollector b(f.sim->url(), f.sim->token(), watch_path(rv, "&allowWatchBookmarks=true"));
    ASSERT_TRUE(eventually([&] { return f.http->get("/sim/watch").json["openStreams"] == 2; }));
    Resp r = f.http->post("/sim/watch/drop", "{}");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json["dropped"], 2);
    EXPECT_TRUE(eventually([&] { return a.finished() && b.finished(); }, 3));
    EXPECT_TRUE(eventually([&] { return f.http->get("/sim/watch").json["openStreams"] == 0; }, 3));
    WatchCollector c(f.sim->url(), f.sim->token(), watch_path(rv));
    ASSERT_TRUE(eventually([&] { return f.http->get("/sim/watch").json["openStreams"] == 1; }));
    f.http->post("/sim/watch/drop", R"({"abrupt":true})");
    EXPECT_TRUE(eventually([&] { return c.finished(); }, 3));
}

TEST_F(Watch, ABadResourceVersionIs400) {
    EXPECT_EQ(f.http->get(watch_path("abc")).status, 400);
}
