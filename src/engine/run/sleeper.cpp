#include "engine/run/sleeper.hpp"

namespace kprov::engine {

void SystemSleeper::sleep_until(Timestamp until, std::stop_token stop) {
    const auto left = until - m_clock.now();
    std::unique_lock lock(m_mutex);
    if (left > Timestamp::duration::zero())
        m_cv.wait_for(lock, stop, left, [this] { return m_woken; });
    m_woken = false;
}

void SystemSleeper::wake() {
    {
        std::lock_guard lock(m_mutex);
        m_woken = true;
    }
    m_cv.notify_all();
}

} // namespace kprov::engine
