// kprov plan: what provision or upgrade-shoot would send to Gardener, without changing anything.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/runtime_input.hpp"
#include "engine/shoot_builder.hpp"

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

} // namespace

int cmd_plan(Context& ctx, const PlanArgs& args) {
    const std::string format = output_format(ctx);
    if (args.runtime_id)
        throw Error("`kprov plan RUNTIME_ID -f FILE` (the upgrade diff) is not built yet in this "
                    "version of kprov; `kprov plan -f FILE` shows a provisioning plan");
    const auto& settings = ctx.config().settings;
    const auto conversion = config::conversion_options(settings);

    engine::ProvisionInput input;
    try {
        input = engine::parse_provision_input(read_runtime_file(args.file));
        engine::validate_provision(input, conversion);
    } catch (ValidationError& e) {
        e.set_source(args.file);
        throw;
    }
    const auto runtime =
        engine::to_runtime(input, k_runtime_placeholder, settings.tenant.value_or("<tenant>"),
                           settings.sub_account.value_or(""), SystemClock().now(), conversion);
    const auto plan =
        engine::build_shoot(runtime, k_operation_placeholder, config::shoot_options(settings));
    for (const auto& warning : plan.warnings)
        ctx.err() << "kprov: warning: " << warning << '\n';

    const std::string document = plan_document(plan);
    if (format == "json")
        ctx.out() << nlohmann::ordered_json::parse(document).dump(2) << '\n';
    else
        ctx.out() << json_to_yaml(document);
    return k_exit_ok;
}

} // namespace kprov::cli
