// WorkerPool: worker threads over the fakes. The fake clock stands still, so an operation that
// waits is only run again when something makes it due (an event, make_due); the pools' idle
// sleeps are real but short.

#include "engine/run/worker_pool.hpp"
#include "engine_fixture.hpp"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <set>
#include <thread>

namespace kprov::engine::test {
namespace {

// Waits (really) until `done` holds, up to `limit`.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = 5000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > until)
            return false;
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

// The fake Gardener as several threads see it: calls are delayed outside the fake's lock (so
// passes really overlap), concurrent calls about one shoot are detected, and an optional gate
// holds creates until the test opens it.
class ThreadedShoots final : public ShootClient {
public:
    explicit ThreadedShoots(fakes::FakeGardener& fake)
        : m_fake(fake) {}

    std::optional<ShootState> get(const std::string& name) override {
        Guard g(*this, name);
        return m_fake.get(name);
    }
    std::vector<ShootState> list(const std::string& selector) override {
        return m_fake.list(selector);
    }
    ShootState create(const std::string& shoot_json) override {
        const auto name = nlohmann::json::parse(shoot_json)["metadata"]["name"].get<std::string>();
        Guard g(*this, name);
        {
            std::unique_lock lock(m_mutex);
            ++m_creates_waiting;
            m_cv.notify_all();
            m_cv.wait(lock, [this] { return m_gate_open; });
            --m_creates_waiting;
        }
        auto created = m_fake.create(shoot_json);
        if (after_create)
            after_create(name);
        return created;
    }
    ShootState update(const std::string& shoot_json) override { return m_fake.update(shoot_json); }
    ShootState patch(const std::string& name, const std::string& merge_patch) override {
        Guard g(*this, name);
        return m_fake.patch(name, merge_patch);
    }
    bool remove(const std::string& name) override {
        Guard g(*this, name);
        return m_fake.remove(name);
    }
    std::string admin_kubeconfig(const std::string& name, std::chrono::seconds exp) override {
        Guard g(*this, name);
        return m_fake.admin_kubeconfig(name, exp);
    }
    void put_config_map(const std::string& config_map) override {
        m_fake.put_config_map(config_map);
    }
    void delete_config_map(const std::string& name) override { m_fake.delete_config_map(name); }

    void close_gate() {
        std::lock_guard lock(m_mutex);
        m_gate_open = false;
    }
    void open_gate() {
        {
            std::lock_guard lock(m_mutex);
            m_gate_open = true;
        }
        m_cv.notify_all();
    }
    /// Waits until `n` creates are held at the closed gate at once.
    bool creates_waiting(int n) {
        std::unique_lock lock(m_mutex);
        return m_cv.wait_for(lock, 5s, [&] { return m_creates_waiting >= n; });
    }

    std::function<void(const std::string&)> after_create;
    std::chrono::milliseconds delay{0};
    std::atomic<int> overlaps{0}; ///< calls about one shoot that ran at the same time

private:
    struct Guard {
        Guard(ThreadedShoots& s, std::string n)
            : shoots(s)
            , name(std::move(n)) {
            {
                std::lock_guard lock(shoots.m_mutex);
                if (shoots.m_active[name]++ > 0)
                    ++shoots.overlaps;
            }
            std::this_thread::sleep_for(shoots.delay);
        }
        ~Guard() {
            std::lock_guard lock(shoots.m_mutex);
            --shoots.m_active[name];
        }
        ThreadedShoots& shoots;
        std::string name;
    };

    fakes::FakeGardener& m_fake;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::map<std::string, int> m_active;
    bool m_gate_open = true;
    int m_creates_waiting = 0;
};

class ThreadedClusters final : public RuntimeClusterClient {
public:
    void create_operator_bindings(const std::string&, const OperatorBindings&) override {
        ++calls;
        if (on_bindings)
            on_bindings();
    }
    void configure_runtime_agent(const std::string&, const AgentConfiguration&) override {}
    std::optional<std::string> compass_connection_state(const std::string&) override {
        return std::nullopt;
    }
    std::atomic<int> calls{0};
    std::function<void()> on_bindings; ///< set before the workers start
};

class WorkerPoolTest : public EngineTest {
protected:
    WorkerPoolTest()
        : shoots(gardener) {}

