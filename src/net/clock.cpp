#include "net/clock.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace kprov::net {

Clock::time_point SteadyClock::now() {
    return std::chrono::steady_clock::now();
}

bool SteadyClock::sleep_for(duration d, const std::stop_token& stop) {
    if (d <= duration::zero())
        return !stop.stop_requested();
    if (!stop.stop_possible()) {
        std::this_thread::sleep_for(d);
        return true;
    }
    // A condition variable rather than a plain sleep, so that a stop request wakes us at once.
    std::mutex mutex;
    std::condition_variable_any cv;
    std::unique_lock lock(mutex);
    static_cast<void>(cv.wait_for(lock, stop, d, [] { return false; }));
    return !stop.stop_requested();
}

std::shared_ptr<Clock> steady_clock() {
    static const auto clock = std::make_shared<SteadyClock>();
    return clock;
}

} // namespace kprov::net
