#pragma once
// The Store port: where runtimes and operations live. Implemented by stores/ (SQLite, PostgreSQL);
// one contract test suite (tests/stores/store_contract_test.cpp) holds every implementation to
// the rules written here.
//
// Thread safety: a Store may be used from several threads at once.
// Errors: every method throws StoreError when the database fails; the messages never contain
// credentials. Absence is std::nullopt (or an empty vector), never an exception, unless stated.

#include "engine/error.hpp"
#include "engine/model.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kprov::engine {

/// Store::insert_runtime refused a runtime: a live runtime (not deprovisioned) owns its shoot
/// name in its Gardener project (deliberate difference 13).
class ShootNameTaken : public Conflict {
public:
    /// `detail` (", made by another request: ...") continues the message.
    ShootNameTaken(const std::string& project, const std::string& shoot_name, std::string owner,
                   const std::string& detail = {})
        : Conflict("shoot name " + shoot_name + " in project " + project +
                   " belongs to live runtime " + owner + detail)
        , m_owner(std::move(owner)) {}
    /// The id of the runtime that owns the name.
    const std::string& owner() const { return m_owner; }

private:
    std::string m_owner;
};

/// kprov's own attributes of a runtime beyond its configuration (the runtime file's
/// `lifecycle:` block): protection against deprovisioning and a lifetime.
struct RuntimeLifecycle {
    bool is_protected = false;           ///< deprovisioning is refused until it is unprotected
    std::optional<Timestamp> expires_at; ///< the workers deprovision it then (unless protected)
    bool operator==(const RuntimeLifecycle&) const = default;
};

/// Something that happened to a runtime outside its operations, for `kprov history`.
struct RuntimeEvent {
    Timestamp at;
    std::string kind;    ///< "Protect", "Unprotect", "Lifetime", ...
    std::string message; ///< who and why, for people
    bool operator==(const RuntimeEvent&) const = default;
};

/// The lifecycle attributes a new runtime starts with (a provisioning request's
/// LifecycleRequest) and the events that say who gave them.
struct NewRuntimeLifecycle {
    RuntimeLifecycle attributes;
    std::vector<RuntimeEvent> events;
};

/// What `list_runtimes` returns.
struct RuntimeFilter {
    std::optional<OperationState> state; ///< only runtimes whose last operation is in this state
    bool include_deleted = false;        ///< soft-deleted runtimes are hidden unless set
};

/// What `query_runtimes` returns: list_runtimes narrowed by labels and cut at a limit.
struct RuntimeQuery {
    RuntimeFilter filter;
    /// Only runtimes whose labels hold every key = value (labels_match).
    std::vector<std::pair<std::string, std::string>> labels;
    std::size_t limit = 0; ///< at most this many runtimes; 0: no limit
};

/// Whether `labels_json` (a runtime's labels, a JSON object) holds every key = value of
/// `wanted`: a string label matches its text, any other its compact JSON text ("true", "3").
/// Labels that are not a JSON object match only an empty `wanted`.
bool labels_match(const std::string& labels_json,
                  const std::vector<std::pair<std::string, std::string>>& wanted);

/// What an upgrade changes on the runtime, written in the same transaction as its operation.
struct RuntimeUpgrade {
    GardenerConfig gardener;
    std::vector<std::string> administrators;
};

/// What a stage changes on its runtime, written with the operation under the same lease.
struct RuntimeChange {
    std::optional<std::string> seed;       ///< learned from the shoot
    std::optional<std::string> kubeconfig; ///< admin kubeconfig to cache (stored encrypted)
    bool soft_delete = false;              ///< end of deprovisioning
    /// The state of the operation's runtime_upgrade row (UPGRADE operations: Succeeded from
    /// UpdatingUpgradeState, Failed when the operation fails).
    std::optional<UpgradeState> upgrade_state;
};

/// Which due operations a claim takes first (Store::claim_due, WorkerPool).
enum class ClaimOrder {
    NewFirst,     ///< operations no worker has run yet (attempts = 0), then re-checks
    RecheckFirst, ///< operations a worker has run before, then new ones
};

/// What Store::find_runtime_status returns.
struct RuntimeWithLastOperation {
    Runtime runtime;
    std::optional<Operation> last;
    /// The runtime's version (Store::runtime_version) in the same snapshot; nullopt when the
    /// store keeps none.
    std::optional<std::uint64_t> version;
};

/// What Store::find_operation_with_tenant returns.
struct OperationWithTenant {
    Operation operation;
    std::optional<std::string> tenant; ///< its runtime's; nullopt when the runtime is gone
    /// Its runtime's version (Store::runtime_version) in the same snapshot; nullopt when the
    /// store keeps none.
    std::optional<std::uint64_t> runtime_version;
};

