// The client's caps (issue 18): response bodies, watch event lines and list pages are bounded,
// the newline search of a watch stream is linear, and a server's Retry-After cannot overflow.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/kube_client_impl.hpp"
#include "gardener/kube_error.hpp"
#include "net/retry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;
using nlohmann::json;
using namespace std::chrono_literals;

class BoundsTest : public ::testing::Test {
protected:
    KubeClient& client(ClientOptions options = {}) {
        options.transport = transport;
        options.clock = clock;
        options.watch_server_timeout = std::chrono::seconds(0);
        m_client = std::make_unique<KubeClient>(test_kubeconfig(), options);
        return *m_client;
    }
    // A 200 whose body is `body` delivered in pieces of `piece` bytes; counts what went out.
    void stream_in_pieces(std::string body, std::size_t piece) {
        transport->then([this, body = std::move(body), piece](const net::HttpRequest& request) {
            net::HttpResponse response;
            response.status = 200;
            for (std::size_t at = 0; at < body.size(); at += piece) {
                const std::string_view chunk = std::string_view(body).substr(at, piece);
                delivered += chunk.size();
                if (!request.on_body(chunk))
                    return response;
            }
            return response;
        });
    }
    // Watches /s from resourceVersion 1 until `max_events` events or an error.
    std::vector<std::string> watch(KubeClient& c, std::size_t max_events) {
        std::vector<std::string> seen;
        std::stop_source stop;
        c.watch(
            "/s", {"1", "", "", {}},
            [&](const WatchEvent& e) {
                seen.push_back(e.object["metadata"].value("resourceVersion", ""));
                if (seen.size() >= max_events)
                    stop.request_stop();
            },
            stop.get_token());
        return seen;
    }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    std::size_t delivered = 0;

private:
    std::unique_ptr<KubeClient> m_client;
};

std::string big_event(const std::string& rv, std::size_t padding) {
    return json({{"type", "ADDED"},
                 {"object",
                  {{"metadata", {{"name", "a"}, {"resourceVersion", rv}}},
                   {"data", std::string(padding, 'x')}}}})
        .dump();
}

TEST(Bounds, DefaultsAreSane) {
    const ClientOptions options;
    EXPECT_EQ(options.max_response_bytes, 64U << 20);
    EXPECT_EQ(options.max_watch_line_bytes, 16U << 20);
    EXPECT_EQ(options.max_list_pages, 10'000);
    EXPECT_EQ(format_bytes(64U << 20), "64 MiB");
    EXPECT_EQ(format_bytes(3072), "3 KiB");
    EXPECT_EQ(format_bytes(1000), "1000 bytes");
}

TEST_F(BoundsTest, ABodyOverTheCapIsRefusedNamingTheCapAndNotRetried) {
    ClientOptions options;
    options.max_response_bytes = 1024;
    options.label = "runtime cluster";
    auto& c = client(options);
    transport->reply(200, R"({"data":")" + std::string(2000, 'x') + R"("})");
    try {
        c.get("/api/v1/configmaps");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "runtime cluster: the response of GET /api/v1/configmaps is larger "
                               "than 1 KiB (ClientOptions::max_response_bytes)");
        EXPECT_FALSE(e.retryable());
        EXPECT_EQ(e.http_status(), 0);
    }
    EXPECT_EQ(transport->requests().size(), 1U);
    EXPECT_EQ(transport->requests()[0].max_body_bytes, 1024U) << "the transport is told the cap";
    // At the cap exactly is fine.
    transport->reply(200, R"({"d":")" + std::string(1024 - 8, 'x') + R"("})");
    EXPECT_EQ(c.get("/x")["d"].get<std::string>().size(), 1024U - 8);
}

