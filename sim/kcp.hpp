#pragma once
// The Kyma Control Plane cluster API at <url>/kcp: namespaces, Secrets and ConfigMaps (core v1)
// and Kymas (operator.kyma-project.io/v1beta2, a custom resource with a status subresource,
// finalizers and a structural schema), namespace kcp-system from the start, watches of every
// resource, and the simulated Kyma Lifecycle Manager reconciling the Kymas.
// Not thread-safe: the caller holds the world lock.

#include "k8s_path.hpp"
#include "klm.hpp"
#include "object_store.hpp"
#include "store_watches.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

class Kcp {
public:
    /// `next_rv` and `current_rv` are the world's resourceVersion counter.
    Kcp(std::function<std::uint64_t()> next_rv, std::function<std::uint64_t()> current_rv,
        KlmSettings klm);

    /// Serves one KCP request; `sub_path` is what follows /kcp. Authentication is the caller's
    /// job. Throws ApiError.
    ApiResponse handle(const std::string& sub_path, const ApiRequest& req);
    /// Runs the KLM up to `now` against the runtime clusters, reached at `runtime_base`
    /// ("<url>/clusters/").
    void advance(const ClusterRegistry& clusters, const std::string& runtime_base, TimePoint now);
    /// The earliest time advance() has work; nullopt if none.
    std::optional<TimePoint> next_due() const { return m_klm.next_due(); }

    Klm& klm() { return m_klm; }
    const ObjectStore& store() const { return m_store; }
    void set_watch_limits(double bookmark_seconds, double timeout_seconds) {
        m_bookmark_seconds = bookmark_seconds;
        m_watch_timeout_seconds = timeout_seconds;
    }
    /// Called with "/kcp/apis/operator.kyma-project.io/v1beta2/namespaces/<ns>/kymas/<name>"
    /// whenever a Kyma leaves the store (deleted at once, or its last finalizer removed).
    void set_removal_hook(std::function<void(const std::string&)> hook) {
        m_removal_hook = std::move(hook);
    }
    /// Ends every watch for good (server stop).
    void shutdown() { m_watches.shutdown(); }

    /// Every resource the KCP serves.
    static const std::vector<ResourceInfo>& resources();

private:
    ApiResponse serve_kymas(const K8sPath& path, const ApiRequest& req);
    Json write_kyma(const K8sPath& path, const ApiRequest& req, Json next,
                    std::vector<std::string>& warnings);

    ObjectStore m_store;
    StoreWatches m_watches;
    Klm m_klm;
    double m_bookmark_seconds = 5;
    double m_watch_timeout_seconds = 1800;
    std::function<void(const std::string&)> m_removal_hook;
};

} // namespace kprov::sim
