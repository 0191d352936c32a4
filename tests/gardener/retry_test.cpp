// Retries: which answers and failures are retried, how long the client waits, and when it stops.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"
#include "support/test_databases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;
using kprov::testing::TempDir;
using nlohmann::json;
using std::chrono::milliseconds;
using Kind = net::TransportError::Kind;

class RetryTest : public ::testing::Test {
protected:
    KubeClient& client() {
        if (!m_client) {
            options.transport = transport;
            options.clock = clock;
            options.qps = 0; // only backoff sleeps in clock->sleeps()
            m_client = std::make_unique<KubeClient>(test_kubeconfig(), options);
        }
        return *m_client;
    }
    std::size_t requests() { return transport->requests().size(); }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    ClientOptions options;

private:
    std::unique_ptr<KubeClient> m_client;
};

TEST_F(RetryTest, TooManyRequestsWaitsForRetryAfter) {
    transport->reply(429, status_body(429, "TooManyRequests", "slow down"), {{"retry-after", "3"}});
    transport->reply(200, R"({"ok":true})");
    EXPECT_EQ(client().get("/x")["ok"], true);
    EXPECT_EQ(requests(), 2U);
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(3000)));
}

TEST_F(RetryTest, RetryAfterFromStatusDetailsWhenNoHeader) {
    transport->reply(429, R"({"kind":"Status","code":429,"details":{"retryAfterSeconds":2}})");
    transport->reply(200, "{}");
    client().get("/x");
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(2000)));
}

TEST_F(RetryTest, ServerErrorsBackOffExponentiallyWithJitter) {
    options.retry = {6, milliseconds(100), milliseconds(1000), milliseconds(60'000)};
    for (int code : {503, 500, 502, 504, 500})
        transport->reply(code, status_body(code, "", "x"));
    transport->reply(200, "{}");
    client().get("/x");
    EXPECT_EQ(requests(), 6U);
    const auto sleeps = clock->sleeps();
    ASSERT_EQ(sleeps.size(), 5U);
    const milliseconds caps[] = {milliseconds(100), milliseconds(200), milliseconds(400),
                                 milliseconds(800), milliseconds(1000)};
    for (std::size_t i = 0; i < sleeps.size(); ++i) {
        EXPECT_GE(sleeps[i].count(), 0) << i;
        EXPECT_LE(sleeps[i], caps[i]) << i;
    }
}

TEST_F(RetryTest, JitterIsSpreadOverTheWholeRange) {
    const net::RetryPolicy policy{5, milliseconds(1000), milliseconds(1000), milliseconds(60'000)};
    milliseconds low{1000}, high{0};
    for (int i = 0; i < 200; ++i) {
        const auto d = net::backoff_delay(policy, 0);
        low = std::min(low, d);
        high = std::max(high, d);
    }
    EXPECT_LT(low, milliseconds(200));
    EXPECT_GT(high, milliseconds(800));
    EXPECT_EQ(net::backoff_cap(policy, 10), milliseconds(1000));
    EXPECT_EQ(net::backoff_cap({5, milliseconds(200), milliseconds(10'000), milliseconds(1)}, 3),
              milliseconds(1600));
}

TEST_F(RetryTest, ConnectionErrorsAreRetried) {
    transport->fail(Kind::Connect, false);
    transport->fail(Kind::Timeout, true);
    transport->fail(Kind::Io, true);
    transport->reply(200, "{}");
    client().get("/x");
    EXPECT_EQ(requests(), 4U);
}

TEST_F(RetryTest, NoRetryForClientErrors) {
    for (int code : {400, 401, 403, 404, 409, 410, 422}) {
        transport->reply(code, status_body(code, "", "no"));
        EXPECT_THROW(client().update("/x", json::object()), KubeError) << code;
    }
    EXPECT_EQ(requests(), 7U);
    EXPECT_TRUE(clock->sleeps().empty());
}

TEST_F(RetryTest, PostIsNotRetriedOnceTheRequestMayHaveArrived) {
    transport->fail(Kind::Io, true, "Connection reset by peer");
    try {
        client().create("/x", json::object());
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 0);
        EXPECT_TRUE(e.retryable()) << "the caller may still retry after checking";
        EXPECT_STREQ(e.what(), "kube: POST /x: Connection reset by peer");
    }
    transport->fail(Kind::Timeout, true);
    EXPECT_THROW(client().create("/x", json::object()), KubeError);
    transport->reply(500, status_body(500, "InternalError", "x"));
    EXPECT_THROW(client().create("/x", json::object()), KubeError);
    transport->reply(502, "bad gateway");
    EXPECT_THROW(client().create("/x", json::object()), KubeError);
    EXPECT_EQ(requests(), 4U);
}

TEST_F(RetryTest, PostIsRetriedWhenTheServerCertainlyDidNotActOnIt) {
    transport->fail(Kind::Connect, false);
    transport->reply(429, "{}", {{"retry-after", "1"}});
    transport->reply(503, status_body(503, "ServiceUnavailable", "x"));
    transport->reply(201, R"({"created":true})");
    EXPECT_EQ(client().create("/x", json::object())["created"], true);
    EXPECT_EQ(requests(), 4U);
}

TEST_F(RetryTest, AttemptsAreCapped) {
    options.retry.max_attempts = 3;
    for (int i = 0; i < 3; ++i)
        transport->reply(503, status_body(503, "ServiceUnavailable", "etcd timeout"));
    try {
        client().get("/x");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(),
                     "kube: GET /x: 503 ServiceUnavailable: etcd timeout (after 3 attempts)");
        EXPECT_TRUE(e.retryable());
    }
    EXPECT_EQ(requests(), 3U);
}

TEST_F(RetryTest, TotalTimeIsCapped) {
    options.retry.max_total = milliseconds(10'000);
    transport->reply(429, "{}", {{"retry-after", "4"}});
    transport->reply(429, "{}", {{"retry-after", "4"}});
    transport->reply(429, "{}", {{"retry-after", "4"}}); // 12 s would pass the cap: give up
    EXPECT_THROW(client().get("/x"), KubeError);
    EXPECT_EQ(requests(), 3U);
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(4000), milliseconds(4000)));
}

TEST_F(RetryTest, TlsFailuresAreFinal) {
    transport->fail(Kind::Tls, false, "SSL peer certificate or SSH remote key was not OK");
    try {
        client().get("/x");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_FALSE(e.retryable());
        EXPECT_THAT(e.what(), HasSubstr("certificate"));
    }
    EXPECT_EQ(requests(), 1U);
}

TEST_F(RetryTest, RotatedTokenFileIsReadAgainAfter401) {
    TempDir dir;
    const auto token_file = dir.write("token", "old-token\n");
    Kubeconfig config = test_kubeconfig();
    config.token = "old-token";
    config.token_file = token_file;
    options.transport = transport;
    options.clock = clock;
    KubeClient with_file(config, options);
    dir.write("token", "new-token\n");
    transport->reply(401, status_body(401, "Unauthorized", "Unauthorized"));
    transport->reply(200, "{}");
    with_file.get("/x");
    const auto sent = transport->requests();
    ASSERT_EQ(sent.size(), 2U);
    EXPECT_EQ(header_of(sent[0], "Authorization"), "Bearer old-token");
    EXPECT_EQ(header_of(sent[1], "Authorization"), "Bearer new-token");
    transport->reply(401, status_body(401, "Unauthorized", "Unauthorized"));
    EXPECT_THROW(with_file.get("/x"), KubeError) << "an unchanged token is not tried again";
    EXPECT_EQ(transport->requests().size(), 3U);
}

} // namespace
} // namespace kprov::gardener