class Store {
public:
    virtual ~Store() = default;

    // --- Starting operations -----------------------------------------------------------------

    /// Writes a new runtime (cluster, gardener config, OIDC, DNS, administrators) and its first
    /// operation in one transaction. Throws Conflict if the runtime id already exists and
    /// ShootNameTaken (writing nothing) if a live runtime owns its shoot name in its project:
    /// the database decides, so of concurrent inserts of one name exactly one succeeds. The
    /// name is free again once its owner's soft delete is saved (RuntimeChange::soft_delete).
    /// With `lifecycle`, the runtime's lifecycle attributes and their events are written in the
    /// same transaction.
    virtual void insert_runtime(const Runtime& runtime, const Operation& first,
                                const NewRuntimeLifecycle* lifecycle = nullptr) = 0;

    /// Adds an operation to an existing runtime; with `upgrade`, also replaces its gardener
    /// config and administrators, all in one transaction. Throws NotFound if the runtime does
    /// not exist and OperationInProgress if it already has an operation in progress: the
    /// database enforces this, so of two concurrent callers exactly one succeeds. A
    /// deprovisioning of a protected runtime throws RuntimeProtected, checked in the same
    /// transaction as set_protected writes, so a protection is never overtaken.
    virtual void insert_operation(const Operation& op, const RuntimeUpgrade* upgrade = nullptr) = 0;

    /// Rewrites the runtime's tenant (the original's tenant-header semantics) and, with `note`,
    /// appends that entry to its operation's history in the same transaction (not fenced by a
    /// lease: the entry is history, not progress). Throws NotFound.
    virtual void set_tenant(const std::string& runtime_id, const std::string& tenant,
                            const std::optional<StageTransition>& note) = 0;

    // --- Kyma (kyma-installation.md §1.4, §3) -------------------------------------------------
    //
    // insert_runtime writes Runtime::kyma (kyma_config and its kyma_component_config rows, the
    // cluster's active_kyma_config_id); its release must be stored already (insert_kyma_release).
    // find_runtime reads the active config with its whole release; find_runtime_status with the
    // release's id and version only. Secret configuration values are encrypted at rest and read
    // back in plaintext; rows the original wrote (plaintext values, component_order NULL) read as
    // the original read them (components by component_order, NULL as 0, then in row order).

    /// The cached release of `version` (kyma_release); nullopt when none is stored.
    virtual std::optional<KymaRelease> find_kyma_release(const std::string& version) = 0;
    /// Stores `release` under a new id unless its version is stored already, and returns the
    /// stored row: when another writer stored the same version first, that one (the original's
    /// unique-violation rule), so concurrent callers all get one row.
    virtual KymaRelease insert_kyma_release(const KymaRelease& release) = 0;
    /// Starts a Kyma upgrade in one transaction (§3.1 step 7): writes `config` (a new
    /// kyma_config of the runtime, its release stored already) and `op` (an UPGRADE operation),
    /// inserts `record` (IN_PROGRESS, pre = the runtime's active config, post = config.id) and
    /// makes `config` the runtime's active one. Throws NotFound, and OperationInProgress as
    /// insert_operation does.
    virtual void insert_kyma_upgrade(const Operation& op, const KymaConfig& config,
                                     const RuntimeUpgradeRecord& record) = 0;
    /// The runtime_upgrade row of an UPGRADE operation; nullopt when it has none.
    virtual std::optional<RuntimeUpgradeRecord>
    find_runtime_upgrade(const std::string& operation_id) = 0;
    /// rollBackUpgradeOperation (§3.4), in one transaction: the runtime's active config becomes
    /// the row's pre-upgrade config and the row's state ROLLED_BACK. Throws NotFound when the
    /// operation has no runtime_upgrade row.
    virtual void roll_back_upgrade(const std::string& runtime_id,
                                   const std::string& operation_id) = 0;

    // --- Reading -----------------------------------------------------------------------------

