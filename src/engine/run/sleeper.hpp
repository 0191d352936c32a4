#pragma once
// Waiting between processing passes, behind a small interface so that tests wait on a fake
// clock (no real sleeps) and the CLI can wake a waiting `--wait` early when a shoot changes.

#include "engine/util/time.hpp"

#include <condition_variable>
#include <mutex>
#include <stop_token>

namespace kprov::engine {

class Sleeper {
public:
    virtual ~Sleeper() = default;
    /// Returns at `until` at the latest, earlier when `stop` is requested or for any reason
    /// of the implementation's (callers look at the world again after every return).
    virtual void sleep_until(Timestamp until, std::stop_token stop) = 0;
};

/// Sleeps on the wall clock. wake() ends the current and the next sleep at once (a shoot event
/// arrived). Thread-safe.
class SystemSleeper final : public Sleeper {
public:
    explicit SystemSleeper(const Clock& clock)
        : m_clock(clock) {}
    void sleep_until(Timestamp until, std::stop_token stop) override;
    void wake();

private:
    const Clock& m_clock;
    std::mutex m_mutex;
    std::condition_variable_any m_cv;
    bool m_woken = false;
};

} // namespace kprov::engine
