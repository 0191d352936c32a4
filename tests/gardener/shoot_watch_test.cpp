// ShootWatch: which watch events become engine ShootEvents (ShootEventFilter, no I/O), and the
// watch thread against the kprov-sim binary: events for kprov's shoots, up/down, drops and
// compaction (410) survived without losing a change.

#include "engine/run/watched_shoots.hpp"
#include "gardener/shoot_watch.hpp"
#include "sim_shoots.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const char* const k_annotation = "kcp.provisioner.kyma-project.io/runtime-id";

json shoot_object(const std::string& name, const std::string& runtime_id = "",
                  const std::string& state = "Processing", int progress = 0,
                  int observed_generation = 1) {
    json s = {
        {"metadata",
         {{"name", name}, {"resourceVersion", std::to_string(progress + 10)}, {"generation", 1}}},
        {"spec", {{"dns", {{"domain", name + ".example"}}}}},
        {"status",
         {{"observedGeneration", observed_generation},
          {"lastOperation",
           {{"type", "Create"},
            {"state", state},
            {"progress", progress},
            {"description", "step " + std::to_string(progress)}}}}}};
    if (!runtime_id.empty())
        s["metadata"]["annotations"] = {{k_annotation, runtime_id}};
    return s;
}

std::vector<std::string> names(const std::vector<engine::ShootEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events)
        out.push_back(e.shoot_name + (e.deleted ? " deleted" : "") + "=" +
                      e.runtime_id.value_or("?"));
    return out;
}

// The events for one watch event, handled (committed), as names.
std::vector<std::string> handled(ShootEventFilter& filter, WatchEventType type,
                                 const json& object) {
    auto events = filter.on(WatchEvent{type, object});
    filter.commit();
    return names(events);
}

TEST(ShootEventFilter, PassesOnChangesAStageCanSeeAndSkipsProgressAndBookmarks) {
    ShootEventFilter filter;
    auto on = [&](WatchEventType type, const json& object) {
        return handled(filter, type, object);
    };
    EXPECT_THAT(on(WatchEventType::Added, shoot_object("a", "r1")), ::testing::ElementsAre("a=r1"));
    // Progress, description and resourceVersion alone: nothing for a stage.
    EXPECT_TRUE(on(WatchEventType::Modified, shoot_object("a", "r1", "Processing", 40)).empty());
    EXPECT_TRUE(
        on(WatchEventType::Bookmark, json{{"metadata", {{"resourceVersion", "99"}}}}).empty());
    EXPECT_THAT(on(WatchEventType::Modified, shoot_object("a", "r1", "Succeeded", 100)),
                ::testing::ElementsAre("a=r1"));
    EXPECT_THAT(on(WatchEventType::Modified, shoot_object("a", "r1", "Succeeded", 100, 2)),
                ::testing::ElementsAre("a=r1")); // observedGeneration moved
    // A shoot without kprov's annotation still makes an event (without a runtime id).
    EXPECT_THAT(on(WatchEventType::Added, shoot_object("foreign")),
                ::testing::ElementsAre("foreign=?"));
    EXPECT_THAT(on(WatchEventType::Deleted, shoot_object("a", "r1", "Succeeded", 100, 2)),
                ::testing::ElementsAre("a deleted=r1"));
}

TEST(ShootEventFilter, EventsCarryTheShootSoWatchedShootsCanAnswerWithoutARead) {
    ShootEventFilter filter;
    engine::WatchedShoots watched;
    bool up = true;
    watched.follow([&up] { return up; });
    auto deliver = [&](WatchEventType type, const json& object) {
        auto events = filter.on(WatchEvent{type, object});
        filter.commit();
        watched.on_events(events);
        return events;
    };
    const auto added = deliver(WatchEventType::Added, shoot_object("a", "r1"));
    ASSERT_EQ(added.size(), 1u);
    ASSERT_TRUE(added[0].state);
    EXPECT_EQ(added[0].state->name, "a");
    EXPECT_EQ(added[0].state->annotations.at(k_annotation), "r1");
    EXPECT_TRUE(added[0].state->json.empty()); // the whole object is not kept for the watch

    deliver(WatchEventType::Modified, shoot_object("a", "r1", "Succeeded", 100));
    const auto seen = watched.find("a");
    ASSERT_TRUE(seen);
    ASSERT_TRUE(seen->last_operation);
    EXPECT_EQ(seen->last_operation->state, "Succeeded");
    EXPECT_EQ(seen->dns_domain, "a.example");
    EXPECT_FALSE(watched.find("b"));
    // While the watch is down, or once no watch follows, no copy is trusted.
    up = false;
    EXPECT_FALSE(watched.find("a"));
    up = true;
    EXPECT_TRUE(watched.find("a"));

    const auto deleted = deliver(WatchEventType::Deleted, shoot_object("a", "r1", "Succeeded"));
    ASSERT_EQ(deleted.size(), 1u);
    EXPECT_FALSE(deleted[0].state);
    EXPECT_FALSE(watched.find("a"));
    EXPECT_EQ(watched.size(), 0u);
    deliver(WatchEventType::Added, shoot_object("c", "r3"));
    watched.follow({});
    EXPECT_FALSE(watched.find("c"));
}

