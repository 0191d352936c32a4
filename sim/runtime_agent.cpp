#include "runtime_agent.hpp"

#include <algorithm>
#include <array>

namespace kprov::sim {

namespace {

constexpr const char* k_secret_namespace = "kyma-system";
constexpr const char* k_secret_name = "compass-agent-configuration";
constexpr const char* k_cr_name = "compass-connection";

// The states WaitForAgentToConnect takes as connected (the others make it wait or reconfigure).
bool is_connected(const std::string& state) {
    static const std::array<const char*, 3> connected = {"Synchronized", "SynchronizationFailed",
                                                         "MetadataUpdateFailed"};
    return std::find(connected.begin(), connected.end(), state) != connected.end();
}

std::string secret_value(const Json& data, const char* key) {
    if (!data.is_object() || !data.contains(key) || !data[key].is_string())
        return "";
    return base64_decode(data[key].get<std::string>()).value_or("");
}

} // namespace

std::optional<RuntimeAgent::Configuration>
RuntimeAgent::read_configuration(const ObjectStore& store) {
    const ResourceInfo* secrets = store.find("", "secrets");
    auto secret =
        secrets ? store.find_object(*secrets, k_secret_namespace, k_secret_name) : std::nullopt;
    if (!secret)
        return std::nullopt;
    const Json data = secret->value("data", Json::object());
    Configuration config{secret_value(data, "CONNECTOR_URL"), secret_value(data, "TOKEN")};
    if (config.connector_url.empty() || config.token.empty())
        return std::nullopt;
    return config;
}

void RuntimeAgent::advance(ObjectStore& store, TimePoint now, bool agent_installed,
                           double delay_seconds, const std::function<void()>& ensure_crd) {
    if (knobs.disabled || !agent_installed)
        return;
    if (auto config = read_configuration(store); config && config->token != m_config.token) {
        // A new token is a (re)configuration: the agent connects again and reports anew.
        m_config = *config;
        m_tokens.insert(config->token);
        m_due = now + seconds_to_duration(delay_seconds);
    }
    if (!m_due || *m_due > now)
        return;
    // Should the store refuse the write (a CR a test wrote by hand), retry a while later
    // rather than on every tick.
    m_due = now + seconds_to_duration(std::max(delay_seconds, 1.0));
    const std::vector<std::string>& states = knobs.states;
    std::string state =
        states.empty() ? "Synchronized" : states[std::min(m_writes, states.size() - 1)];
    ensure_crd();
    write(store, state, now);
    ++m_writes;
    m_state = state;
    m_due.reset();
}

void RuntimeAgent::write(ObjectStore& store, const std::string& state, TimePoint now) {
    const ResourceInfo* info =
        store.find("compass.kyma-project.io", "v1alpha1", "compassconnections");
    if (!info)
        throw std::logic_error("kprov-sim: the cluster store does not know compassconnections");
    std::string ts = rfc3339(now);
    Json connection = {{"lastSync", ts}};
    if (is_connected(state)) {
        connection["established"] = ts;
        connection["lastSuccess"] = ts;
    } else {
        connection["error"] = "simulated connection state " + state;
    }
    auto current = store.find_object(*info, "", k_cr_name);
    Json obj = current ? *current : Json{{"metadata", {{"name", k_cr_name}}}};
    obj["spec"]["managementInfo"] = {{"connectorUrl", m_config.connector_url}, {"directorUrl", ""}};
    obj["status"] = {{"connectionState", state}, {"connectionStatus", connection}};
    if (current)
        store.update(*info, "", k_cr_name, obj);
    else
        store.create(*info, "", obj);
}

std::optional<TimePoint> RuntimeAgent::next_due() const {
    return knobs.disabled ? std::nullopt : m_due;
}

Json RuntimeAgent::describe() const {
    return {{"connected", m_state && is_connected(*m_state)},
            {"configurations", m_tokens.size()},
            {"state", m_state ? Json(*m_state) : Json(nullptr)}};
}

} // namespace kprov::sim
