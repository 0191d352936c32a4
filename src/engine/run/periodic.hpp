#pragma once
// A body run in a thread of its own, again and again with a pause between rounds, until stop():
// the rhythm of kprov's background workers (KymaSecretRefresher, LifetimeReaper). A round that
// throws is reported to `on_error` and the next one comes as usual.

#include "engine/util/duration.hpp"

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace kprov::engine {

class Periodic {
public:
    Periodic() = default;
    ~Periodic() { stop(); }
    Periodic(const Periodic&) = delete;
    Periodic& operator=(const Periodic&) = delete;

    /// Runs `round` now and then every `pause` (asked anew after each round); a no-op while
    /// running.
    void start(std::function<void()> round, std::function<Duration()> pause,
               std::function<void(const std::exception&)> on_error) {
        std::lock_guard lock(m_mutex);
        if (m_thread.joinable())
            return;
        m_thread = std::jthread([this, round = std::move(round), pause = std::move(pause),
                                 on_error = std::move(on_error)](std::stop_token stop) {
            while (!stop.stop_requested()) {
                try {
                    round();
                } catch (const std::exception& e) {
                    on_error(e);
                }
                std::unique_lock sleeping(m_mutex);
                m_wake.wait_for(sleeping, stop, pause(), [] { return false; });
            }
        });
    }

    /// Ends the thread after its current round; idempotent.
    void stop() {
        std::jthread thread;
        {
            std::lock_guard lock(m_mutex);
            thread = std::move(m_thread);
        }
        // The jthread requests stop and joins as it goes.
    }

private:
    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::jthread m_thread; // last: joined before the members it uses go
};

} // namespace kprov::engine
