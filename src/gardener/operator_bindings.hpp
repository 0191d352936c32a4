#pragma once
// The engine's RuntimeClusterClient port: the operator role bindings that provisioning and
// upgrades create in a runtime cluster (original-provisioner.md §7.1, stage
// CreatingBindingsForOperators), written with the cluster's admin kubeconfig.

#include "engine/ports.hpp"
#include "gardener/cluster_connections.hpp"
#include "gardener/kube_client.hpp"

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace kprov::gardener {

class RuntimeClusterClient;

/// The two cluster roles of §7.1, l2-operator (aggregating) and l2-operator-rules.
std::vector<nlohmann::json> operator_cluster_roles();

/// The cluster role bindings of §7.1 for `bindings`: l2-operator, l3-operator-admin and, with
/// create_for_administrators, administrator0..N (one per administrator, in order).
std::vector<nlohmann::json>
operator_cluster_role_bindings(const engine::OperatorBindings& bindings);

/// The label selector of the bindings kprov (and the original's reconciler) manages:
/// "reconciler.kyma-project.io/managed-by=reconciler,app=kyma".
inline constexpr const char* k_managed_bindings_selector =
    "reconciler.kyma-project.io/managed-by=reconciler,app=kyma";

/// Where ConnectRuntimeAgent puts the Runtime Agent's configuration (original §2.3).
inline constexpr const char* k_agent_namespace = "kyma-system";
inline constexpr const char* k_agent_secret = "compass-agent-configuration";

/// The Secret compass-agent-configuration for `agent` (data CONNECTOR_URL, RUNTIME_ID, TENANT,
/// TOKEN, base64 encoded).
nlohmann::json agent_configuration_secret(const engine::AgentConfiguration& agent);

/// Thread-safe. Calls reach the cluster their kubeconfig names over connections kept between
/// calls (ClusterConnections: one transport per server and TLS settings, dropped after 30 s
/// unused), so the passes of one cluster, and of clusters behind one API server address, reuse
/// their connections. Errors are KubeError (a RemoteError, component "k8s client - cluster"),
/// or ConfigError for an unusable kubeconfig.
class ClusterBindings final : public engine::RuntimeClusterClient {
public:
    /// `options` for the runtime clusters' clients (rate limit, timeouts, retries); with
    /// `options.transport` set, every call uses that transport instead of kept connections.
    explicit ClusterBindings(ClientOptions options = {});
    ~ClusterBindings() override;

    /// In order: namespace istio-system, the cluster roles (each left as it is when it exists),
    /// one DeleteCollection of the managed bindings, then the bindings (AlreadyExists ignored).
    /// Running it again yields the same objects.
    void create_operator_bindings(const std::string& kubeconfig,
                                  const engine::OperatorBindings& bindings) override;

    /// Namespaces istio-system and kyma-system (when absent), then the Secret
    /// compass-agent-configuration in kyma-system: created, or its data replaced when it exists.
    void configure_runtime_agent(const std::string& kubeconfig,
                                 const engine::AgentConfiguration& agent) override;

    /// GET /apis/compass.kyma-project.io/v1alpha1/compassconnections/compass-connection; a 404
    /// (no such object, or the CRD is not there) is nullopt.
    std::optional<std::string> compass_connection_state(const std::string& kubeconfig) override;

private:
    // The cluster `kubeconfig` (from Gardener: inline credentials only) names, over a kept
    // transport.
    gardener::RuntimeClusterClient connect(const std::string& kubeconfig);

    ClientOptions m_options;
    std::unique_ptr<ClusterConnections> m_connections;
};

} // namespace kprov::gardener