TEST_F(BoundsTest, ALongWatchLineInSmallChunksIsScannedOnce) {
    ClientOptions options;
    options.max_watch_line_bytes = 8U << 20;
    auto& c = client(options);
    const std::string line = big_event("2", 4U << 20) + "\n" + big_event("3", 10) + "\n";
    stream_in_pieces(line, 1000); // about 4200 chunks
    const std::size_t before = watch_bytes_scanned();
    EXPECT_THAT(watch(c, 2), ElementsAre("2", "3"));
    const std::size_t scanned = watch_bytes_scanned() - before;
    // Rescanning the buffer from its start on every chunk would be about 9 GB here.
    EXPECT_EQ(scanned, line.size()) << "every byte is searched for a newline exactly once";
}

TEST_F(BoundsTest, AWatchLineOverTheCapEndsTheWatchNamingTheCap) {
    ClientOptions options;
    options.max_watch_line_bytes = 4096;
    auto& c = client(options);
    const std::string body = big_event("2", 10) + "\n" + std::string(1U << 20, '{');
    stream_in_pieces(body, 100);
    std::vector<std::string> seen;
    try {
        seen = watch(c, 10);
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "kube: GET /s: the watch stream sent an event line larger than "
                               "4 KiB (ClientOptions::max_watch_line_bytes)");
        EXPECT_FALSE(e.retryable());
    }
    EXPECT_LE(delivered, 4096U + 200U) << "the stream was cut at the cap, not read to its end";
    EXPECT_EQ(transport->requests().size(), 1U) << "not resumed";
}

TEST_F(BoundsTest, AWholeLineOverTheCapInOneChunkIsRefusedToo) {
    ClientOptions options;
    options.max_watch_line_bytes = 100;
    auto& c = client(options);
    transport->stream({big_event("2", 200) + "\n"});
    EXPECT_THROW(watch(c, 1), KubeError);
}

TEST_F(BoundsTest, ContinueTokensForeverStopAtMaxListPages) {
    ClientOptions options;
    options.max_list_pages = 5;
    options.label = "runtime cluster";
    auto& c = client(options);
    for (int i = 0; i < 5; ++i)
        transport->reply(200, R"({"metadata":{"continue":"again"},"items":[{}]})");
    try {
        c.list("/api/v1/pods");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "runtime cluster: GET /api/v1/pods: the server sent continue "
                               "tokens for more than 5 pages (ClientOptions::max_list_pages)");
        EXPECT_FALSE(e.retryable());
    }
    EXPECT_EQ(transport->requests().size(), 5U);
}

TEST_F(BoundsTest, RetryAfterGivesABoundedWaitWhateverItSays) {
    for (const std::string value : {"99999999999999999999", "9223372036854775807", "-5", "abc",
                                    "Wed, 21 Oct 2015 07:28:00 GMT", "120"}) {
        SCOPED_TRACE(value);
        clock = std::make_shared<FakeClock>();
        transport = std::make_shared<FakeTransport>();
        ClientOptions options;
        options.retry.max_total = 60s;
        auto& c = client(options);
        transport->reply(429, "{}", {{"retry-after", value}});
        transport->reply(200, "{}");
        try {
            c.get("/x");
        } catch (const KubeError& e) { // a wait past max_total gives up: also bounded
            EXPECT_EQ(e.http_status(), 429);
        }
        for (const auto wait : clock->sleeps()) {
            EXPECT_GE(wait.count(), 0);
            EXPECT_LE(wait, 60s);
        }
    }
    // The Status's retryAfterSeconds goes the same way.
    clock = std::make_shared<FakeClock>();
    transport = std::make_shared<FakeTransport>();
    auto& c = client();
    transport->reply(429, R"({"details":{"retryAfterSeconds":9223372036854775807}})");
    transport->reply(200, "{}");
    c.get("/x");
    EXPECT_THAT(clock->sleeps(), ElementsAre(std::chrono::milliseconds(60'000)));
}

TEST(RetryAfterDelay, SaturatesInsteadOfOverflowing) {
    net::RetryPolicy policy;
    policy.max_total = 60s;
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds(7)), 7000ms);
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds(-5)), 0ms);
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds(0)), 0ms);
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds(61)), 60s);
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds::max()), 60s);
    EXPECT_EQ(net::retry_after_delay(policy, std::chrono::seconds::min()), 0ms);
}

} // namespace
} // namespace kprov::gardener
