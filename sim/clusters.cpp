#include "clusters.hpp"

#include "api_versions.hpp"
#include "resource_api.hpp"

#include <algorithm>
#include <cstdio>

namespace kprov::sim {

namespace {

const char* k_apiextensions = "apiextensions.k8s.io";
// Groups whose resources exist only while the CRD `<plural>.<group>` does.
const std::vector<std::string> k_crd_groups = {"installer.kyma-project.io", "servicecatalog.k8s.io",
                                               "compass.kyma-project.io"};

ResourceInfo res(const char* group, const char* version, const char* plural, const char* kind,
                 bool namespaced, const char* singular) {
    return {group, version, plural, kind, namespaced, singular, {}, {}};
}

std::string crd_name(const ResourceInfo& info) {
    return info.resource + "." + info.group;
}

bool is_crd_backed(const ResourceInfo& info) {
    return std::find(k_crd_groups.begin(), k_crd_groups.end(), info.group) != k_crd_groups.end();
}

// /version of a cluster: the shoot's Kubernetes version in `info` (the sim's answer).
Json version_of(const std::string& kubernetes_version, Json info) {
    const auto dot = kubernetes_version.find('.');
    if (dot == std::string::npos)
        return info;
    const auto end = kubernetes_version.find('.', dot + 1);
    info["major"] = kubernetes_version.substr(0, dot);
    info["minor"] =
        kubernetes_version.substr(dot + 1, end == std::string::npos ? end : end - dot - 1);
    info["gitVersion"] =
        "v" + kubernetes_version + (end == std::string::npos ? ".0" : "") + "-kprov-sim";
    return info;
}

// The cluster `id` of `clusters` (const or not); 404 for /sim requests naming no cluster.
template <class Map> auto& find_cluster(Map& clusters, const std::string& id) {
    auto it = clusters.find(id);
    if (it == clusters.end())
        throw ApiError(404,
                       failure_status(404, "NotFound",
                                      "no runtime cluster \"" + id + "\" (GET /sim/clusters)"));
    return it->second;
}

// An unknown resource of a group/version the cluster serves: the Status the generic API server
// makes of go-restful's 404.
ApiError no_such_resource() {
    return {404, failure_status(404, "NotFound", k_no_such_resource)};
}

// A group/version the cluster serves nothing of (removed in its Kubernetes version, or never
// there): no go-restful web service matches, so kube-apiserver's last handler (apiserver's
// notfoundhandler) answers with net/http's plain text, not a Status. Clients then report "the
// server could not find the requested resource" themselves.
ApiResponse page_not_found() {
    ApiResponse r;
    r.status = 404;
    r.body = "404 page not found\n";
    r.content_type = "text/plain; charset=utf-8";
    return r;
}

// Whether `sub_path` (/api/V/..., /apis/G/V/...) names a group/version of `served`; true for a
// path that names none (those get the Status of no_such_resource).
bool serves_group_version_of(const std::vector<ResourceInfo>& served, const std::string& sub_path) {
    const std::vector<std::string> seg = split_segments(sub_path);
    std::string group, version;
    if (seg.size() >= 2 && seg[0] == "api")
        version = seg[1];
    else if (seg.size() >= 3 && seg[0] == "apis")
        group = seg[1], version = seg[2];
    else
        return true;
    return std::any_of(served.begin(), served.end(), [&](const ResourceInfo& r) {
        return r.group == group && r.version == version;
    });
}

} // namespace

const std::vector<ResourceInfo>& ClusterRegistry::resources() {
    static const std::vector<ResourceInfo> list = [] {
        std::vector<ResourceInfo> l = {
            {"", "v1", "namespaces", "Namespace", false, "namespace", {"ns"}, {}},
            res("", "v1", "secrets", "Secret", true, "secret"),
            {"", "v1", "configmaps", "ConfigMap", true, "configmap", {"cm"}, {}},
            {"", "v1", "serviceaccounts", "ServiceAccount", true, "serviceaccount", {"sa"}, {}},
            {"", "v1", "services", "Service", true, "service", {"svc"}, {}},
            {"", "v1", "limitranges", "LimitRange", true, "limitrange", {"limits"}, {}},
            {"", "v1", "pods", "Pod", true, "pod", {"po"}, {}},
            res("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false,
                "clusterrole"),
            res("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
                false, "clusterrolebinding"),
            res("rbac.authorization.k8s.io", "v1", "roles", "Role", true, "role"),
            res("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true,
                "rolebinding"),
            {"apps", "v1", "deployments", "Deployment", true, "deployment", {"deploy"}, {}},
            res("batch", "v1", "jobs", "Job", true, "job"),
            {"scheduling.k8s.io",
             "v1",
             "priorityclasses",
             "PriorityClass",
             false,
             "priorityclass",
             {"pc"},
             {}},
            res("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true,
                "poddisruptionbudget"),
            {"policy",
             "v1beta1",
             "podsecuritypolicies",
             "PodSecurityPolicy",
             false,
             "podsecuritypolicy",
             {"psp"},
             {}},
            {k_apiextensions,
             "v1",
             "customresourcedefinitions",
             "CustomResourceDefinition",
             false,
             "customresourcedefinition",
             {"crd", "crds"},
             {}},
            {k_apiextensions,
             "v1beta1",
             "customresourcedefinitions",
             "CustomResourceDefinition",
             false,
             "customresourcedefinition",
             {"crd", "crds"},
             {}},
            {"installer.kyma-project.io",
             "v1alpha1",
             "installations",
             "Installation",
             true,
             "installation",
             {"installation"},
             {}},
            res("servicecatalog.k8s.io", "v1beta1", "clusterservicebrokers", "ClusterServiceBroker",
                false, "clusterservicebroker"),
            res("servicecatalog.k8s.io", "v1beta1", "clusterserviceclasses", "ClusterServiceClass",
                false, "clusterserviceclass"),
            res("servicecatalog.k8s.io", "v1beta1", "serviceinstances", "ServiceInstance", true,
                "serviceinstance"),
            res("compass.kyma-project.io", "v1alpha1", "compassconnections", "CompassConnection",
                false, "compassconnection"),
        };
        return l;
    }();
    return list;
}

ClusterRegistry::ClusterRegistry(std::function<std::uint64_t()> next_rv,
                                 std::function<std::uint64_t()> current_rv, KymaSettings kyma)
    : m_next_rv(std::move(next_rv))
    , m_current_rv(std::move(current_rv))
    , m_kyma(kyma) {}

void ClusterRegistry::create(const std::string& id, const std::string& shoot_ns,
                             const std::string& shoot_name, const std::string& kubernetes_version) {
    if (id.empty())
        return;
    if (auto existing = m_clusters.find(id); existing != m_clusters.end()) {
        existing->second.kubernetes_version = kubernetes_version;
        return;
    }
    Cluster& c = m_clusters[id];
    c.id = id;
    c.kubernetes_version = kubernetes_version;
    if (auto early = m_early_tokens.find(id); early != m_early_tokens.end()) {
        c.tokens = std::move(early->second);
        m_early_tokens.erase(early);
    }
    m_by_shoot.emplace(shoot_name, id);
    c.shoot_ns = shoot_ns;
    c.shoot_name = shoot_name;
    c.store = std::make_unique<ObjectStore>(resources(), m_next_rv, m_current_rv);
    if (m_shut_down)
        c.watches.shutdown();
    std::vector<std::string> conditional = k_crd_groups;
    conditional.push_back(k_apiextensions);
    c.store->set_conditional_update_groups(conditional);
    c.store->set_observer([this, &c](const std::string& type, const ResourceInfo& info,
                                     const Json& obj) { observe(c, type, info, obj); });
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
        c.store->ensure_namespace(ns);
    const ResourceInfo& cr = *c.store->find("rbac.authorization.k8s.io", "clusterroles");
    for (const char* role : {"cluster-admin", "admin", "edit", "view"})
        c.store->create(
            cr, "",
            Json{{"metadata",
                  {{"name", role}, {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
                 {"rules",
                  Json::array({{{"apiGroups", {"*"}},
                                {"resources", {"*"}},
                                {"verbs", {std::string(role) == "view" ? "get" : "*"}}}})}});
    // Knobs are validated when posted; a failing action (e.g. "state" without a CR) is skipped.
    std::vector<Json> knobs;
    if (!m_defaults.empty())
        knobs.push_back(m_defaults);
    if (auto it = m_pending.find(id); it != m_pending.end()) {
        knobs.insert(knobs.end(), it->second.begin(), it->second.end());
        m_pending.erase(it);
    }
    for (const auto& k : knobs) {
        try {
            apply_knobs(c, k);
        } catch (const ApiError&) {
        }
    }
    reindex(c, TimePoint::min()); // the first pass looks at what the knobs set up
}

void ClusterRegistry::remove(const std::string& id) {
    m_early_tokens.erase(id);
    auto it = m_clusters.find(id);
    if (it == m_clusters.end())
        return;
    Cluster& c = it->second;
    reindex(c, std::nullopt);
    for (const auto& token : c.tokens)
        m_tokens.erase(token);
    auto [from, to] = m_by_shoot.equal_range(c.shoot_name);
    for (auto s = from; s != to; ++s)
        if (s->second == id) {
            m_by_shoot.erase(s);
            break;
        }
    m_clusters.erase(it);
}

void ClusterRegistry::set_hibernated(const std::string& id, bool hibernated) {
    auto it = m_clusters.find(id);
    if (it == m_clusters.end() || it->second.hibernated == hibernated)
        return;
    it->second.hibernated = hibernated;
    // Asleep, nothing runs; awake, the first pass catches up on what fell due meanwhile.
    reindex(it->second, hibernated ? std::nullopt : std::optional<TimePoint>(TimePoint::min()));
}

std::string ClusterRegistry::resolve(const std::string& name) const {
    if (m_clusters.count(name))
        return name;
    auto [from, to] = m_by_shoot.equal_range(name);
    if (from != to && std::next(from) == to)
        return from->second;
    return name;
}

ClusterRegistry::Cluster& ClusterRegistry::cluster(const std::string& id) {
    return find_cluster(m_clusters, id);
}

const ClusterRegistry::Cluster& ClusterRegistry::cluster(const std::string& id) const {
    return find_cluster(m_clusters, id);
}

std::string ClusterRegistry::issue_token(const std::string& id, TimePoint expiry) {
    std::string token = "sim-" + random_token(40);
    m_tokens[token] = {id, expiry};
    if (auto it = m_clusters.find(id); it != m_clusters.end())
        it->second.tokens.insert(token);
    else
        m_early_tokens[id].insert(token); // the cluster's once it is created
    return token;
}

bool ClusterRegistry::token_valid(const std::string& id, const std::string& token) const {
    auto it = m_tokens.find(token);
    return it != m_tokens.end() && it->second.cluster == id && it->second.expiry > Clock::now();
}

std::size_t ClusterRegistry::expire_tokens(const std::string& id) {
    std::size_t n = 0;
    TimePoint now = Clock::now();
    auto c = m_clusters.find(id);
    if (c == m_clusters.end())
        return 0;
    for (const auto& token : c->second.tokens)
        if (auto t = m_tokens.find(token); t != m_tokens.end() && t->second.expiry > now) {
            t->second.expiry = now;
            ++n;
        }
    return n;
}

std::vector<ResourceInfo> ClusterRegistry::served(const Cluster& c, TimePoint now) const {
    std::vector<ResourceInfo> out;
    for (const auto& info : resources()) {
        if (!api_version_served(info.group, info.version, c.kubernetes_version))
            continue;
        if (is_crd_backed(info)) {
            auto it = c.crd_established.find(crd_name(info));
            if (it == c.crd_established.end() || it->second > now)
                continue;
        }
        out.push_back(info);
    }
    return out;
}

void ClusterRegistry::observe(Cluster& c, const std::string& type, const ResourceInfo& info,
                              const Json& obj) {
    const Json& md = obj["metadata"];
    std::string name = md.value("name", "");
    if (info.resource == "customresourcedefinitions") {
        if (type == "ADDED") {
            c.crd_established[name] = Clock::now() + seconds_to_duration(c.crd_establish_seconds);
            c.crd_status_pending.insert(name);
        } else if (type == "DELETED") {
            c.crd_established.erase(name);
            c.crd_status_pending.erase(name);
        }
    }
    if (info.resource == "deployments" && type == "ADDED" &&
        md.value("namespace", "") == "kube-system" && name == "tiller-deploy") {
        // No controllers run here: the Tiller Deployment gets its one pod at once.
        const ResourceInfo& pods = *c.store->find("", "pods");
        c.store->create(pods, "kube-system",
                        {{"metadata",
                          {{"name", "tiller-deploy-" + random_token(10)},
                           {"labels", {{"app", "helm"}, {"name", "tiller"}}}}},
                         {"status", {{"phase", c.tiller_pod_phase}}}});
    }
    if (info.resource == "installations" && md.value("namespace", "") == "default" &&
        name == "kyma-installation")
        c.kyma.observe(type, obj);
    c.watches.publish(type, info, obj);
    // Whatever a client wrote may start the installer or the agent: the next pass looks.
    if (!c.advancing)
        reindex(c, TimePoint::min());
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
    std::vector<ResourceInfo> now_served = served(c, Clock::now());
    if (auto d = serve_discovery(req, sub_path, now_served, {})) {
        if (sub_path == "/version")
            d->body = version_of(c.kubernetes_version, Json::parse(d->body)).dump();
        return *d;
    }
    if (!serves_group_version_of(now_served, sub_path))
        return page_not_found();
    auto path = parse_k8s_path(sub_path, [&](const std::string& g, const std::string& r) {
        const ResourceInfo* info = c.store->find(g, r);
        return info && info->namespaced;
    });
    if (!path)
        throw no_such_resource();
    auto served_it = std::find_if(now_served.begin(), now_served.end(), [&](const auto& r) {
        return r.group == path->group && r.version == path->version && r.resource == path->resource;
    });
    if (served_it == now_served.end())
        throw no_such_resource();
    const ResourceInfo& info = *c.store->find(path->group, path->version, path->resource);
    if (req.method == "GET" && path->name.empty() && path->subresource.empty() && is_watch(req))
        return c.watches.watch(*c.store, info, path->ns, req, m_bookmark_seconds,
                               m_watch_timeout_seconds);
    if (req.method == "DELETE" && info.resource == "serviceinstances" && c.fail_instance_deletion)
        throw internal_error("serviceinstance deletion failed (kprov-sim failInstanceDeletion)");
    return serve_store(*c.store, info, *path, req);
}

// What the apiextensions controller writes once a CRD is served: its accepted names and the
// NamesAccepted and Established conditions (a new resourceVersion, as on a real cluster).
void ClusterRegistry::write_crd_status(Cluster& c, TimePoint now) {
    const ResourceInfo& crds = *c.store->find(k_apiextensions, "v1", "customresourcedefinitions");
    for (auto it = c.crd_status_pending.begin(); it != c.crd_status_pending.end();) {
        auto at = c.crd_established.find(*it);
        if (at != c.crd_established.end() && at->second > now) {
            ++it;
            continue;
        }
        if (auto crd = c.store->find_object(crds, "", *it)) {
            std::string ts = rfc3339(now);
            Json& st = (*crd)["status"];
            Json spec = crd->value("spec", Json::object());
            if (!spec.is_object())
                spec = Json::object();
            st["acceptedNames"] = spec.value("names", Json::object());
            st["conditions"] = Json::array({{{"type", "NamesAccepted"},
                                             {"status", "True"},
                                             {"reason", "NoConflicts"},
                                             {"message", "no conflicts found"},
                                             {"lastTransitionTime", ts}},
                                            {{"type", "Established"},
                                             {"status", "True"},
                                             {"reason", "InitialNamesAccepted"},
                                             {"message", "the initial names have been accepted"},
                                             {"lastTransitionTime", ts}}});
            Json stored = Json::array();
            if (spec.contains("version"))
                stored.push_back(spec["version"]);
            for (const auto& v : spec.value("versions", Json::array()))
                if (v.is_object() && v.value("storage", false) && v.contains("name"))
                    stored.push_back(v["name"]);
            st["storedVersions"] = stored;
            c.store->update(crds, "", *it, *crd);
        }
        it = c.crd_status_pending.erase(it);
    }
}

void ClusterRegistry::advance(TimePoint now, const std::string& only) {
    if (!only.empty()) {
        auto it = m_clusters.find(only);
        if (it != m_clusters.end() && it->second.indexed_due && *it->second.indexed_due <= now)
            advance_cluster(it->second, now);
        return;
    }
    for (const auto& id : m_due.due_by(now))
        if (auto it = m_clusters.find(id); it != m_clusters.end())
            advance_cluster(it->second, now);
}

void ClusterRegistry::advance_cluster(Cluster& c, TimePoint now) {
    if (c.hibernated)
        return;
    bool failed = false;
    c.advancing = true;
    try {
        write_crd_status(c, now);
        c.kyma.advance(*c.store, now, m_kyma);
    } catch (const std::exception& e) {
        // A CR a test wrote by hand (an invalid label, a malformed errorLog) can make a
        // status write fail; the installer tries again a second later.
        std::fprintf(stderr, "kprov-sim: kyma installer of %s: %s\n", c.id.c_str(), e.what());
        failed = true;
    }
    try {
        c.agent.advance(*c.store, now, c.kyma.installed(RuntimeAgent::k_release),
                        m_kyma.component_seconds, [&] {
                            ensure_crd(c, "compassconnections", "compass.kyma-project.io",
                                       "CompassConnection", "v1alpha1", false);
                        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kprov-sim: runtime agent of %s: %s\n", c.id.c_str(), e.what());
        failed = true;
    }
    c.advancing = false;
    std::optional<TimePoint> due = own_due(c);
    if (failed) {
        const TimePoint retry = now + std::chrono::seconds(1);
        due = due ? std::min(*due, retry) : retry;
    }
    reindex(c, due);
}

std::optional<TimePoint> ClusterRegistry::own_due(const Cluster& c) const {
    std::optional<TimePoint> due;
    for (auto d : {c.kyma.next_due(), c.agent.next_due()})
        if (d && (!due || *d < *due))
            due = d;
    for (const auto& name : c.crd_status_pending) {
        auto at = c.crd_established.find(name);
        if (at != c.crd_established.end() && (!due || at->second < *due))
            due = at->second;
    }
    return due;
}

void ClusterRegistry::reindex(Cluster& c, std::optional<TimePoint> due) {
    if (c.hibernated)
        due.reset();
    m_due.file(c.id, c.indexed_due, due);
}

std::optional<TimePoint> ClusterRegistry::next_due() const {
    return m_due.next();
}

void ClusterRegistry::shutdown() {
    m_shut_down = true;
    for (auto& [id, c] : m_clusters)
        c.watches.shutdown();
}

Json ClusterRegistry::describe() const {
    Json out = Json::array();
    for (const auto& [id, c] : m_clusters) {
        std::size_t tokens = c.tokens.size();
        out.push_back({{"id", id},
                       {"shoot", c.shoot_ns + "/" + c.shoot_name},
                       {"kubernetesVersion", c.kubernetes_version},
                       {"hibernated", c.hibernated},
                       {"tokens", tokens}});
    }
    Json pending = Json::array();
    for (const auto& [id, knobs] : m_pending)
        pending.push_back(id);
    return {{"clusters", out}, {"pendingKnobs", pending}};
}

} // namespace kprov::sim
