// SystemSleeper: the real sleeper ends early on wake() and on a stop request (short real
// waits, bounded by the 10 s sleeps they interrupt).

#include "engine/run/sleeper.hpp"

#include <gtest/gtest.h>
#include <thread>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

TEST(SystemSleeper, WakeEndsTheSleepAtOnce) {
    SystemClock clock;
    SystemSleeper sleeper(clock);
    const auto before = std::chrono::steady_clock::now();
    std::thread waker([&] {
        std::this_thread::sleep_for(20ms);
        sleeper.wake();
    });
    sleeper.sleep_until(clock.now() + 10s, {});
    waker.join();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
}

TEST(SystemSleeper, AStopRequestEndsTheSleep) {
    SystemClock clock;
    SystemSleeper sleeper(clock);
    std::stop_source stop;
    const auto before = std::chrono::steady_clock::now();
    std::thread stopper([&] {
        std::this_thread::sleep_for(20ms);
        stop.request_stop();
    });
    sleeper.sleep_until(clock.now() + 10s, stop.get_token());
    stopper.join();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
}

TEST(SystemSleeper, APastTimeDoesNotSleep) {
    SystemClock clock;
    SystemSleeper sleeper(clock);
    const auto before = std::chrono::steady_clock::now();
    sleeper.sleep_until(clock.now() - 1s, {});
    EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
}

} // namespace
} // namespace kprov::engine
