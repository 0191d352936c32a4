#include "support/fake_gardener.hpp"

#include "engine/error.hpp"

#include <sstream>

namespace kprov::fakes {

using engine::ShootState;
using nlohmann::json;

namespace {

std::string text_at(const json& object, const json::json_pointer& path) {
    return object.contains(path) && object.at(path).is_string() ? object.at(path).get<std::string>()
                                                                : std::string();
}

std::int64_t int_at(const json& object, const json::json_pointer& path) {
    return object.contains(path) && object.at(path).is_number_integer()
               ? object.at(path).get<std::int64_t>()
               : 0;
}

bool bool_at(const json& object, const json::json_pointer& path) {
    return object.contains(path) && object.at(path).is_boolean() && object.at(path).get<bool>();
}

std::map<std::string, std::string> string_map(const json& object, const json::json_pointer& path) {
    std::map<std::string, std::string> out;
    if (object.contains(path) && object.at(path).is_object())
        for (const auto& [key, value] : object.at(path).items())
            if (value.is_string())
                out[key] = value.get<std::string>();
    return out;
}

RemoteError not_found(const std::string& name) {
    return RemoteError("shoots.core.gardener.cloud \"" + name + "\" not found", 404, false);
}

} // namespace

ShootState shoot_state_of(const json& shoot) {
    ShootState s;
    s.name = text_at(shoot, "/metadata/name"_json_pointer);
    s.resource_version = text_at(shoot, "/metadata/resourceVersion"_json_pointer);
    s.generation = int_at(shoot, "/metadata/generation"_json_pointer);
    s.observed_generation = int_at(shoot, "/status/observedGeneration"_json_pointer);
    s.annotations = string_map(shoot, "/metadata/annotations"_json_pointer);
    s.labels = string_map(shoot, "/metadata/labels"_json_pointer);
    if (const auto domain = text_at(shoot, "/spec/dns/domain"_json_pointer); !domain.empty())
        s.dns_domain = domain;
    if (const auto seed = text_at(shoot, "/spec/seedName"_json_pointer); !seed.empty())
        s.seed_name = seed;
    s.kubernetes_version = text_at(shoot, "/spec/kubernetes/version"_json_pointer);
    if (const auto deleted = text_at(shoot, "/metadata/deletionTimestamp"_json_pointer);
        !deleted.empty())
        s.deletion_timestamp = parse_db_time(deleted);
    s.hibernation_enabled = bool_at(shoot, "/spec/hibernation/enabled"_json_pointer);
    s.is_hibernated = bool_at(shoot, "/status/hibernated"_json_pointer);
    if (shoot.contains("/status/lastOperation"_json_pointer)) {
        ShootState::LastOperation lo;
        lo.type = text_at(shoot, "/status/lastOperation/type"_json_pointer);
        lo.state = text_at(shoot, "/status/lastOperation/state"_json_pointer);
        lo.description = text_at(shoot, "/status/lastOperation/description"_json_pointer);
        lo.progress =
            static_cast<int>(int_at(shoot, "/status/lastOperation/progress"_json_pointer));
        s.last_operation = lo;
    }
    if (shoot.contains("/status/lastErrors"_json_pointer))
        for (const auto& error : shoot.at("/status/lastErrors"_json_pointer)) {
            for (const auto& code : error.value("codes", json::array()))
                s.last_error_codes.push_back(code.get<std::string>());
            if (!s.last_errors_description.empty())
                s.last_errors_description += "; ";
            s.last_errors_description += error.value("description", "");
        }
    if (shoot.contains("/status/constraints"_json_pointer))
        for (const auto& c : shoot.at("/status/constraints"_json_pointer))
            if (c.value("type", "") == "HibernationPossible") {
                s.hibernation_possible = c.value("status", "") == "True";
                s.hibernation_possible_message = c.value("message", "");
            }
    s.json = shoot.dump();
    return s;
}

FakeGardener::FakeGardener(const Clock& clock, std::string project)
    : m_clock(clock)
    , m_project(std::move(project)) {}

void FakeGardener::enter(const std::string& method, const std::string& name) {
    ++m_calls[method];
    if (on_call)
        on_call(method, name);
    auto& queue = m_failures[method];
    if (!queue.empty()) {
        auto error = queue.front();
        queue.pop_front();
        std::rethrow_exception(error);
    }
}

void FakeGardener::bump_resource_version(json& shoot) {
    shoot["metadata"]["resourceVersion"] = std::to_string(++m_resource_version);
}

json& FakeGardener::stored(const std::string& name) {
    auto it = m_shoots.find(name);
    if (it == m_shoots.end())
        throw NotFound("shoots.core.gardener.cloud \"" + name + "\" not found");
    return it->second;
}

std::optional<ShootState> FakeGardener::get(const std::string& name) {
    std::lock_guard lock(m_mutex);
    enter("get", name);
    auto it = m_shoots.find(name);
    if (it == m_shoots.end())
        return std::nullopt;
    return shoot_state_of(it->second);
}

std::vector<ShootState> FakeGardener::list(const std::string& label_selector) {
    std::lock_guard lock(m_mutex);
    enter("list", "");
    std::map<std::string, std::string> wanted;
    std::stringstream in(label_selector);
    for (std::string term; std::getline(in, term, ',');)
        if (const auto eq = term.find('='); eq != std::string::npos)
            wanted[term.substr(0, eq)] = term.substr(eq + 1);
    std::vector<ShootState> out;
    for (const auto& [name, shoot] : m_shoots) {
        ShootState s = shoot_state_of(shoot);
        bool match = true;
        for (const auto& [key, value] : wanted)
            match = match && s.labels.count(key) && s.labels.at(key) == value;
        if (match)
            out.push_back(std::move(s));
    }
    return out;
}

ShootState FakeGardener::create(const std::string& shoot_json) {
    std::lock_guard lock(m_mutex);
    json shoot = json::parse(shoot_json);
    const std::string name = shoot.at("metadata").at("name");
    enter("create", name);
    if (m_shoots.count(name))
        throw Conflict("shoots.core.gardener.cloud \"" + name + "\" already exists");
    shoot["metadata"]["generation"] = 1;
    shoot["metadata"]["uid"] = "uid-" + name;
    shoot["metadata"]["creationTimestamp"] = format_rfc3339(m_clock.now());
    if (default_dns_domain && !shoot.contains("/spec/dns/domain"_json_pointer))
        shoot["spec"]["dns"]["domain"] = name + "." + m_project + ".kprov.example";
    shoot["status"] = {{"hibernated", false}};
    bump_resource_version(shoot);
    m_shoots[name] = shoot;
    return shoot_state_of(shoot);
}

ShootState FakeGardener::update(const std::string& shoot_json) {
    std::lock_guard lock(m_mutex);
    json shoot = json::parse(shoot_json);
    const std::string name = shoot.at("metadata").at("name");
    enter("update", name);
    json& current = stored(name);
    if (shoot["metadata"].value("resourceVersion", "") != current["metadata"]["resourceVersion"])
        throw Conflict("Operation cannot be fulfilled on shoots.core.gardener.cloud \"" + name +
                       "\": the object has been modified");
    shoot["status"] = current["status"]; // the main resource never changes status
    shoot["metadata"]["generation"] =
        current["metadata"]["generation"].get<int>() + (shoot["spec"] != current["spec"] ? 1 : 0);
    bump_resource_version(shoot);
    current = shoot;
    return shoot_state_of(current);
}

ShootState FakeGardener::patch(const std::string& name, const std::string& merge_patch_json) {
    std::lock_guard lock(m_mutex);
    enter("patch", name);
    json& current = stored(name);
    const json before = current;
    const json patch = json::parse(merge_patch_json);
    // As the API server: a resourceVersion in the patch is a precondition.
    if (patch.contains("metadata") && patch["metadata"].contains("resourceVersion") &&
        patch["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"])
        throw Conflict("Operation cannot be fulfilled on shoots.core.gardener.cloud \"" + name +
                       "\": the object has been modified");
    current.merge_patch(patch);
    current["status"] = before["status"];
    if (current["spec"] != before["spec"])
        current["metadata"]["generation"] = before["metadata"]["generation"].get<int>() + 1;
    bump_resource_version(current);
    return shoot_state_of(current);
}

bool FakeGardener::remove(const std::string& name) {
    std::lock_guard lock(m_mutex);
    enter("remove", name);
    auto it = m_shoots.find(name);
    if (it == m_shoots.end())
        return false;
    json& shoot = it->second;
    if (text_at(shoot,
                "/metadata/annotations/confirmation.gardener.cloud~1deletion"_json_pointer) !=
        "true")
        throw RemoteError("shoots.core.gardener.cloud \"" + name +
                              "\" is forbidden: must have a \"confirmation.gardener.cloud/"
                              "deletion\" annotation to delete",
                          403, false);
    if (!shoot["metadata"].contains("deletionTimestamp")) {
        shoot["metadata"]["deletionTimestamp"] = format_rfc3339(m_clock.now());
        shoot["metadata"]["generation"] = shoot["metadata"]["generation"].get<int>() + 1;
        bump_resource_version(shoot);
    }
    return true;
}

std::string FakeGardener::admin_kubeconfig(const std::string& name,
                                           std::chrono::seconds expiration) {
    std::lock_guard lock(m_mutex);
    enter("admin_kubeconfig", name);
    if (!m_shoots.count(name))
        throw not_found(name);
    last_kubeconfig_expiration = expiration;
    return "apiVersion: v1\nkind: Config\n# admin of " + name + "\n";
}

void FakeGardener::put_config_map(const std::string& config_map_json) {
    std::lock_guard lock(m_mutex);
    json cm = json::parse(config_map_json);
    const std::string name = cm.at("metadata").at("name");
    enter("put_config_map", name);
    config_maps[name] = cm;
}

void FakeGardener::delete_config_map(const std::string& name) {
    std::lock_guard lock(m_mutex);
    enter("delete_config_map", name);
    config_maps.erase(name);
}

bool FakeGardener::has_shoot(const std::string& name) const {
    std::lock_guard lock(m_mutex);
    return m_shoots.count(name) > 0;
}

json& FakeGardener::shoot(const std::string& name) {
    std::lock_guard lock(m_mutex);
    return m_shoots.at(name);
}

void FakeGardener::add_shoot(json shoot) {
    std::lock_guard lock(m_mutex);
    const std::string name = shoot.at("metadata").at("name");
    if (!shoot["metadata"].contains("generation"))
        shoot["metadata"]["generation"] = 1;
    if (!shoot.contains("status"))
        shoot["status"] = {{"hibernated", false}};
    bump_resource_version(shoot);
    m_shoots[name] = std::move(shoot);
}

void FakeGardener::set_last_operation(const std::string& name, const std::string& type,
                                      const std::string& state, const std::string& description,
                                      int progress) {
    std::lock_guard lock(m_mutex);
    json& shoot = m_shoots.at(name);
    shoot["status"]["lastOperation"] = {
        {"type", type}, {"state", state}, {"description", description}, {"progress", progress}};
    bump_resource_version(shoot);
}

void FakeGardener::clear_last_operation(const std::string& name) {
    std::lock_guard lock(m_mutex);
    m_shoots.at(name)["status"].erase("lastOperation");
}

void FakeGardener::set_last_errors(const std::string& name, const std::vector<std::string>& codes,
                                   const std::string& description) {
    std::lock_guard lock(m_mutex);
    m_shoots.at(name)["status"]["lastErrors"] =
        json::array({{{"description", description}, {"codes", codes}}});
}

void FakeGardener::observe(const std::string& name) {
    std::lock_guard lock(m_mutex);
    json& shoot = m_shoots.at(name);
    shoot["status"]["observedGeneration"] = shoot["metadata"]["generation"];
}

void FakeGardener::succeed(const std::string& name, const std::string& type) {
    std::lock_guard lock(m_mutex);
    observe(name);
    set_last_operation(name, type, "Succeeded", "Shoot cluster has been successfully reconciled.",
                       100);
    json& shoot = m_shoots.at(name);
    shoot["status"].erase("lastErrors");
    shoot["status"]["hibernated"] = bool_at(shoot, "/spec/hibernation/enabled"_json_pointer);
}

void FakeGardener::set_hibernation_possible(const std::string& name, bool possible,
                                            const std::string& message) {
    std::lock_guard lock(m_mutex);
    m_shoots.at(name)["status"]["constraints"] =
        json::array({{{"type", "HibernationPossible"},
                      {"status", possible ? "True" : "False"},
                      {"message", message}}});
}

void FakeGardener::finish_deletion(const std::string& name) {
    std::lock_guard lock(m_mutex);
    m_shoots.erase(name);
}

void FakeGardener::fail_next(const std::string& method, std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    m_failures[method].push_back(std::move(error));
}

std::optional<ShootState> FakeGardener::watched(const std::string& name) {
    std::lock_guard lock(m_mutex);
    const auto it = watched_states.find(name);
    if (it == watched_states.end())
        return std::nullopt;
    return it->second;
}

int FakeGardener::calls(const std::string& method) const {
    std::lock_guard lock(m_mutex);
    auto it = m_calls.find(method);
    return it == m_calls.end() ? 0 : it->second;
}

int FakeGardener::total_calls() const {
    std::lock_guard lock(m_mutex);
    int total = 0;
    for (const auto& [method, count] : m_calls)
        total += count;
    return total;
}

void FakeRuntimeClusters::create_operator_bindings(const std::string& kubeconfig,
                                                   const engine::OperatorBindings& bindings) {
    calls.push_back({kubeconfig, bindings});
    throw_next_failure();
}

void FakeRuntimeClusters::configure_runtime_agent(const std::string& kubeconfig,
                                                  const engine::AgentConfiguration& agent) {
    agent_calls.push_back({kubeconfig, agent});
    throw_next_failure();
}

std::optional<std::string> FakeRuntimeClusters::compass_connection_state(const std::string&) {
    ++connection_reads;
    throw_next_failure();
    return connection_state;
}

void FakeRuntimeClusters::throw_next_failure() {
    if (m_failures.empty())
        return;
    auto error = m_failures.front();
    m_failures.pop_front();
    std::rethrow_exception(error);
}

void FakeRuntimeClusters::fail_next(std::exception_ptr error) {
    m_failures.push_back(std::move(error));
}

} // namespace kprov::fakes
