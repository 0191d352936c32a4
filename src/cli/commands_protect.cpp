// protect, unprotect: a runtime's protection against deprovisioning (RuntimeLifecycle), a
// store change recorded in the runtime's events; nothing is sent to Gardener.

#include "cli/app.hpp"
#include "cli/bulk.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/render.hpp"

#include <nlohmann/json.hpp>

namespace kprov::cli {

int cmd_protect(Context& ctx, const ReadArgs& args, bool is_protected) {
    const std::string command = is_protected ? "protect" : "unprotect";
    OperationArgs target;
    target.runtime_id = args.id;
    target.selectors = args.selectors;
    target.dry_run = args.dry_run;
    if (is_bulk(command, target))
        return run_bulk_protection(ctx, args, is_protected);
    EngineAccess access(ctx);
    const auto runtime = lookup_runtime(access.store(), args.id, command);
    const bool changed =
        access.service().set_protection(runtime.id, is_protected, access.request(), user_at_host());
    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        print_document(ctx.out(),
                       nlohmann::ordered_json{{"runtimeID", runtime.id},
                                              {"protected", is_protected},
                                              {"changed", changed}},
                       format);
    } else if (format == OutputFormat::Name) {
        ctx.out() << runtime.id << '\n';
    } else {
        ctx.out() << "runtime " << runtime.id << ' '
                  << (changed ? (is_protected ? "protected" : "unprotected")
                              : (is_protected ? "was protected already" : "was not protected"))
                  << '\n';
    }
    return k_exit_ok;
}

} // namespace kprov::cli
