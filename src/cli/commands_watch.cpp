// kprov watch: the worker daemon. Runs the engine's workers and the project's shoot watch until
// SIGINT or SIGTERM, then stops gracefully: passes in flight end and release their leases.
// Serves /metrics, /healthz and /readyz on the metrics address, as serve does.

#include "api/metrics.hpp"
#include "api/server.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/engine_daemon.hpp"

#include <optional>
#include <ostream>
#include <spdlog/logger.h>

namespace kprov::cli {

int cmd_watch(Context& ctx, const WatchArgs& args) {
    // Before any thread exists: threads inherit the mask.
    const BlockedStopSignals signals;
    // One store connection per worker, one for the watch's make-due writes, one spare.
    const int workers = args.workers.value_or(ctx.config().settings.workers);
    EngineAccess access(ctx, "watch", workers + 2);

    // 1. The workers, over an executor whose store counts what they write, and the shoot
    //    watch, which makes operations due when their shoots change.
    api::Metrics metrics(access.store(), access.log());
    const GardenerRequestMetrics gardener_requests(access, metrics);
    const auto store = api::metered_store(access.store(), metrics);
    const auto executor = access.engine().executor_over(*store);
    EngineDaemon daemon(ctx, access, *executor, *store, workers);
    const auto& log = access.logger();
    const auto metrics_server = bind_metrics_server(ctx, metrics, store_readiness(access.store()),
                                                    args.metrics_address, *log);
    log->info("watching {} with {} workers (lease owners {}-N), Gardener project {}",
              access.store().redacted_url(), daemon.options().workers,
              daemon.options().owner_prefix, ctx.config().settings.gardener_project);
    daemon.start();
    std::optional<WorkersGauge> workers_gauge;
    workers_gauge.emplace(metrics, daemon.options().workers);
    if (metrics_server) {
        metrics_server->start();
        ctx.out() << "metrics " << metrics_server->url() << "\n";
        ctx.out().flush();
    }

    // 2. Until SIGINT or SIGTERM, with a word about progress now and then (-v).
    const char* signal = daemon.wait_for_stop(signals);

    // 3. Graceful stop: no more events, no more claims; passes in flight end and release.
    log->info("{}: stopping; passes in flight end and release their leases", signal);
    if (metrics_server)
        metrics_server->stop();
    workers_gauge.reset();
    daemon.stop();
    daemon.log_stats();
    log->info("stopped");
    return k_exit_ok;
}

} // namespace kprov::cli
