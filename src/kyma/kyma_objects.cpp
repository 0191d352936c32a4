// What the installation-cr backend writes and reads: the Installation CR for a configuration,
// the override objects and the probe mapping (kyma-installation.md §2.4, §2.5, §7.4).

#include "kyma/kyma_objects.hpp"

#include "net/base64.hpp"
#include "net/remote_values.hpp"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

namespace kprov::gardener {
namespace {

using nlohmann::json;

constexpr std::size_t k_max_text = 16 * 1024;
constexpr std::size_t k_max_error_log = 100;

json override_object(const char* kind, const std::string& name, const std::string* component,
                     const std::string& conflict_strategy) {
    json labels = {{"installer", "overrides"}, {"conflict-strategy", conflict_strategy}};
    if (component)
        labels["component"] = *component;
    return {
        {"apiVersion", "v1"},
        {"kind", kind},
        {"metadata", {{"name", name}, {"namespace", k_installer_namespace}, {"labels", labels}}},
        {"data", json::object()}};
}

// Appends the ConfigMap and the Secret of one override group.
void add_group(OverrideObjects& out, const std::string& name, const std::string* component,
               const engine::KymaOverrides& overrides) {
    json config_map = override_object("ConfigMap", name, component, overrides.conflict_strategy);
    json secret = override_object("Secret", name, component, overrides.conflict_strategy);
    for (const auto& entry : overrides.entries) {
        if (entry.secret)
            secret["data"][entry.key] = net::base64_encode(entry.value);
        else
            config_map["data"][entry.key] = entry.value;
    }
    out.config_maps.push_back(std::move(config_map));
    out.secrets.push_back(std::move(secret));
}

const json* member(const json& object, const char* key) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

std::string bounded_text(const json* value) {
    if (!value || !value->is_string())
        return {};
    const auto& text = value->get_ref<const std::string&>();
    return text.size() <= k_max_text ? text : text.substr(0, k_max_text);
}

std::vector<engine::InstallationErrorEntry> error_log_of(const json* log) {
    std::vector<engine::InstallationErrorEntry> out;
    if (!log || !log->is_array())
        return out;
    for (const auto& item : *log) {
        if (out.size() == k_max_error_log)
            break;
        engine::InstallationErrorEntry entry;
        entry.component = bounded_text(member(item, "component"));
        entry.log = bounded_text(member(item, "log"));
        if (const json* n = member(item, "occurrences"); n && n->is_number_integer())
            entry.occurrences = static_cast<int>(
                std::clamp<std::int64_t>(*net::json_int64(*n), 0, std::int64_t{1} << 30));
        out.push_back(std::move(entry));
    }
    return out;
}

} // namespace

json installation_cr(const json& template_cr, const engine::KymaConfig& config) {
    json cr = template_cr;
    json& metadata = cr["metadata"];
    metadata["namespace"] = "default";
    if (auto labels = metadata.find("labels"); labels != metadata.end() && labels->is_object())
        labels->erase("action");
    json& spec = cr["spec"];
    if (!spec.is_object())
        spec = json::object();
    if (config.profile)
        spec["profile"] = std::string(engine::to_cr(*config.profile));
    json components = json::array();
    for (const auto& c : config.components) {
        json component = {{"name", c.name}, {"namespace", c.namespace_}, {"release", ""}};
        if (c.source_url)
            component["source"] = {{"url", *c.source_url}};
        components.push_back(std::move(component));
    }
    spec["components"] = std::move(components);
    return cr;
}

OverrideObjects override_objects(const engine::KymaConfig& config) {
    OverrideObjects out;
    add_group(out, "global-installer-config", nullptr, config.global);
    for (const auto& c : config.components)
        add_group(out, c.name + "-installer-config", &c.name, c.configuration);
    return out;
}

json replacement_for(const json& live, const json& desired) {
    json out = desired;
    const json* live_metadata = member(live, "metadata");
    if (const json* rv = live_metadata ? member(*live_metadata, "resourceVersion") : nullptr;
        rv && rv->is_string())
        out["metadata"]["resourceVersion"] = *rv;
    const json* live_spec = member(live, "spec");
    if (live_spec && desired.value("kind", "") == "Service" &&
        desired.value("apiVersion", "") == "v1") {
        json& spec = out["spec"];
        if (!spec.is_object())
            spec = json::object();
        for (const char* key : {"clusterIP", "clusterIPs"})
            if (const json* value = member(*live_spec, key); value && !spec.contains(key))
                spec[key] = *value;
    }
    return out;
}

json merged_override(const json& live, const json& desired) {
    json merged = replacement_for(live, desired);
    const json* labels = member(desired.at("metadata"), "labels");
    const json* strategy = labels ? member(*labels, "conflict-strategy") : nullptr;
    if (strategy && *strategy == "Replace")
        return merged;
    json data = json::object();
    if (const json* old = member(live, "data"); old && old->is_object())
        data = *old;
    if (const json* fresh = member(desired, "data"); fresh && fresh->is_object())
        for (const auto& [key, value] : fresh->items())
            data[key] = value;
    merged["data"] = std::move(data);
    return merged;
}

engine::InstallationProbe no_installation_probe() {
    engine::InstallationProbe probe;
    probe.kind = engine::InstallationProbe::Kind::NoInstallation;
    probe.description = "Kyma Installation CR not found on the cluster";
    return probe;
}

engine::InstallationProbe probe_of(const json& cr) {
    engine::InstallationProbe probe;
    const json* metadata = member(cr, "metadata");
    probe.resource_version =
        bounded_text(metadata ? member(*metadata, "resourceVersion") : nullptr);
    const json* status = member(cr, "status");
    const json* state = status ? member(*status, "state") : nullptr;
    std::string value;
    if (state && state->is_string())
        value = bounded_text(state);
    else if (state && !state->is_null())
        value = state->dump().substr(0, 256);
    const std::string description = bounded_text(status ? member(*status, "description") : nullptr);
    if (value.empty() || value == "InProgress" || value == "Installed") {
        probe.kind = engine::InstallationProbe::Kind::State;
        probe.state = value;
        probe.description = description;
        return probe;
    }
    if (value != "Error")
        throw engine::InvalidInstallationState("invalid installation state: " +
                                               value.substr(0, 256));
    probe.kind = engine::InstallationProbe::Kind::InstallerError;
    probe.state = value;
    probe.description = description;
    probe.error_message = "installation error occurred: " + description;
    probe.error_log = error_log_of(member(*status, "errorLog"));
    const json* labels = metadata ? member(*metadata, "labels") : nullptr;
    const json* action = labels ? member(*labels, "action") : nullptr;
    probe.recoverable = action && *action == "install";
    return probe;
}

std::string sha224_hex(std::string_view text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha224(), nullptr) != 1)
        throw Error("SHA-224 is not available in this OpenSSL");
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(k_hex[digest[i] >> 4]);
        out.push_back(k_hex[digest[i] & 0xf]);
    }
    return out;
}

} // namespace kprov::gardener