    std::unique_ptr<Executor> threaded_executor() {
        EnginePorts threaded = ports;
        threaded.shoots = &shoots;
        threaded.clusters = &clusters_mt;
        return std::make_unique<Executor>(threaded, options, [] { return 0.0; });
    }
    std::unique_ptr<WorkerPool> pool(Executor& executor, int workers, std::string prefix = "pool",
                                     std::chrono::milliseconds max_idle = 50ms) {
        WorkerPoolOptions o;
        o.workers = workers;
        o.owner_prefix = std::move(prefix);
        o.max_idle = max_idle;
        o.busy_poll = 5ms;
        return std::make_unique<WorkerPool>(executor, store, clock, o);
    }

    /// Provisions `n` runtimes (shoots "s<i>"); returns their operations.
    std::vector<StartedOperation> provision_many(int n) {
        std::vector<StartedOperation> out;
        for (int i = 0; i < n; ++i)
            out.push_back(provision(provision_document("s" + std::to_string(i))));
        return out;
    }

    bool at_stage(const std::vector<StartedOperation>& ops, std::string_view stage) {
        for (const auto& op : ops)
            if (operation(op.operation.id).stage != stage || operation(op.operation.id).lease)
                return false;
        return true;
    }
    bool all_succeeded(const std::vector<StartedOperation>& ops) {
        for (const auto& op : ops)
            if (operation(op.operation.id).state != OperationState::Succeeded)
                return false;
        return true;
    }

    /// Gardener finishes every shoot; the events say so.
    void finish_shoots(const std::vector<StartedOperation>& ops, std::vector<WorkerPool*> pools) {
        std::vector<ShootEvent> events;
        for (const auto& op : ops) {
            const std::string name = runtime(op.runtime_id).gardener.name;
            gardener.succeed(name);
            events.push_back({name, op.runtime_id, false, {}});
        }
        for (auto* p : pools)
            p->on_shoot_events(events);
    }

    ThreadedShoots shoots;
    ThreadedClusters clusters_mt;
};

TEST_F(WorkerPoolTest, WorkersRunEveryOperationSeveralAtATime) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 3);
    const auto ops = provision_many(8);
    shoots.close_gate();
    workers->start();
    // Three creates in flight at once: a long pass on one thread holds back no other.
    ASSERT_TRUE(shoots.creates_waiting(3));
    shoots.open_gate();
    ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));
    EXPECT_EQ(gardener.calls("create"), 8);

    finish_shoots(ops, {workers.get()});
    ASSERT_TRUE(eventually([&] { return all_succeeded(ops); }));
    EXPECT_EQ(clusters_mt.calls, 8);
    // The store says Succeeded before the worker counts its pass: stop (which lets passes in
    // flight end) before reading the counters.
    workers->stop();
    const auto stats = workers->stats();
    EXPECT_EQ(stats.succeeded, 8u);
    EXPECT_EQ(stats.failed, 0u);
    EXPECT_EQ(stats.events, 8u);
    for (const auto& op : ops)
        EXPECT_FALSE(operation(op.operation.id).lease);
}

TEST_F(WorkerPoolTest, APassThatEndsWaitingClaimsTheNextOperationWithItsSave) {
    // One worker, three new operations: the first is claimed alone, each pass's save claims the
    // next, and the last one's finds nothing due.
    auto executor = threaded_executor();
    auto workers = pool(*executor, 1, "pool", 1h);
    const auto ops = provision_many(3);
    workers->start();
    ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));
    workers->stop();
    EXPECT_EQ(workers->stats().passes, 3u);
    EXPECT_EQ(store.saves_that_claim(), 3);
    for (const auto& op : ops)
        EXPECT_EQ(operation(op.operation.id).attempts, 1) << "claimed once, run once";
}

