// The mapping of kymaConfig onto KLM's contract (kyma-lifecycle-manager.md §6), and the texts
// the lifecycle-manager stages report.

#include "engine/kyma_lifecycle.hpp"

#include "engine/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

namespace kprov::engine {
namespace {

std::string quoted(const std::string& value) {
    return nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The value KLM's provider label takes (§1.3) for the provider kprov was asked for.
std::string provider_label(std::string_view provider) {
    const std::string p = ascii_lower(provider);
    if (p == "aws")
        return "AWS";
    if (p == "azure" || p == "az")
        return "Azure";
    if (p == "gcp")
        return "GCP";
    if (p == "openstack")
        return "SapConvergedCloud";
    return "unknown";
}

bool counts_as_ready(const KymaModuleState& module) {
    return module.state == "Ready" || module.state == "Unmanaged";
}

void overrides_problems(const KymaOverrides& overrides, const std::string& path,
                        std::vector<FieldProblem>& out) {
    if (!overrides.entries.empty())
        out.push_back({path + ".configuration",
                       std::to_string(overrides.entries.size()) +
                           " configuration entries: a Kyma resource has no overrides (module "
                           "settings live in each module's own resource on the runtime)"});
    if (!overrides.conflict_strategy.empty())
        out.push_back({path + ".conflictStrategy",
                       quoted(overrides.conflict_strategy) + ": there are no overrides to merge"});
}

} // namespace

std::string kyma_name_of(std::string_view runtime_id) {
    return ascii_lower(runtime_id);
}

std::string kyma_secret_name_of(std::string_view runtime_id) {
    // A Secret's name is a lower-case DNS subdomain: an id with capitals (Director's, an
    // adopted shoot's) would be refused with 422 (KEB's KymaKubeconfigName lower-cases too).
    return "kubeconfig-" + ascii_lower(runtime_id);
}

std::optional<std::string> kyma_module_label_value(const nlohmann::json& value) {
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (!value.is_string())
        return std::nullopt;
    const std::string text = ascii_lower(value.get<std::string>());
    if (text == "true" || text == "false")
        return text;
    return std::nullopt;
}

bool is_kyma_channel(std::string_view text) {
    return text.size() >= 3 && text.size() <= 32 && text != "none" &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

std::string kyma_channel_of(const KymaConfig& config, const KlmOptions& options) {
    return is_kyma_channel(config.release.version) ? config.release.version
                                                   : options.default_channel;
}

std::vector<KymaModule> kyma_modules_of(const KymaConfig& config) {
    std::vector<KymaModule> modules;
    std::set<std::string> seen;
    for (const auto& component : config.components)
        if (seen.insert(component.name).second)
            modules.push_back({component.name, ""});
    return modules;
}

std::vector<FieldProblem> unrepresentable_kyma_fields(const KymaConfig& config) {
    std::vector<FieldProblem> out;
    if (!is_kyma_channel(config.release.version))
        out.push_back({"kymaConfig.version",
                       quoted(config.release.version) +
                           ": KLM installs no Kyma version, only modules from a channel (give a "
                           "channel such as regular or fast)"});
    if (config.profile)
        out.push_back({"kymaConfig.profile", quoted(std::string(to_api(*config.profile))) +
                                                 ": a Kyma resource has no profile"});
    overrides_problems(config.global, "kymaConfig", out);
    for (std::size_t i = 0; i < config.components.size(); ++i) {
        const KymaComponent& c = config.components[i];
        const std::string path = "kymaConfig.components[" + std::to_string(i) + "]";
        if (c.namespace_ != k_kyma_modules_namespace)
            out.push_back({path + ".namespace", quoted(c.namespace_) + ": modules install into " +
                                                    std::string(k_kyma_modules_namespace)});
        if (c.source_url)
            out.push_back({path + ".sourceURL",
                           quoted(*c.source_url) + ": modules come only from KLM's catalog"});
        overrides_problems(c.configuration, path, out);
    }
    return out;
}

std::vector<FieldProblem> unknown_kyma_modules(const KymaConfig& config,
                                               const KlmOptions& options) {
    std::vector<FieldProblem> out;
    if (options.modules.empty())
        return out;
    for (std::size_t i = 0; i < config.components.size(); ++i) {
        const std::string& name = config.components[i].name;
        if (std::find(options.modules.begin(), options.modules.end(), name) !=
            options.modules.end())
            continue;
        std::string message = quoted(name) + " is not a module this landscape offers";
        if (const auto near = closest_match(name, options.modules))
            message += " (did you mean " + quoted(*near) + "?)";
        else
            message += " (KPROV_KYMA_MODULES lists the ones it does)";
        out.push_back({"kymaConfig.components[" + std::to_string(i) + "].component", message});
    }
    return out;
}

KymaResource build_kyma_resource(const Runtime& runtime, const std::string& shoot_domain,
                                 const KlmOptions& options) {
    KymaResource kyma;
    kyma.name = kyma_name_of(runtime.id);
    kyma.labels = {
        {std::string(k_kyma_runtime_id_label), runtime.id},
        {"kyma-project.io/global-account-id", runtime.tenant},
        {"kyma-project.io/shoot-name", runtime.gardener.name},
        {"kyma-project.io/region", runtime.gardener.region},
        {"kyma-project.io/provider", provider_label(runtime.gardener.provider)},
        {std::string(k_kyma_name_label), kyma.name},
        {std::string(k_kyma_managed_by_label), "lifecycle-manager"},
    };
    if (!runtime.sub_account_id.empty())
        kyma.labels["kyma-project.io/subaccount-id"] = runtime.sub_account_id;
    // Instance and plan labels have no source in kprov but the runtime's own labels (§6).
    const auto labels = nlohmann::json::parse(runtime.labels_json, nullptr, false);
    if (labels.is_object()) {
        for (const char* key :
             {"kyma-project.io/instance-id", "kyma-project.io/broker-plan-id",
              "kyma-project.io/broker-plan-name", "kyma-project.io/platform-region"})
            if (const auto it = labels.find(key); it != labels.end() && it->is_string())
                kyma.labels[key] = it->get<std::string>();
        // §1.3: which internal and beta modules this Kyma may use (KEB takes them from the
        // license type and its template; kprov from the runtime's labels, checked at request).
        for (const std::string_view key : {k_kyma_internal_label, k_kyma_beta_label})
            if (const auto it = labels.find(std::string(key)); it != labels.end())
                if (const auto value = kyma_module_label_value(*it))
                    kyma.labels[std::string(key)] = *value;
    }
    if (!shoot_domain.empty())
        kyma.annotations["skr-domain"] = shoot_domain;
    if (runtime.kyma) {
        kyma.channel = kyma_channel_of(*runtime.kyma, options);
        kyma.modules = kyma_modules_of(*runtime.kyma);
    } else {
        kyma.channel = options.default_channel;
    }
    return kyma;
}

KymaAccessSecret build_access_secret(const Runtime& runtime, std::string kubeconfig,
                                     Timestamp now) {
    KymaAccessSecret secret;
    secret.name = kyma_secret_name_of(runtime.id);
    secret.labels = {
        {std::string(k_kyma_name_label), kyma_name_of(runtime.id)},
        {std::string(k_kyma_managed_by_label), "lifecycle-manager"},
        {std::string(k_kyma_runtime_id_label), runtime.id},
        {"kyma-project.io/shoot-name", runtime.gardener.name},
        {std::string(k_kyma_secret_owner_label), "kprov"},
    };
    secret.annotations[std::string(k_kyma_last_sync_annotation)] = format_rfc3339(now);
    secret.kubeconfig = std::move(kubeconfig);
    return secret;
}

std::string kyma_progress(const KymaState& state) {
    if (state.modules.empty() && !state.spec_modules.empty())
        return "0/" + std::to_string(state.spec_modules.size()) + " modules ready" +
               (state.last_operation.empty() ? "" : ": " + state.last_operation);
    std::size_t ready = 0;
    std::string pending;
    for (const auto& m : state.modules) {
        if (counts_as_ready(m)) {
            ++ready;
            continue;
        }
        pending += (pending.empty() ? "" : ", ") + m.name + " " +
                   (m.state.empty() ? std::string("Pending") : m.state);
    }
    std::string out =
        std::to_string(ready) + "/" + std::to_string(state.modules.size()) + " modules ready";
    if (!pending.empty())
        out += ": " + pending;
    else if (!state.ready() && !state.last_operation.empty())
        out += ": " + state.last_operation;
    return out;
}

std::string modules_not_ready(const KymaState& state) {
    std::string out;
    for (const auto& m : state.modules) {
        if (counts_as_ready(m))
            continue;
        out += (out.empty() ? "" : ", ") + m.name + " (" +
               (m.state.empty() ? std::string("Pending") : m.state) +
               (m.message.empty() ? "" : ": " + m.message) + ")";
    }
    for (const auto& name : state.spec_modules)
        if (std::none_of(state.modules.begin(), state.modules.end(),
                         [&](const KymaModuleState& m) { return m.name == name; }))
            out += (out.empty() ? "" : ", ") + name + " (no status yet)";
    return out;
}

} // namespace kprov::engine
