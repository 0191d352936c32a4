#pragma once
// The runtime clusters behind the kubeconfigs that `adminkubeconfig` returns: one per shoot,
// served at /clusters/<technicalID>/ with the core, RBAC, apps, batch, policy and scheduling
// objects an installer YAML holds, CustomResourceDefinitions, the Kyma Installation resource
// once its CRD exists, Service Catalog when
// a test installs it, the Compass Runtime Agent's CompassConnection once its CRD exists, watches
// of every resource, their own bearer tokens, a simulated Kyma installer and a simulated runtime
// agent. Each serves only the group/versions its shoot's Kubernetes version serves
// (api_versions.hpp): a removed one is 404 and absent from discovery, as on a real cluster.
// A hibernated cluster answers 503 and keeps its objects.
// Not thread-safe: the caller holds the world lock.

#include "api.hpp"
#include "due_index.hpp"
#include "kyma_installer.hpp"
#include "object_store.hpp"
#include "runtime_agent.hpp"
#include "store_watches.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kprov::sim {

class ClusterRegistry {
public:
    ClusterRegistry(std::function<std::uint64_t()> next_rv,
                    std::function<std::uint64_t()> current_rv, KymaSettings kyma = {});

    /// Creates the cluster of a shoot running Kubernetes `kubernetes_version` with its initial
    /// namespaces and cluster roles, then applies the knobs for every new cluster and those
    /// posted for `id` beforehand. When it exists, only its Kubernetes version is set (a
    /// finished upgrade).
    void create(const std::string& id, const std::string& shoot_ns, const std::string& shoot_name,
                const std::string& kubernetes_version);
    /// Removes the cluster, its tokens and its watches.
    void remove(const std::string& id);
    void set_hibernated(const std::string& id, bool hibernated);
    bool exists(const std::string& id) const { return m_clusters.count(id) > 0; }
    /// True when cluster `id` exists and is hibernated.
    bool hibernated(const std::string& id) const {
        auto it = m_clusters.find(id);
        return it != m_clusters.end() && it->second.hibernated;
    }
    /// The cluster id for a /sim path segment: a technical id as is, or the shoot name of
    /// exactly one existing cluster; otherwise `name` unchanged (a cluster to come).
    std::string resolve(const std::string& name) const;

    /// A new token for cluster `id`, valid until `expiry`.
    std::string issue_token(const std::string& id, TimePoint expiry);
    /// True when `token` grants access to cluster `id` now.
    bool token_valid(const std::string& id, const std::string& token) const;
    /// Makes every token of cluster `id` expire now; returns how many there were.
    std::size_t expire_tokens(const std::string& id);

    /// Serves one request of cluster `id`; `sub_path` is what follows /clusters/<id>.
    /// Authentication is the caller's job.
    ApiResponse handle(const std::string& id, const std::string& sub_path, const ApiRequest& req);

    /// Runs the Kyma installers and runtime agents of the awake clusters (or only of cluster
    /// `only`) up to `now`. Only clusters that are due are visited: a cluster is due when a
    /// write reached its store since its last pass or when its installer, agent or a CRD's
    /// status has a step at or before `now` (an index by due time, not a scan).
    void advance(TimePoint now, const std::string& only = "");
    /// The earliest time advance() has work; nullopt if none.
    std::optional<TimePoint> next_due() const;

