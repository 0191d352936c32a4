#include "clusters.hpp"

#include "resource_api.hpp"

namespace kprov::sim {

const std::vector<ResourceInfo>& ClusterRegistry::resources() {
    static const std::vector<ResourceInfo> list = {
        {"", "v1", "namespaces", "Namespace", false, "namespace", {"ns"}, {}},
        {"", "v1", "secrets", "Secret", true, "secret", {}, {}},
        {"", "v1", "configmaps", "ConfigMap", true, "configmap", {"cm"}, {}},
        {"", "v1", "serviceaccounts", "ServiceAccount", true, "serviceaccount", {"sa"}, {}},
        {"rbac.authorization.k8s.io",
         "v1",
         "clusterroles",
         "ClusterRole",
         false,
         "clusterrole",
         {},
         {}},
        {"rbac.authorization.k8s.io",
         "v1",
         "clusterrolebindings",
         "ClusterRoleBinding",
         false,
         "clusterrolebinding",
         {},
         {}},
        {"rbac.authorization.k8s.io", "v1", "roles", "Role", true, "role", {}, {}},
        {"rbac.authorization.k8s.io",
         "v1",
         "rolebindings",
         "RoleBinding",
         true,
         "rolebinding",
         {},
         {}},
    };
    return list;
}

ClusterRegistry::ClusterRegistry(std::function<std::uint64_t()> next_rv,
                                 std::function<std::uint64_t()> current_rv)
    : m_next_rv(std::move(next_rv))
    , m_current_rv(std::move(current_rv)) {}

void ClusterRegistry::create(const std::string& id, const std::string& shoot_ns,
                             const std::string& shoot_name) {
    if (id.empty() || m_clusters.count(id))
        return;
    Cluster& c = m_clusters[id];
    c.shoot_ns = shoot_ns;
    c.shoot_name = shoot_name;
    c.store = std::make_unique<ObjectStore>(resources(), m_next_rv, m_current_rv);
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
        c.store->ensure_namespace(ns);
    const ResourceInfo& cr = resources()[4];
    for (const char* role : {"cluster-admin", "admin", "edit", "view"})
        c.store->create(
            cr, "",
            Json{{"metadata",
                  {{"name", role}, {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
                 {"rules",
                  Json::array({{{"apiGroups", {"*"}},
                                {"resources", {"*"}},
                                {"verbs", {std::string(role) == "view" ? "get" : "*"}}}})}});
}

void ClusterRegistry::remove(const std::string& id) {
    m_clusters.erase(id);
    for (auto it = m_tokens.begin(); it != m_tokens.end();)
        it = it->second.cluster == id ? m_tokens.erase(it) : std::next(it);
}

void ClusterRegistry::set_hibernated(const std::string& id, bool hibernated) {
    auto it = m_clusters.find(id);
    if (it != m_clusters.end())
        it->second.hibernated = hibernated;
}

std::string ClusterRegistry::issue_token(const std::string& id, TimePoint expiry) {
    std::string token = "sim-" + random_token(40);
    m_tokens[token] = {id, expiry};
    return token;
}

bool ClusterRegistry::token_valid(const std::string& id, const std::string& token) const {
    auto it = m_tokens.find(token);
    return it != m_tokens.end() && it->second.cluster == id && it->second.expiry > Clock::now();
}

ApiResponse ClusterRegistry::handle(const std::string& id, const std::string& sub_path,
                                    const ApiRequest& req) {
    if (sub_path == "/healthz" || sub_path == "/livez" || sub_path == "/readyz") {
        ApiResponse r;
        r.body = "ok";
        r.content_type = "text/plain";
        return r;
    }
    auto it = m_clusters.find(id);
    if (it == m_clusters.end())
        throw service_unavailable("the runtime cluster \"" + id +
                                  "\" does not exist (its shoot is "
                                  "not created yet or was deleted)");
    Cluster& c = it->second;
    if (c.hibernated)
        throw service_unavailable("the runtime cluster \"" + id +
                                  "\" is hibernated: its API server "
                                  "is scaled down");
    if (auto d = serve_discovery(req, sub_path, resources(), {}))
        return *d;
    auto path = parse_k8s_path(sub_path, [&](const std::string& g, const std::string& r) {
        const ResourceInfo* info = c.store->find(g, r);
        return info && info->namespaced;
    });
    const ResourceInfo* info = path ? c.store->find(path->group, path->resource) : nullptr;
    if (!info || info->version != path->version)
        throw ApiError(404, failure_status(404, "NotFound",
                                           "the server could not find the requested resource"));
    return serve_store(*c.store, *info, *path, req);
}

Json ClusterRegistry::describe() const {
    Json out = Json::array();
    for (const auto& [id, c] : m_clusters) {
        std::size_t tokens = 0;
        for (const auto& [t, tok] : m_tokens)
            tokens += tok.cluster == id ? 1 : 0;
        out.push_back({{"id", id},
                       {"shoot", c.shoot_ns + "/" + c.shoot_name},
                       {"hibernated", c.hibernated},
                       {"tokens", tokens}});
    }
    return {{"clusters", out}};
}

} // namespace kprov::sim
