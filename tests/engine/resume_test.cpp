// Restarts (deliberate difference 1: every operation type resumes at its stored stage) and
// drive(), the in-process runner behind `--wait`.

#include "engine_fixture.hpp"

#include <algorithm>
#include <atomic>
#include <gmock/gmock.h>
#include <map>
#include <set>
#include <thread>

namespace kprov::engine::test {
namespace {

using ::testing::Contains;

class Resume : public EngineTest {};

struct ResumeCase {
    OperationType type;
    std::string stage;
    PassOutcome outcome;
    std::string stage_after;
    std::vector<std::string> calls;    ///< Gardener methods the resumed pass must call
    std::vector<std::string> no_calls; ///< ... and must not
};

TEST_F(Resume, EveryOperationTypeResumesAtItsStoredStageInANewExecutor) {
    const std::vector<ResumeCase> cases = {
        {OperationType::Provision,
         "WaitingForClusterCreation",
         PassOutcome::Succeeded,
         "Finished",
         {"admin_kubeconfig"},
         {"create"}},
        {OperationType::ProvisionNoInstall,
         "WaitingForClusterDomain",
         PassOutcome::Succeeded,
         "Finished",
         {"get"},
         {"create"}},
        {OperationType::Deprovision,
         "DeprovisionCluster",
         PassOutcome::Waiting,
         "WaitForClusterDeletion",
         {"patch", "remove"},
         {}},
        {OperationType::DeprovisionNoInstall,
         "WaitForClusterDeletion",
         PassOutcome::Waiting,
         "WaitForClusterDeletion",
         {"get"},
         {"patch", "remove"}},
        {OperationType::UpgradeShoot,
         "WaitingForShootNewVersion",
         PassOutcome::Succeeded,
         "Finished",
         {"get", "admin_kubeconfig"},
         {"update"}},
        {OperationType::Hibernate,
         "WaitForHibernation",
         PassOutcome::Waiting,
         "WaitForHibernation",
         {"get"},
         {"patch"}},
        {OperationType::WakeUp,
         "WaitForWakeUp",
         PassOutcome::Succeeded,
         "Finished",
         {"get"},
         {"patch"}},
    };
    std::vector<Operation> stored;
    for (const auto& c : cases)
        stored.push_back(stored_operation(c.type, c.stage));
    std::map<std::string, std::multiset<std::string>> calls; // by shoot name
    gardener.on_call = [&](const std::string& method, const std::string& name) {
        calls[name].insert(method);
    };

    auto restarted = new_executor(); // as after a restart: nothing in memory
    const auto results = restarted->run_due("restarted-worker", 100);
    ASSERT_EQ(results.size(), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        SCOPED_TRACE(std::string(to_db(c.type)) + " at " + c.stage);
        const auto result = std::find_if(results.begin(), results.end(), [&](const auto& r) {
            return r.operation.id == stored[i].id;
        });
        ASSERT_NE(result, results.end());
        EXPECT_EQ(result->outcome, c.outcome) << result->error;
        EXPECT_EQ(result->operation.stage, c.stage_after);
        const auto transitions = store.transitions_of(stored[i].id);
        if (!transitions.empty()) {
            EXPECT_EQ(transitions.front().from_stage, c.stage);
        }
        const auto& made = calls[runtime(stored[i].cluster_id).gardener.name];
        for (const auto& m : c.calls)
            EXPECT_TRUE(made.count(m)) << m;
        for (const auto& m : c.no_calls)
            EXPECT_FALSE(made.count(m)) << m;
    }
}

TEST_F(Resume, AProvisioningSavedByOneExecutorIsFinishedByTheNext) {
    const auto started = provision();
    {
        auto first = new_executor();
        first->run_operation(started.operation.id, "worker-a");
    } // the process ends
    EXPECT_EQ(operation(started.operation.id).stage, "WaitingForClusterCreation");
    gardener.succeed("shoot1");
    clock.advance(20s);
    auto second = new_executor();
    const auto results = second->run_due("worker-b", 10);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].outcome, PassOutcome::Succeeded);
    EXPECT_EQ(gardener.calls("create"), 1);
}

TEST_F(Resume, ACrashedWorkersLeaseExpiresBeforeAnotherTakesOver) {
    const auto started = provision();
    ASSERT_TRUE(store.claim(started.operation.id, "crashed", clock.now(), options.lease_ttl));
    EXPECT_TRUE(executor().run_due(k_worker, 10).empty());
    clock.advance(options.lease_ttl + 1s);
    const auto results = executor().run_due(k_worker, 10);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].operation.stage, "WaitingForClusterCreation");
}

