#include "engine/run/executor.hpp"

#include "engine/run/installation_watches.hpp"
#include "engine/stages/registration.hpp"
#include "engine/util/thread_log_fields.hpp"

#include <algorithm>
#include <random>
#include <utility>

namespace kprov::engine {

namespace {

constexpr std::string_view k_message_finished_steps = "Provisioning steps finished";
constexpr std::string_view k_message_succeeded = "Operation succeeded";

std::string in_progress_message(std::string_view stage) {
    return "Operation in progress. Stage " + std::string(stage);
}

} // namespace

// One processing pass of one claimed operation. Everything it changes stays in memory until
// the single fenced save at its end.
class Pass {
public:
    Pass(Executor& executor, const Operation& claimed, const std::string& owner,
         const ClaimNext* claim_next)
        : m_fields({{"runtime", claimed.cluster_id},
                    {"operation", claimed.id},
                    {"stage", claimed.stage}})
        , m_ex(executor)
        , m_op(claimed)
        , m_owner(owner)
        , m_claim_next(claim_next)
        , m_now(executor.m_clock.now())
        , m_lease(executor.m_leases.keep(claimed.id, owner,
                                         claimed.lease && claimed.lease->owner == owner
                                             ? std::optional(claimed.lease->expires_at)
                                             : std::nullopt)) {
        m_memory.failed_passes = executor.failed_passes(claimed);
    }

    PassResult run() {
        if (m_op.state != OperationState::InProgress) {
            release_quietly();
            return result(PassOutcome::NotClaimed, {});
        }
        const StageTable* table = m_ex.stages_for(m_op.type);
        if (!table)
            return fail(StageError::non_recoverable(
                "operation type " + std::string(to_db(m_op.type)) + " is not supported by kprov"));
        std::optional<Runtime> runtime;
        try {
            runtime = m_ex.m_store.find_runtime(m_op.cluster_id);
        } catch (const StoreError& e) {
            return store_failed(e);
        }
        if (!runtime)
            return fail(
                StageError::non_recoverable("runtime " + m_op.cluster_id + " does not exist"));
        return run_stages(*table, *runtime);
    }

private:
    PassResult run_stages(const StageTable& table, const Runtime& runtime) {
        m_runtime = &runtime;
        for (;;) {
            m_now = m_ex.m_clock.now();
            if (m_op.stage == k_stage_finished) // e.g. the original crashed between its writes
                return finish();
            const StageDef* stage = table.find(m_op.stage);
            if (!stage)
                return fail(StageError::non_recoverable("error: step " + m_op.stage +
                                                            " not found in installation stages",
                                                        std::string(k_reason_step_not_found)));
            if (m_now - m_op.last_transition.value_or(m_op.start_timestamp) > stage->timeout)
                return timed_out(*stage, runtime);
            StageResult next;
            try {
                m_lease.renew_if_needed(m_now); // the fence before each stage
                StageContext context(m_op, runtime, m_ex.m_ports, m_ex.m_options, m_now, m_memory);
                next = stage->run(context);
                take_notes();
            } catch (const StageError& e) {
                return e.is_recoverable() ? retry(e) : fail(e);
            } catch (const LeaseLost&) {
                return lost();
            } catch (const StoreError& e) {
                return store_failed(e);
            } catch (const std::exception& e) {
                // Not an error a stage classified: the original's "any other error" (§3.2).
                return retry(StageError::recoverable(e.what()));
            }
            // What the stage decided holds from when it returned: a transition, the end of the
            // operation and the next due time are stamped then, not when the stage began.
            m_now = m_ex.m_clock.now();
            if (next.next == k_stage_finished)
                return finish();
            if (next.next != m_op.stage) {
                enter(next.next);
                if (next.delay <= Duration::zero())
                    continue;
            }
            return schedule(next.delay);
        }
    }

    PassResult timed_out(const StageDef& stage, const Runtime& runtime) {
        if (!stage.on_timeout)
            return fail(StageError::non_recoverable("error: timeout while processing operation",
                                                    std::string(k_reason_timeout)));
        StageContext context(m_op, runtime, m_ex.m_ports, m_ex.m_options, m_now, m_memory);
        return fail(stage.on_timeout(context));
    }

    // A stage's notes go into the history as entries within its stage, before what follows;
    // so does a new progress message, which also becomes the operation's.
    void take_notes() {
        for (auto& note : m_memory.notes) {
            m_ex.log(LogLevel::Warning, "operation " + m_op.id + ": " + note);
            m_transitions.push_back({m_op.id, m_op.stage, m_op.stage, OperationState::InProgress,
                                     std::move(note), m_now});
        }
        m_memory.notes.clear();
        if (auto message = std::exchange(m_memory.message, std::nullopt);
            message && *message != m_op.message) {
            m_transitions.push_back(
                {m_op.id, m_op.stage, m_op.stage, OperationState::InProgress, *message, m_now});
            m_op.message = std::move(*message);
        }
    }

