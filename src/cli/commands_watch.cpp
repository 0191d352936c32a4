// kprov watch: the worker daemon. Runs the engine's workers and the project's shoot watch until
// SIGINT or SIGTERM, then stops gracefully: passes in flight end and release their leases.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/engine_daemon.hpp"

#include <spdlog/spdlog.h>

namespace kprov::cli {

int cmd_watch(Context& ctx, const WatchArgs& args) {
    // Before any thread exists: threads inherit the mask.
    const BlockedStopSignals signals;
    // One store connection per worker, one for the watch's make-due writes, one spare.
    const int workers = args.workers.value_or(ctx.config().settings.workers);
    EngineAccess access(ctx, "watch", workers + 2);

    // 1. The workers, over the engine's executor, and the shoot watch, which makes operations
    //    due when their shoots change.
    EngineDaemon daemon(ctx, access, workers);
    spdlog::info("watching {} with {} workers (lease owners {}-N), Gardener project {}",
                 access.store().redacted_url(), daemon.options().workers,
                 daemon.options().owner_prefix, ctx.config().settings.gardener_project);
    daemon.start();

    // 2. Until SIGINT or SIGTERM, with a word about progress now and then (-v).
    const char* signal = daemon.wait_for_stop(signals);

    // 3. Graceful stop: no more events, no more claims; passes in flight end and release.
    spdlog::info("{}: stopping; passes in flight end and release their leases", signal);
    daemon.stop();
    daemon.log_stats();
    spdlog::info("stopped");
    return k_exit_ok;
}

} // namespace kprov::cli
