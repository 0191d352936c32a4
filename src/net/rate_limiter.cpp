#include "net/rate_limiter.hpp"

#include <algorithm>

namespace kprov::net {

RateLimiter::RateLimiter(double qps, int burst, std::shared_ptr<Clock> clock)
    : m_clock(std::move(clock))
    , m_qps(qps)
    , m_burst(std::max(1, burst))
    , m_tokens(m_burst)
    , m_last(m_clock->now()) {}

bool RateLimiter::acquire(const std::stop_token& stop) {
    if (m_qps <= 0)
        return !stop.stop_requested();
    std::chrono::duration<double> wait{0};
    {
        std::lock_guard lock(m_mutex);
        const auto now = m_clock->now();
        if (now > m_last) {
            const std::chrono::duration<double> elapsed = now - m_last;
            m_tokens = std::min(m_burst, m_tokens + elapsed.count() * m_qps);
            m_last = now;
        }
        m_tokens -= 1; // reserve our slot now: this is what makes waiting fair
        if (m_tokens < 0)
            wait = std::chrono::duration<double>(-m_tokens / m_qps);
    }
    if (wait.count() <= 0)
        return true;
    if (m_clock->sleep_for(std::chrono::ceil<Clock::duration>(wait), stop))
        return true;
    std::lock_guard lock(m_mutex);
    m_tokens += 1; // give the slot back; a stopped caller must not slow the others down
    return false;
}

} // namespace kprov::net
