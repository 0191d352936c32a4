#include "cli/undriven.hpp"

#include "cli/access.hpp"
#include "cli/engine_access.hpp"
#include "engine/rules/in_progress.hpp"

#include <ostream>

namespace kprov::cli {

std::optional<engine::Operation> advance_undriven(Context& ctx,
                                                  const std::optional<engine::Operation>& last) {
    if (!last || !engine::is_undriven(*last, SystemClock().now()))
        return last;
    std::string why;
    try {
        // A Gardener that does not answer is found out in seconds, before a pass writes
        // anything (a pass would record its failure as the operation's lastError).
        check_gardener_answers(ctx, LogScope(ctx).logger());
        EngineAccess access(ctx, "cli", 1, StoreUse::Existing);
        const auto pass = access.executor().run_operation(last->id, access.owner());
        // A stage's error is the operation's lastError now, which status shows.
        if (pass.outcome != engine::PassOutcome::StoreFailed)
            return pass.operation;
        why = "the store failed: " + pass.error;
    } catch (const std::exception& e) {
        why = e.what();
    }
    if (!ctx.global().quiet)
        ctx.err() << "kprov: note: " << engine::to_api(last->type) << " operation " << last->id
                  << " is in progress and no process drives it, so the store shows it as last "
                     "recorded (Gardener may be further along); it could not be advanced here ("
                  << why << "): `kprov wait " << last->id
                  << "`, or a `kprov watch` or `kprov serve` on this store, drives it\n";
    return last;
}

void note_undriven(Context& ctx, const std::vector<const engine::Operation*>& ops) {
    const auto now = SystemClock().now();
    const engine::Operation* first = nullptr;
    std::size_t count = 0;
    for (const auto* op : ops)
        if (op && engine::is_undriven(*op, now)) {
            first = first ? first : op;
            ++count;
        }
    if (count == 0 || ctx.global().quiet)
        return;
    ctx.err() << "kprov: note: " << count
              << (count == 1 ? " operation in progress is" : " operations in progress are")
              << " held by no process now and shown as last recorded (Gardener may be further "
                 "along): unless a `kprov watch` or `kprov serve` runs on this store, `kprov wait "
                 "RUNTIME` drives one (`kprov status RUNTIME` advances it a step), `kprov watch` "
                 "drives all; for example `kprov wait "
              << first->cluster_id << "`\n";
}

} // namespace kprov::cli
