#pragma once
// Client-side rate limit for an HTTP client (the Kubernetes client uses it): a token bucket (QPS
// and burst), the same model as client-go's default limiter.

#include "net/clock.hpp"

#include <memory>
#include <mutex>
#include <stop_token>

namespace kprov::net {

/// A token bucket holding up to `burst` tokens, refilled at `qps` tokens per second. Thread-safe.
/// Fair: each caller reserves the next free slot when it arrives and then waits for it outside
/// the lock, so callers are served in arrival order and a later caller never overtakes an
/// earlier one.
class RateLimiter {
public:
    /// `qps` <= 0 turns the limit off. `burst` < 1 is taken as 1.
    RateLimiter(double qps, int burst, std::shared_ptr<Clock> clock);

    /// Takes one token, sleeping until it is available. Returns false (without a token) when
    /// `stop` was requested while waiting.
    bool acquire(const std::stop_token& stop = {});

private:
    std::shared_ptr<Clock> m_clock;
    double m_qps;
    double m_burst;
    std::mutex m_mutex;
    double m_tokens; // may go negative: that many callers are already waiting
    Clock::time_point m_last;
};

} // namespace kprov::net
