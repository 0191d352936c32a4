// The executor's own rules (original-provisioner.md §3.2-3.3, §2.7; ARCHITECTURE.md Engine):
// timeouts, lastError bookkeeping, backoff, unknown stages and types, leases and store failures.

#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ExecutorTest : public EngineTest {
protected:
    // A provisioning at WaitingForClusterCreation whose shoot is being created.
    std::string waiting_for_creation() {
        const auto started = provision();
        pass(started.operation.id);
        gardener.observe("shoot1");
        gardener.set_last_operation("shoot1", "Create", "Processing");
        return started.operation.id;
    }

    void rate_limited() {
        gardener.set_last_operation("shoot1", "Create", "Failed");
        gardener.set_last_errors("shoot1", {"ERR_INFRA_RATE_LIMITS_EXCEEDED"});
    }
};

// --- timeouts ----------------------------------------------------------------------------

TEST_F(ExecutorTest, AStageTimesOutAfterItsTimeoutFromItsLastTransition) {
    const std::string id = waiting_for_creation();
    rate_limited();
    clock.advance(2s);
    EXPECT_FALSE(pass(id).operation.last_error.empty());
    gardener.set_last_operation("shoot1", "Create", "Processing");
    clock.set(k_start + 60min); // exactly the timeout: still running
    EXPECT_EQ(pass(id).outcome, PassOutcome::Waiting);
    rate_limited();
    clock.set(k_start + 60min + 1s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    const Operation op = operation(id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.message, "error: timeout while processing operation");
    EXPECT_EQ(op.end_timestamp, clock.now());
    EXPECT_EQ(op.last_error, (LastError{"error: timeout while processing operation",
                                        "err_provisioner_timeout", "provisioner"}));
    EXPECT_TRUE(gardener.has_shoot("shoot1")); // the shoot is left as it is
}

TEST_F(ExecutorTest, TimeoutsComeFromTheOptionsPerStage) {
    options.timeouts.cluster_creation = 2h;
    const std::string id = waiting_for_creation();
    clock.advance(90min);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Waiting);

    gardener.default_dns_domain = false;
    const auto other = provision(provision_document("shoot2"));
    pass(other.operation.id);
    EXPECT_EQ(operation(other.operation.id).stage, "WaitingForClusterDomain");
    clock.advance(10min + 1s);
    EXPECT_EQ(pass(other.operation.id).outcome, PassOutcome::Failed);
}

TEST_F(ExecutorTest, WithoutALastTransitionTheTimeoutCountsFromTheStart) {
    const std::string runtime_id = provisioned_runtime();
    const auto started = service().deprovision(runtime_id, context);
    pass(started.operation.id);
    // The stage changed, so the timeout of WaitForClusterDeletion counts from that change.
    clock.advance(60min + 1s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);

    const Operation op =
        stored_operation(OperationType::DeprovisionNoInstall, "WaitForClusterDeletion");
    Operation no_transition = op;
    no_transition.last_transition.reset();
    no_transition.start_timestamp = clock.now() - 61min;
    store.put_operation(no_transition);
    EXPECT_EQ(pass(op.id).operation.message, "error: timeout while processing operation");
}

// --- lastError and backoff -----------------------------------------------------------------

TEST_F(ExecutorTest, LastErrorIsSetByAFailedPassAndClearedByACleanOne) {
    const std::string id = waiting_for_creation();
    rate_limited();
    clock.advance(20s);
    EXPECT_EQ(pass(id).operation.last_error.reason, "ERR_INFRA_RATE_LIMITS_EXCEEDED");
    EXPECT_EQ(operation(id).last_error.reason, "ERR_INFRA_RATE_LIMITS_EXCEEDED");
    gardener.set_last_operation("shoot1", "Create", "Processing");
    clock.advance(2s);
    const auto clean = pass(id);
    EXPECT_TRUE(clean.error.empty());
    EXPECT_TRUE(operation(id).last_error.empty());
}