TEST_F(WorkerPoolTest, AFailingPassSavesAloneAndTheWorkerClaimsOnItsOwn) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 1, "pool", 1h);
    const auto ops = provision_many(2);
    // Non-recoverable: the first pass fails its operation.
    gardener.fail_next("create",
                       error<RemoteError>("gardener: 422 Invalid: spec.region", 422, false));
    workers->start();
    const auto ended = [&](OperationState state) {
        int n = 0;
        for (const auto& op : ops)
            n += operation(op.operation.id).state == state &&
                 (state != OperationState::InProgress ||
                  operation(op.operation.id).stage == "WaitingForClusterCreation");
        return n;
    };
    ASSERT_TRUE(eventually([&] {
        return ended(OperationState::Failed) == 1 && ended(OperationState::InProgress) == 1;
    }));
    workers->stop();
    EXPECT_EQ(workers->stats().failed, 1u);
    // The failed pass saved alone; the worker's own claim found the other operation, whose
    // waiting pass then claimed (nothing) with its save.
    EXPECT_EQ(store.saves_that_claim(), 1);
    for (const auto& op : ops)
        EXPECT_EQ(operation(op.operation.id).attempts, 1);
}

TEST_F(WorkerPoolTest, AShootEventMakesItsWaitingOperationDueAtOnce) {
    auto executor = threaded_executor();
    // Idle workers look at the store every 10 s: only the event can explain a quick pass.
    auto workers = pool(*executor, 2, "pool", 10s);
    const auto ops = provision_many(2);
    workers->notify_due();
    workers->start();
    ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));
    const Timestamp scheduled = operation(ops[0].operation.id).next_run_at;
    EXPECT_EQ(scheduled, clock.now() + 20s); // the fallback poll, on a clock that stands still

    for (const auto& op : ops)
        gardener.succeed(runtime(op.runtime_id).gardener.name);
    // An event without a runtime id (a shoot kprov did not create) changes nothing.
    workers->on_shoot_events({{"foreign", std::nullopt, false, {}}});
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, {}}});
    // The clock stands still: only the event can have made it due.
    ASSERT_TRUE(eventually([&] { return all_succeeded({ops[0]}); }, 2s));
    // The other runtime had no event: it waits for its poll.
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(operation(ops[1].operation.id).stage, "WaitingForClusterCreation");
    EXPECT_EQ(operation(ops[1].operation.id).next_run_at, scheduled);
}

TEST_F(WorkerPoolTest, AnEventThatCannotMoveTheWaitingStageMakesNothingDue) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 1, "pool", 10s);
    const auto ops = provision_many(1);
    workers->start();
    // The stage is saved before its pass ends and is counted: wait for both.
    ASSERT_TRUE(eventually(
        [&] { return at_stage(ops, "WaitingForClusterCreation") && workers->stats().passes > 0; }));
    const auto passes = workers->stats().passes;

    // Gardener started the creation: the operation would only wait again.
    gardener.observe("s0");
    gardener.set_last_operation("s0", "Create", "Processing");
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, gardener.get("s0")}});
    EXPECT_EQ(workers->stats().events_ignored, 1u);
    // A runtime this pool has not run is made due by any event.
    workers->on_shoot_events(
        {{"other", std::string("unknown-runtime"), false, gardener.get("s0")}});
    EXPECT_EQ(workers->stats().events_ignored, 1u);

    gardener.succeed("s0");
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, gardener.get("s0")}});
    ASSERT_TRUE(eventually([&] { return all_succeeded(ops); }));
    EXPECT_EQ(workers->stats().events_ignored, 1u);
    EXPECT_EQ(workers->stats().passes, passes + 1); // the Succeeded event's pass, no other
}

