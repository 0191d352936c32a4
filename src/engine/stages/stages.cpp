#include "engine/stages/stages.hpp"

#include <algorithm>

namespace kprov::engine {

using namespace std::chrono_literals;

StageResult go_to(std::string_view stage) {
    return {std::string(stage), Duration{0}};
}

StageResult wait_in(std::string_view stage, Duration delay) {
    return {std::string(stage), delay};
}

StageContext::StageContext(const Operation& operation, const Runtime& runtime,
                           const EnginePorts& ports, const EngineOptions& options, Timestamp now,
                           PassMemory& memory)
    : m_operation(operation)
    , m_runtime(runtime)
    , m_ports(ports)
    , m_shoots(*ports.shoots)
    , m_clusters(*ports.clusters)
    , m_options(options)
    , m_now(now)
    , m_memory(memory) {}

std::optional<ShootState> StageContext::shoot() {
    if (m_memory.shoot)
        return m_memory.shoot;
    return read_shoot();
}

std::optional<ShootState> StageContext::read_shoot() {
    try {
        m_memory.shoot = m_shoots.get(shoot_name());
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_gardener_client, true);
    }
    return m_memory.shoot;
}

std::string StageContext::admin_kubeconfig() {
    if (!m_memory.admin_kubeconfig)
        m_memory.admin_kubeconfig =
            m_shoots.admin_kubeconfig(shoot_name(), m_options.admin_kubeconfig_expiration);
    return *m_memory.admin_kubeconfig;
}

void StageContext::require_own(const ShootState& shoot, std::string_view verb) const {
    if (is_own_shoot(shoot, m_runtime.id))
        return;
    throw StageError::non_recoverable("cannot " + std::string(verb) +
                                          " cluster: " + not_own_shoot(shoot, m_runtime.id) +
                                          "; Gardener was left alone",
                                      std::string(k_reason_foreign_shoot));
}

std::optional<std::string> shoot_owner(const ShootState& shoot) {
    for (const auto key : {k_runtime_id_annotation, k_legacy_runtime_id_annotation}) {
        const auto it = shoot.annotations.find(std::string(key));
        if (it != shoot.annotations.end() && !it->second.empty())
            return it->second;
    }
    return std::nullopt;
}

bool is_own_shoot(const ShootState& shoot, std::string_view runtime_id) {
    const auto owner = shoot_owner(shoot);
    return owner && *owner == runtime_id;
}

std::string not_own_shoot(const ShootState& shoot, std::string_view runtime_id) {
    const auto owner = shoot_owner(shoot);
    return "shoot " + shoot.name +
           (owner ? " belongs to runtime " + *owner
                  : " is not a kprov runtime's shoot (it has no runtime-id annotation)") +
           ", not to runtime " + std::string(runtime_id);
}

std::string foreign_shoot_deprovision_note(const ShootState& shoot, std::string_view runtime_id) {
    return not_own_shoot(shoot, runtime_id) + ": Gardener was left alone, and runtime " +
           std::string(runtime_id) + " is only marked deleted";
}

const StageDef* StageTable::find(std::string_view name) const {
    const auto it = std::find_if(m_stages.begin(), m_stages.end(),
                                 [&](const StageDef& s) { return s.name == name; });
    return it == m_stages.end() ? nullptr : &*it;
}

StageResult create_bindings_for_operators(StageContext& context, std::string_view next) {
    std::string kubeconfig;
    try {
        kubeconfig = context.admin_kubeconfig();
    } catch (const std::exception&) {
        // The original waits for the control plane this way: no error, same stage in 20 s.
        return wait_in(k_stage_creating_bindings, 20s);
    }
    OperatorBindings bindings = context.options().operator_bindings;
    bindings.administrators = context.runtime().administrators;
    try {
        context.clusters().create_operator_bindings(kubeconfig, bindings);
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_cluster_client, true);
    } catch (const ConfigError& e) {
        // A kubeconfig kprov refuses to use (a proxy, no certificate check, ...): asking again
        // in 20 s gets the same answer, so the operation fails now with the field named.
        throw StageError::non_recoverable(e.what(), "", std::string(k_component_cluster_client));
    } catch (const std::exception& e) {
        throw StageError::recoverable(e.what(), "", std::string(k_component_cluster_client));
    }
    return go_to(next);
}

std::string joined_error_codes(const ShootState& shoot) {
    std::string out;
    for (const auto& code : shoot.last_error_codes) {
        if (!out.empty())
            out += ", ";
        out += code;
    }
    return out;
}

bool has_rate_limit_error(const ShootState& shoot) {
    return std::find(shoot.last_error_codes.begin(), shoot.last_error_codes.end(),
                     "ERR_INFRA_RATE_LIMITS_EXCEEDED") != shoot.last_error_codes.end();
}

std::string last_shoot_state(const ShootState& shoot) {
    const auto& lo = shoot.last_operation;
    return "Last Shoot state: " + (lo ? lo->state : std::string()) +
           ", Shoot description: " + (lo ? lo->description : std::string());
}

bool shoot_change_may_move(std::string_view stage, const ShootState& shoot) {
    if (stage == k_stage_waiting_for_cluster_domain)
        return shoot.dns_domain && !shoot.dns_domain->empty();
    if (stage == k_stage_waiting_for_cluster_creation)
        return shoot.deletion_timestamp || last_operation_is(shoot, "Succeeded") ||
               last_operation_is(shoot, "Failed");
    return true;
}

bool last_operation_is(const ShootState& shoot, std::string_view state) {
    return shoot.last_operation && shoot.last_operation->state == state;
}

} // namespace kprov::engine