    /// POST /sim/clusters/{id}/kyma (see tests/sim/README.md): applied at once when the
    /// cluster exists, else kept until it is created. Throws ApiError 400 for a bad body
    /// (nothing applied) and 404 for an action on an Installation that does not exist.
    void configure(const std::string& id, const Json& knobs);
    /// The knobs applied to every cluster created from now on (merged over earlier ones).
    void set_defaults(const Json& knobs);
    const Json& defaults() const { return m_defaults; }
    /// Installer state, knobs, CR history, overrides and the agent; 404 for an unknown cluster.
    Json describe_kyma(const std::string& id) const;
    /// {"<release>": {"key": "value"}}; 404 for an unknown cluster.
    Json kyma_overrides(const std::string& id) const;
    KymaSettings& kyma_settings() { return m_kyma; }
    /// The BOOKMARK interval and the longest watch for runtime-cluster watches (the
    /// --bookmark-seconds and --watch-timeout-seconds of shoot watches).
    void set_watch_limits(double bookmark_seconds, double timeout_seconds) {
        m_bookmark_seconds = bookmark_seconds;
        m_watch_timeout_seconds = timeout_seconds;
    }

    /// Ends every watch for good (server stop).
    void shutdown();

    /// Every resource a runtime cluster can serve (some only once their CRD exists).
    static const std::vector<ResourceInfo>& resources();
    Json describe() const;

private:
    struct Cluster {
        std::string id;
        std::string shoot_ns;
        std::string shoot_name;
        bool hibernated = false;
        std::unique_ptr<ObjectStore> store;
        KymaInstaller kyma;
        RuntimeAgent agent;
        std::string kubernetes_version; ///< of its shoot: which group/versions it serves
        double crd_establish_seconds = 0;
        bool fail_instance_deletion = false;
        std::string tiller_pod_phase = "Running"; ///< of the pod a tiller-deploy Deployment gets
        std::map<std::string, TimePoint> crd_established; ///< CRD name -> served from then on
        std::set<std::string> crd_status_pending;         ///< CRDs whose Established status is due
        StoreWatches watches;
        std::set<std::string> tokens;            ///< the keys of m_tokens issued for it
        DueIndex<std::string>::Slot indexed_due; ///< its entry in m_due
        bool advancing = false;                  ///< its own pass's writes do not make it due
    };
    struct Token {
        std::string cluster;
        TimePoint expiry;
    };

    Cluster& cluster(const std::string& id);
    const Cluster& cluster(const std::string& id) const;
    std::vector<ResourceInfo> served(const Cluster& c, TimePoint now) const;
    void observe(Cluster& c, const std::string& type, const ResourceInfo& info, const Json& obj);
    void apply_knobs(Cluster& c, const Json& knobs);
    void set_tiller_pod_phase(Cluster& c, const std::string& phase);
    void write_crd_status(Cluster& c, TimePoint now);
    /// One cluster's pass (installer, agent, CRD status), then its due time re-indexed.
    void advance_cluster(Cluster& c, TimePoint now);
    /// When the cluster's installer, agent or a pending CRD status next has work.
    std::optional<TimePoint> own_due(const Cluster& c) const;
    /// Moves the cluster's entry in m_due to `due` (none while hibernated).
    void reindex(Cluster& c, std::optional<TimePoint> due);
    void put_installation(Cluster& c, const Json& spec);
    void install_service_catalog(Cluster& c, const Json& spec);
    void ensure_crd(Cluster& c, const std::string& plural, const std::string& group,
                    const std::string& kind, const std::string& version, bool namespaced);

    std::function<std::uint64_t()> m_next_rv;
    std::function<std::uint64_t()> m_current_rv;
    KymaSettings m_kyma;
    Json m_defaults = Json::object();
    std::map<std::string, std::vector<Json>> m_pending;
    bool m_shut_down = false;
    double m_bookmark_seconds = 5;
    double m_watch_timeout_seconds = 1800;
    std::map<std::string, Cluster> m_clusters;
    std::map<std::string, Token> m_tokens;
    DueIndex<std::string> m_due;                                 ///< cluster ids
    std::multimap<std::string, std::string> m_by_shoot;          ///< shoot name -> cluster id
    std::map<std::string, std::set<std::string>> m_early_tokens; ///< for clusters to come
};

/// Throws ApiError 400 unless `knobs` is a valid body of POST /sim/clusters/{id}/kyma.
void validate_kyma_knobs(const Json& knobs);

} // namespace kprov::sim
