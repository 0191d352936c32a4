#pragma once
// Small scriptable stand-ins for the engine's ports to the world (src/engine/ports.hpp): an
// in-memory Gardener project holding shoots as JSON, and runtime clusters that record what was
// asked of them. Tests move shoots through their lifecycle by hand (succeed, set_last_operation,
// finish_deletion, ...) and inject failures per method; every call is counted.

#include "engine/ports.hpp"
#include "engine/util/time.hpp"

#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kprov::fakes {

/// The fields of a Shoot JSON object read into a ShootState, as a Gardener adapter would.
engine::ShootState shoot_state_of(const nlohmann::json& shoot);

class FakeGardener : public engine::ShootClient {
public:
    explicit FakeGardener(const Clock& clock, std::string project = "kyma-dev");

    std::optional<engine::ShootState> get(const std::string& name) override;
    /// From `watched_states` (what a test says the watch delivered); not counted as a call.
    std::optional<engine::ShootState> watched(const std::string& name) override;
    std::vector<engine::ShootState> list(const std::string& label_selector) override;
    engine::ShootState create(const std::string& shoot_json) override;
    engine::ShootState update(const std::string& shoot_json) override;
    engine::ShootState patch(const std::string& name, const std::string& merge_patch_json) override;
    bool remove(const std::string& name) override;
    std::string admin_kubeconfig(const std::string& name, std::chrono::seconds expiration) override;
    void put_config_map(const std::string& config_map_json) override;
    void delete_config_map(const std::string& name) override;

    // --- scripting ---------------------------------------------------------------------------

    bool has_shoot(const std::string& name) const;
    /// The stored shoot, to read or edit freely. Throws std::out_of_range when absent.
    nlohmann::json& shoot(const std::string& name);
    /// Stores `shoot` as it is (metadata.name required), filling generation/resourceVersion.
    void add_shoot(nlohmann::json shoot);
    void set_last_operation(const std::string& name, const std::string& type,
                            const std::string& state, const std::string& description = "",
                            int progress = 0);
    void clear_last_operation(const std::string& name);
    void set_last_errors(const std::string& name, const std::vector<std::string>& codes,
                         const std::string& description = "");
    /// status.observedGeneration = metadata.generation: the gardenlet picked up the spec.
    void observe(const std::string& name);
    /// observe, then lastOperation {type, Succeeded, 100}, lastErrors cleared and
    /// status.hibernated = spec.hibernation.enabled.
    void succeed(const std::string& name, const std::string& type = "Create");
    void set_hibernation_possible(const std::string& name, bool possible,
                                  const std::string& message);
    /// The deletion finished: the shoot is gone.
    void finish_deletion(const std::string& name);

    /// The next call of `method` ("get", "create", "update", "patch", "remove",
    /// "admin_kubeconfig", "put_config_map", "delete_config_map", "list") throws `error`.
    void fail_next(const std::string& method, std::exception_ptr error);
    /// Called at the start of every call with the method and the shoot name ("" if none).
    std::function<void(const std::string& method, const std::string& name)> on_call;
    int calls(const std::string& method) const;
    int total_calls() const;

    /// What the shared watch delivered last, per shoot name (ShootClient::watched).
    std::map<std::string, engine::ShootState> watched_states;
    /// Creating a shoot without spec.dns.domain defaults it, as Gardener does.
    bool default_dns_domain = true;
    std::map<std::string, nlohmann::json> config_maps;
    std::optional<std::chrono::seconds> last_kubeconfig_expiration;

private:
    void enter(const std::string& method, const std::string& name);
    void bump_resource_version(nlohmann::json& shoot);
    nlohmann::json& stored(const std::string& name);

    const Clock& m_clock;
    std::string m_project;
    mutable std::recursive_mutex m_mutex;
    std::map<std::string, nlohmann::json> m_shoots;
    std::map<std::string, std::deque<std::exception_ptr>> m_failures;
    std::map<std::string, int> m_calls;
    long m_resource_version = 100;
};

/// Records create_operator_bindings and configure_runtime_agent calls; fail_next makes the next
/// call of either throw.
class FakeRuntimeClusters : public engine::RuntimeClusterClient {
public:
    struct Call {
        std::string kubeconfig;
        engine::OperatorBindings bindings;
    };
    struct AgentCall {
        std::string kubeconfig;
        engine::AgentConfiguration agent;
    };

    void create_operator_bindings(const std::string& kubeconfig,
                                  const engine::OperatorBindings& bindings) override;
    void configure_runtime_agent(const std::string& kubeconfig,
                                 const engine::AgentConfiguration& agent) override;
    /// Answers `connection_state` (nullopt: no CompassConnection); counted in connection_reads.
    std::optional<std::string> compass_connection_state(const std::string& kubeconfig) override;
    void fail_next(std::exception_ptr error);

    std::vector<Call> calls;
    std::vector<AgentCall> agent_calls;
    std::optional<std::string> connection_state = "Synchronized";
    int connection_reads = 0;

private:
    void throw_next_failure();
    std::deque<std::exception_ptr> m_failures;
};

} // namespace kprov::fakes
