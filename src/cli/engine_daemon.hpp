#pragma once
// The engine as a long-running process runs it, shared by `kprov watch` and `kprov serve`: the
// workers over the executor and the project's shoot watch that makes operations due when their
// shoots change, the SIGINT/SIGTERM handling that stops them gracefully, and what makes them
// observable: the /readyz check, the metrics listener, Gardener's request counts, the workers
// gauge.

#include "api/metrics.hpp"
#include "api/server.hpp"
#include "cli/engine_access.hpp"
#include "engine/run/kyma_secret_refresher.hpp"
#include "engine/run/lifetime_reaper.hpp"
#include "engine/run/worker_pool.hpp"

#include <chrono>
#include <csignal>
#include <memory>
#include <optional>
#include <string>

namespace spdlog {
class logger;
}

namespace kprov::gardener {
class ShootWatch;
class AuditLogWorker;
} // namespace kprov::gardener

namespace kprov::cli {

/// SIGINT and SIGTERM blocked in this thread and in every thread started while it lives, so that
/// only wait() receives them; the old mask comes back at destruction, without what arrived late.
/// Create it before any thread.
class BlockedStopSignals {
public:
    BlockedStopSignals();
    ~BlockedStopSignals();
    BlockedStopSignals(const BlockedStopSignals&) = delete;
    BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;

    /// The signal that arrived, or 0 after `timeout` without one.
    int wait(std::chrono::seconds timeout) const;

private:
    sigset_t m_set{};
    sigset_t m_old{};
};

/// The workers (KPROV_WORKERS, or `workers`) and the shoot watch. Opens Gardener at
/// construction (ConfigError when its kubeconfig cannot be used).
class EngineDaemon {
public:
    /// Runs `access`'s executor over its store.
    EngineDaemon(Context& ctx, EngineAccess& access, std::optional<int> workers);
    /// Runs `executor`, whose store is `store` (serve wraps the store to count what it writes).
    EngineDaemon(Context& ctx, EngineAccess& access, engine::Executor& executor,
                 engine::Store& store, std::optional<int> workers);
    ~EngineDaemon(); ///< stop()
    EngineDaemon(const EngineDaemon&) = delete;
    EngineDaemon& operator=(const EngineDaemon&) = delete;

    void start();
    /// No more events, no more claims; passes in flight end and release their leases.
    /// Idempotent.
    void stop();
    /// Wakes the workers (an operation was started in this process).
    void notify_due() { m_pool.notify_due(); }
    /// One debug line: passes, outcomes, events, whether the watch is up.
    void log_stats() const;
    /// Blocks until SIGINT or SIGTERM arrives, with log_stats() every minute; returns the
    /// signal's name ("SIGINT", "SIGTERM").
    const char* wait_for_stop(const BlockedStopSignals& signals) const;
    const engine::WorkerPoolOptions& options() const { return m_pool.options(); }

private:
    std::shared_ptr<spdlog::logger> m_log; ///< the access's (EngineAccess::logger)
    engine::WorkerPool m_pool;
    /// The audit-log reconciler (APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH); null without one.
    std::unique_ptr<gardener::AuditLogWorker> m_audit;
    std::unique_ptr<gardener::ShootWatch> m_watch;
    engine::WatchedShoots& m_watched; ///< the access's, filled by m_watch
    /// The access's Installation CR watches, which wake m_pool; null without a Kyma installer.
    engine::InstallationWatches* m_installations = nullptr;
    /// Keeps the KCP's kubeconfig Secrets fresh; null unless KPROV_KYMA_INSTALLER is
    /// lifecycle-manager.
    std::unique_ptr<engine::KymaSecretRefresher> m_secrets;
    /// Deprovisions runtimes whose lifetime has passed.
    std::unique_ptr<engine::LifetimeReaper> m_reaper;
};

// --- What watch and serve share to be observed ---------------------------------------------

/// /readyz: the store answers and its schema is the one this build writes.
api::ReadinessCheck store_readiness(stores::StoreBackend& store);

/// Counts the requests of `access`'s Gardener client in `metrics` while it lives (a client
/// option of that client, not a process-global hook).
class GardenerRequestMetrics {
public:
    GardenerRequestMetrics(EngineAccess& access, api::Metrics& metrics);
    ~GardenerRequestMetrics();
    GardenerRequestMetrics(const GardenerRequestMetrics&) = delete;
    GardenerRequestMetrics& operator=(const GardenerRequestMetrics&) = delete;

private:
    EngineAccess& m_access;
};

/// watch's listener of /metrics, /healthz and /readyz, bound on `flag` (--metrics-address),
/// else APP_METRICS_ADDRESS; null for "". An address the user gave that cannot be bound is a
/// ConfigError; the default one (127.0.0.1:9000, which serve may hold on the same machine) is
/// a warning to `log`, and the watch runs without metrics.
std::unique_ptr<api::MetricsServer> bind_metrics_server(Context& ctx, api::Metrics& metrics,
                                                        api::ReadinessCheck readiness,
                                                        const std::optional<std::string>& flag,
                                                        spdlog::logger& log);

/// The workers gauge: the pool's size while it lives (after the workers started), 0 after.
class WorkersGauge {
public:
    WorkersGauge(api::Metrics& metrics, int workers)
        : m_metrics(metrics) {
        m_metrics.workers(workers);
    }
    ~WorkersGauge() { m_metrics.workers(0); }
    WorkersGauge(const WorkersGauge&) = delete;
    WorkersGauge& operator=(const WorkersGauge&) = delete;

private:
    api::Metrics& m_metrics;
};

} // namespace kprov::cli
