// kprov watch: the worker daemon. Runs the engine's workers and the project's shoot watch until
// SIGINT or SIGTERM, then stops gracefully: passes in flight end and release their leases.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "engine/worker_pool.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/shoot_watch.hpp"

#include <csignal>
#include <ctime>
#include <pthread.h>
#include <spdlog/spdlog.h>

namespace kprov::cli {
namespace {

// SIGINT and SIGTERM blocked in this thread and in every thread started while it lives, so that
// only wait() receives them; the old mask comes back at destruction, without what arrived late.
class BlockedStopSignals {
public:
    BlockedStopSignals() {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGINT);
        sigaddset(&m_set, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    }
    ~BlockedStopSignals() {
        const timespec none{0, 0};
        while (sigtimedwait(&m_set, nullptr, &none) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    }
    BlockedStopSignals(const BlockedStopSignals&) = delete;
    BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;

    /// The signal that arrived, or 0 after `timeout` without one.
    int wait(std::chrono::seconds timeout) const {
        const timespec t{static_cast<std::time_t>(timeout.count()), 0};
        const int signal = sigtimedwait(&m_set, nullptr, &t);
        return signal > 0 ? signal : 0;
    }

private:
    sigset_t m_set{};
    sigset_t m_old{};
};

void log_stats(const engine::WorkerPool& pool, const gardener::ShootWatch& watch) {
    const auto s = pool.stats();
    spdlog::debug("{} passes ({} succeeded, {} failed, {} leases lost, {} store errors), {} shoot "
                  "events; shoot watch {}",
                  s.passes, s.succeeded, s.failed, s.lease_lost, s.store_errors, s.events,
                  watch.is_up() ? "up" : "down");
}

} // namespace

int cmd_watch(Context& ctx, const WatchArgs& args) {
    // Before any thread exists: threads inherit the mask.
    const BlockedStopSignals signals;
    EngineAccess access(ctx, "watch");
    const auto& settings = ctx.config().settings;

    // 1. The workers, over the engine's executor.
    engine::WorkerPoolOptions options;
    options.workers = args.workers.value_or(settings.workers);
    options.owner_prefix = access.owner();
    options.catch_up_on_start = settings.enqueue_in_progress_operations;
    engine::WorkerPool pool(access.executor(), access.store(), access.clock(), options);

    // 2. The shoot watch, which makes operations due when their shoots change.
    gardener::ShootWatch watch(
        access.gardener(),
        [&pool](const std::vector<engine::ShootEvent>& events) { pool.on_shoot_events(events); });

    spdlog::info("watching {} with {} workers (lease owners {}-N), Gardener project {}",
                 access.store().redacted_url(), options.workers, options.owner_prefix,
                 settings.gardener_project);
    pool.start();
    watch.start();

    // 3. Until SIGINT or SIGTERM, with a word about progress now and then (-v).
    int signal = 0;
    while ((signal = signals.wait(std::chrono::seconds(60))) == 0)
        log_stats(pool, watch);

    // 4. Graceful stop: no more events, no more claims; passes in flight end and release.
    spdlog::info("{}: stopping; passes in flight end and release their leases",
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    watch.stop();
    pool.stop();
    log_stats(pool, watch);
    spdlog::info("stopped");
    return k_exit_ok;
}

} // namespace kprov::cli
