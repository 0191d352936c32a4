#pragma once
// Runtimes with a lifetime (RuntimeLifecycle::expires_at, from the runtime file's
// `lifecycle.lifetime`) are deprovisioned once it has passed, unless they are protected.
// `kprov watch` and `kprov serve` run it beside their workers, which then drive the
// deprovisioning like any other; several processes on one store may run it at once (the
// one-operation-per-runtime rule lets one of them start it).

#include "engine/engine_options.hpp"
#include "engine/ports.hpp"
#include "engine/run/periodic.hpp"
#include "engine/service/service.hpp"
#include "engine/store.hpp"
#include "engine/util/time.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>

namespace kprov::engine {

class LifetimeReaper {
public:
    /// Every argument must outlive the reaper. `by` names this process in the runtime's events
    /// ("kprov watch on host"). `log` may be empty.
    LifetimeReaper(Store& store, EngineService& service, const Clock& clock, std::string by,
                   Duration interval = std::chrono::seconds(1), LogSink log = {});
    ~LifetimeReaper(); ///< stop()
    LifetimeReaper(const LifetimeReaper&) = delete;
    LifetimeReaper& operator=(const LifetimeReaper&) = delete;

    /// One round: starts the deprovisioning of every expired runtime (Store::expired_runtimes)
    /// and clears its expiry with a "Lifetime" event naming the operation. A runtime with an
    /// operation in progress, or protected meanwhile, is left for a later round. Returns how
    /// many it started.
    std::size_t reap_once();

    /// Called after a round that started deprovisionings (a daemon wakes its workers). Set it
    /// before start().
    void set_on_started(std::function<void()> on_started) { m_on_started = std::move(on_started); }

    /// Runs reap_once() every interval in a thread of its own until stop(); idempotent.
    void start();
    void stop();

private:
    void log(LogLevel level, const std::string& message);

    Store& m_store;
    EngineService& m_service;
    const Clock& m_clock;
    std::string m_by;
    Duration m_interval;
    LogSink m_log;
    std::function<void()> m_on_started;
    std::map<std::string, std::string> m_last_problem; ///< by runtime: logged once, not per round
    Periodic m_rounds; // last: stopped before the members it uses go
};

} // namespace kprov::engine