TEST_F(WorkerPoolTest, AnEventDuringAPassOfItsOperationIsNotLost) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 1, "pool", 10s);
    const auto ops = provision_many(1);
    shoots.close_gate();
    workers->start();
    workers->notify_due();
    ASSERT_TRUE(shoots.creates_waiting(1));
    // The event arrives while the pass that creates the shoot still runs; its save then writes
    // the stage's 20 s poll over the event's make_due.
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, {}}});
    // Gardener is quick: the shoot is ready right after the create answered.
    shoots.after_create = [&](const std::string& name) {
        gardener.succeed(name);
    };
    shoots.open_gate();
    // The pass saw the create's answer (not ready) and scheduled a poll in 20 s, on a clock
    // that stands still; only a pass for the missed event can find the shoot ready.
    ASSERT_TRUE(eventually([&] { return all_succeeded(ops); }, 2s));
    EXPECT_EQ(gardener.calls("create"), 1);
}

TEST_F(WorkerPoolTest, AReadyShootIsNotHeldBackByABurstOfNewOperations) {
    auto executor = threaded_executor();
    const auto ready = provision_many(1); // s0
    {
        auto workers = pool(*executor, 1, "pool", 10s);
        workers->start();
        ASSERT_TRUE(eventually([&] { return at_stage(ready, "WaitingForClusterCreation"); }));
    }
    // Ten new operations arrive while s0's shoot gets ready and its event makes it due.
    std::vector<StartedOperation> burst;
    for (int i = 1; i <= 10; ++i)
        burst.push_back(provision(provision_document("s" + std::to_string(i))));
    gardener.succeed("s0");
    store.make_due({ready[0].runtime_id}, clock.now());
    int creates_before_bindings = -1;
    clusters_mt.on_bindings = [&] {
        if (creates_before_bindings < 0)
            creates_before_bindings = gardener.calls("create");
    };

    auto workers = pool(*executor, 1, "pool", 10s); // new_first_every = 4
    workers->start();
    ASSERT_TRUE(eventually(
        [&] { return all_succeeded(ready) && at_stage(burst, "WaitingForClusterCreation"); }));
    // The worker's first claim took a new operation, its second the re-check of s0: s0's own
    // create and one of the burst came before s0 finished, not all ten.
    EXPECT_EQ(creates_before_bindings, 2);
    EXPECT_EQ(gardener.calls("create"), 11);
}

TEST_F(WorkerPoolTest, AnEventDuringAPassIsJudgedAgainstTheStageThePassEndsAt) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 1, "pool", 10s);
    const auto ops = provision_many(1);
    shoots.close_gate();
    workers->start();
    workers->notify_due();
    ASSERT_TRUE(shoots.creates_waiting(1));
    // While the create is in flight, Gardener reports the creation started: the pass ends at
    // WaitingForClusterCreation, which that shoot cannot move, so no second pass follows.
    shoots.after_create = [&](const std::string& name) {
        gardener.observe(name);
        gardener.set_last_operation(name, "Create", "Processing");
    };
    ShootState started;
    started.name = "s0";
    started.last_operation = ShootState::LastOperation{"Create", "Processing", "", 0};
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, started}});
    shoots.open_gate();
    ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, gardener.get("s0")}});
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(workers->stats().passes, 1u);
    EXPECT_EQ(workers->stats().events_ignored, 1u); // the second; the first waited for the pass

    gardener.succeed("s0");
    workers->on_shoot_events({{"s0", ops[0].runtime_id, false, gardener.get("s0")}});
    ASSERT_TRUE(eventually([&] { return all_succeeded(ops); }));
    EXPECT_EQ(workers->stats().passes, 2u);
}

TEST_F(WorkerPoolTest, StopLetsPassesInFlightEndAndReleaseTheirLeases) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 2);
    const auto ops = provision_many(2);
    shoots.close_gate();
    workers->start();
    ASSERT_TRUE(shoots.creates_waiting(2));
    std::thread stopper([&] { workers->stop(); });
    std::this_thread::sleep_for(50ms); // stop() waits for the passes
    for (const auto& op : ops)
        EXPECT_TRUE(operation(op.operation.id).lease);
    shoots.open_gate();
    stopper.join();
    for (const auto& op : ops) {
        const auto stored = operation(op.operation.id);
        EXPECT_FALSE(stored.lease);
        EXPECT_EQ(stored.stage, "WaitingForClusterCreation"); // the pass ended and saved
    }
    // No new claims after stop.
    const auto late = provision(provision_document("late"));
    workers->notify_due();
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(operation(late.operation.id).attempts, 0);
    EXPECT_EQ(operation(late.operation.id).stage, "CreatingShoot");
}

