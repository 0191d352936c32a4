// kprov plan: what provision or upgrade-shoot would send to Gardener, without changing anything.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/json_diff.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/runtime_input.hpp"
#include "engine/service.hpp"
#include "engine/shoot_builder.hpp"
#include "engine/shoot_upgrade.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

namespace kprov::cli {
namespace {

std::string output_format(Context& ctx) {
    const auto& format = ctx.global().output;
    if (!format || *format == "yaml")
        return "yaml";
    if (*format == "json")
        return "json";
    throw UsageError("plan prints yaml or json, not \"" + *format + "\"");
}

// One object as is; with the OIDC ConfigMap a v1 List (ConfigMap first: it must exist before
// the shoot that references it).
std::string plan_document(const engine::ShootPlan& plan) {
    using Json = nlohmann::ordered_json;
    if (!plan.oidc_config_map)
        return plan.shoot;
    Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", Json::array()}};
    list["items"].push_back(Json::parse(*plan.oidc_config_map));
    list["items"].push_back(Json::parse(plan.shoot));
    return list.dump();
}

template <typename Parse> auto read_input(const std::string& file, Parse parse) {
    try {
        return parse(read_runtime_file(file));
    } catch (ValidationError& e) {
        e.set_source(file);
        throw;
    }
}

// The change upgrade-shoot would make to the live shoot: its diff, or with -o json the whole
// new object. The engine plans it exactly as the UpgradingShoot stage will send it.
int plan_upgrade(Context& ctx, const PlanArgs& args, const std::string& format) {
    const auto input = read_input(args.file, engine::read_upgrade_input);
    EngineAccess access(ctx, "cli", 1);
    const auto runtime = find_runtime_or_throw(access.store(), *args.runtime_id);
    engine::UpgradePlan plan;
    try {
        plan = access.service().plan_upgrade(runtime.id, input, access.request());
    } catch (ValidationError& e) {
        e.set_source(args.file);
        throw;
    }
    print_warnings(ctx, plan.warnings);
    const auto& upgrade = plan.upgrade;
    if (format == "json") {
        ctx.out() << nlohmann::ordered_json::parse(upgrade.shoot).dump(2) << '\n';
        return k_exit_ok;
    }
    const auto lines =
        json_diff(plan.live_shoot, upgrade.shoot, {"metadata.managedFields", "status"});
    if (lines.empty())
        ctx.out() << "no change: shoot " << runtime.gardener.name << " already matches\n";
    for (const auto& line : lines)
        ctx.out() << line << '\n';
    if (upgrade.oidc_config_map)
        ctx.out() << "~ ConfigMap "
                  << engine::structured_auth_config_map_name(runtime.gardener.name)
                  << ": replaced with the new OIDC configuration\n";
    return k_exit_ok;
}

} // namespace

int cmd_plan(Context& ctx, const PlanArgs& args) {
    const std::string format = output_format(ctx);
    if (args.runtime_id)
        return plan_upgrade(ctx, args, format);
    const auto& settings = ctx.config().settings;
    const auto conversion = config::conversion_options(settings);

    const auto input = read_input(args.file, [&](const nlohmann::json& document) {
        return engine::read_provision_input(document, conversion);
    });
    // Without a store: the plan of a file is what it is, whatever runtimes exist.
    const engine::RequestContext request{settings.tenant.value_or("<tenant>"),
                                         settings.sub_account.value_or("")};
    const auto planned = engine::plan_provision(input, request, config::engine_options(settings),
                                                SystemClock().now(), engine::k_placeholder_ids);
    print_warnings(ctx, planned.warnings);
    const auto& plan = planned.shoot;

    const std::string document = plan_document(plan);
    if (format == "json")
        ctx.out() << nlohmann::ordered_json::parse(document).dump(2) << '\n';
    else
        ctx.out() << json_to_yaml(document);
    return k_exit_ok;
}

} // namespace kprov::cli
