#pragma once
// The shoots of the simulated Gardener: storage with resourceVersion/generation semantics,
// admission, deletion confirmation, and the lifecycle engine that moves each shoot through
// scheduling and Create/Reconcile/Delete operations (Processing with progress, then Succeeded,
// Error or Failed) on real time. Every change is a new resourceVersion and a watch event.
//
// State is derived from timestamps: advance(now) applies every transition that is due by
// `now`, so the server calls it before each request and a ticker calls it at next_due().
// Not thread-safe: the caller holds the world lock.

#include "admission.hpp"
#include "due_index.hpp"
#include "object_store.hpp"
#include "patch.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kprov::sim {

class WatchHub;

/// The JSON pointers of the shoot fields a field selector may name (WatchHub keeps them).
std::vector<std::string> shoot_field_pointers();
class ClusterRegistry;

struct LifecycleSettings {
    double create_seconds = 5;
    double reconcile_seconds = 3;
    double delete_seconds = 3;
    double hibernate_seconds = 3;
    std::string seed = "sim-seed";
    std::string dns_suffix = "sim.kprov.local";
};

/// How a coming (or the running) operation should fail (POST /sim/shoots/.../fail).
struct FailPlan {
    std::vector<std::string> codes = {"ERR_INFRA_QUOTA_EXCEEDED"};
    std::string type;             ///< Create, Reconcile or Delete; "" for any
    std::string state = "Failed"; ///< Failed (terminal) or Error (retried, then succeeds)
    std::string description;      ///< the lastErrors description
    bool immediately = false;     ///< fail a running operation now instead of at its end
    int times = 1;                ///< with state Error: how many attempts fail

    /// Throws ApiError 400 for unknown keys or bad values.
    static FailPlan from_json(const Json& j);
};

/// Per-request inputs of a write.
struct WriteContext {
    std::string user = "kprov-sim-user";
    std::string field_validation;
    bool dry_run = false;
    std::vector<std::string>* warnings = nullptr;
};

class ShootStore {
public:
    ShootStore(LifecycleSettings settings, WatchHub& hub, ClusterRegistry& clusters,
               ObjectStore& garden, std::function<std::uint64_t()> next_rv,
               std::function<std::uint64_t()> current_rv);

    /// Lists shoots of `ns` ("" for all namespaces); fieldSelector supports Gardener's fields.
    Json list(const std::string& ns, const ListOptions& opts) const;
    Json get(const std::string& ns, const std::string& name) const;
    Json create(const std::string& ns, Json body, const WriteContext& ctx);
    Json update(const std::string& ns, const std::string& name, Json body, const WriteContext& ctx);
    Json patch(const std::string& ns, const std::string& name, const std::string& body,
               PatchType type, const WriteContext& ctx);
    /// DELETE: 403 without the confirmation annotation; else the object with deletionTimestamp
    /// (200), or a Status Success when the shoot was never picked up and vanished at once.
    Json remove(const std::string& ns, const std::string& name, const WriteContext& ctx);
    /// PUT/PATCH of the status subresource (a test hook, as the gardenlet would write it).
    Json update_status(const std::string& ns, const std::string& name, const std::string& body,
                       std::optional<PatchType> patch_type);
    /// POST .../adminkubeconfig: a kubeconfig for the shoot's runtime cluster at `base_url`.
    Json admin_kubeconfig(const std::string& ns, const std::string& name, const std::string& body,
                          const std::string& base_url, const std::string& ca_pem);

    /// Opens a watch (see WatchHub::subscribe); parses the watch query parameters.
    std::shared_ptr<StreamSource> watch(const std::string& ns, const ApiRequest& req,
                                        double bookmark_seconds, double max_timeout_seconds,
                                        bool expired_as_event);

    /// Applies every lifecycle transition due by `now`. Returns at once while nothing is due:
    /// the server calls it before every request.
    void advance(TimePoint now);
    /// When the next transition is due; nullopt if none is pending.
    std::optional<TimePoint> next_due() const;

