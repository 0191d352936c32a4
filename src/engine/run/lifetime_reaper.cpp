#include "engine/run/lifetime_reaper.hpp"

namespace kprov::engine {

namespace {
constexpr int k_batch = 32; // runtimes per round; the rest come in the next one
} // namespace

LifetimeReaper::LifetimeReaper(Store& store, EngineService& service, const Clock& clock,
                               std::string by, Duration interval, LogSink log)
    : m_store(store)
    , m_service(service)
    , m_clock(clock)
    , m_by(std::move(by))
    , m_interval(interval)
    , m_log(std::move(log)) {}

LifetimeReaper::~LifetimeReaper() {
    stop();
}

std::size_t LifetimeReaper::reap_once() {
    std::size_t started = 0;
    for (const auto& id : m_store.expired_runtimes(m_clock.now(), k_batch)) {
        try {
            const auto expired_at = m_store.lifecycle_of(id).expires_at;
            const auto op = m_service.deprovision(id, RequestContext{}).operation;
            m_store.set_expiry(id, std::nullopt,
                               {m_clock.now(), "Lifetime",
                                "lifetime ended" +
                                    (expired_at ? " at " + format_rfc3339(*expired_at) : "") +
                                    ": deprovisioning operation " + op.id + " started by " + m_by});
            log(LogLevel::Info, "runtime " + id + ": lifetime ended, deprovisioning operation " +
                                    op.id + " started");
            m_last_problem.erase(id);
            ++started;
        } catch (const std::exception& e) {
            // In progress, protected meanwhile, Gardener unreachable: the next round tries again,
            // and the log says it once.
            auto& last = m_last_problem[id];
            if (last != e.what())
                log(LogLevel::Warning,
                    "runtime " + id +
                        ": lifetime ended, deprovisioning not started yet: " + e.what());
            last = e.what();
        }
    }
    if (started > 0 && m_on_started)
        m_on_started();
    return started;
}

void LifetimeReaper::start() {
    m_rounds.start([this] { reap_once(); }, [this] { return m_interval; },
                   [this](const std::exception& e) {
                       log(LogLevel::Warning,
                           "cannot look for expired runtimes: " + std::string(e.what()));
                   });
}

void LifetimeReaper::stop() {
    m_rounds.stop();
}

void LifetimeReaper::log(LogLevel level, const std::string& message) {
    if (m_log)
        m_log(level, message);
}

} // namespace kprov::engine
