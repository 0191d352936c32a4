// kprov wait OPERATION_ID, and the in-process driving that --wait shares with it.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/driver_watch.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/operation_wait.hpp"
#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "engine/run/installation_watches.hpp"
#include "engine/run/sleeper.hpp"

#include <csignal>
#include <map>
#include <memory>
#include <ostream>

namespace kprov::cli {
namespace {

std::string shoot_of(engine::Store& store, const engine::Operation& op) {
    const auto runtime = store.find_runtime(op.cluster_id);
    return runtime ? runtime->gardener.name : std::string();
}

// What finishes an operation that this process stops driving while Gardener goes on.
std::string who_finishes(const std::string& operation_id) {
    return "Gardener goes on, and nothing records the operation's progress until `kprov wait " +
           operation_id + "` (or a `kprov watch` or `kprov serve` on this store) drives it";
}

int report_failed(Context& ctx, const engine::Operation& op) {
    const std::string& message = op.last_error.message.empty() ? op.message : op.last_error.message;
    ctx.err() << "kprov: error: " << engine::to_api(op.type) << " operation " << op.id
              << " failed: " << message;
    if (!op.last_error.reason.empty())
        ctx.err() << " (reason " << op.last_error.reason << ", component "
                  << op.last_error.component << ")";
    ctx.err() << '\n';
    return k_exit_operation_failed;
}

int report_end(Context& ctx, const engine::DriveResult& result, std::optional<Duration> timeout,
               int signal_number) {
    const engine::Operation& op = result.operation;
    print_operation(ctx.out(), op, output_format(ctx), CompassIds(ctx)(op.cluster_id));
    if (op.state == engine::OperationState::Succeeded)
        return k_exit_ok;
    if (op.state == engine::OperationState::Failed)
        return report_failed(ctx, op);
    if (signal_number != 0) {
        ctx.err() << "kprov: "
                  << (signal_number == SIGTERM ? "terminated (SIGTERM)" : "interrupted")
                  << ": operation " << op.id << " is still in progress at stage " << op.stage
                  << ", and this process no longer holds it; " << who_finishes(op.id) << '\n';
        return signal_number == SIGTERM ? k_exit_terminated : k_exit_interrupted;
    }
    ctx.err() << "kprov: --timeout " << format_duration(timeout.value_or(Duration::zero()))
              << " reached at stage " << op.stage << "; " << who_finishes(op.id) << '\n';
    return k_exit_timeout;
}

// A watch of the operation's shoot that wakes `sleeper` at its every change, so that
// Executor::drive runs a waiting stage again at once; none for an operation that has ended.
std::unique_ptr<DriverWatch> watch_shoot_of(EngineAccess& access, const engine::Operation& op,
                                            engine::SystemSleeper& sleeper, FeedWatched feed) {
    if (op.state != engine::OperationState::InProgress)
        return nullptr;
    const std::string shoot = shoot_of(access.store(), op);
    if (shoot.empty())
        return nullptr;
    return std::make_unique<DriverWatch>(
        access, std::map<std::string, engine::SystemSleeper*>{{shoot, &sleeper}}, feed);
}

} // namespace

engine::DriveResult drive_operation(EngineAccess& access, const std::string& operation_id,
                                    const engine::DriveOptions& options) {
    const auto op = access.store().find_operation(operation_id);
    if (!op)
        throw NotFound("operation \"" + operation_id + "\" not found");
    engine::SystemSleeper sleeper(access.clock());
    // apply drives runtimes on parallel threads, each with a watch of its own.
    const auto watch = watch_shoot_of(access, *op, sleeper, FeedWatched::No);
    return access.executor().drive(op->id, access.owner(), sleeper, options);
}

std::optional<Duration> parse_timeout(const std::optional<std::string>& text) {
    if (!text)
        return std::nullopt;
    const auto parsed = parse_duration(*text);
    if (!parsed)
        throw UsageError("--timeout \"" + *text +
                         "\" is not a duration (expected a Go duration such as 90s, 5m, 1h30m)");
    return parsed;
}

namespace {

// How driving with progress on stderr ended.
struct ShownDrive {
    engine::DriveResult result;
    int signal_number = 0;
};

// Drives the operation as --wait does, its progress on stderr, until it ends, `timeout`
// passes or a signal arrives.
ShownDrive drive_shown(Context& ctx, EngineAccess& access, const std::string& operation_id,
                       std::optional<Duration> timeout) {
    const auto op = access.store().find_operation(operation_id);
    if (!op)
        throw NotFound("operation \"" + operation_id + "\" not found");
    engine::SystemSleeper sleeper(access.clock());
    // An Installation CR's change wakes the wait as a shoot's does.
    engine::InstallationWatches* installations = access.installation_watches();
    if (installations)
        installations->set_on_change([&sleeper] { sleeper.wake(); });
    // The watches outlive this function (they are the EngineAccess's): they must stop calling
    // on `sleeper` before it goes, on every way out.
    struct ForgetWaker {
        engine::InstallationWatches* installations;
        ~ForgetWaker() {
            if (installations)
                installations->set_on_change({});
        }
    } forget_waker{installations};

    const bool show = !ctx.global().quiet;
    const bool terminal = is_terminal(ctx.err());
    ProgressDisplay progress(ctx.err(), terminal, access.clock(), terminal ? terminal_width() : 0);
    std::stop_source stop;
    engine::DriveOptions options;
    options.stop = stop.get_token();
    if (timeout)
        options.deadline =
            access.clock().now() + std::chrono::duration_cast<Timestamp::duration>(*timeout);
    if (show)
        options.on_progress = [&progress](const engine::PassResult& pass) {
            progress.update(pass);
        };

    ShownDrive shown;
    {
        InterruptScope interrupt(stop, [&progress, show] {
            if (show)
                progress.tick();
        });
        const auto watch = watch_shoot_of(access, *op, sleeper, FeedWatched::Yes);
        shown.result = access.executor().drive(op->id, access.owner(), sleeper, options);
        shown.signal_number = interrupt.signal_number();
    }
    progress.finish();
    return shown;
}

} // namespace

int wait_for_operation(Context& ctx, EngineAccess& access, const std::string& operation_id,
                       std::optional<Duration> timeout) {
    const auto shown = drive_shown(ctx, access, operation_id, timeout);
    return report_end(ctx, shown.result, timeout, shown.signal_number);
}

std::optional<int> follow_operation(Context& ctx, EngineAccess& access,
                                    const std::string& operation_id,
                                    std::optional<Duration> timeout) {
    const auto shown = drive_shown(ctx, access, operation_id, timeout);
    if (shown.result.operation.state != engine::OperationState::InProgress) {
        if (!ctx.global().quiet)
            ctx.err() << "kprov: " << engine::to_api(shown.result.operation.type) << " operation "
                      << operation_id << " "
                      << (shown.result.operation.state == engine::OperationState::Succeeded
                              ? "succeeded"
                              : "failed")
                      << "\n";
        return std::nullopt;
    }
    return report_end(ctx, shown.result, timeout, shown.signal_number);
}

int drive_until_first_wait(Context& ctx, EngineAccess& access, const std::string& operation_id) {
    const engine::PassResult pass = access.executor().run_operation(operation_id, access.owner());
    const engine::Operation& op = pass.operation;
    print_operation(ctx.out(), op, output_format(ctx), CompassIds(ctx)(op.cluster_id));
    if (op.state == engine::OperationState::Failed)
        return report_failed(ctx, op);
    if (op.state != engine::OperationState::InProgress || ctx.global().quiet)
        return k_exit_ok;
    ctx.err() << "kprov: " << engine::to_api(op.type) << " operation " << op.id;
    if (pass.outcome == engine::PassOutcome::NotClaimed && op.lease)
        ctx.err() << " is driven by " << op.lease->owner << " (at stage " << op.stage << ")\n";
    else
        ctx.err() << " is at stage " << op.stage
                  << (pass.error.empty()
                          ? ""
                          : " (its last try failed and is retried: " + pass.error + ")")
                  << "; " << who_finishes(op.id) << '\n';
    return k_exit_ok;
}

namespace {

// The operation `given` names, or the operation in progress (else the last one) of the runtime
// it names, saying so on stderr when that has ended. nullopt for a runtime without operations.
std::optional<engine::Operation> operation_to_wait_for(Context& ctx, engine::Store& store,
                                                       const std::string& given) {
    try {
        return lookup_operation(store, given, "wait");
    } catch (const NotFound& not_an_operation) {
        std::optional<engine::Runtime> runtime;
        try {
            runtime = lookup_runtime(store, given, "wait");
        } catch (const NotFound&) {
            throw not_an_operation; // it names neither: the operation's "did you mean"
        }
        auto last = store.last_operation(runtime->id);
        if (!ctx.global().quiet && (!last || last->state != engine::OperationState::InProgress))
            ctx.err()
                << "kprov: runtime " << runtime->id << " has no operation in progress"
                << (last ? "; its last operation, the " + std::string(engine::to_api(last->type)) +
                               " operation " + last->id + ", " +
                               std::string(engine::to_api(last->state)) + " at " +
                               format_rfc3339(last->end_timestamp.value_or(last->start_timestamp))
                         : std::string())
                << '\n';
        return last;
    }
}

} // namespace

int cmd_wait(Context& ctx, const WaitArgs& args) {
    const auto timeout = parse_timeout(args.timeout);
    EngineAccess access(ctx, "cli", 4, StoreUse::Existing);
    const auto op = operation_to_wait_for(ctx, access.store(), args.operation_id);
    if (!op)
        return k_exit_ok;
    return wait_for_operation(ctx, access, op->id, timeout);
}

} // namespace kprov::cli