TEST_F(ExecutorTest, RecoverableErrorsBackOffExponentiallyUpToTheCapAndResetAfterSuccess) {
    options.retry.max_retry = 10s;
    const std::string id = waiting_for_creation();
    rate_limited();
    std::vector<Duration> delays;
    for (int i = 0; i < 5; ++i) {
        clock.set(operation(id).next_run_at);
        const auto result = pass(id);
        delays.push_back(
            std::chrono::duration_cast<Duration>(result.operation.next_run_at - clock.now()));
    }
    EXPECT_THAT(delays, ElementsAre(2s, 4s, 8s, 10s, 10s));

    gardener.set_last_operation("shoot1", "Create", "Processing");
    clock.set(operation(id).next_run_at);
    pass(id);
    rate_limited();
    clock.set(operation(id).next_run_at);
    EXPECT_EQ(pass(id).operation.next_run_at, clock.now() + 2s);
}

TEST_F(ExecutorTest, AfterARestartTheBackoffGoesOnFromAStoredError) {
    const std::string id = waiting_for_creation();
    rate_limited();
    clock.advance(20s);
    pass(id); // 2 s
    clock.advance(2s);
    const auto result = new_executor()->run_operation(id, "restarted");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 4s);
}

TEST_F(ExecutorTest, JitterStretchesPollsAndRetries) {
    jitter = 0.5;
    const std::string id = waiting_for_creation();
    EXPECT_EQ(operation(id).next_run_at, k_start + 21s); // 20 s + 10 % * 0.5
    rate_limited();
    clock.advance(21s);
    EXPECT_EQ(pass(id).operation.next_run_at, clock.now() + 2200ms); // 2 s + 20 % * 0.5
}

TEST_F(ExecutorTest, AnUnclassifiedErrorIsARecoverableInternalError) {
    const std::string id = waiting_for_creation();
    gardener.fail_next("get", error<std::runtime_error>("unexpected answer"));
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"unexpected answer", "err_provisioner_internal", "provisioner"}));
}

// --- unknown stages and types ----------------------------------------------------------------

TEST_F(ExecutorTest, AStageTheTableDoesNotKnowFailsTheOperation) {
    const Operation op = stored_operation(OperationType::Provision, "UpgradingShoot");
    const auto result = pass(op.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(operation(op.id).last_error,
              (LastError{"error: step UpgradingShoot not found in installation stages",
                         "err_provisioner_step_not_found", "provisioner"}));
}

TEST_F(ExecutorTest, TheRuntimeAgentReconnectionIsNotSupported) {
    // The original's reconnectRuntimeAgent was always a stub: no stages exist for it.
    for (auto type : {OperationType::ReconnectRuntime}) {
        const Operation op = stored_operation(type, "StartingUpgrade");
        EXPECT_EQ(pass(op.id).outcome, PassOutcome::Failed);
        EXPECT_EQ(operation(op.id).message,
                  "operation type " + std::string(to_db(type)) + " is not supported by kprov");
        EXPECT_EQ(operation(op.id).last_error.reason, "err_provisioner_internal");
        EXPECT_EQ(executor().stages_for(type), nullptr);
    }
}

TEST_F(ExecutorTest, AnOperationLeftAtFinishedSucceeds) {
    const Operation op = stored_operation(OperationType::UpgradeShoot, "Finished");
    EXPECT_EQ(pass(op.id).outcome, PassOutcome::Succeeded);
    EXPECT_THAT(stages_of(op.id), ElementsAre("Finished"));
    EXPECT_EQ(operation(op.id).message, "Operation succeeded");
}

// --- leases and the store ------------------------------------------------------------------

TEST_F(ExecutorTest, ALeaseTakenOverMidPassStopsThePassWithoutWriting) {
    const auto started = provision();
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method == "create")
            store.set_lease(started.operation.id, Lease{"other-worker", k_start + 1h});
    };
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::LeaseLost);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "CreatingShoot");
    EXPECT_EQ(op.lease->owner, "other-worker");
    EXPECT_TRUE(store.transitions_of(op.id).empty());
    EXPECT_EQ(store.saves(), 0);
}

TEST_F(ExecutorTest, AnExpiredLeaseIsNotRenewedAndThePassStops) {
    options.lease_ttl = 30s;
    const auto started = provision();
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method == "create")
            clock.advance(31s); // a very slow Gardener
    };
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::LeaseLost);
    EXPECT_EQ(operation(started.operation.id).stage, "CreatingShoot");
    EXPECT_EQ(store.saves(), 0);
}

