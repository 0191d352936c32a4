// kprov adopt: take a shoot kprov did not create into the store as a runtime. The runtime file
// is read back from the shoot (engine/shoot/shoot_adoption.hpp) or given with -f; either way the
// shoot built from it must be the live shoot, compared where kprov sets a field as `kprov diff`
// does, so that an adopted runtime shows no drift and the store never claims what the shoot is not.
// A file that differs is refused, not recorded as a pending change: adopting changes nothing
// but the shoot's labels and annotations, and changes go through upgrade-shoot, where they are
// shown and applied.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/drift.hpp"
#include "cli/engine_access.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/service/service.hpp"
#include "engine/shoot/shoot_adoption.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

const std::string k_name_path = "clusterConfig.gardenerConfig.name";

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines)
        out += "\n  " + line;
    return out;
}

// A refusal of the shoot's fields, not a mistake on the command line: exit 1, as when the
// comparison refuses it.
[[noreturn]] void refuse_shoot_fields(const std::string& shoot, const char* verb,
                                      const ValidationError& e) {
    std::vector<std::string> lines;
    for (const auto& p : e.problems())
        lines.push_back(p.path + ": " + p.message);
    throw Error("shoot " + shoot + " cannot be adopted: kprov cannot " + verb + " " +
                std::to_string(lines.size()) + " field(s) of it:" + joined(lines));
}

// The runtime file that describes the shoot: the user's, or the one read back from it.
Json runtime_document(const AdoptArgs& args, const std::optional<nlohmann::json>& given,
                      const engine::ShootState& live, const engine::EngineOptions& options) {
    if (!given) {
        try {
            return Json::parse(engine::runtime_file_of_shoot(live.json, options.shoot));
        } catch (const ValidationError& e) {
            refuse_shoot_fields(args.shoot_name, "build", e);
        }
    }
    const nlohmann::json& document = *given;
    if (document.contains("lifecycle"))
        throw ValidationError("lifecycle",
                              "adopt takes the runtime as the shoot is; protect it or give it a "
                              "lifetime after adopting (kprov protect)");
    return Json::parse(document.dump());
}

// The file as a provisioning input, for this shoot and without Kyma (kprov installed none).
engine::ProvisionInput read_input(const Json& document, const std::string& source,
                                  const std::string& shoot_name,
                                  const engine::EngineOptions& options) {
    try {
        auto input = engine::read_provision_input(nlohmann::json::parse(document.dump()),
                                                  options.conversion);
        std::vector<FieldProblem> problems;
        if (input.gardener.name != shoot_name)
            problems.push_back({k_name_path, "must be the adopted shoot's name \"" + shoot_name +
                                                 "\", got \"" + input.gardener.name + "\""});
        if (input.kyma_config_json)
            problems.push_back({"kymaConfig", "adopt takes no kymaConfig: kprov installed no Kyma "
                                              "on this cluster (kprov upgrade-kyma later)"});
        if (!problems.empty())
            throw ValidationError(std::move(problems));
        return input;
    } catch (ValidationError& e) {
        e.set_source(source);
        throw;
    }
}

std::string label(const engine::ShootState& live, const std::string& key) {
    const auto it = live.labels.find(key);
    return it == live.labels.end() ? std::string() : it->second;
}

// The runtime's tenant and sub-account are the shoot's account and subaccount labels (kprov's
// builder writes them); the configured ones serve a shoot without them.
engine::RequestContext owner_of(Context& ctx, const engine::ShootState& live) {
    const auto& settings = ctx.config().settings;
    engine::RequestContext request{label(live, "account"), label(live, "subaccount")};
    const auto& flag = ctx.global().tenant;
    if (!request.tenant.empty() && flag && *flag != request.tenant)
        throw UsageError("--tenant \"" + *flag + "\" is not the tenant of shoot " + live.name +
                         " (its metadata.labels.account is \"" + request.tenant + "\")");
    if (request.tenant.empty())
        request.tenant = settings.tenant.value_or("");
    if (request.tenant.empty())
        throw UsageError("shoot " + live.name +
                         " has no metadata.labels.account and no tenant is configured: give "
                         "--tenant ID");
    if (live.labels.find("subaccount") == live.labels.end())
        request.sub_account = settings.sub_account.value_or("");
    return request;
}

