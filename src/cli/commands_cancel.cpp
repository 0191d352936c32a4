// kprov cancel OPERATION_ID: end an operation that cannot end by itself, leaving Gardener as it
// is, so that its runtime can be deprovisioned or the request retried.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/render.hpp"
#include "engine/service.hpp"

#include <cstdlib>
#include <ostream>
#include <pwd.h>
#include <unistd.h>

namespace kprov::cli {
namespace {

// "<user>@<host>", as the operation's message names who cancelled it.
std::string who_am_i() {
    std::string user;
    if (const passwd* entry = getpwuid(geteuid()); entry != nullptr && entry->pw_name != nullptr)
        user = entry->pw_name;
    else if (const char* name = std::getenv("USER"); name != nullptr)
        user = name;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        return user.empty() ? "unknown" : user;
    return (user.empty() ? std::string("unknown") : user) + "@" + host;
}

} // namespace

int cmd_cancel(Context& ctx, const CancelArgs& args) {
    EngineAccess access(ctx);
    engine::Operation op;
    try {
        op = access.service().cancel(args.operation_id, access.owner(), who_am_i(), args.force);
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
