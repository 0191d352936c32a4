#include "gardener/shoot_port.hpp"

#include "engine/error.hpp"
#include "gardener/kube_error.hpp"
#include "net/remote_values.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

// The value at `path` when it exists with the wanted type; Gardener's answers may omit anything.
const json* at(const json& object, std::initializer_list<const char*> path) {
    const json* node = &object;
    for (const char* key : path) {
        if (!node->is_object())
            return nullptr;
        const auto it = node->find(key);
        if (it == node->end() || it->is_null())
            return nullptr;
        node = &*it;
    }
    return node;
}

std::string text_at(const json& object, std::initializer_list<const char*> path) {
    const json* v = at(object, path);
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t integer_at(const json& object, std::initializer_list<const char*> path) {
    const json* v = at(object, path);
    return v && v->is_number_integer() ? net::json_int64(*v).value_or(0) : 0;
}

bool bool_at(const json& object, std::initializer_list<const char*> path) {
    const json* v = at(object, path);
    return v && v->is_boolean() && v->get<bool>();
}

std::map<std::string, std::string> string_map_at(const json& object,
                                                 std::initializer_list<const char*> path) {
    std::map<std::string, std::string> out;
    if (const json* v = at(object, path); v && v->is_object())
        for (const auto& [key, value] : v->items())
            if (value.is_string())
                out[key] = value.get<std::string>();
    return out;
}

// Kubernetes errors the engine treats by kind; everything else stays a RemoteError.
[[noreturn]] void rethrow_mapped(const KubeError& e) {
    if (e.is_already_exists() || e.is_conflict())
        throw Conflict(e.what());
    throw;
}

} // namespace

const std::vector<std::string>& shoot_state_fields() {
    static const std::vector<std::string> fields{"metadata.name",
                                                 "metadata.resourceVersion",
                                                 "metadata.generation",
                                                 "metadata.annotations",
                                                 "metadata.labels",
                                                 "metadata.deletionTimestamp",
                                                 "spec.dns.domain",
                                                 "spec.seedName",
                                                 "spec.kubernetes.version",
                                                 "spec.hibernation.enabled",
                                                 "status.observedGeneration",
                                                 "status.hibernated",
                                                 "status.lastOperation",
                                                 "status.lastErrors",
                                                 "status.constraints"};
    return fields;
}

engine::ShootState shoot_state(const json& shoot, WithJson with_json) {
    engine::ShootState s;
    if (!shoot.is_object())
        return s;
    s.name = text_at(shoot, {"metadata", "name"});
    s.resource_version = text_at(shoot, {"metadata", "resourceVersion"});
    s.generation = integer_at(shoot, {"metadata", "generation"});
    s.observed_generation = integer_at(shoot, {"status", "observedGeneration"});
    s.annotations = string_map_at(shoot, {"metadata", "annotations"});
    s.labels = string_map_at(shoot, {"metadata", "labels"});
    if (auto domain = text_at(shoot, {"spec", "dns", "domain"}); !domain.empty())
        s.dns_domain = domain;
    if (auto seed = text_at(shoot, {"spec", "seedName"}); !seed.empty())
        s.seed_name = seed;
    s.kubernetes_version = text_at(shoot, {"spec", "kubernetes", "version"});
    if (auto deletion = text_at(shoot, {"metadata", "deletionTimestamp"}); !deletion.empty())
        s.deletion_timestamp = parse_db_time(deletion);
    s.hibernation_enabled = bool_at(shoot, {"spec", "hibernation", "enabled"});
    // Gardener's Go field IsHibernated is "hibernated" on the wire.
    s.is_hibernated = bool_at(shoot, {"status", "hibernated"});
    if (const json* op = at(shoot, {"status", "lastOperation"}); op && op->is_object()) {
        engine::ShootState::LastOperation last;
        last.type = text_at(*op, {"type"});
        last.state = text_at(*op, {"state"});
        last.description = text_at(*op, {"description"});
        last.progress = static_cast<int>(integer_at(*op, {"progress"}));
        s.last_operation = last;
    }
    if (const json* errors = at(shoot, {"status", "lastErrors"}); errors && errors->is_array()) {
        for (const auto& error : *errors) {
            if (const json* codes = at(error, {"codes"}); codes && codes->is_array())
                for (const auto& code : *codes)
                    if (code.is_string())
                        s.last_error_codes.push_back(code.get<std::string>());
            const auto description = text_at(error, {"description"});
            if (!description.empty())
                s.last_errors_description +=
                    (s.last_errors_description.empty() ? "" : "; ") + description;
        }
    }
    if (const json* constraints = at(shoot, {"status", "constraints"});
        constraints && constraints->is_array()) {
        for (const auto& c : *constraints) {
            if (text_at(c, {"type"}) != "HibernationPossible")
                continue;
            s.hibernation_possible = text_at(c, {"status"}) != "False";
            s.hibernation_possible_message = text_at(c, {"message"});
        }
    }
    if (with_json == WithJson::Yes)
        s.json = shoot.dump();
    return s;
}

GardenerShootClient::GardenerShootClient(std::shared_ptr<GardenerClient> client)
    : m_client(std::move(client)) {}

std::optional<engine::ShootState> GardenerShootClient::get(const std::string& name) {
    auto shoot = m_client->get_shoot(name);
    if (!shoot)
        return std::nullopt;
    return shoot_state(*shoot);
}

std::vector<engine::ShootState> GardenerShootClient::list(const std::string& label_selector) {
    std::vector<engine::ShootState> out;
    const json list = m_client->list_shoots(label_selector);
    if (const json* items = at(list, {"items"}); items && items->is_array())
        for (const auto& item : *items)
            out.push_back(shoot_state(item));
    return out;
}

engine::ShootState GardenerShootClient::create(const std::string& shoot_json) {
    try {
        return shoot_state(m_client->create_shoot(json::parse(shoot_json)));
    } catch (const KubeError& e) {
        rethrow_mapped(e);
    }
}

engine::ShootState GardenerShootClient::update(const std::string& shoot_json) {
    try {
        return shoot_state(m_client->update_shoot(json::parse(shoot_json)));
    } catch (const KubeError& e) {
        rethrow_mapped(e);
    }
}

engine::ShootState GardenerShootClient::patch(const std::string& name,
                                              const std::string& merge_patch_json) {
    try {
        return shoot_state(m_client->patch_shoot(name, json::parse(merge_patch_json)));
    } catch (const KubeError& e) {
        rethrow_mapped(e);
    }
}

bool GardenerShootClient::remove(const std::string& name) {
    return m_client->delete_shoot(name);
}

std::string GardenerShootClient::admin_kubeconfig(const std::string& name,
                                                  std::chrono::seconds expiration) {
    return m_client->admin_kubeconfig(name, expiration);
}

void GardenerShootClient::put_config_map(const std::string& config_map_json) {
    m_client->create_or_update_config_map(json::parse(config_map_json));
}

void GardenerShootClient::delete_config_map(const std::string& name) {
    m_client->delete_config_map(name);
}

} // namespace kprov::gardener
