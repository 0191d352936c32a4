#include "engine/stages/registration.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

bool reports_failures(const DirectorOptions& director, OperationType type) {
    switch (type) {
    case OperationType::Provision:
    case OperationType::ProvisionNoInstall:
    case OperationType::UpgradeShoot:
        return director.registers();
    case OperationType::Deprovision:
    case OperationType::DeprovisionNoInstall:
        return director.deregisters();
    default:
        return false;
    }
}

bool is_not_found(const DirectorError& e) {
    return e.director_code() == 20;
}

} // namespace

std::optional<std::string> compass_runtime_id(const DirectorOptions& director,
                                              const std::string& runtime_id) {
    if (!director.registers())
        return std::nullopt;
    return runtime_id;
}

std::optional<std::string> compass_runtime_id(const EngineOptions& options,
                                              const std::string& runtime_id) {
    return compass_runtime_id(options.director, runtime_id);
}

std::string register_runtime(Director& director, const std::string& name,
                             const std::string& description, const std::string& labels_json,
                             const std::string& tenant, const std::string& request_id) {
    DirectorRuntimeInput input;
    input.name = name;
    input.description = description;
    input.labels_json = labels_json.empty() ? "{}" : labels_json;
    input.request_id = request_id;
    try {
        return director.register_runtime(input, tenant);
    } catch (const DirectorError& e) {
        throw DirectorError("Failed to register Runtime, " + std::string(e.what()), e.http_status(),
                            e.retryable(), e.reason(), e.component(), e.director_code());
    }
}

void unregister_quietly(const EnginePorts& ports, const std::string& runtime_id,
                        const std::string& tenant) {
    if (!ports.director)
        return;
    try {
        ports.director->unregister_runtime(runtime_id, tenant);
    } catch (const std::exception& e) {
        ports.write_log(LogLevel::Warning,
                        "runtime " + runtime_id + " stays registered in Director: " + e.what());
    }
}

StageError director_stage_error(const StageContext& context, const DirectorError& e,
                                std::string_view prefix) {
    const bool budget_left =
        context.failed_passes() + 1 < context.options().director.max_failed_passes;
    return StageError(std::string(prefix) + e.what(), e.reason(), e.component(),
                      e.retryable() && budget_left);
}

void label_runtime_in_director(StageContext& context, const std::string& domain) {
    Director& director = context.director();
    const Runtime& runtime = context.runtime();
    try {
        const auto current = director.runtime(runtime.id, runtime.tenant);
        if (!current) {
            context.ports().write_log(
                LogLevel::Warning,
                "runtime " + runtime.id +
                    " is not registered in Director (provisioned while registration was off?): "
                    "its labels and status are not set");
            return;
        }
        nlohmann::json labels = nlohmann::json::parse(current->labels_json, nullptr, false);
        if (!labels.is_object())
            labels = nlohmann::json::object();
        labels[std::string(k_label_gardener_cluster_name)] = context.shoot_name();
        labels[std::string(k_label_gardener_cluster_domain)] = domain;
        DirectorRuntimeInput input;
        input.name = current->name;
        input.description = current->description;
        input.labels_json = labels.dump();
        input.status_condition = DirectorStatusCondition::Provisioning;
        director.update_runtime(runtime.id, input, runtime.tenant);
    } catch (const DirectorError& e) {
        throw director_stage_error(context, e);
    }
}

