// kprov diff: drift, where a runtime's live shoot in Gardener differs from what kprov applied.
// Exit 0 without differences, 6 (k_exit_differences) with some, 1 on an error.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/render.hpp"
#include "engine/error.hpp"
#include "engine/rules/drift.hpp"

#include <nlohmann/json.hpp>

namespace kprov::cli {
namespace {

struct RuntimeDrift {
    std::string runtime_id;
    std::string shoot;
    bool shoot_missing = false;
    std::vector<std::string> lines;
    bool differs() const { return shoot_missing || !lines.empty(); }
};

// The one drift status --live reports too (engine::runtime_drift): state, then spec.
RuntimeDrift drift_of(EngineAccess& access, const engine::Runtime& runtime) {
    RuntimeDrift out{runtime.id, runtime.gardener.name, false, {}};
    const auto live = access.shoots().get(runtime.gardener.name);
    out.shoot_missing = !live;
    out.lines = engine::runtime_drift(runtime, access.store().operations_of(runtime.id), live,
                                      access.options().shoot)
                    .all();
    return out;
}

} // namespace

int cmd_diff(Context& ctx, const DiffArgs& args) {
    if (!args.files.empty()) {
        if (args.all || args.runtime_id)
            throw UsageError("diff -f compares files with the store; give -f, or a RUNTIME_ID "
                             "or --all, not both");
        return cmd_diff_files(ctx, args.files);
    }
    if (args.all == args.runtime_id.has_value())
        throw UsageError("diff needs one of RUNTIME_ID, --all or -f FILE|DIR");
    EngineAccess access(ctx, "cli", 1, StoreUse::Peek);
    std::vector<engine::Runtime> runtimes;
    if (args.runtime_id) {
        runtimes.push_back(lookup_runtime(access.store(), *args.runtime_id, "diff"));
        if (runtimes.back().deleted)
            throw Error("runtime " + runtimes.back().id + " is deprovisioned: it has no shoot");
    } else {
        for (const auto& summary : access.store().list_runtimes({}))
            if (auto runtime = access.store().find_runtime(summary.id))
                runtimes.push_back(std::move(*runtime));
    }
    std::vector<RuntimeDrift> drifts;
    for (const auto& runtime : runtimes)
        drifts.push_back(drift_of(access, runtime));
    bool any = false;
    for (const auto& d : drifts)
        any = any || d.differs();

    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& d : drifts)
            list.push_back({{"runtimeID", d.runtime_id},
                            {"shootName", d.shoot},
                            {"shootMissing", d.shoot_missing},
                            {"differences", d.lines}});
        print_document(ctx.out(), list, format);
    } else if (format == OutputFormat::Name) {
        for (const auto& d : drifts)
            if (d.differs())
                ctx.out() << d.runtime_id << '\n';
    } else {
        for (const auto& d : drifts) {
            ctx.out() << "runtime " << d.runtime_id << " (shoot " << d.shoot << "): ";
            if (d.shoot_missing)
                ctx.out() << "the shoot is missing in Gardener\n";
            else if (d.lines.empty())
                ctx.out() << "no differences\n";
            else
                ctx.out() << d.lines.size()
                          << (d.lines.size() == 1 ? " difference" : " differences")
                          << " (what kprov applied -> what the shoot has)\n";
            for (const auto& line : d.lines)
                ctx.out() << "  " << visible(line) << '\n';
        }
    }
    return any ? k_exit_differences : k_exit_ok;
}

} // namespace kprov::cli
