// InstallationWatches: a change of a runtime's Installation CR makes its operation due at once
// and wakes whoever waits; one watch per runtime, a bounded number in all, and the next watch of
// a runtime can start as soon as the pass its change caused asks for it.

#include "engine/run/installation_watches.hpp"
#include "engine_fixture.hpp"
#include "support/fake_kyma.hpp"
#include "support/fake_store.hpp"

#include <atomic>
#include <condition_variable>
#include <future>

namespace kprov::engine::test {
namespace {

class InstallationWatchesTest : public EngineTest {
protected:
    // A waiting operation of a runtime, due only in an hour.
    Operation waiting_operation() {
        Operation op = stored_operation(OperationType::Provision, "WaitingForInstallation");
        op.next_run_at = clock.now() + 1h;
        store.put_operation(op);
        return op;
    }
    fakes::FakeKymaInstaller installer;
};

TEST_F(InstallationWatchesTest, AChangeMakesTheOperationDueAndWakesTheWaiter) {
    const Operation op = waiting_operation();
    std::promise<void> woken;
    installer.on_await = [](const std::string& rv, std::chrono::milliseconds, std::stop_token) {
        return rv == "7";
    };
    InstallationWatches watches(installer, store, clock);
    watches.set_on_change([&] { woken.set_value(); });
    watches.watch(op.cluster_id, "kubeconfig", "7", 30s);
    ASSERT_EQ(woken.get_future().wait_for(5s), std::future_status::ready);
    EXPECT_EQ(store.find_operation(op.id)->next_run_at, clock.now());
}

TEST_F(InstallationWatchesTest, NoChangeLeavesTheOperationToItsPoll) {
    const Operation op = waiting_operation();
    InstallationWatches watches(installer, store, clock); // on_await unset: no watch possible
    watches.watch(op.cluster_id, "kubeconfig", "7", 30s);
    for (int i = 0; i < 100 && watches.active() > 0; ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(watches.active(), 0u);
    EXPECT_EQ(store.find_operation(op.id)->next_run_at, op.next_run_at);
}

TEST_F(InstallationWatchesTest, OneWatchPerRuntimeAndTheNextStartsRightAfterAChange) {
    const Operation op = waiting_operation();
    std::atomic<int> started{0};
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    installer.on_await = [&](const std::string&, std::chrono::milliseconds, std::stop_token) {
        ++started;
        std::unique_lock lock(m);
        cv.wait_for(lock, 5s, [&] { return release; });
        return true;
    };
    std::atomic<int> changes{0};
    InstallationWatches watches(installer, store, clock);
    // The pass a change causes asks for the next watch from inside the wake-up.
    watches.set_on_change([&] {
        if (++changes == 1)
            watches.watch(op.cluster_id, "kubeconfig", "9", 30s);
    });
    watches.watch(op.cluster_id, "kubeconfig", "8", 30s);
    watches.watch(op.cluster_id, "kubeconfig", "8", 30s); // already watched: no second one
    for (int i = 0; i < 100 && started < 1; ++i)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(started, 1);
    {
        std::lock_guard lock(m);
        release = true;
    }
    cv.notify_all();
    for (int i = 0; i < 200 && started < 2; ++i)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(started, 2) << "the watch after the change was not started";
}

// A store whose make_due waits until the test lets it go.
class HeldMakeDue : public fakes::FakeStore {
public:
    int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) override {
        entered.set_value();
        let_go.get_future().wait();
        return FakeStore::make_due(runtime_ids, now);
    }
    std::promise<void> entered;
    std::promise<void> let_go;
};

// `kprov provision --wait` sets a waker on a local sleeper and clears it when the wait ends,
// while a watch that saw a change may still be making its operation due (a PostgreSQL round
// trip): the cleared waker must not be called after, when the sleeper is gone.
TEST_F(InstallationWatchesTest, AClearedWakerIsNeverCalledAgain) {
    HeldMakeDue held;
    std::atomic<bool> cleared{false};
    std::atomic<int> called_after_clearing{0};
    {
        InstallationWatches watches([](const std::string&, const std::string&,
                                       std::chrono::milliseconds, std::stop_token) { return true; },
                                    held, clock);
        watches.set_on_change([&] {
            if (cleared)
                ++called_after_clearing;
        });
        watches.watch("runtime-1", "kyma-1", "7", 30s);
        ASSERT_EQ(held.entered.get_future().wait_for(5s), std::future_status::ready);
        watches.set_on_change({});
        cleared = true;
        held.let_go.set_value();
    } // joins the watch
    EXPECT_EQ(called_after_clearing, 0);
}

TEST_F(InstallationWatchesTest, TheNumberOfWatchesIsBounded) {
    installer.on_await = [](const std::string&, std::chrono::milliseconds, std::stop_token stop) {
        while (!stop.stop_requested())
            std::this_thread::sleep_for(5ms);
        return false;
    };
    InstallationWatches watches(installer, store, clock, 2);
    for (const char* id : {"a", "b", "c"})
        watches.watch(id, "kubeconfig", "1", 30s);
    for (int i = 0; i < 100 && watches.active() < 2; ++i)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(watches.active(), 2u);
    // The destructor stops them (the stop token) rather than waiting for their 30 s.
}

} // namespace
} // namespace kprov::engine::test