TEST_F(WorkerPoolTest, PoolsSharingAStoreNeverRunOneOperationTwiceAtOnce) {
    // Three "processes" with two workers each, one store, and a storm of events that keeps
    // making every operation due again: each pass reads the shoot slowly, so two passes of one
    // operation would overlap.
    std::vector<std::unique_ptr<Executor>> executors;
    std::vector<std::unique_ptr<WorkerPool>> pools;
    for (int i = 0; i < 3; ++i) {
        executors.push_back(threaded_executor());
        pools.push_back(pool(*executors.back(), 2, "process-" + std::to_string(i)));
    }
    const auto ops = provision_many(6);
    for (auto& p : pools)
        p->start();
    ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));

    shoots.delay = 2ms;
    std::vector<ShootEvent> events;
    for (const auto& op : ops)
        events.push_back({runtime(op.runtime_id).gardener.name, op.runtime_id, false, {}});
    const int gets_before = gardener.calls("get");
    const auto until = std::chrono::steady_clock::now() + 600ms;
    while (std::chrono::steady_clock::now() < until) {
        for (auto& p : pools)
            p->on_shoot_events(events);
        std::this_thread::sleep_for(1ms);
    }
    EXPECT_GT(gardener.calls("get") - gets_before, 30); // the storm did cause passes

    std::vector<WorkerPool*> raw;
    for (auto& p : pools)
        raw.push_back(p.get());
    finish_shoots(ops, raw);
    ASSERT_TRUE(eventually([&] { return all_succeeded(ops); }));
    for (auto& p : pools)
        p->stop();

    EXPECT_EQ(shoots.overlaps, 0);
    EXPECT_EQ(gardener.calls("create"), 6);
    EXPECT_EQ(clusters_mt.calls, 6);
    for (const auto& op : ops) {
        std::set<std::string> stages;
        for (const auto& t : store.transitions_of(op.operation.id))
            EXPECT_TRUE(stages.insert(t.to_stage + "/" + std::string(to_db(t.state))).second)
                << "operation " << op.operation.id << " entered " << t.to_stage << " twice";
        EXPECT_FALSE(operation(op.operation.id).lease);
    }
    std::uint64_t passes = 0;
    for (auto& p : pools)
        passes += p->stats().passes;
    EXPECT_GT(passes, 30u);
}

TEST_F(WorkerPoolTest, AStartingPoolResumesEveryOperationInProgressAtOnce) {
    // Shoots finished while no process watched: a first list cannot show that one vanished, so
    // a new pool runs every operation in progress once instead of waiting for its poll.
    auto executor = threaded_executor();
    const auto ops = provision_many(2);
    {
        auto first = pool(*executor, 1);
        first->start();
        ASSERT_TRUE(eventually([&] { return at_stage(ops, "WaitingForClusterCreation"); }));
    }
    for (const auto& op : ops)
        gardener.succeed(runtime(op.runtime_id).gardener.name);

    auto quiet = pool(*executor, 1, "quiet", 10s);
    WorkerPoolOptions o = quiet->options();
    o.catch_up_on_start = false;
    quiet = std::make_unique<WorkerPool>(*executor, store, clock, o);
    quiet->start();
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(at_stage(ops, "WaitingForClusterCreation"));
    quiet->stop();

    auto restarted = pool(*executor, 1, "restarted", 10s);
    restarted->start();
    EXPECT_TRUE(eventually([&] { return all_succeeded(ops); }, 2s));
}

TEST_F(WorkerPoolTest, EveryWorkerHasItsOwnLeaseOwner) {
    auto executor = threaded_executor();
    auto workers = pool(*executor, 3, "watch-host-42-abcd");
    EXPECT_EQ(workers->owner_of(1), "watch-host-42-abcd-1");
    EXPECT_EQ(workers->owner_of(3), "watch-host-42-abcd-3");
}

} // namespace
} // namespace kprov::engine::test
