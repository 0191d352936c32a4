#pragma once
// Everything the simulator's world lock protects (the garden's objects, shoots, runtime
// clusters, the resourceVersion counter), plus the handlers that need it. server.cpp owns one
// World; handlers run with `mu` held, except watch streams, which only touch the WatchHub.

#include "clusters.hpp"
#include "director.hpp"
#include "faults.hpp"
#include "k8s_path.hpp"
#include "kcp.hpp"
#include "object_store.hpp"
#include "shoot_store.hpp"
#include "sim.hpp"
#include "store_watches.hpp"
#include "watch_hub.hpp"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

namespace kprov::sim {

struct World {
    explicit World(const SimOptions& opts, std::string ca_pem);

    std::mutex mu;
    std::uint64_t rv = 0;
    WatchHub hub;
    ObjectStore garden; ///< namespaces, config maps, secrets and the landscape (landscape.hpp)
    StoreWatches garden_watches; ///< watches of the landscape resources
    ClusterRegistry clusters;
    ShootStore shoots;
    Kcp kcp;
    std::string runtime_base; ///< "<url>/clusters/": where Secrets' kubeconfigs reach clusters
    Json seed;
    std::string ca_pem;
    double bookmark_seconds;
    double watch_timeout_seconds;
    bool watch_expired_as_event;

    /// Serves a Gardener API request (discovery, shoots, seeds, garden config maps, secrets
    /// and namespaces) for the authenticated `user`. Call with `mu` held. Throws ApiError.
    ApiResponse handle_gardener(const ApiRequest& req, const std::string& user);

    /// CloudProfiles, NamespacedCloudProfiles, CredentialsBindings and SecretBindings: the
    /// standard verbs and watch; a NamespacedCloudProfile's status.cloudProfileSpec follows
    /// every write of it or its parent. Call with `mu` held. Throws ApiError.
    ApiResponse handle_landscape(const ResourceInfo& info, const K8sPath& path,
                                 const ApiRequest& req);
    /// Stores the default landscape (unless switched off) and the --landscape files' objects,
    /// a file's object replacing a default one of the same kind, namespace and name. Throws
    /// std::runtime_error naming the file, document and field of a bad object.
    void load_landscape(const SimOptions& opts);
    /// Recomputes status.cloudProfileSpec of a NamespacedCloudProfile (a no-op when unchanged).
    void refresh_namespaced_profile(const std::string& ns, const std::string& name);

    /// The resources the Gardener API serves, for discovery and path parsing.
    static const std::vector<ResourceInfo>& gardener_resources();
};

/// The objects the /sim control endpoints act on.
struct Services {
    World& world;
    Faults& faults;
    Stats& stats;
    Director& director;
    std::function<void()> wake_ticker;
};

/// Serves /sim/... (see tests/sim/README.md). Throws ApiError.
ApiResponse handle_control(Services& s, const ApiRequest& req);
/// Serves /sim/kcp/... and POST /sim/clusters/{cluster}/expire-tokens; nullopt for other
/// paths. Throws ApiError.
std::optional<ApiResponse> handle_kcp_control(Services& s, const ApiRequest& req);

/// "<VERB> <path template>" for the request counters; VERB is the HTTP method, or WATCH.
std::string stats_key(const ApiRequest& req);
/// The resource path of a Gardener or runtime-cluster request (without /clusters/<id>);
/// nullopt for discovery and other paths.
std::optional<K8sPath> parse_request_path(const std::string& path);

} // namespace kprov::sim
