// kprov cancel OPERATION_ID: end an operation that cannot end by itself, leaving Gardener as it
// is, so that its runtime can be deprovisioned or the request retried.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/render.hpp"
#include "engine/service/service.hpp"

#include <ostream>

namespace kprov::cli {
int cmd_cancel(Context& ctx, const CancelArgs& args) {
    EngineAccess access(ctx);
    engine::Operation op;
    try {
        const auto named = lookup_operation(access.store(), args.operation_id, "cancel");
        op = access.service().cancel(named.id, access.owner(), user_at_host(), args.force);
    } catch (const engine::OperationLeased& e) {
        ctx.err() << "kprov: error: " << e.what() << '\n';
        return k_exit_in_progress;
    }
    print_operation(ctx.out(), op, output_format(ctx), CompassIds(ctx)(op.cluster_id));
    if (!ctx.global().quiet) {
        const auto runtime = access.store().find_runtime(op.cluster_id);
        ctx.err() << "kprov: " << engine::to_api(op.type) << " operation " << op.id
                  << " of runtime " << op.cluster_id << " " << op.message
                  << "; nothing was changed in Gardener";
        if (runtime)
            ctx.err() << " (shoot " << runtime->gardener.name << " is as it was)";
        ctx.err() << ". Next: kprov deprovision " << op.cluster_id
                  << " --yes, or start the operation again\n";
    }
    return k_exit_ok;
}

} // namespace kprov::cli