    /// Test hooks (/sim/...). Throw ApiError 404 for an unknown shoot.
    void plan_failure(const std::string& ns, const std::string& name, const FailPlan& plan);
    void plan_failure_next(const FailPlan& plan);
    void set_hibernation_possible(const std::string& ns, const std::string& name, bool possible,
                                  const std::string& message);
    void set_settings(const LifecycleSettings& s) { m_settings = s; }
    const LifecycleSettings& settings() const { return m_settings; }
    /// Internal lifecycle state of every shoot, for GET /sim/shoots.
    Json describe() const;

private:
    struct Operation {
        std::string type; ///< Create, Reconcile, Delete
        TimePoint started;
        double seconds = 0;
        int step = 0; ///< progress steps already written (0..4)
        std::optional<FailPlan> fail;
        bool in_error = false; ///< lastOperation.state == Error, waiting to retry
        TimePoint retry_at;
    };
    using Key = std::pair<std::string, std::string>; ///< namespace, name
    struct Record {
        Key key;
        Json obj;
        bool scheduled = false;
        std::optional<Operation> op;
        bool create_succeeded = false;
        std::vector<FailPlan> plans;
        bool hibernation_possible = true;
        std::string hibernation_message;
        std::string cluster_id;
        /// The type and end time of the last operation that succeeded (GET /sim/shoots shows
        /// them to the millisecond, so benchmarks can measure how fast a client notices).
        std::string last_succeeded_type;
        std::optional<TimePoint> last_succeeded_at;
        /// metadata.generation and status.observedGeneration of `obj`, kept by commit(): the
        /// lifecycle looks at them for every shoot on every tick.
        long long generation = 1;
        long long observed_generation = 0;
        /// due() as m_due files it.
        DueIndex<Key>::Slot indexed_due;
    };

    Record& find(const std::string& ns, const std::string& name);
    const Record& find(const std::string& ns, const std::string& name) const;
    AdmissionContext admission(const std::string& ns, const WriteContext& ctx) const;
    /// Stores `obj` in `rec` with a new resourceVersion and publishes `event`.
    void commit(Record& rec, Json obj, const std::string& event = "MODIFIED");
    /// commit() of rec.obj as the caller edited it in place (no copy of the object).
    void commit_in_place(Record& rec, const std::string& event = "MODIFIED");
    void apply_operation_annotation(Record& rec, Json& obj);
    void check_hibernation_allowed(const Record& rec, const Json& obj) const;
    Json write_update(Record& rec, Json updated, const WriteContext& ctx);

    // Lifecycle (shoot_lifecycle.cpp)
    bool step(Record& rec, TimePoint now); ///< applies one due transition; false if none
    /// Files `rec` in m_due under its current due(); after every change of its state.
    void reindex(Record& rec);
    void schedule(Record& rec, TimePoint now);
    void start_operation(Record& rec, TimePoint now);
    void progress(Record& rec, int step, TimePoint now);
    void finish_operation(Record& rec, TimePoint now);
    void fail_operation(Record& rec, TimePoint now);
    std::optional<TimePoint> due(const Record& rec) const;
    std::string operation_type(const Record& rec) const;
    double operation_seconds(const Record& rec, const std::string& type) const;
    Json conditions(const Record& rec, const std::string& health, TimePoint now) const;
    Json constraints(const Record& rec, TimePoint now) const;
    void remove_now(Key key);

    LifecycleSettings m_settings;
    WatchHub& m_hub;
    ClusterRegistry& m_clusters;
    ObjectStore& m_garden;
    std::function<std::uint64_t()> m_next_rv;
    std::function<std::uint64_t()> m_current_rv;
    std::map<Key, Record> m_shoots;
    /// Every shoot with a transition pending, by due time: the server looks before every
    /// request, so this must not scan all shoots.
    DueIndex<Key> m_due;
    std::vector<FailPlan> m_next_plans;
};

} // namespace kprov::sim
