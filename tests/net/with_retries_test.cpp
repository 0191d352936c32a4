// The one retry loop of the HTTP clients, on a fake clock: what is retried, how often, how long
// it waits, and the free retry after a renewed credential.

#include "gardener/fakes.hpp"
#include "net/logger.hpp"
#include "net/retry.hpp"

#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>
#include <string>

namespace kprov::net {
namespace {

using namespace std::chrono_literals;
using Outcome = TryOutcome<std::string, std::runtime_error>;

TryFailure<std::runtime_error> failure(std::string what, bool may_retry) {
    return {std::runtime_error(what), may_retry, std::nullopt, false, what};
}

RetryPolicy policy(int attempts) {
    return {attempts, 100ms, 1s, 60s};
}

// The retry lines go nowhere here; the Kubernetes client's tests read them.
spdlog::logger& quiet() {
    static const auto log = logger_or_null({});
    return *log;
}

TEST(WithRetriesTest, RetriesUntilASuccessAndReturnsIt) {
    gardener::testing::FakeClock clock;
    int tries = 0;
    const std::string result =
        with_retries(policy(5), clock, quiet(), "test", [&](const RetryState& s) {
            ++tries;
            EXPECT_EQ(s.attempt, tries);
            return tries < 3 ? Outcome(failure("busy", true)) : Outcome(std::string("done"));
        });
    EXPECT_EQ(result, "done");
    EXPECT_EQ(tries, 3);
    EXPECT_EQ(clock.sleeps().size(), 2u);
}

TEST(WithRetriesTest, ThrowsTheLastErrorWhenTriesRunOut) {
    gardener::testing::FakeClock clock;
    int tries = 0;
    try {
        with_retries(policy(3), clock, quiet(), "test", [&](const RetryState&) {
            ++tries;
            return Outcome(failure("busy " + std::to_string(tries), true));
        });
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "busy 3");
    }
    EXPECT_EQ(tries, 3);
}

TEST(WithRetriesTest, AFailureThatMayNotBeRetriedIsThrownAtOnce) {
    gardener::testing::FakeClock clock;
    int tries = 0;
    EXPECT_THROW(with_retries(policy(5), clock, quiet(), "test",
                              [&](const RetryState&) {
                                  ++tries;
                                  return Outcome(failure("refused", false));
                              }),
                 std::runtime_error);
    EXPECT_EQ(tries, 1);
    EXPECT_TRUE(clock.sleeps().empty());
}

TEST(WithRetriesTest, TheServersWaitIsUsedAndTheTimeBudgetEndsRetries) {
    gardener::testing::FakeClock clock;
    int tries = 0;
    EXPECT_THROW(with_retries(policy(10), clock, quiet(), "test",
                              [&](const RetryState&) {
                                  ++tries;
                                  auto f = failure("slow down", true);
                                  f.wait = 25s;
                                  return Outcome(f);
                              }),
                 std::runtime_error);
    // 25 s, 50 s fit in the 60 s budget; a third wait would end at 75 s.
    EXPECT_EQ(tries, 3);
    EXPECT_EQ(clock.sleeps(), (std::vector<std::chrono::milliseconds>{25s, 25s}));
}

TEST(WithRetriesTest, OneFreeRetryIsNotCountedAndNotRepeated) {
    gardener::testing::FakeClock clock;
    std::vector<int> attempts;
    EXPECT_THROW(with_retries(policy(1), clock, quiet(), "test",
                              [&](const RetryState& s) {
                                  attempts.push_back(s.attempt);
                                  EXPECT_EQ(s.free_retry_used, attempts.size() > 1);
                                  auto f = failure("token refused", false);
                                  f.free_retry = true;
                                  return Outcome(f);
                              }),
                 std::runtime_error);
    EXPECT_EQ(attempts, (std::vector<int>{1, 1})) << "the free retry repeats try 1, once";
    EXPECT_TRUE(clock.sleeps().empty());
}

TEST(ParseRetryAfterTest, DeltaSecondsSaturateAndOtherFormsAreIgnored) {
    EXPECT_EQ(parse_retry_after("120"), 120s);
    EXPECT_EQ(parse_retry_after(" 7 "), 7s);
    EXPECT_EQ(parse_retry_after("-3"), 0s);
    EXPECT_EQ(parse_retry_after("99999999999999999999999999"), std::chrono::seconds::max());
    EXPECT_EQ(parse_retry_after("-99999999999999999999999999"), 0s);
    EXPECT_EQ(parse_retry_after(""), std::nullopt);
    EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
    EXPECT_EQ(parse_retry_after("12abc"), std::nullopt);
    // And the wait it becomes is bounded by the policy, without overflow.
    EXPECT_EQ(retry_after_delay(policy(3), *parse_retry_after("99999999999999999999")), 60s);
}

} // namespace
} // namespace kprov::net