    void enter(const std::string& stage) {
        const std::string message = in_progress_message(stage);
        m_transitions.push_back(
            {m_op.id, m_op.stage, stage, OperationState::InProgress, message, m_now});
        m_op.stage = stage;
        m_op.message = message;
        m_op.last_transition = m_now;
        m_fields.set("stage", stage);
    }

    PassResult schedule(Duration delay) {
        m_ex.forget_failures(m_op.id);
        m_op.last_error = {};
        m_op.next_run_at = m_now + (delay > Duration::zero() ? m_ex.poll_delay(delay) : delay);
        PassResult saved = save(PassOutcome::Waiting, {});
        if (saved.outcome == PassOutcome::Waiting)
            watch_installation();
        return saved;
    }

    // An operation left waiting for its installation is made due by the CR's next change.
    void watch_installation() {
        auto& awaited = m_memory.awaited_installation;
        InstallationWatches* watches = m_ex.m_ports.installation_watches;
        const bool waits = m_op.stage == k_stage_waiting_for_installation ||
                           m_op.stage == k_stage_waiting_for_kyma_ready ||
                           m_op.stage == k_stage_waiting_for_kyma_deletion;
        if (awaited && watches && waits)
            watches->watch(
                m_op.cluster_id, std::move(awaited->target), std::move(awaited->resource_version),
                std::chrono::duration_cast<Duration>(m_op.next_run_at - m_ex.m_clock.now()));
        awaited.reset();
    }

    PassResult finish() {
        if (m_op.stage != k_stage_finished)
            m_transitions.push_back({m_op.id, m_op.stage, std::string(k_stage_finished),
                                     OperationState::InProgress,
                                     std::string(k_message_finished_steps), m_now});
        m_transitions.push_back({m_op.id, std::string(k_stage_finished),
                                 std::string(k_stage_finished), OperationState::Succeeded,
                                 std::string(k_message_succeeded), m_now});
        m_op.stage = k_stage_finished;
        m_op.last_transition = m_now;
        m_op.state = OperationState::Succeeded;
        m_op.message = k_message_succeeded;
        m_op.end_timestamp = m_now;
        m_op.last_error = {};
        m_op.next_run_at = m_now;
        m_ex.forget_failures(m_op.id);
        return save(PassOutcome::Succeeded, {});
    }

    PassResult fail(const StageError& e) {
        take_notes(); // what the stage reported before it failed comes first
        if (m_op.type == OperationType::Upgrade)
            m_memory.change.upgrade_state = UpgradeState::Failed; // §3.3
        m_op.state = OperationState::Failed;
        m_op.message = e.what();
        m_op.end_timestamp = m_now;
        m_op.last_error = {e.what(), e.reason(), e.component()};
        m_op.next_run_at = m_now;
        m_transitions.push_back(
            {m_op.id, m_op.stage, m_op.stage, OperationState::Failed, e.what(), m_now});
        m_ex.forget_failures(m_op.id);
        PassResult saved = save(PassOutcome::Failed, e.what());
        if (saved.outcome == PassOutcome::Failed && m_runtime)
            report_failed_to_director(m_ex.m_options, m_ex.m_ports, m_op, *m_runtime);
        return saved;
    }

    PassResult retry(const StageError& e) {
        take_notes();
        const int failures = m_ex.count_failure(m_op);
        m_op.last_error = {e.what(), e.reason(), e.component()};
        m_op.next_run_at = m_now + m_ex.retry_delay(failures);
        return save(PassOutcome::Waiting, e.what());
    }

    PassResult save(PassOutcome outcome, const std::string& error) {
        take_notes(); // of a stage that failed after noting something
        const bool claim =
            m_claim_next && outcome != PassOutcome::Failed && !m_claim_next->stop.stop_requested();
        std::optional<Operation> next;
        try {
            if (claim && m_claim_next->before_claim)
                m_claim_next->before_claim();
            // The fence is checked at the time of the write, not at the start of the pass.
            if (claim)
                next = m_ex.m_store.save_progress_and_claim_next(
                    m_op, m_owner, m_ex.m_clock.now(), m_transitions, m_memory.change,
                    m_ex.m_options.lease_ttl, m_claim_next->order);
            else
                m_ex.m_store.save_progress(m_op, m_owner, m_ex.m_clock.now(), m_transitions,
                                           m_memory.change, true);
        } catch (const LeaseLost&) {
            return lost();
        } catch (const StoreError& e) {
            return store_failed(e);
        }
        PassResult r = result(outcome, error);
        r.claimed_with_save = claim;
        r.next = std::move(next);
        return r;
    }

    PassResult lost() {
        m_ex.log(LogLevel::Debug, "operation " + m_op.id + ": " + m_owner +
                                      " lost its lease; another worker goes on with it");
        return result(PassOutcome::LeaseLost, {});
    }

    PassResult store_failed(const StoreError& e) {
        m_ex.log(LogLevel::Error, "operation " + m_op.id + ": " + e.what());
        release_quietly();
        return result(PassOutcome::StoreFailed, e.what());
    }

    void release_quietly() {
        try {
            m_ex.m_store.release(m_op.id, m_owner);
        } catch (const std::exception&) {
            // The lease then expires by itself.
        }
    }

