// kprov plan: what provision or upgrade-shoot would send to Gardener, without changing anything.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/json_diff.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/runtime_input.hpp"
#include "engine/shoot_builder.hpp"
#include "engine/shoot_upgrade.hpp"
#include "gardener/gardener_client.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

namespace kprov::cli {
namespace {

// Ids that provisioning would generate are shown as placeholders: the plan is the same every
// time for the same file.
constexpr const char* k_runtime_placeholder = "<runtime-id>";
constexpr const char* k_operation_placeholder = "<operation-id>";

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
// new object.
int plan_upgrade(Context& ctx, const PlanArgs& args, const std::string& format) {
    const auto input = read_input(args.file, engine::read_upgrade_input);
    auto store = open_configured_store(ctx);
    const auto runtime = find_runtime_or_throw(*store, *args.runtime_id);
    engine::GardenerConfig merged;
    try {
        merged = engine::merge_upgrade(runtime.gardener, input);
    } catch (ValidationError& e) {
        e.set_source(args.file);
        throw;
    }
    print_warnings(ctx, engine::upgrade_input_warnings(runtime.gardener, input));
    auto gardener = open_gardener(ctx);
    const auto live = gardener->get_shoot(runtime.gardener.name);
    if (!live)
        throw NotFound("shoot \"" + runtime.gardener.name + "\" of runtime " + runtime.id +
                       " does not exist in " + gardener->namespace_name());
    const std::string live_json = live->dump();
    const auto upgrade = engine::build_shoot_upgrade(live_json, merged, input,
                                                     config::shoot_options(ctx.config().settings));
    if (format == "json") {
        ctx.out() << nlohmann::ordered_json::parse(upgrade.shoot).dump(2) << '\n';
        return k_exit_ok;
    }
    const auto lines = json_diff(live_json, upgrade.shoot, {"metadata.managedFields", "status"});
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
    print_warnings(ctx, engine::provision_input_warnings(input));
    const auto runtime =
        engine::to_runtime(input, k_runtime_placeholder, settings.tenant.value_or("<tenant>"),
                           settings.sub_account.value_or(""), SystemClock().now(), conversion);
    const auto plan =
        engine::build_shoot(runtime, k_operation_placeholder, config::shoot_options(settings));
    print_warnings(ctx, plan.warnings);

    const std::string document = plan_document(plan);
    if (format == "json")
        ctx.out() << nlohmann::ordered_json::parse(document).dump(2) << '\n';
    else
        ctx.out() << json_to_yaml(document);
    return k_exit_ok;
}

} // namespace kprov::cli
