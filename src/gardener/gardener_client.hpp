#pragma once
// The Gardener API as kprov uses it: shoots in one project namespace (garden-<project>), their
// adminkubeconfig subresource, seeds, and config maps of the project namespace. A thin layer
// over KubeClient that knows paths, not provisioning rules.

#include "gardener/kube_client.hpp"

#include <chrono>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stop_token>
#include <string>

namespace kprov::gardener {

/// Thread-safe (as KubeClient). Errors are KubeError with component "k8s client - gardener"
/// and messages prefixed "gardener: ".
class GardenerClient {
public:
    /// Uses `client` for namespace "garden-<project>".
    GardenerClient(std::shared_ptr<KubeClient> client, std::string project);
    /// Builds the KubeClient from `kubeconfig`, with label "gardener" and component
    /// "k8s client - gardener" unless `options` sets them.
    GardenerClient(const Kubeconfig& kubeconfig, std::string project, ClientOptions options = {});

    const std::string& project() const { return m_project; }
    /// "garden-<project>".
    const std::string& namespace_name() const { return m_namespace; }
    KubeClient& kube() { return *m_client; }

    /// The shoot, or nullopt when it does not exist.
    std::optional<nlohmann::json> get_shoot(const std::string& name);
    /// Every shoot of the project matching `label_selector` (all pages): a ShootList whose
    /// metadata.resourceVersion is where a watch can start.
    nlohmann::json list_shoots(const std::string& label_selector = {});
    /// Creates `shoot` (POST); returns the stored shoot. KubeError is_already_exists() when the
    /// name is taken, is_invalid() with causes for a rejected spec.
    nlohmann::json create_shoot(const nlohmann::json& shoot);
    /// Replaces the shoot named in `shoot`'s metadata (PUT, with metadata.resourceVersion);
    /// is_conflict() when the version is stale.
    nlohmann::json update_shoot(const nlohmann::json& shoot);
    /// Applies a merge patch (annotations, spec.hibernation, ...); returns the stored shoot.
    nlohmann::json patch_shoot(const std::string& name, const nlohmann::json& merge_patch);
    /// DELETEs the shoot (it must carry the deletion-confirmation annotation). Returns false
    /// when it was already gone.
    bool delete_shoot(const std::string& name);
    /// Watches the project's shoots on the calling thread until `stop`; see KubeClient::watch.
    /// An empty `from_resource_version` starts with a list (a Resync event). Non-empty
    /// `object_fields`: events carry only these paths of each shoot (WatchOptions).
    void watch_shoots(const std::string& from_resource_version, const WatchCallback& callback,
                      std::stop_token stop, const std::string& label_selector = {},
                      std::vector<std::string> object_fields = {});
    /// Requests an admin kubeconfig valid for `expiration` (Gardener's minimum is 10 minutes)
    /// and returns its YAML text. Throws KubeError (404 no shoot, 422 control plane not up yet).
    std::string admin_kubeconfig(const std::string& shoot_name, std::chrono::seconds expiration);
    /// The seed (cluster-scoped), or nullopt when it does not exist.
    std::optional<nlohmann::json> get_seed(const std::string& name);

    /// Config maps in the project namespace (for the OIDC structured-authentication config).
    std::optional<nlohmann::json> get_config_map(const std::string& name);
    nlohmann::json create_config_map(const nlohmann::json& config_map);
    /// PUT of the config map named in its metadata.
    nlohmann::json update_config_map(const nlohmann::json& config_map);
    /// Creates it, or replaces the data of the existing one (re-reading on a version conflict).
    nlohmann::json create_or_update_config_map(const nlohmann::json& config_map);
    bool delete_config_map(const std::string& name);

    std::string shoots_path() const;
    std::string shoot_path(const std::string& name) const;

private:
    std::string config_maps_path() const;

    std::shared_ptr<KubeClient> m_client;
    std::string m_project;
    std::string m_namespace;
};

/// `object`'s metadata.name; throws kprov::Error when it has none (a caller's bug).
std::string object_name(const nlohmann::json& object, const char* what);

} // namespace kprov::gardener