TEST_F(ExecutorTest, TheLeaseIsRenewedBeforeAStageWhenLessThanHalfIsLeft) {
    options.lease_ttl = 30s;
    const auto started = provision();
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method == "create")
            clock.advance(20s);
    };
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
    EXPECT_FALSE(operation(started.operation.id).lease);
}

TEST_F(ExecutorTest, AStageLongerThanTheLeaseKeepsItThroughTheHeartbeat) {
    options.lease_ttl = 30s;
    const auto started = provision();
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method != "create")
            return;
        clock.advance(25s); // one slow Gardener call, 50 s in all against a 30 s lease
        executor().leases().renew_all();
        clock.advance(25s);
    };
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting) << result.error;
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(store.saves(), 1);
    EXPECT_FALSE(operation(started.operation.id).lease);
}

TEST_F(ExecutorTest, ALeaseTheHeartbeatLostStopsThePassBeforeItsNextStage) {
    const auto started = provision();
    std::vector<std::string> calls;
    gardener.on_call = [&](const std::string& method, const std::string&) {
        calls.push_back(method);
        if (method != "create")
            return;
        // Taken over while the lease still had most of its time: only a renewal notices.
        store.set_lease(started.operation.id, Lease{"other-worker", k_start + 1h});
        executor().leases().renew_all();
    };
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::LeaseLost);
    EXPECT_THAT(calls, ElementsAre("create")) << "WaitingForClusterCreation ran without a lease";
    EXPECT_EQ(store.saves(), 0);
    EXPECT_EQ(operation(started.operation.id).lease->owner, "other-worker");
}

TEST_F(ExecutorTest, AFailingStoreLosesTheHeartbeatsLeaseOnlyOnceItHasRunOut) {
    options.lease_ttl = 30s;
    std::vector<std::string> warnings;
    ports.log = [&](LogLevel level, const std::string& message) {
        if (level == LogLevel::Warning)
            warnings.push_back(message);
    };
    const auto started = provision();
    bool store_down = false;
    store.before_renew = [&] {
        if (store_down)
            throw StoreError("connection refused");
    };
    std::vector<bool> lost_after_beat;
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method != "create")
            return;
        store_down = true;
        for (int beat = 0; beat < 3; ++beat) { // at 10 s, 20 s and 30 s of a 30 s lease
            clock.advance(10s);
            executor().leases().renew_all();
            lost_after_beat.push_back(executor().leases().lost(started.operation.id));
        }
        store_down = false;
    };
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::LeaseLost);
    EXPECT_THAT(lost_after_beat, ElementsAre(false, false, true));
    ASSERT_EQ(warnings.size(), 1u) << "one warning for a run of failed renewals";
    EXPECT_THAT(warnings[0], HasSubstr("connection refused"));
    EXPECT_EQ(store.saves(), 0);
}

TEST_F(ExecutorTest, AStoreFailureReleasesTheLeaseAndWritesNothing) {
    const auto started = provision();
    store.before_save = [](const Operation&) {
        throw StoreError("disk full");
    };
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::StoreFailed);
    EXPECT_EQ(result.error, "disk full");
    const Operation op = operation(started.operation.id);
    EXPECT_FALSE(op.lease);
    EXPECT_EQ(op.stage, "CreatingShoot");
}

TEST_F(ExecutorTest, RunDueRunsOnlyDueOperationsNobodyElseHolds) {
    const auto a = provision(provision_document("shoot-a"));
    const auto b = provision(provision_document("shoot-b"));
    const auto c = provision(provision_document("shoot-c"));
    store.set_lease(b.operation.id, Lease{"other", k_start + 1min});
    pass(c.operation.id); // now waiting 20 s
    const auto results = executor().run_due(k_worker, 10);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].operation.id, a.operation.id);
    EXPECT_EQ(results[0].operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(operation(b.operation.id).stage, "CreatingShoot");
}

TEST_F(ExecutorTest, ANotInProgressOperationIsNotRun) {
    const Operation op = stored_operation(OperationType::Hibernate, "WaitForHibernation");
    Operation done = op;
    done.state = OperationState::Failed;
    store.put_operation(done);
    EXPECT_EQ(pass(op.id).outcome, PassOutcome::NotClaimed);
    EXPECT_THROW(pass("no-such-operation"), NotFound);
}

} // namespace
} // namespace kprov::engine::test