namespace {

constexpr std::string_view k_agent_prefix = "failed to configure Runtime Agent: ";

// A new one-time token from Director into the agent's Secret. False when Director does not know
// the runtime (provisioned while registration was off): nothing to connect to.
bool configure_agent(StageContext& context, const std::string& kubeconfig) {
    const auto& k_prefix = k_agent_prefix;
    const Runtime& runtime = context.runtime();
    OneTimeToken token;
    try {
        token = context.director().request_one_time_token(runtime.id, runtime.tenant);
    } catch (const DirectorError& e) {
        if (!is_not_found(e))
            throw director_stage_error(context, e, k_prefix);
        context.ports().write_log(
            LogLevel::Warning,
            "runtime " + runtime.id +
                " is not registered in Director (provisioned while registration was off?): "
                "the Runtime Agent is not configured");
        return false;
    }
    try {
        context.clusters().configure_runtime_agent(
            kubeconfig, {token.connector_url, runtime.id, runtime.tenant, token.token});
    } catch (const RemoteError& e) {
        throw StageError::recoverable(std::string(k_prefix) + e.what(),
                                      kubernetes_reason(e.http_status()),
                                      std::string(k_component_cluster_client));
    } catch (const std::exception& e) {
        throw StageError::recoverable(std::string(k_prefix) + e.what(), "",
                                      std::string(k_component_cluster_client));
    }
    return true;
}

// Director's runtime gets `condition`, with its own name, description and labels; nothing when
// Director does not know the runtime (unregistered meanwhile). Throws DirectorError.
void set_status(Director& director, const Runtime& runtime, DirectorStatusCondition condition) {
    const auto current = director.runtime(runtime.id, runtime.tenant);
    if (!current)
        return;
    DirectorRuntimeInput input;
    input.name = current->name;
    input.description = current->description;
    input.labels_json = current->labels_json;
    input.status_condition = condition;
    director.update_runtime(runtime.id, input, runtime.tenant);
}

void mark_connected(StageContext& context) {
    try {
        set_status(context.director(), context.runtime(), DirectorStatusCondition::Connected);
    } catch (const DirectorError& e) {
        throw director_stage_error(context, e, "failed to set the runtime's status CONNECTED: ");
    }
}

} // namespace

StageResult connect_runtime_agent(StageContext& context) {
    std::string kubeconfig;
    try {
        kubeconfig = context.admin_kubeconfig();
    } catch (const std::exception&) {
        return wait_in(k_stage_connect_runtime_agent, 20s); // as CreatingBindingsForOperators
    }
    if (!configure_agent(context, kubeconfig))
        return go_to(k_stage_finished);
    // The agent is a Kyma component: only a runtime with Kyma runs one to wait for.
    return go_to(context.runtime().kyma ? k_stage_wait_for_agent_to_connect : k_stage_finished);
}

StageResult wait_for_agent_to_connect(StageContext& context) {
    // Registration was turned off while the operation waited here: nothing to connect to.
    if (!context.options().director.registers())
        return go_to(k_stage_finished);
    std::string kubeconfig;
    try {
        kubeconfig = context.admin_kubeconfig();
    } catch (const std::exception&) {
        return wait_in(k_stage_wait_for_agent_to_connect, 20s);
    }
    std::optional<std::string> state;
    try {
        state = context.clusters().compass_connection_state(kubeconfig);
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_cluster_client, true);
    }
    if (!state)
        return wait_in(k_stage_wait_for_agent_to_connect, 5s);
    if (*state == "ConnectionFailed") {
        if (!configure_agent(context, kubeconfig))
            return go_to(k_stage_finished);
        context.note("the Runtime Agent could not connect (ConnectionFailed): configured again "
                     "with a new one-time token");
        return wait_in(k_stage_wait_for_agent_to_connect, 2min);
    }
    if (*state == "Synchronized" || *state == "SynchronizationFailed" ||
        *state == "MetadataUpdateFailed") {
        mark_connected(context);
        return go_to(k_stage_finished);
    }
    return wait_in(k_stage_wait_for_agent_to_connect, 2s);
}

void unregister_from_director(StageContext& context) {
    Director& director = context.director();
    const Runtime& runtime = context.runtime();
    try {
        if (!director.runtime(runtime.id, runtime.tenant))
            return;
        director.unregister_runtime(runtime.id, runtime.tenant);
    } catch (const DirectorError& e) {
        if (is_not_found(e)) // unregistered by someone else since our look-up
            return;
        throw director_stage_error(context, e);
    }
}

void report_failed_to_director(const EngineOptions& options, const EnginePorts& ports,
                               const Operation& operation, const Runtime& runtime) {
    if (!reports_failures(options.director, operation.type))
        return;
    try {
        set_status(*ports.director, runtime, DirectorStatusCondition::Failed);
    } catch (const std::exception& e) {
        ports.write_log(LogLevel::Warning,
                        "operation " + operation.id +
                            " failed, but Director was not told so: " + e.what());
    }
}

} // namespace kprov::engine