TEST(ShootEventFilter, AResyncPassesOnWhatChangedOrVanishedMeanwhile) {
    ShootEventFilter filter;
    auto on = [&](WatchEventType type, const json& object) {
        return handled(filter, type, object);
    };
    json first = {{"items", {shoot_object("a", "r1"), shoot_object("b", "r2")}}};
    EXPECT_THAT(on(WatchEventType::Resync, first), ::testing::ElementsAre("a=r1", "b=r2"));
    // Later list: a unchanged, b gone, c new.
    json second = {{"items", {shoot_object("a", "r1", "Processing", 60), shoot_object("c", "r3")}}};
    EXPECT_THAT(on(WatchEventType::Resync, second),
                ::testing::UnorderedElementsAre("c=r3", "b deleted=r2"));
    EXPECT_TRUE(on(WatchEventType::Resync, second).empty());
}

TEST(ShootEventFilter, EventsNotCommittedComeAgainWithTheNextResync) {
    ShootEventFilter filter;
    filter.on(WatchEvent{WatchEventType::Added, shoot_object("a", "r1")});
    // The handler failed: no commit. The watch lists again.
    json list = {{"items", {shoot_object("a", "r1")}}};
    EXPECT_THAT(names(filter.on(WatchEvent{WatchEventType::Resync, list})),
                ::testing::ElementsAre("a=r1"));
    filter.commit();
    EXPECT_TRUE(filter.on(WatchEvent{WatchEventType::Resync, list}).empty());
}

// --- against kprov-sim --------------------------------------------------------------------

json sim_shoot(const std::string& name, const std::string& runtime_id) {
    json s = kprov::testing::minimal_aws_shoot(name);
    s["metadata"]["annotations"] = {{k_annotation, runtime_id},
                                    {"confirmation.gardener.cloud/deletion", "true"}};
    return s;
}

class ShootWatchSimTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            KPROV_SKIP_UNLESS_CI("kprov-sim is not built (target kprov-sim)");
        sim = std::make_unique<kprov::testing::SimProcess>(
            binary, std::vector<std::string>{"--create-seconds", "0.5", "--delete-seconds", "0.3",
                                             "--bookmark-seconds", "1", "--project", "kw"});
        ClientOptions options;
        options.retry.initial_backoff = 20ms;
        options.watch_inactivity_timeout = 5s;
        client = std::make_shared<GardenerClient>(load_kubeconfig(sim->kubeconfig), "kw", options);
        ShootWatchOptions watch_options;
        watch_options.restart_delay = 100ms;
        watch = std::make_unique<ShootWatch>(
            *client,
            [this](const std::vector<engine::ShootEvent>& events) {
                std::lock_guard lock(mutex);
                for (const auto& e : events)
                    seen.push_back(e);
            },
            watch_options);
    }

    // The events of `runtime_id` seen so far.
    std::vector<engine::ShootEvent> of(const std::string& runtime_id) {
        std::lock_guard lock(mutex);
        std::vector<engine::ShootEvent> out;
        for (const auto& e : seen)
            if (e.runtime_id == runtime_id)
                out.push_back(e);
        return out;
    }
    bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!done()) {
            if (std::chrono::steady_clock::now() > until)
                return false;
            std::this_thread::sleep_for(10ms);
        }
        return true;
    }
    bool saw_succeeded(const std::string& name) {
        const auto s = client->get_shoot(name);
        return s && s->value("/status/lastOperation/state"_json_pointer, "") == "Succeeded";
    }
    void control(const std::string& path, const json& body = json::object()) {
        client->kube().create(path, body);
    }

    std::unique_ptr<kprov::testing::SimProcess> sim;
    std::shared_ptr<GardenerClient> client;
    std::unique_ptr<ShootWatch> watch;
    std::mutex mutex;
    std::vector<engine::ShootEvent> seen;
};

