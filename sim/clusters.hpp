#pragma once
// The runtime clusters behind the kubeconfigs that `adminkubeconfig` returns: one per shoot,
// served at /clusters/<technicalID>/ with namespaces, secrets, config maps, service accounts and
// RBAC objects, and their own bearer tokens. A hibernated cluster answers 503.
// Not thread-safe: the caller holds the world lock.

#include "api.hpp"
#include "object_store.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace kprov::sim {

class ClusterRegistry {
public:
    ClusterRegistry(std::function<std::uint64_t()> next_rv,
                    std::function<std::uint64_t()> current_rv);

    /// Creates the cluster of a shoot with its initial namespaces and cluster roles; no-op if
    /// it exists.
    void create(const std::string& id, const std::string& shoot_ns, const std::string& shoot_name);
    /// Removes the cluster and its tokens.
    void remove(const std::string& id);
    void set_hibernated(const std::string& id, bool hibernated);
    bool exists(const std::string& id) const { return m_clusters.count(id) > 0; }

    /// A new token for cluster `id`, valid until `expiry`.
    std::string issue_token(const std::string& id, TimePoint expiry);
    /// True when `token` grants access to cluster `id` now.
    bool token_valid(const std::string& id, const std::string& token) const;

    /// Serves one request of cluster `id`; `sub_path` is what follows /clusters/<id>.
    /// Authentication is the caller's job.
    ApiResponse handle(const std::string& id, const std::string& sub_path, const ApiRequest& req);

    /// The resources every runtime cluster serves.
    static const std::vector<ResourceInfo>& resources();
    Json describe() const;

private:
    struct Cluster {
        std::string shoot_ns;
        std::string shoot_name;
        bool hibernated = false;
        std::unique_ptr<ObjectStore> store;
    };
    struct Token {
        std::string cluster;
        TimePoint expiry;
    };

    std::function<std::uint64_t()> m_next_rv;
    std::function<std::uint64_t()> m_current_rv;
    std::map<std::string, Cluster> m_clusters;
    std::map<std::string, Token> m_tokens;
};

} // namespace kprov::sim
