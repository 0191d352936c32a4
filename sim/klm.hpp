#pragma once
// The simulated Kyma Lifecycle Manager (kyma-lifecycle-manager.md §7): reconciles the Kymas in
// the KCP's kcp-system through the one kubeconfig Secret labelled with their name, reaching the
// runtime clusters of this sim; modules become Ready after a configurable time, deletion waits
// for them, and faults (stuck modules, unreachable runtimes) are knobs. Every write goes
// through the KCP's store, so it is a new resourceVersion and a watch event.
// Not thread-safe: the caller holds the world lock.

#include "clusters.hpp"
#include "object_store.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kprov::sim {

struct KlmSettings {
    double module_seconds = 1; ///< a module's installation, and the modules' removal
};

class Klm {
public:
    static constexpr const char* k_namespace = "kcp-system";
    static constexpr const char* k_finalizer = "operator.kyma-project.io/Kyma";
    static constexpr const char* k_kyma_name_label = "operator.kyma-project.io/kyma-name";
    static constexpr const char* k_internal_label = "operator.kyma-project.io/internal";
    static constexpr const char* k_beta_label = "operator.kyma-project.io/beta";

    explicit Klm(KlmSettings settings);

    /// Reconciles every Kyma in kcp-system of `kcp` up to `now`. A Secret's kubeconfig reaches
    /// a runtime cluster when its server is `runtime_base` + <id> ("<url>/clusters/") and its
    /// token is valid for that cluster now.
    void advance(ObjectStore& kcp, const ClusterRegistry& clusters, const std::string& runtime_base,
                 TimePoint now);
    /// The earliest time advance() has work that no request triggers; nullopt if none.
    std::optional<TimePoint> next_due() const { return m_due; }
    /// Told of every change in the KCP store: a Kyma, or a Secret labelled with a Kyma's name,
    /// makes that Kyma's next reconcile due at the next advance().
    void changed(const ResourceInfo& info, const Json& object);

    /// POST /sim/kcp/klm (see tests/sim/README.md). Throws ApiError 400 for unknown keys, wrong
    /// types or out-of-range values; nothing is applied then.
    void configure(const Json& knobs);
    /// The knobs in the shape configure() takes.
    Json knobs() const;
    /// GET /sim/kcp/kymas: what the KLM knows of each Kyma in kcp-system.
    Json describe(const ObjectStore& kcp) const;

private:
    /// How the KLM reaches the runtime of one Kyma.
    struct Access {
        std::size_t secrets = 0;
        std::string cluster;  ///< the runtime cluster's id, when the server names one
        std::string problem;  ///< why it cannot be reached; "" when it can
        std::string headline; ///< lastOperation text for the problem
        bool reachable() const { return secrets == 1 && problem.empty(); }
    };
    /// What the KLM remembers of one Kyma (by name; a new uid starts over).
    struct Memo {
        std::string uid;
        std::optional<TimePoint> reached;            ///< the first pass that reached the runtime
        Json spec;                                   ///< channel and modules read then (KLM §1.6)
        std::map<std::string, TimePoint> module_due; ///< module -> Ready (or Warning) from then
        TimePoint empty_due;                         ///< an empty module list is Ready from then
        std::optional<TimePoint> drop_due;           ///< deletion: the finalizer goes then
        std::optional<TimePoint> ready_at;           ///< when the state first became Ready
        Access access;
        // What the last reconcile of this Kyma saw, and when it next has work: a pass skips a
        // Kyma whose object and Secrets did not change and that is not due.
        std::string seen_version;
        std::string seen_secrets;
        std::optional<TimePoint> due;
    };
    /// A module of the catalog; `internal` and `beta` are its ModuleTemplate's labels, which
    /// only a Kyma with the same label "true" may use (kyma-lifecycle-manager.md §5).
    struct Module {
        std::string version;
        bool internal = false;
        bool beta = false;
    };
    /// "internal module" or "beta module" when `kyma` may not use `module`; nullptr when it may.
    static const char* not_allowed(const Module& module, const Json& kyma);

    Access find_access(const std::vector<Json>& secrets, const ClusterRegistry& clusters,
                       const std::string& runtime_base, const Json& kyma) const;
    void reconcile(ObjectStore& kcp, Json kyma, Memo& memo, TimePoint now);
    void reconcile_deletion(ObjectStore& kcp, const Json& kyma, Memo& memo, TimePoint now);
    Json reachable_status(const Json& kyma, Memo& memo, TimePoint now);
    bool stuck(const Json& spec) const;
    void due(TimePoint t);
    /// Reconciles one Kyma (read with its Secrets) unless `full` is false and nothing of it
    /// changed since its last reconcile and it is not due.
    void advance_one(ObjectStore& kcp, Json kyma, const std::vector<Json>& secrets,
                     const ClusterRegistry& clusters, const std::string& runtime_base,
                     TimePoint now, bool full);

    KlmSettings m_settings;
    std::map<std::string, Module> m_catalog;
    std::set<std::string> m_stuck;
    std::set<std::string> m_unreachable;
    std::map<std::string, Memo> m_memos;
    std::optional<TimePoint> m_due;
    /// Every Kyma is reconciled at least this often (a controller's resync): what changes without
    /// touching the Kyma or its Secrets (a token expires, a cluster goes) is seen within it.
    std::optional<TimePoint> m_last_full;
    bool m_force_full = true;        ///< the knobs changed: reconcile every Kyma at the next pass
    std::set<std::string> m_changed; ///< Kymas changed since the last pass (by name)
};

} // namespace kprov::sim
