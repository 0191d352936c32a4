#pragma once
// The stage executor (original-provisioner.md §3.2): runs a claimed operation's stages until
// it must wait, fails or finishes, and writes the outcome fenced by the worker's lease.
//
// One processing pass:
//  1. the operation's type picks its stage table (stages.hpp); UPGRADE and RECONNECT_RUNTIME
//     have none and fail with "operation type <T> is not supported by kprov";
//  2. for the current stage: an unknown stage fails the operation ("error: step <stage> not
//     found in installation stages", err_provisioner_step_not_found); a stage older than its
//     timeout (from last_transition, else start_timestamp) fails it ("error: timeout while
//     processing operation", err_provisioner_timeout); a lost lease ends the pass here
//     (LeaseLost, nothing written); the stage runs. While the pass runs, its lease is renewed
//     in the background (lease_keeper.hpp), so that a long stage call does not lose it;
//  3. a new stage is recorded ("Operation in progress. Stage <S>", last_transition = now, a
//     StageTransition) and runs in the same pass unless the stage asked for a delay;
//     Finished records "Provisioning steps finished", then SUCCEEDED "Operation succeeded";
//  4. a recoverable error keeps the stage and retries after a capped exponential backoff; a
//     non-recoverable one fails the operation (message = error text, end_timestamp);
//     A failed operation is reported to Director (FAILED) after the save when Director
//     registration is on (registration.hpp);
//  5. one save_progress writes it all (lastError set from this pass's error, cleared after a
//     clean pass) and releases the lease. LeaseLost means another worker owns the operation
//     now: the pass ends and writes nothing.
// Any operation resumes at its stored stage, whoever started it (deliberate difference 1).
//
// Thread-safe: worker threads share one Executor.

#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/run/lease_keeper.hpp"
#include "engine/run/sleeper.hpp"
#include "engine/stages/stages.hpp"
#include "engine/store.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <vector>

namespace kprov::engine {

/// How a processing pass ended.
enum class PassOutcome {
    Waiting,     ///< still in progress; due again at operation.next_run_at
    Succeeded,   ///< finished now
    Failed,      ///< failed now
    NotClaimed,  ///< not run: another worker holds it, or it had already ended
    LeaseLost,   ///< another worker took it over mid-pass; this pass wrote nothing
    StoreFailed, ///< the store failed; the operation runs again once the lease expires
};

struct PassResult {
    PassOutcome outcome = PassOutcome::NotClaimed;
    /// As written by the pass; for NotClaimed, LeaseLost and StoreFailed as last known.
    Operation operation;
    /// Gardener's status.lastOperation as the pass last saw it (progress for `--wait`).
    std::optional<ShootState::LastOperation> shoot_operation;
    /// The pass's error text; "" after a clean pass.
    std::string error;
    /// Whether the pass's save also claimed the worker's next operation (run_pass with a
    /// ClaimNext), and what it claimed: leased to the pass's owner, who must run or release it.
    /// When false, nothing was claimed (the pass failed, lost its lease, the store failed, a
    /// stop was requested): the worker claims on its own.
    bool claimed_with_save = false;
    std::optional<Operation> next;
};

/// What a worker's pass claims with its save (Store::save_progress_and_claim_next): the next
/// due operation, one store transaction instead of two. Not for a pass that fails (its Director
/// report, after the save, would hold the next lease unrenewed).
struct ClaimNext {
    ClaimOrder order = ClaimOrder::NewFirst;
    std::stop_token stop;               ///< once a stop is requested, the save claims nothing
    std::function<void()> before_claim; ///< called just before the save that claims, if set
};

/// Uniform random numbers in [0, 1) for jitter. Called under the executor's lock.
using JitterSource = std::function<double()>;

struct DriveOptions {
    /// drive() returns DriveEnd::Deadline once this passes (the operation goes on).
    std::optional<Timestamp> deadline;
    std::stop_token stop;
    /// Called after each of our passes, and whenever another worker's progress is seen.
    std::function<void(const PassResult&)> on_progress;
};

enum class DriveEnd { Ended, Deadline, Stopped };

struct DriveResult {
    DriveEnd end = DriveEnd::Ended;
    Operation operation; ///< as stored when drive() returned
};

class Executor {
public:
    /// Over `ports` (store, shoots, clusters and clock required; check_ports refuses ports that
    /// do not match `options` with ConfigError). `jitter` defaults to a seeded std::mt19937_64.
    Executor(const EnginePorts& ports, EngineOptions options, JitterSource jitter = {});

    /// Runs one pass of `claimed`, which `owner` has leased (claim_due or claim). Throws
    /// nothing of its own: store failures end the pass as StoreFailed. With `claim_next`, a
    /// pass that ends waiting or succeeded claims the next due operation in its save's
    /// transaction (PassResult::claimed_with_save).
    PassResult run_pass(const Operation& claimed, const std::string& owner,
                        const ClaimNext* claim_next = nullptr);

    /// Claims the operation (due or not) and runs one pass. NotClaimed when someone else holds
    /// it or it is not in progress. Throws NotFound when it does not exist, StoreError when
    /// the claim fails.
    PassResult run_operation(const std::string& operation_id, const std::string& owner);

    /// Claims up to `limit` due operations, `order`'s queue first (Store::claim_due), and runs
    /// one pass of each, in order, telling `before_pass` (if set) which one it starts. Throws
    /// StoreError when the claim fails.
    std::vector<PassResult> run_due(const std::string& owner, int limit,
                                    ClaimOrder order = ClaimOrder::NewFirst,
                                    const std::function<void(const Operation&)>& before_pass = {});

    /// Runs passes of one operation (`kprov ... --wait`) until it ends, the deadline passes or
    /// a stop is requested, sleeping with `sleeper` until it is due again. An operation held
    /// by another worker is watched in the store until it is free or ends. Throws NotFound
    /// when the operation does not exist, StoreError when the store fails.
    DriveResult drive(const std::string& operation_id, const std::string& owner, Sleeper& sleeper,
                      const DriveOptions& options);

    /// The stage table of `type`; nullptr for types kprov does not run.
    const StageTable* stages_for(OperationType type) const;

    const EngineOptions& options() const { return m_options; }
    const EnginePorts& ports() const { return m_ports; }

    /// The heartbeat of the running passes' leases.
    LeaseKeeper& leases() { return m_leases; }

private:
    friend class Pass;
    /// `delay` with the poll jitter added.
    Duration poll_delay(Duration delay);
    /// The backoff before retry number `failures` (1 = first) of an operation, with jitter.
    Duration retry_delay(int failures);
    /// Counts a failed pass of the operation; returns the count of consecutive ones.
    int count_failure(const Operation& op);
    /// The count of consecutive failed passes so far, without counting one more.
    int failed_passes(const Operation& op);
    void forget_failures(const std::string& operation_id);
    void log(LogLevel level, const std::string& message) const;

    EnginePorts m_ports;
    Store& m_store;
    ShootClient& m_shoots;
    RuntimeClusterClient& m_clusters;
    const Clock& m_clock;
    EngineOptions m_options;
    std::map<OperationType, StageTable> m_tables;
    LeaseKeeper m_leases;

    std::mutex m_mutex; ///< guards the members below
    JitterSource m_jitter;
    /// Consecutive failed passes per operation, kept in memory: `attempts` counts every claim
    /// (polls included), so it cannot drive a backoff. After a restart the count starts again
    /// (at 1 when the stored operation carries an error).
    std::unordered_map<std::string, int> m_failures;
};

} // namespace kprov::engine