TEST_F(Resume, WorkerThreadsShareOneExecutorAndNeverRunAnOperationTwice) {
    std::vector<std::string> ids;
    for (int i = 0; i < 24; ++i)
        ids.push_back(provision(provision_document("shoot-" + std::to_string(i))).operation.id);
    Executor& shared = executor();
    std::vector<std::thread> workers;
    std::atomic<int> passes{0};
    for (int w = 0; w < 4; ++w)
        workers.emplace_back([&, w] {
            for (int round = 0; round < 10; ++round)
                passes += static_cast<int>(shared.run_due("thread-" + std::to_string(w), 3).size());
        });
    for (auto& t : workers)
        t.join();
    EXPECT_EQ(passes.load(), 24);
    EXPECT_EQ(gardener.calls("create"), 24);
    for (const auto& id : ids)
        EXPECT_EQ(operation(id).stage, "WaitingForClusterCreation");
}

// --- drive ---------------------------------------------------------------------------------

class Drive : public EngineTest {
protected:
    fakes::FakeSleeper sleeper{clock};
    std::vector<std::string> progress;
    DriveOptions drive_options() {
        DriveOptions o;
        o.on_progress = [this](const PassResult& r) {
            progress.push_back(r.operation.stage);
        };
        return o;
    }
};

TEST_F(Drive, RunsTheOperationToItsEndOnTheFakeClock) {
    const auto started = provision();
    sleeper.on_sleep = [&](Timestamp) {
        if (clock.now() >= k_start + 40s &&
            !gardener.shoot("shoot1")["status"].contains("lastOperation"))
            gardener.succeed("shoot1");
    };
    const auto result = executor().drive(started.operation.id, "cli", sleeper, drive_options());
    EXPECT_EQ(result.end, DriveEnd::Ended);
    EXPECT_EQ(result.operation.state, OperationState::Succeeded);
    EXPECT_EQ(sleeper.sleeps, 2); // 20 s, 20 s
    EXPECT_EQ(clock.now(), k_start + 40s);
    EXPECT_THAT(progress, Contains("WaitingForClusterCreation"));
    EXPECT_EQ(progress.back(), "Finished");
}

TEST_F(Drive, StopsAtTheDeadlineLeavingTheOperationResumable) {
    const auto started = provision();
    DriveOptions o = drive_options();
    o.deadline = k_start + 5min;
    const auto result = executor().drive(started.operation.id, "cli", sleeper, o);
    EXPECT_EQ(result.end, DriveEnd::Deadline);
    EXPECT_EQ(clock.now(), k_start + 5min);
    EXPECT_EQ(result.operation.state, OperationState::InProgress);
    EXPECT_FALSE(result.operation.lease);
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
}

TEST_F(Drive, StopsWhenAskedTo) {
    const auto started = provision();
    std::stop_source stop;
    DriveOptions o = drive_options();
    o.stop = stop.get_token();
    o.on_progress = [&](const PassResult&) {
        stop.request_stop();
    };
    const auto result = executor().drive(started.operation.id, "cli", sleeper, o);
    EXPECT_EQ(result.end, DriveEnd::Stopped);
    EXPECT_EQ(result.operation.state, OperationState::InProgress);
}

TEST_F(Drive, WaitsForAnotherWorkerToLetGoAndReportsItsProgressOnce) {
    const auto started = provision();
    store.set_lease(started.operation.id, Lease{"watcher", k_start + 10s});
    DriveOptions o = drive_options();
    o.deadline = k_start + 15s;
    const auto result = executor().drive(started.operation.id, "cli", sleeper, o);
    // Looked every second while the watcher held it, then ran it at 10 s.
    EXPECT_EQ(result.end, DriveEnd::Deadline);
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(std::count(progress.begin(), progress.end(), "CreatingShoot"), 1);
    EXPECT_EQ(sleeper.sleeps, 11);
    EXPECT_EQ(gardener.calls("create"), 1);
}

TEST_F(Drive, AnOperationThatAlreadyEndedReturnsAtOnce) {
    const Operation op = stored_operation(OperationType::Hibernate, "WaitForHibernation");
    Operation done = op;
    done.state = OperationState::Succeeded;
    store.put_operation(done);
    const auto result = executor().drive(op.id, "cli", sleeper, drive_options());
    EXPECT_EQ(result.end, DriveEnd::Ended);
    EXPECT_EQ(result.operation.state, OperationState::Succeeded);
    EXPECT_EQ(sleeper.sleeps, 0);
    EXPECT_THROW(executor().drive("missing", "cli", sleeper, drive_options()), NotFound);
}

} // namespace
} // namespace kprov::engine::test