    PassResult result(PassOutcome outcome, const std::string& error) const {
        PassResult r;
        r.outcome = outcome;
        r.operation = m_op;
        if (m_memory.shoot)
            r.shoot_operation = m_memory.shoot->last_operation;
        r.error = error;
        return r;
    }

    LogFieldsScope m_fields; ///< what this thread's log lines are about while the pass runs
    Executor& m_ex;
    Operation m_op;
    const std::string& m_owner;
    const ClaimNext* m_claim_next; ///< nullptr: the save claims nothing
    Timestamp m_now;
    LeaseKeeper::Hold m_lease; ///< renewed in the background while the pass runs
    std::vector<StageTransition> m_transitions;
    PassMemory m_memory;
    const Runtime* m_runtime = nullptr; ///< once loaded
};

Executor::Executor(const EnginePorts& ports, EngineOptions options, JitterSource jitter)
    : m_ports((check_ports(ports, options, PortsFor::Executor), ports))
    , m_store(*ports.store)
    , m_shoots(*ports.shoots)
    , m_clusters(*ports.clusters)
    , m_clock(*ports.clock)
    , m_options(std::move(options))
    , m_leases(m_store, m_clock, m_options.lease_ttl, m_ports.log)
    , m_jitter(std::move(jitter)) {
    if (!m_jitter) {
        auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
        m_jitter = [engine] {
            return std::uniform_real_distribution<double>(0.0, 1.0)(*engine);
        };
    }
    const StageTable provision = provision_stages(m_options);
    const StageTable deprovision = deprovision_stages(m_options);
    m_tables.emplace(OperationType::Provision, provision);
    m_tables.emplace(OperationType::ProvisionNoInstall, provision);
    m_tables.emplace(OperationType::Deprovision, deprovision);
    m_tables.emplace(OperationType::DeprovisionNoInstall, deprovision);
    m_tables.emplace(OperationType::UpgradeShoot, upgrade_stages(m_options));
    m_tables.emplace(OperationType::Hibernate, hibernation_stages(m_options));
    m_tables.emplace(OperationType::WakeUp, wake_up_stages(m_options));
    m_tables.emplace(OperationType::Upgrade, kyma_upgrade_stages(m_options));
    // RECONNECT_RUNTIME (a stub in the original) has no table on purpose.
}

const StageTable* Executor::stages_for(OperationType type) const {
    const auto it = m_tables.find(type);
    return it == m_tables.end() ? nullptr : &it->second;
}

PassResult Executor::run_pass(const Operation& claimed, const std::string& owner,
                              const ClaimNext* claim_next) {
    return Pass(*this, claimed, owner, claim_next).run();
}

PassResult Executor::run_operation(const std::string& operation_id, const std::string& owner) {
    auto claimed = m_store.claim(operation_id, owner, m_clock.now(), m_options.lease_ttl);
    if (claimed)
        return Pass(*this, *claimed, owner, nullptr).run();
    auto current = m_store.find_operation(operation_id);
    if (!current)
        throw NotFound("operation " + operation_id + " does not exist");
    PassResult r;
    r.outcome = PassOutcome::NotClaimed;
    r.operation = std::move(*current);
    return r;
}

std::vector<PassResult>
Executor::run_due(const std::string& owner, int limit, ClaimOrder order,
                  const std::function<void(const Operation&)>& before_pass) {
    std::vector<PassResult> results;
    for (const auto& op :
         m_store.claim_due(owner, m_clock.now(), m_options.lease_ttl, limit, order)) {
        if (before_pass)
            before_pass(op);
        results.push_back(run_pass(op, owner));
    }
    return results;
}

Duration Executor::poll_delay(Duration delay) {
    double u = 0;
    {
        std::lock_guard lock(m_mutex);
        u = m_jitter();
    }
    return delay + std::chrono::duration_cast<Duration>(delay * (m_options.retry.poll_jitter * u));
}

Duration Executor::retry_delay(int failures) {
    const RetryPolicy& policy = m_options.retry;
    Duration delay = policy.first_retry;
    for (int i = 1; i < failures && delay < policy.max_retry; ++i)
        delay *= 2;
    delay = std::min(delay, policy.max_retry);
    double u = 0;
    {
        std::lock_guard lock(m_mutex);
        u = m_jitter();
    }
    return delay + std::chrono::duration_cast<Duration>(delay * (policy.retry_jitter * u));
}

int Executor::count_failure(const Operation& op) {
    std::lock_guard lock(m_mutex);
    // Not counted yet but the stored operation carries an error: its last pass failed too.
    const auto it = m_failures.try_emplace(op.id, op.last_error.empty() ? 0 : 1).first;
    return ++it->second;
}

int Executor::failed_passes(const Operation& op) {
    std::lock_guard lock(m_mutex);
    const auto it = m_failures.find(op.id);
    if (it != m_failures.end())
        return it->second;
    return op.last_error.empty() ? 0 : 1;
}

void Executor::forget_failures(const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    m_failures.erase(operation_id);
}

void Executor::log(LogLevel level, const std::string& message) const {
    m_ports.write_log(level, message);
}

} // namespace kprov::engine