// The live shoot as it will be once adopted: with the labels and annotations kprov writes.
std::string adopted_shoot(const engine::ShootState& live, const engine::ShootPlan& plan) {
    nlohmann::json shoot = nlohmann::json::parse(live.json);
    shoot.merge_patch(nlohmann::json::parse(engine::adoption_patch(plan.shoot)));
    return shoot.dump();
}

// Why a shoot that differs from the file (or from what kprov would build of it) is refused.
std::string refusal(const AdoptArgs& args, const std::vector<std::string>& differences) {
    const std::string count = std::to_string(differences.size());
    if (args.file)
        return "shoot " + args.shoot_name + " differs from " + *args.file + " in " + count +
               " field(s) kprov sets (what the file makes -> what the shoot has):" +
               joined(differences) +
               "\nadopt takes the shoot as it is: make the file match (kprov adopt " +
               args.shoot_name +
               " --dry-run prints the shoot's own file), adopt, then change the runtime with "
               "kprov upgrade-shoot";
    return "shoot " + args.shoot_name + " cannot be adopted: kprov would build " + count +
           " field(s) otherwise (what kprov would set -> what the shoot has):" +
           joined(differences);
}

// --dry-run: the runtime file on stdout, the difference on stderr.
int show_dry_run(Context& ctx, const AdoptArgs& args, const Json& document,
                 const std::vector<std::string>& differences) {
    if (output_format(ctx) == OutputFormat::Json)
        ctx.out() << document.dump(2) << '\n';
    else
        ctx.out() << json_to_yaml(document.dump());
    if (differences.empty()) {
        ctx.err() << "no differences: the runtime file builds shoot " << args.shoot_name
                  << " as it is; kprov adopt " << args.shoot_name << " would adopt it\n";
        return k_exit_ok;
    }
    ctx.err() << visible(refusal(args, differences), true) << '\n';
    return k_exit_differences;
}

} // namespace

int cmd_adopt(Context& ctx, const AdoptArgs& args) {
    const auto format = output_format(ctx);
    if (args.dry_run && format != OutputFormat::Table && format != OutputFormat::Json &&
        format != OutputFormat::Yaml)
        throw UsageError("adopt --dry-run prints the runtime file as yaml or json");
    // A file that is not there is a usage error (exit 2), said before Gardener is asked.
    std::optional<nlohmann::json> given;
    if (args.file)
        given = read_runtime_file(*args.file);
    EngineAccess access(ctx);
    auto& service = access.service();
    const auto& options = access.options();
    const engine::ShootState live = service.adoptable_shoot(args.shoot_name);

    const Json document = runtime_document(args, given, live, options);
    const std::string source =
        args.file ? *args.file : "the runtime file read back from shoot " + args.shoot_name;
    auto input = read_input(document, source, args.shoot_name, options);
    // kprov's own field, not the runtime file's GraphQL part: the shoot's schedules are kept.
    try {
        input.gardener.hibernation_schedules = engine::schedules_of_shoot(live.json);
    } catch (const ValidationError& e) {
        refuse_shoot_fields(args.shoot_name, "keep", e);
    }
    // The shoot's own profile, whatever the provider's setting says.
    input.gardener.cloud_profile = engine::cloud_profile_of_shoot(live.json);
    auto [plan, owner] =
        service.plan_provision(input, owner_of(ctx, live), {engine::new_uuid(), engine::new_uuid()},
                               engine::LandscapeRequest::Kind::Adopt);
    if (owner) // adoptable_shoot checked the store a moment ago
        throw engine::ShootNameTaken(plan.runtime.gardener.project_name, args.shoot_name,
                                     owner->runtime_id, ", which kprov manages already");
    const auto differences =
        shoot_drift(plan.runtime, adopted_shoot(live, plan.shoot), options.shoot);

    if (args.dry_run)
        return show_dry_run(ctx, args, document, differences);
    if (!differences.empty())
        throw Error(refusal(args, differences));
    print_warnings(ctx, plan.warnings);
    const auto op = service.adopt(plan, live, user_at_host());
    // No Director registration: the runtime was never provisioned through kprov.
    print_operation(ctx.out(), op, format);
    return k_exit_ok;
}

} // namespace kprov::cli
