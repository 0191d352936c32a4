// Executor::drive: one operation run to its end in-process (`kprov ... --wait`).

#include "engine/run/executor.hpp"

#include <tuple>

namespace kprov::engine {
namespace {

bool ended(const Operation& op) {
    return op.state != OperationState::InProgress;
}

// What a progress display shows; another worker's progress is reported when this changes.
auto progress_key(const Operation& op) {
    return std::tie(op.stage, op.state, op.message, op.last_error);
}

} // namespace

DriveResult Executor::drive(const std::string& operation_id, const std::string& owner,
                            Sleeper& sleeper, const DriveOptions& options) {
    const auto poll = std::chrono::duration_cast<Timestamp::duration>(m_options.drive_poll);
    std::optional<Operation> reported; // the last operation handed to on_progress
    auto report = [&](const PassResult& pass) {
        if (reported && progress_key(*reported) == progress_key(pass.operation) &&
            pass.outcome == PassOutcome::NotClaimed)
            return;
        reported = pass.operation;
        if (options.on_progress)
            options.on_progress(pass);
    };
    auto stored = [&](const Operation& fallback) {
        auto op = m_store.find_operation(operation_id);
        return op ? *op : fallback;
    };

    for (bool first = true;; first = false) {
        if (!first && options.deadline && m_clock.now() >= *options.deadline)
            return {DriveEnd::Deadline, stored(reported.value_or(Operation{}))};
        if (options.stop.stop_requested())
            return {DriveEnd::Stopped, stored(reported.value_or(Operation{}))};

        const PassResult pass = run_operation(operation_id, owner);
        report(pass);
        if (ended(pass.operation) &&
            (pass.outcome == PassOutcome::NotClaimed || pass.outcome == PassOutcome::Succeeded ||
             pass.outcome == PassOutcome::Failed))
            return {DriveEnd::Ended, pass.operation};

        // Due again when our pass said so; otherwise (another worker holds it, our lease was
        // taken over, the store failed) look again shortly.
        Timestamp wake = m_clock.now() + poll;
        if (pass.outcome == PassOutcome::Waiting)
            wake = pass.operation.next_run_at;
        if (options.deadline && *options.deadline < wake)
            wake = *options.deadline;
        sleeper.sleep_until(wake, options.stop);
    }
}

} // namespace kprov::engine
