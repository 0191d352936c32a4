// KubeClient::watch: events, resume after drops, relist after 410, bookmarks, stop.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"
#include "log_capture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;
using nlohmann::json;
using Kind = net::TransportError::Kind;

std::string event(const std::string& type, const std::string& name, const std::string& rv) {
    return json({{"type", type},
                 {"object", {{"metadata", {{"name", name}, {"resourceVersion", rv}}}}}})
               .dump() +
           "\n";
}

std::string bookmark(const std::string& rv) {
    return json({{"type", "BOOKMARK"},
                 {"object", {{"kind", "Shoot"}, {"metadata", {{"resourceVersion", rv}}}}}})
               .dump() +
           "\n";
}

std::string error_event(int code, const std::string& reason) {
    return json({{"type", "ERROR"},
                 {"object",
                  {{"kind", "Status"},
                   {"code", code},
                   {"reason", reason},
                   {"message", "too old resource version"}}}})
               .dump() +
           "\n";
}

const char* name_of(WatchEventType type) {
    switch (type) {
    case WatchEventType::Added:
        return "ADDED";
    case WatchEventType::Modified:
        return "MODIFIED";
    case WatchEventType::Deleted:
        return "DELETED";
    case WatchEventType::Bookmark:
        return "BOOKMARK";
    case WatchEventType::Resync:
        return "RESYNC";
    case WatchEventType::Interrupted:
        return "INTERRUPTED";
    }
    return "?";
}

class WatchTest : public ::testing::Test {
protected:
    WatchTest() { client = std::make_unique<KubeClient>(test_kubeconfig(), fake_options()); }
    // The options of `client`: the fake transport and clock, no server-side timeout.
    ClientOptions fake_options() const {
        ClientOptions options;
        options.transport = transport;
        options.clock = clock;
        options.watch_server_timeout = std::chrono::seconds(0);
        return options;
    }

    // Watches from `rv` and records "TYPE name@rv" per event, stopping after `max_events`;
    // with `interruptions`, an Interrupted event as "INTERRUPTED".
    void watch(const std::string& rv, std::size_t max_events, bool interruptions = false) {
        std::stop_source stop;
        WatchOptions options{rv, "", "", {}};
        options.report_interruptions = interruptions;
        client->watch(
            "/s", options,
            [&](const WatchEvent& e) {
                std::string line = name_of(e.type);
                if (e.type == WatchEventType::Interrupted) {
                    EXPECT_TRUE(e.object.is_null());
                } else if (e.type == WatchEventType::Resync) {
                    line += " " + std::to_string(e.object["items"].size()) + "@" +
                            e.object["metadata"]["resourceVersion"].get<std::string>();
                } else {
                    line += " " + e.object["metadata"].value("name", "") + "@" +
                            e.object["metadata"].value("resourceVersion", "");
                }
                seen.push_back(line);
                if (seen.size() >= max_events)
                    stop.request_stop();
            },
            stop.get_token());
    }
    std::vector<std::string> urls() {
        std::vector<std::string> out;
        for (const auto& r : transport->requests())
            out.push_back(r.url);
        return out;
    }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    std::unique_ptr<KubeClient> client;
    std::vector<std::string> seen;
};