    /// The runtime with all of its configuration, secrets decrypted; soft-deleted ones too.
    virtual std::optional<Runtime> find_runtime(const std::string& runtime_id) = 0;
    virtual std::optional<Operation> find_operation(const std::string& operation_id) = 0;
    /// The live (not deprovisioned) runtime that owns `shoot_name` in Gardener project
    /// `project`; nullopt when none does.
    virtual std::optional<std::string> live_runtime_with_shoot(const std::string& project,
                                                               const std::string& shoot_name) = 0;
    /// The runtime's operation with the latest start_timestamp.
    virtual std::optional<Operation> last_operation(const std::string& runtime_id) = 0;
    /// All operations of a runtime, newest first.
    virtual std::vector<Operation> operations_of(const std::string& runtime_id) = 0;
    /// An operation's transitions, oldest first.
    virtual std::vector<StageTransition> transitions_of(const std::string& operation_id) = 0;
    /// Runtimes, newest first, with their last operation.
    virtual std::vector<RuntimeSummary> list_runtimes(const RuntimeFilter& filter) = 0;
    /// The runtimes of list_runtimes(query.filter) that match query.labels, newest first, at
    /// most query.limit of them, each with its labels_json. The default filters list_runtimes
    /// (slow at scale); the stores answer from their indexes and stop at the limit.
    virtual std::vector<RuntimeSummary> query_runtimes(const RuntimeQuery& query);
    /// Ids of runtimes (soft-deleted ones too) that start with `prefix`, in id order, at most
    /// `limit`: "did you mean" for ids given by prefix, and shell completion.
    virtual std::vector<std::string> runtime_ids_with_prefix(const std::string& prefix,
                                                             std::size_t limit);
    /// Ids of operations that start with `prefix`, in id order, at most `limit`.
    virtual std::vector<std::string> operation_ids_with_prefix(const std::string& prefix,
                                                               std::size_t limit);
    /// Ids of runtimes (soft-deleted ones too) whose runtime name or shoot name is exactly
    /// `name`, live ones first, then newest first, at most `limit`: a runtime named the way
    /// people name it. Empty when none is.
    virtual std::vector<std::string> runtime_ids_named(const std::string& name, std::size_t limit);
    /// The runtime's tenant (soft-deleted runtimes too); nullopt when there is no such runtime.
    /// The API checks it on every query. The default reads the whole runtime; the stores read
    /// one column by primary key.
    virtual std::optional<std::string> tenant_of(const std::string& runtime_id);
    /// The operation and the tenant of its runtime (nullopt when the runtime is gone), read
    /// together: what the API's runtimeOperationStatus checks. nullopt when there is no such
    /// operation. The default calls find_operation and tenant_of; the stores use one statement.
    virtual std::optional<OperationWithTenant>
    find_operation_with_tenant(const std::string& operation_id);
    /// The runtime (soft-deleted ones too) as RuntimeStatus shows it, with its last operation,
    /// read from one snapshot: the gardener config with OIDC and DNS, but no administrators and
    /// no kubeconfig (the status shows neither). nullopt when there is no such runtime. The
    /// default calls find_runtime and last_operation; the stores read it in as few statements
    /// as they can (the API answers runtimeStatus from it).
    virtual std::optional<RuntimeWithLastOperation>
    find_runtime_status(const std::string& runtime_id);
    /// In-progress operations counted by type (for metrics); types with none are absent.
    virtual std::map<OperationType, int> count_in_progress() = 0;
    /// A number that grows whenever the data this store reads may have changed: any commit by
    /// any connection, this one or another, in this process or another. Cheap (no table is
    /// read), so the API can ask it before every request and reuse an answer while it stands
    /// still. Counters of two stores are not comparable. nullopt: this store cannot tell
    /// cheaply (the default; PostgreSQL).
    virtual std::optional<std::uint64_t> change_counter() { return std::nullopt; }
    /// A number that grows whenever anything the API shows of the runtime changes (its
    /// configuration, its operations, its tenant), by any process; other runtimes' changes
    /// leave it. nullopt when there is no such runtime or the store keeps no versions (the
    /// default; PostgreSQL). find_runtime_status and find_operation_with_tenant read it with
    /// their rows.
    virtual std::optional<std::uint64_t> runtime_version(const std::string& runtime_id) {
        (void)runtime_id;
        return std::nullopt;
    }

    // --- Desired state (RuntimeLifecycle) ----------------------------------------------------

