// KymaConfigInput to the model (kyma-installation.md §1.3).

#include "engine/input/runtime_input.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

KymaOverrides to_overrides(const nlohmann::json& owner) {
    KymaOverrides out;
    if (const auto it = owner.find("configuration"); it != owner.end() && it->is_array())
        for (const auto& e : *it) {
            const auto secret = e.find("secret"); // null reads as false (§1.3)
            out.entries.push_back(
                {e.value("key", std::string()), e.value("value", std::string()),
                 secret != e.end() && secret->is_boolean() && secret->get<bool>()});
        }
    if (const auto it = owner.find("conflictStrategy"); it != owner.end() && it->is_string())
        out.conflict_strategy = it->get<std::string>();
    return out;
}

} // namespace

KymaConfig to_kyma_config(const std::string& kyma_config_json, const std::string& runtime_id) {
    const auto input = nlohmann::json::parse(kyma_config_json);
    KymaConfig config;
    config.id = new_uuid();
    config.cluster_id = runtime_id;
    config.release.version = input.value("version", std::string());
    if (const auto it = input.find("profile"); it != input.end() && it->is_string())
        config.profile = kyma_profile_from_text(it->get<std::string>());
    config.global = to_overrides(input);
    if (const auto it = input.find("components"); it != input.end() && it->is_array())
        for (const auto& c : *it) {
            KymaComponent component;
            component.id = new_uuid();
            component.name = c.value("component", std::string());
            component.namespace_ = c.value("namespace", std::string());
            if (const auto url = c.find("sourceURL"); url != c.end() && url->is_string())
                component.source_url = url->get<std::string>();
            component.configuration = to_overrides(c);
            component.order = static_cast<int>(config.components.size()) + 1;
            config.components.push_back(std::move(component));
        }
    return config;
}

} // namespace kprov::engine
