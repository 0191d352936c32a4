// kprov plan: what provision or upgrade-shoot would send to Gardener, without changing anything.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/json_diff.hpp"
#include "cli/lookup.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "cli/runtime_lifecycle.hpp"
#include "cli/yaml_output.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/service/service.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/status_json.hpp"
#include "gardener/landscape_port.hpp"
#include "gardener/operator_bindings.hpp"
#include "kyma/kcp_client.hpp"
#include "kyma/kyma_objects.hpp"
#include "kyma/kyma_releases.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

namespace kprov::cli {
namespace {

std::string plan_format(Context& ctx) {
    const auto& format = ctx.global().output;
    if (!format || *format == "yaml")
        return "yaml";
    if (*format == "json")
        return "json";
    throw UsageError("plan prints yaml or json, not \"" + *format + "\"");
}

// The Kyma override objects as StartingInstallation writes them to the runtime cluster, with
// secret values shown as "<secret>": a plan is for reading, and may end up in a CI log.
std::vector<nlohmann::json> kyma_objects(const engine::KymaConfig& kyma) {
    auto objects = gardener::override_objects(kyma);
    std::vector<nlohmann::json> out = std::move(objects.config_maps);
    for (auto& secret : objects.secrets) {
        if (auto data = secret.find("data"); data != secret.end() && data->is_object())
            for (auto& [key, value] : data->items())
                value = "<secret>";
        out.push_back(std::move(secret));
    }
    return out;
}

// One object as is; with the OIDC ConfigMap or Kyma's objects a v1 List (ConfigMap first: it
// must exist before the shoot that references it; Kyma's go to the new cluster afterwards, or,
// with Kyma Lifecycle Manager (`klm`), the Kyma resource to the KCP's `namespace_name`).
std::string plan_document(const engine::ShootPlan& plan,
                          const std::optional<engine::KymaConfig>& kyma,
                          const std::optional<engine::KymaResource>& klm,
                          const std::string& namespace_name) {
    using Ordered = nlohmann::ordered_json;
    if (!plan.oidc_config_map && !kyma)
        return plan.shoot;
    Ordered list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", Ordered::array()}};
    if (plan.oidc_config_map)
        list["items"].push_back(Ordered::parse(*plan.oidc_config_map));
    list["items"].push_back(Ordered::parse(plan.shoot));
    if (kyma && klm)
        list["items"].push_back(Ordered::parse(gardener::kyma_object(*klm, namespace_name).dump()));
    else if (kyma)
        for (const auto& object : kyma_objects(*kyma))
            list["items"].push_back(Ordered::parse(object.dump()));
    return list.dump();
}

// What the Kyma stages will install, on stderr beside the document.
void print_kyma_summary(Context& ctx, const engine::KymaConfig& kyma) {
    const auto& settings = ctx.config().settings;
    if (settings.kyma_installer == "lifecycle-manager") {
        std::string modules;
        for (const auto& m : engine::kyma_modules_of(kyma))
            modules += "\n  " + m.name;
        ctx.err() << "Kyma modules from channel "
                  << engine::kyma_channel_of(kyma, config::klm_options(settings))
                  << ", installed by Kyma Lifecycle Manager in namespace " << settings.kcp_namespace
                  << " of the KCP:" << modules
                  << "\nthe Kyma resource follows the Shoot in the list (its skr-domain annotation "
                     "comes from the shoot's domain once Gardener has set it); its kubeconfig "
                     "Secret holds a fresh admin kubeconfig\n";
        return;
    }
    gardener::ReleaseSourceOptions sources;
    sources.releases_url = settings.kyma_releases_url;
    sources.on_demand_url = settings.kyma_dev_releases_url;
    const gardener::HttpReleaseSource releases(std::move(sources));
    std::string components;
    for (const auto& c : kyma.components)
        components += "\n  " + std::to_string(c.order) + ". " + c.name + " in " + c.namespace_ +
                      (c.source_url ? " from " + *c.source_url : std::string());
    ctx.err()
        << "Kyma " << kyma.release.version
        << (kyma.profile ? " (" + std::string(engine::to_api(*kyma.profile)) + ")" : "")
        << ", installer from "
        << releases.url_of(kyma.release.version, "kyma-installer-cluster.yaml")
        << ", installed in this order:" << components
        << "\nthe override ConfigMaps and Secrets follow the Shoot in the list; the release's "
           "own objects and the Installation CR come from the installer file\n";
}

template <typename Parse> auto read_input(const std::string& file, Parse parse) {
    try {
        return parse(read_runtime_file(file));
    } catch (ValidationError& e) {
        e.set_source(file);
        throw;
    }
}

// The cluster role bindings CreatingBindingsForOperators writes at the end of an upgrade, by
// name, as "ClusterRoleBinding administrator0: cluster-admin for User \"a@example.com\"".
std::map<std::string, std::string> bindings_by_name(const engine::OperatorBindings& bindings) {
    std::map<std::string, std::string> out;
    for (const auto& b : gardener::operator_cluster_role_bindings(bindings)) {
        std::string subjects;
        for (const auto& subject : b["subjects"])
            subjects += (subjects.empty() ? "" : ", ") + subject.value("kind", "") + " " +
                        subject["name"].dump();
        out[b["metadata"]["name"].get<std::string>()] =
            b["roleRef"].value("name", "") + " for " + subjects;
    }
    return out;
}

// Who becomes or stops being cluster-admin: the administrators' bindings before and after.
std::vector<std::string> administrator_lines(Context& ctx, const engine::Runtime& runtime,
                                             const std::vector<std::string>& after) {
    std::vector<std::string> lines;
    if (after == runtime.administrators)
        return lines;
    engine::OperatorBindings bindings =
        config::engine_options(ctx.config().settings).operator_bindings;
    if (!bindings.create_for_administrators) {
        lines.push_back("~ administrators: " + nlohmann::json(runtime.administrators).dump() +
                        " -> " + nlohmann::json(after).dump() +
                        " (stored only: no cluster-admin bindings for administrators, "
                        "APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN is false)");
        return lines;
    }
    bindings.administrators = runtime.administrators;
    const auto before = bindings_by_name(bindings);
    bindings.administrators = after;
    const auto now = bindings_by_name(bindings);
    for (const auto& [name, what] : before) {
        const auto it = now.find(name);
        if (it == now.end())
            lines.push_back("- ClusterRoleBinding " + name + ": " + what + " (no longer)");
        else if (it->second != what)
            lines.push_back("~ ClusterRoleBinding " + name + ": " + what + " -> " + it->second);
    }
    for (const auto& [name, what] : now)
        if (!before.count(name))
            lines.push_back("+ ClusterRoleBinding " + name + ": " + what);
    return lines;
}

// A titled section of diff lines; nothing when there are none.
void print_section(Context& ctx, const std::string& title, const std::vector<std::string>& lines) {
    if (lines.empty())
        return;
    ctx.out() << title << ":\n";
    for (const auto& line : lines)
        ctx.out() << "  " << visible(line) << '\n';
}

// The change upgrade-shoot would make: to the live shoot (its diff, or with -o json the whole
// new object), to the runtime cluster's cluster-admin bindings and to the stored configuration.
// The engine plans it exactly as the UpgradingShoot stage will send it.
int plan_upgrade(Context& ctx, const PlanArgs& args, const std::string& format) {
    const auto input = read_input(args.file, engine::read_upgrade_input);
    EngineAccess access(ctx, "cli", 1, StoreUse::Peek);
    const auto runtime = lookup_runtime(access.store(), *args.runtime_id, "plan");
    engine::UpgradePlan plan;
    try {
        plan = access.service().plan_upgrade(runtime.id, input, access.request());
    } catch (ValidationError& e) {
        e.set_source(args.file);
        throw;
    }
    print_warnings(ctx, plan.warnings);
    const auto& upgrade = plan.upgrade;
    const auto& name = runtime.gardener.name;
    std::vector<std::string> shoot =
        json_diff(plan.live_shoot, upgrade.shoot, {"metadata.managedFields", "status"});
    if (upgrade.oidc_config_map)
        shoot.push_back("~ ConfigMap " + engine::structured_auth_config_map_name(name) +
                        ": replaced with the new OIDC configuration");
    const auto admins =
        administrator_lines(ctx, runtime, input.administrators.value_or(runtime.administrators));
    const auto stored = json_diff(engine::gardener_config_json(runtime.gardener).dump(),
                                  engine::gardener_config_json(plan.merged).dump());
    const std::size_t changes = shoot.size() + admins.size() + stored.size();
    if (format == "json") {
        ctx.out() << nlohmann::ordered_json::parse(upgrade.shoot).dump(2) << '\n';
    } else if (changes == 0) {
        ctx.out() << "no change: shoot " << name
                  << " already matches, and so do its administrators and stored configuration\n";
    } else {
        print_section(ctx, "shoot " + name + " (Gardener)", shoot);
        print_section(ctx, "cluster-admin bindings (runtime cluster, once the shoot is upgraded)",
                      admins);
        print_section(ctx, "runtime configuration (kprov's store)", stored);
    }
    return args.detailed_exitcode && changes > 0 ? k_exit_changes : k_exit_ok;
}

} // namespace

int cmd_plan(Context& ctx, const PlanArgs& args) {
    const std::string format = plan_format(ctx);
    if (args.runtime_id)
        return plan_upgrade(ctx, args, format);
    const auto& settings = ctx.config().settings;
    auto conversion = config::conversion_options(settings);
    // Without a project of its own the file's problems come first, then "no Gardener project
    // set" (not the default name's "too long").
    bool has_project = true;
    try {
        configured_project(ctx);
    } catch (const ConfigError&) {
        has_project = false;
        conversion.gardener_project.clear();
    }
    const auto input = read_input(args.file, [&](nlohmann::json document) {
        return read_provision_file(std::move(document), conversion).input;
    });
    if (!has_project)
        configured_project(ctx);
    // Without a store: the plan of a file is what it is, whatever runtimes exist.
    const engine::RequestContext request{settings.tenant.value_or("<tenant>"),
                                         settings.sub_account.value_or("")};
    // With a Gardener the plan is checked against its landscape and shows what it will get;
    // without one (offline, CI without credentials) it says that it was not checked.
    auto options = config::engine_options(settings);
    const LogScope log(ctx); // the Gardener client's, which it outlives
    std::shared_ptr<gardener::GardenerClient> client;
    std::optional<gardener::GardenerLandscape> landscape;
    if (gardener_configured(ctx)) {
        check_gardener_answers(ctx, log.logger());
        client = open_gardener(ctx, {.on_request = {}, .answer_within = {}, .log = log.logger()});
        landscape.emplace([&client]() -> gardener::GardenerClient& { return *client; });
    }
    const auto planned = [&] {
        try {
            return engine::plan_provision(input, request, options,
                                          landscape ? &*landscape : nullptr, SystemClock().now(),
                                          engine::k_placeholder_ids);
        } catch (ValidationError& e) {
            e.set_source(args.file);
            throw;
        }
    }();
    print_warnings(ctx, planned.warnings);
    const auto& plan = planned.shoot;

    if (planned.runtime.kyma && !ctx.global().quiet)
        print_kyma_summary(ctx, *planned.runtime.kyma);
    std::optional<engine::KymaResource> klm;
    if (planned.runtime.kyma && settings.kyma_installer == "lifecycle-manager")
        klm = engine::build_kyma_resource(planned.runtime, "", config::klm_options(settings));
    const std::string document =
        plan_document(plan, planned.runtime.kyma, klm, settings.kcp_namespace);
    if (format == "json")
        ctx.out() << nlohmann::ordered_json::parse(document).dump(2) << '\n';
    else
        ctx.out() << json_to_yaml(document);
    // A provisioning always changes something: it creates the shoot.
    return args.detailed_exitcode ? k_exit_changes : k_exit_ok;
}

} // namespace kprov::cli
