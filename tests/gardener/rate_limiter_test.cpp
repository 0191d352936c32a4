// The client-side rate limit: burst first, then QPS pacing, fair order, on a fake clock.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "net/rate_limiter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using namespace testing;
using std::chrono::milliseconds;

TEST(RateLimiter, BurstThenQpsPacing) {
    auto clock = std::make_shared<FakeClock>();
    net::RateLimiter limiter(20, 40, clock);
    const auto start = clock->now();
    for (int i = 0; i < 40; ++i)
        ASSERT_TRUE(limiter.acquire());
    EXPECT_TRUE(clock->sleeps().empty()) << "the burst needs no wait";
    for (int i = 0; i < 60; ++i)
        ASSERT_TRUE(limiter.acquire());
    const auto sleeps = clock->sleeps();
    EXPECT_EQ(sleeps.size(), 60U);
    EXPECT_THAT(sleeps, Each(milliseconds(50))) << "then one request per 1/20 s";
    const auto elapsed = std::chrono::duration_cast<milliseconds>(clock->now() - start);
    EXPECT_NEAR(static_cast<double>(elapsed.count()), 3000.0, 1.0);
}

TEST(RateLimiter, IdleTimeRefillsUpToTheBurst) {
    auto clock = std::make_shared<FakeClock>();
    net::RateLimiter limiter(10, 5, clock);
    for (int i = 0; i < 5; ++i)
        limiter.acquire();
    clock->advance(std::chrono::milliseconds(300)); // 3 tokens back
    for (int i = 0; i < 3; ++i)
        limiter.acquire();
    EXPECT_TRUE(clock->sleeps().empty());
    limiter.acquire();
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(100)));
    clock->advance(std::chrono::hours(1)); // never more than the burst
    for (int i = 0; i < 5; ++i)
        limiter.acquire();
    EXPECT_EQ(clock->sleeps().size(), 1U);
    limiter.acquire();
    EXPECT_EQ(clock->sleeps().size(), 2U);
}

TEST(RateLimiter, WaitingCallersAreServedInArrivalOrder) {
    // The clock does not move while callers wait: each later caller reserves a later slot.
    auto clock = std::make_shared<FakeClock>(false);
    net::RateLimiter limiter(4, 1, clock);
    for (int i = 0; i < 4; ++i)
        limiter.acquire();
    EXPECT_THAT(clock->sleeps(),
                ElementsAre(milliseconds(250), milliseconds(500), milliseconds(750)));
}

TEST(RateLimiter, ZeroQpsMeansNoLimit) {
    auto clock = std::make_shared<FakeClock>();
    net::RateLimiter limiter(0, 1, clock);
    for (int i = 0; i < 1000; ++i)
        limiter.acquire();
    EXPECT_TRUE(clock->sleeps().empty());
}

TEST(RateLimiter, StoppedWaiterGivesItsSlotBack) {
    auto clock = std::make_shared<FakeClock>(false);
    net::RateLimiter limiter(1, 1, clock);
    limiter.acquire();
    std::stop_source stop;
    stop.request_stop();
    EXPECT_FALSE(limiter.acquire(stop.get_token()));
    limiter.acquire();
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(1000), milliseconds(1000)))
        << "the stopped caller's slot went to the next one";
}

TEST(RateLimiter, ConcurrentCallersWithARealClockAllGetThrough) {
    net::RateLimiter limiter(200, 1, net::steady_clock());
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i)
                limiter.acquire();
        });
    for (auto& thread : threads)
        thread.join();
    // 40 tokens at 200/s with a burst of 1: at least 39 * 5 ms.
    EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(190));
}

TEST(RateLimiter, TheClientPacesItsRequests) {
    auto clock = std::make_shared<FakeClock>();
    auto transport = std::make_shared<FakeTransport>();
    ClientOptions options;
    options.transport = transport;
    options.clock = clock;
    options.qps = 2;
    options.burst = 2;
    KubeClient client(test_kubeconfig(), options);
    for (int i = 0; i < 4; ++i) {
        transport->reply(200, "{}");
        client.get("/x");
    }
    EXPECT_THAT(clock->sleeps(), ElementsAre(milliseconds(500), milliseconds(500)));
}

} // namespace
} // namespace kprov::gardener