TEST_F(ShootWatchSimTest, ShootChangesBecomeEventsThroughDropsAndCompaction) {
    client->create_shoot(sim_shoot("before", "r-before")); // exists when the watch starts
    EXPECT_FALSE(watch->is_up());
    watch->start();
    ASSERT_TRUE(wait_until([&] { return watch->is_up(); }));
    ASSERT_TRUE(wait_until([&] { return !of("r-before").empty(); })); // from the first list

    client->create_shoot(sim_shoot("w1", "r1"));
    ASSERT_TRUE(wait_until([&] { return saw_succeeded("w1"); }));
    // The Succeeded state arrives as an event (progress steps do not all make one).
    ASSERT_TRUE(wait_until([&] { return of("r1").size() >= 2; }));
    const auto after_create = of("r1").size();
    EXPECT_LE(after_create, 5u) << "progress updates are not passed on";

    // The stream is cut: the watch resumes and still sees the next change.
    control("/sim/watch/drop", {{"abrupt", true}});
    client->delete_shoot("w1");
    ASSERT_TRUE(wait_until([&] {
        const auto events = of("r1");
        return !events.empty() && events.back().deleted;
    }));

    // While the watch cannot get through, a shoot appears and the history is compacted: the
    // resume answers 410, the watch lists again and reports the new shoot from the list.
    control(
        "/sim/faults",
        {{"rate", 1}, {"status", 503}, {"method", "GET"}, {"pathPrefix", client->shoots_path()}});
    control("/sim/watch/drop", {{"abrupt", true}});
    client->create_shoot(sim_shoot("w2", "r2"));
    control("/sim/watch/compact");
    client->kube().delete_object("/sim/faults");
    ASSERT_TRUE(wait_until([&] { return !of("r2").empty(); }));
    const json stats = client->kube().get("/sim/stats");
    EXPECT_GE(stats["responses"].value("410", 0), 1) << stats.dump();
    EXPECT_TRUE(watch->is_up());
    EXPECT_GT(watch->events(), 3u);

    watch->stop();
    EXPECT_FALSE(watch->is_up());
}

// A stream that cannot resume (here every GET of shoots answers 500, as a proxy refusing watches
// does) makes the watch down at once, though KubeClient keeps trying: WatchedShoots then answers
// nothing, so no stage waits on a copy that no event updates. The next event (a bookmark) of the
// resumed stream makes it up again.
TEST_F(ShootWatchSimTest, AStreamThatCannotResumeMakesTheWatchDownUntilItDeliversAgain) {
    engine::WatchedShoots watched;
    ShootWatchOptions options;
    options.restart_delay = 100ms;
    watch = std::make_unique<ShootWatch>(
        *client, [&](const std::vector<engine::ShootEvent>& events) { watched.on_events(events); },
        options);
    watched.follow([this] { return watch->is_up(); });
    client->create_shoot(sim_shoot("p1", "rp"));
    watch->start();
    ASSERT_TRUE(wait_until([&] { return watched.find("p1").has_value(); }));

    control(
        "/sim/faults",
        {{"rate", 1}, {"status", 500}, {"method", "GET"}, {"pathPrefix", client->shoots_path()}});
    control("/sim/watch/drop", {{"abrupt", true}});
    ASSERT_TRUE(wait_until([&] { return !watch->is_up(); }));
    EXPECT_FALSE(watched.find("p1").has_value()) << "a copy no event can update is answered";

    client->kube().delete_object("/sim/faults");
    ASSERT_TRUE(wait_until([&] { return watch->is_up(); }));
    EXPECT_TRUE(watched.find("p1").has_value());
}

TEST_F(ShootWatchSimTest, AFailingHandlerMakesTheWatchListAgainAndDeliverTheEventsAgain) {
    std::atomic<int> failures{1};
    ShootWatchOptions options;
    options.restart_delay = 100ms;
    watch = std::make_unique<ShootWatch>(
        *client,
        [&](const std::vector<engine::ShootEvent>& events) {
            if (failures-- > 0)
                throw std::runtime_error("store down");
            std::lock_guard lock(mutex);
            for (const auto& e : events)
                seen.push_back(e);
        },
        options);
    client->create_shoot(sim_shoot("h1", "rh"));
    watch->start();
    ASSERT_TRUE(wait_until([&] { return !of("rh").empty(); }));
    EXPECT_TRUE(watch->is_up());
}

} // namespace
} // namespace kprov::gardener
