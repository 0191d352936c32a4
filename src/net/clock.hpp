#pragma once
// Time for the HTTP clients (Kubernetes, Director): reading a monotonic clock and sleeping. An
// interface so that tests of retries, backoff and the rate limiter run on a fake clock and take no
// real time.

#include <chrono>
#include <memory>
#include <stop_token>

namespace kprov::net {

/// A monotonic clock that can also sleep. Implementations are thread-safe.
class Clock {
public:
    using time_point = std::chrono::steady_clock::time_point;
    using duration = std::chrono::steady_clock::duration;

    virtual ~Clock() = default;
    virtual time_point now() = 0;
    /// Sleeps for `d` or until `stop` is requested, whichever comes first. Returns false when it
    /// returned early because of `stop`.
    virtual bool sleep_for(duration d, const std::stop_token& stop = {}) = 0;
};

/// std::chrono::steady_clock and real sleeps (interruptible by a stop token).
class SteadyClock : public Clock {
public:
    time_point now() override;
    bool sleep_for(duration d, const std::stop_token& stop = {}) override;
};

/// The process-wide SteadyClock.
std::shared_ptr<Clock> steady_clock();

} // namespace kprov::net