TEST_F(WatchTest, EventsSplitAcrossChunksAndResumeAfterTheStreamEnds) {
    const std::string first = event("ADDED", "a", "11") + event("MODIFIED", "a", "12");
    transport->stream({first.substr(0, 10), first.substr(10, 50), first.substr(60)});
    transport->stream({event("DELETED", "a", "13")});
    watch("10", 3);
    EXPECT_THAT(seen, ElementsAre("ADDED a@11", "MODIFIED a@12", "DELETED a@13"));
    EXPECT_THAT(
        urls(),
        ElementsAre("https://api.test/s?watch=1&resourceVersion=10&allowWatchBookmarks=true",
                    "https://api.test/s?watch=1&resourceVersion=12&allowWatchBookmarks=true"));
    const net::HttpRequest request = transport->requests()[0];
    EXPECT_EQ(request.total_timeout.count(), 0) << "a watch has no total timeout";
    EXPECT_EQ(request.inactivity_timeout, std::chrono::milliseconds(150'000));
    EXPECT_TRUE(clock->sleeps().empty()) << "a stream that delivered resumes at once";
}

TEST_F(WatchTest, BookmarksMoveTheResourceVersionAndDropsResume) {
    transport->stream({event("ADDED", "a", "5"), bookmark("9")}, Kind::Io);
    transport->fail(Kind::Connect, false); // the server is briefly away
    transport->stream({event("MODIFIED", "a", "10")});
    watch("1", 3);
    EXPECT_THAT(seen, ElementsAre("ADDED a@5", "BOOKMARK @9", "MODIFIED a@10"));
    const auto sent = urls();
    ASSERT_EQ(sent.size(), 3U);
    EXPECT_THAT(sent[1], HasSubstr("resourceVersion=9"));
    EXPECT_THAT(sent[2], HasSubstr("resourceVersion=9"));
    const auto sleeps = clock->sleeps();
    ASSERT_EQ(sleeps.size(), 2U) << "backoff after each attempt that delivered nothing";
    EXPECT_LE(sleeps[0], std::chrono::milliseconds(200));
    EXPECT_LE(sleeps[1], std::chrono::milliseconds(400));
}

// Between a stream's end and the next event, changes may happen that nothing reports yet: the
// caller that asks hears of each gap, so that it does not trust its copy meanwhile
// (ShootWatch::is_up).
TEST_F(WatchTest, EveryEndOfAStreamAndEveryFailedTryIsReportedAsAnInterruption) {
    transport->stream({event("ADDED", "a", "5")}, Kind::Io);
    transport->reply(500, R"({"kind":"Status","code":500,"reason":"InternalError"})");
    transport->fail(Kind::Connect, false);
    transport->reply(410, R"({"kind":"Status","code":410,"reason":"Expired"})");
    transport->reply(200, R"({"metadata":{"resourceVersion":"50"},"items":[]})");
    transport->stream({event("MODIFIED", "a", "51")});
    watch("1", 7, true);
    EXPECT_THAT(seen, ElementsAre("ADDED a@5", "INTERRUPTED", "INTERRUPTED", "INTERRUPTED",
                                  "INTERRUPTED", "RESYNC 0@50", "MODIFIED a@51"));
}

// A daemon's watch warns when it tries a stream again; a command's (whose stages poll while it
// is down) says so at debug level, so that a proxy refusing watches does not fill its stderr.
TEST_F(WatchTest, AStreamTriedAgainIsAWarningUnlessTheCallerAsksForDebug) {
    for (const bool warnings : {true, false}) {
        LogCapture capture;
        ClientOptions options = fake_options();
        options.log = capture.logger();
        KubeClient logged(test_kubeconfig(), options);
        transport->reply(500,
                         R"({"kind":"Status","code":500,"reason":"InternalError","message":"no"})");
        transport->stream({event("ADDED", "a", "5")});
        WatchOptions watch{"1", "", "", {}};
        watch.retries_are_warnings = warnings;
        std::stop_source stop;
        logged.watch(
            "/s", watch, [&](const WatchEvent&) { stop.request_stop(); }, stop.get_token());
        const std::string text = capture.text();
        const auto at = text.find("; resuming the watch");
        ASSERT_NE(at, std::string::npos) << text;
        const auto newline = text.rfind('\n', at);
        const std::string line = text.substr(newline == std::string::npos ? 0 : newline + 1);
        EXPECT_TRUE(line.starts_with(warnings ? "warning " : "debug ")) << text;
    }
}

TEST_F(WatchTest, GoneAnswerMeansListAgainAndWatchFromTheList) {
    transport->reply(410, R"({"kind":"Status","code":410,"reason":"Expired"})");
    transport->reply(
        200, R"({"metadata":{"resourceVersion":"50"},"items":[{"metadata":{"name":"a"}}]})");
    transport->stream({event("MODIFIED", "a", "51")});
    watch("3", 2);
    EXPECT_THAT(seen, ElementsAre("RESYNC 1@50", "MODIFIED a@51"));
    EXPECT_THAT(
        urls(),
        ElementsAre("https://api.test/s?watch=1&resourceVersion=3&allowWatchBookmarks=true",
                    "https://api.test/s?limit=500",
                    "https://api.test/s?watch=1&resourceVersion=50&allowWatchBookmarks=true"));
}

TEST_F(WatchTest, GoneErrorEventMeansListAgain) {
    transport->stream(
        {event("ADDED", "a", "4"), error_event(410, "Expired"), event("ADDED", "x", "99")});
    transport->reply(200, R"({"metadata":{"resourceVersion":"60"},"items":[]})");
    transport->stream({event("ADDED", "b", "61")});
    watch("3", 3);
    EXPECT_THAT(seen, ElementsAre("ADDED a@4", "RESYNC 0@60", "ADDED b@61"));
}

TEST_F(WatchTest, WithoutAResourceVersionItListsFirst) {
    transport->reply(200, R"({"metadata":{"resourceVersion":"7"},"items":[{},{}]})");
    transport->stream({event("ADDED", "c", "8")});
    watch("", 2);
    EXPECT_THAT(seen, ElementsAre("RESYNC 2@7", "ADDED c@8"));
}

TEST_F(WatchTest, ServerErrorEventIsRetriedFromTheLastVersion) {
    transport->stream({event("ADDED", "a", "4"), error_event(500, "InternalError")});
    transport->stream({event("ADDED", "b", "5")});
    watch("3", 2);
    EXPECT_THAT(urls()[1], HasSubstr("resourceVersion=4"));
}

TEST_F(WatchTest, PermanentErrorsAreThrown) {
    transport->reply(
        403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no watch for you"})");
    try {
        watch("3", 1);
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_forbidden());
        EXPECT_STREQ(e.what(), "kube: GET /s: 403 Forbidden: no watch for you");
    }
}

TEST_F(WatchTest, CallbackExceptionsLeaveTheWatch) {
    transport->stream({event("ADDED", "a", "4")});
    std::stop_source stop;
    EXPECT_THROW(client->watch(
                     "/s", {"3", "", "", {}},
                     [](const WatchEvent&) { throw std::logic_error("callback"); },
                     stop.get_token()),
                 std::logic_error);
}

TEST_F(WatchTest, StopEndsTheWatchWithoutARequest) {
    std::stop_source stop;
    stop.request_stop();
    client->watch(
        "/s", {"3", "", "", {}}, [](const WatchEvent&) {}, stop.get_token());
    EXPECT_TRUE(transport->requests().empty());
}

TEST_F(WatchTest, SelectorsAndServerTimeoutGoIntoTheQuery) {
    ClientOptions options;
    options.transport = transport;
    options.clock = clock;
    KubeClient with_timeout(test_kubeconfig(), options);
    transport->stream({event("ADDED", "a", "4")});
    std::stop_source stop;
    with_timeout.watch(
        "/s", {"3", "app=kyma", "metadata.name=a", {}},
        [&](const WatchEvent&) { stop.request_stop(); }, stop.get_token());
    EXPECT_EQ(urls()[0],
              "https://api.test/s?labelSelector=app%3Dkyma&fieldSelector=metadata.name%3Da"
              "&watch=1&resourceVersion=3&allowWatchBookmarks=true&timeoutSeconds=600");
}

TEST_F(WatchTest, MalformedLinesDropTheStreamAndResume) {
    transport->stream({event("ADDED", "a", "4"), "not json\n"});
    transport->stream({event("ADDED", "b", "5")});
    watch("3", 2);
    EXPECT_THAT(seen, ElementsAre("ADDED a@4", "ADDED b@5"));
    EXPECT_THAT(urls()[1], HasSubstr("resourceVersion=4"));
}

TEST_F(WatchTest, ObjectFieldsLimitWhatEventsCarryButNotWhatIsChecked) {
    const std::string big =
        json({{"type", "MODIFIED"},
              {"object",
               {{"metadata", {{"name", "a"}, {"resourceVersion", "5"}, {"uid", "u"}}},
                {"spec", {{"region", "eu"}, {"seedName", "s1"}}},
                {"status", {{"lastOperation", {{"state", "Succeeded"}, {"progress", 100}}}}}}}})
            .dump() +
        "\n";
    // A broken value where nothing is read still breaks the line: the stream is dropped and
    // resumed after the last good event, as for any malformed line.
    const std::string broken =
        R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"6"},)"
        R"("spec":{"region":"eu",}}})"
        "\n";
    transport->stream({big, broken});
    // An ERROR event is read whole: 410 in its Status means list again.
    transport->stream({error_event(410, "Expired")});
    transport->reply(200, R"({"metadata":{"resourceVersion":"60"},"items":[]})");
    transport->stream({event("ADDED", "b", "61")});
    std::vector<json> objects;
    std::stop_source stop;
    WatchOptions options{"3", "", "", {"metadata.name", "spec.seedName", "status.lastOperation"}};
    client->watch(
        "/s", options,
        [&](const WatchEvent& e) {
            objects.push_back(e.object);
            if (objects.size() == 3)
                stop.request_stop();
        },
        stop.get_token());
    ASSERT_EQ(objects.size(), 3U);
    EXPECT_EQ(objects[0], json::parse(R"({"metadata": {"name": "a", "resourceVersion": "5"},
        "spec": {"seedName": "s1"},
        "status": {"lastOperation": {"state": "Succeeded", "progress": 100}}})"));
    EXPECT_EQ(objects[2], json::parse(R"({"metadata": {"name": "b", "resourceVersion": "61"}})"));
    // Resumed after 5 (the broken line); after the 410, a list and a watch from it.
    EXPECT_THAT(urls()[1], HasSubstr("resourceVersion=5"));
    EXPECT_EQ(urls()[2], "https://api.test/s?limit=500");
    EXPECT_THAT(urls()[3], HasSubstr("resourceVersion=60"));
}

} // namespace
} // namespace kprov::gardener
