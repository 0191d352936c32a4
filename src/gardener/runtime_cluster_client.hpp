#pragma once
// A runtime cluster's API, reached with the admin kubeconfig Gardener hands out: the few
// objects kprov writes there (namespaces, cluster roles and bindings, secrets, config maps).
// A thin layer over KubeClient that knows paths, not provisioning rules.

#include "gardener/kube_client.hpp"

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace kprov::gardener {

/// Thread-safe (as KubeClient). Errors are KubeError with component "k8s client - cluster" and
/// messages prefixed "runtime cluster: ". The create_* helpers return true when they created the
/// object and false when it already existed (which they leave unchanged).
class RuntimeClusterClient {
public:
    explicit RuntimeClusterClient(std::shared_ptr<KubeClient> client);
    /// Parses `kubeconfig_yaml` (as returned by GardenerClient::admin_kubeconfig; its current
    /// context) and connects with `options` (label "runtime cluster" unless set). Throws
    /// ConfigError for an unusable kubeconfig, never quoting it; it comes from Gardener, so it
    /// must carry its credentials inline (KubeconfigOrigin::Remote: file references, exec and
    /// auth-provider are refused).
    static RuntimeClusterClient from_kubeconfig(const std::string& kubeconfig_yaml,
                                                ClientOptions options = {});
    /// A client for an already parsed kubeconfig, with the same defaults for `options`.
    static RuntimeClusterClient connect(Kubeconfig config, ClientOptions options = {});

    KubeClient& kube() { return *m_client; }

    std::optional<nlohmann::json> get_namespace(const std::string& name);
    /// Creates namespace `name` with `labels` (a JSON object, may be null) if it is absent.
    bool create_namespace(const std::string& name, const nlohmann::json& labels);

    bool create_cluster_role(const nlohmann::json& cluster_role);
    bool create_cluster_role_binding(const nlohmann::json& binding);
    nlohmann::json list_cluster_role_bindings(const std::string& label_selector);
    /// Deletes every cluster role binding matching `label_selector` (one DeleteCollection).
    void delete_cluster_role_bindings(const std::string& label_selector);

    std::optional<nlohmann::json> get_secret(const std::string& ns, const std::string& name);
    bool create_secret(const std::string& ns, const nlohmann::json& secret);
    nlohmann::json update_secret(const std::string& ns, const nlohmann::json& secret);
    /// False when it was already gone.
    bool delete_secret(const std::string& ns, const std::string& name);

    std::optional<nlohmann::json> get_config_map(const std::string& ns, const std::string& name);
    bool create_config_map(const std::string& ns, const nlohmann::json& config_map);

private:
    std::shared_ptr<KubeClient> m_client;
};

} // namespace kprov::gardener
