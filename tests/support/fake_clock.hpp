#pragma once
// A clock tests move by hand, and a Sleeper that "sleeps" by moving it: timeouts and waits take
// no real time.

#include "engine/run/sleeper.hpp"
#include "engine/util/time.hpp"

#include <functional>
#include <mutex>

namespace kprov::fakes {

class FakeClock : public Clock {
public:
    explicit FakeClock(Timestamp start)
        : m_now(start) {}
    Timestamp now() const override {
        std::lock_guard lock(m_mutex);
        return m_now;
    }
    void set(Timestamp t) {
        std::lock_guard lock(m_mutex);
        m_now = t;
    }
    template <class Rep, class Period> void advance(std::chrono::duration<Rep, Period> d) {
        std::lock_guard lock(m_mutex);
        m_now += std::chrono::duration_cast<Timestamp::duration>(d);
    }

private:
    mutable std::mutex m_mutex;
    Timestamp m_now;
};

/// Moves the clock to the wake-up time, then calls on_sleep (where a test lets the world
/// change "meanwhile").
class FakeSleeper : public engine::Sleeper {
public:
    explicit FakeSleeper(FakeClock& clock)
        : m_clock(clock) {}
    void sleep_until(Timestamp until, std::stop_token) override {
        ++sleeps;
        if (until > m_clock.now())
            m_clock.set(until);
        if (on_sleep)
            on_sleep(until);
    }

    std::function<void(Timestamp)> on_sleep;
    int sleeps = 0;

private:
    FakeClock& m_clock;
};

} // namespace kprov::fakes