    /// The runtime's lifecycle attributes; the defaults for a runtime that never had any (and
    /// for an unknown id).
    virtual RuntimeLifecycle lifecycle_of(const std::string& runtime_id) = 0;
    /// The one writer of a runtime's lifecycle attributes, in one transaction: throws NotFound
    /// for an unknown runtime, reads its attributes (the runtime locked against concurrent
    /// writers) and lets `change` edit them; when `change` returns true, writes them and
    /// records `event`. Returns what `change` returned.
    virtual bool change_lifecycle(const std::string& runtime_id,
                                  const std::function<bool(RuntimeLifecycle&)>& change,
                                  const RuntimeEvent& event) = 0;
    /// Protects or unprotects the runtime, and records `event` in the same transaction when
    /// that changed anything. Returns whether it did. Throws NotFound for an unknown runtime.
    bool set_protected(const std::string& runtime_id, bool is_protected, const RuntimeEvent& event);
    /// Sets (nullopt: clears) the runtime's expiry, recording `event` when it changed. Returns
    /// whether it did. Throws NotFound for an unknown runtime.
    bool set_expiry(const std::string& runtime_id, std::optional<Timestamp> expires_at,
                    const RuntimeEvent& event);
    /// Runtimes that are not deprovisioned, not protected and expired at or before `now`, the
    /// earliest expiry first, at most `limit`.
    virtual std::vector<std::string> expired_runtimes(Timestamp now, int limit) = 0;
    /// Appends `event` to the runtime's events. Throws NotFound for an unknown runtime.
    virtual void record_event(const std::string& runtime_id, const RuntimeEvent& event) = 0;
    /// The runtime's events, oldest first.
    virtual std::vector<RuntimeEvent> events_of(const std::string& runtime_id) = 0;

    // --- Running operations (workers) --------------------------------------------------------

    /// Leases up to `limit` in-progress operations that are due (next_run_at <= now) and not
    /// leased by anyone else (no lease, or an expired one): sets the lease to (owner, now + ttl)
    /// and increments attempts. `order` says which of the two queues of due operations goes
    /// first, new ones (attempts = 0) or re-checks; each queue in due-time order, and the batch
    /// is filled from the other queue. Returns them as stored after the claim, in that order.
    /// Two concurrent callers never get the same operation.
    virtual std::vector<Operation> claim_due(const std::string& owner, Timestamp now,
                                             std::chrono::milliseconds ttl, int limit,
                                             ClaimOrder order = ClaimOrder::NewFirst) = 0;

    /// Leases one operation under the same rules, whether or not it is due (`kprov ... --wait`
    /// drives its own operation). nullopt if it is not in progress or someone else holds it.
    virtual std::optional<Operation> claim(const std::string& operation_id,
                                           const std::string& owner, Timestamp now,
                                           std::chrono::milliseconds ttl) = 0;

    /// Leases the operation to `owner` whoever holds it now, live lease or not (`kprov cancel
    /// --force`): the former holder's next fenced write fails with LeaseLost. nullopt if it does
    /// not exist or is not in progress.
    virtual std::optional<Operation> take_over(const std::string& operation_id,
                                               const std::string& owner, Timestamp now,
                                               std::chrono::milliseconds ttl) = 0;

    /// Extends the lease to now + ttl. Returns false (and changes nothing) if `owner` no longer
    /// holds an unexpired lease.
    virtual bool renew(const std::string& operation_id, const std::string& owner, Timestamp now,
                       std::chrono::milliseconds ttl) = 0;

    /// Writes the operation's progress (state, stage, message, timestamps, last error,
    /// next_run_at), appends `transitions` and applies `change` to its runtime, in one
    /// transaction, fenced by the lease: throws LeaseLost and writes nothing unless `owner`
    /// holds an unexpired lease at `now`. With `release`, the lease is dropped in the same write.
    virtual void save_progress(const Operation& op, const std::string& owner, Timestamp now,
                               const std::vector<StageTransition>& transitions,
                               const RuntimeChange& change, bool release) = 0;

    /// A worker's end of a pass and its next claim, in one transaction where the store can:
    /// save_progress(op, owner, now, transitions, change, release = true), then
    /// claim_due(owner, now, ttl, 1, order). The save is fenced as save_progress's: when
    /// `owner` holds no unexpired lease on `op` at `now`, throws LeaseLost and neither saves
    /// nor claims. Returns the claimed operation (leased to `owner`, which must run or release
    /// it), nullopt when none is due. The default makes the two calls one after the other.
    virtual std::optional<Operation>
    save_progress_and_claim_next(const Operation& op, const std::string& owner, Timestamp now,
                                 const std::vector<StageTransition>& transitions,
                                 const RuntimeChange& change, std::chrono::milliseconds ttl,
                                 ClaimOrder order);

    /// Drops the lease if `owner` holds it; a no-op otherwise.
    virtual void release(const std::string& operation_id, const std::string& owner) = 0;

    /// Makes the in-progress operations of these runtimes due at `now` (a shoot event arrived).
    /// Returns how many operations it touched.
    virtual int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) = 0;

    /// The earliest next_run_at of an in-progress operation, leased or not; nullopt if none.
    virtual std::optional<Timestamp> next_due() = 0;
};

} // namespace kprov::engine
