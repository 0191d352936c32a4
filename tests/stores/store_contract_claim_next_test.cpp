// The Store contract, a worker's save and next claim in one call
// (Store::save_progress_and_claim_next), on every store: fenced as save_progress, claiming as
// claim_due.

#include "engine/error.hpp"
#include "stores/store_contract.hpp"

#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;
using kprov::testing::k_t0;
using kprov::testing::new_operation;
using store_contract::minimal_runtime;
using store_contract::StoreContract;

// A new runtime with a provisioning operation due at `due`, stored.
Operation stored_provisioning(Store& store, Timestamp due) {
    const Runtime r = minimal_runtime(new_uuid());
    Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    op.next_run_at = due;
    store.insert_runtime(r, op);
    return op;
}

// `op` moved on to the next stage, due again at `due`, and the transition that says so.
std::pair<Operation, StageTransition> moved_on(Operation op, Timestamp at, Timestamp due) {
    const StageTransition t{op.id,
                            op.stage,
                            "WaitingForClusterDomain",
                            OperationState::InProgress,
                            "Operation in progress. Stage WaitingForClusterDomain",
                            at};
    op.stage = t.to_stage;
    op.message = t.message;
    op.last_transition = at;
    op.next_run_at = due;
    return {op, t};
}

TEST_P(StoreContract, SaveAndClaimNextWritesThePassAndLeasesTheNextDueOperation) {
    const Operation running = stored_provisioning(*m_store, k_t0);
    ASSERT_TRUE(m_store->claim(running.id, "w1", k_t0, 30s));
    const Operation due = stored_provisioning(*m_store, k_t0 + 1s);
    const Operation later = stored_provisioning(*m_store, k_t0 + 1h);

    auto [saved, t] = moved_on(running, k_t0 + 2s, k_t0 + 22s);
    RuntimeChange change;
    change.seed = "aws-eu2";
    const auto next = m_store->save_progress_and_claim_next(saved, "w1", k_t0 + 2s, {t}, change,
                                                            30s, ClaimOrder::NewFirst);

    // The save, as save_progress with release writes it.
    const auto got = m_store->find_operation(running.id);
    EXPECT_EQ(got->stage, "WaitingForClusterDomain");
    EXPECT_EQ(got->next_run_at, k_t0 + 22s);
    EXPECT_FALSE(got->lease) << "the saved operation's lease is released";
    EXPECT_EQ(m_store->transitions_of(running.id), std::vector<StageTransition>{t});
    EXPECT_EQ(m_store->find_runtime(running.cluster_id)->gardener.seed, "aws-eu2");

    // The claim, as claim_due(limit 1) makes it: the due one, not the later one.
    ASSERT_TRUE(next);
    EXPECT_EQ(next->id, due.id);
    ASSERT_TRUE(next->lease);
    EXPECT_EQ(next->lease->owner, "w1");
    EXPECT_EQ(next->lease->expires_at, k_t0 + 32s);
    EXPECT_EQ(next->attempts, 1);
    EXPECT_TRUE(m_store->find_operation(due.id)->lease == next->lease);
    EXPECT_FALSE(m_store->find_operation(later.id)->lease);
    EXPECT_EQ(m_store->find_operation(later.id)->attempts, 0);
}

TEST_P(StoreContract, SaveAndClaimNextWithALostLeaseSavesNothingAndClaimsNothing) {
    const Operation running = stored_provisioning(*m_store, k_t0);
    ASSERT_TRUE(m_store->claim(running.id, "w1", k_t0, 30s));
    const Operation due = stored_provisioning(*m_store, k_t0);
    auto [saved, t] = moved_on(running, k_t0 + 2s, k_t0 + 22s);
    RuntimeChange change;
    change.seed = "aws-eu2";
    change.kubeconfig = "apiVersion: v1\nkind: Config\n";

    // Expired: w1's lease ran out at k_t0 + 30s.
    EXPECT_THROW(m_store->save_progress_and_claim_next(saved, "w1", k_t0 + 31s, {t}, change, 30s,
                                                       ClaimOrder::NewFirst),
                 LeaseLost);
    // Never held: w2 has no lease on it.
    EXPECT_THROW(m_store->save_progress_and_claim_next(saved, "w2", k_t0 + 2s, {t}, change, 30s,
                                                       ClaimOrder::NewFirst),
                 LeaseLost);
    // Taken over: w3 holds it now, so w1's live-looking lease is gone.
    ASSERT_TRUE(m_store->take_over(running.id, "w3", k_t0 + 3s, 30s));
    EXPECT_THROW(m_store->save_progress_and_claim_next(saved, "w1", k_t0 + 4s, {t}, change, 30s,
                                                       ClaimOrder::RecheckFirst),
                 LeaseLost);

    const auto got = m_store->find_operation(running.id);
    EXPECT_EQ(got->stage, "CreatingShoot");
    EXPECT_EQ(got->lease->owner, "w3");
    EXPECT_TRUE(m_store->transitions_of(running.id).empty());
    const auto runtime = m_store->find_runtime(running.cluster_id);
    EXPECT_TRUE(runtime->gardener.seed.empty());
    EXPECT_FALSE(runtime->kubeconfig);
    const auto untouched = m_store->find_operation(due.id);
    EXPECT_FALSE(untouched->lease) << "nothing was claimed";
    EXPECT_EQ(untouched->attempts, 0);
}

TEST_P(StoreContract, SaveAndClaimNextClaimsOnlyDueFreeOperationsInClaimOrder) {
    const Operation running = stored_provisioning(*m_store, k_t0);
    ASSERT_TRUE(m_store->claim(running.id, "w1", k_t0, 30s));
    // A re-check (claimed once, released, due at k_t0 + 2s), a new operation due later than it
    // (k_t0 + 3s), one leased by someone else and one not due yet.
    const Operation recheck = stored_provisioning(*m_store, k_t0 + 2s);
    ASSERT_TRUE(m_store->claim(recheck.id, "w9", k_t0, 30s));
    m_store->release(recheck.id, "w9");
    const Operation fresh = stored_provisioning(*m_store, k_t0 + 3s);
    const Operation held = stored_provisioning(*m_store, k_t0);
    ASSERT_TRUE(m_store->claim(held.id, "w8", k_t0, 1h));
    stored_provisioning(*m_store, k_t0 + 1h);

    // Nothing is due at k_t0 + 1s: the save is written, and nothing claimed.
    auto [first, t1] = moved_on(running, k_t0 + 1s, k_t0 + 1s + 10min);
    EXPECT_FALSE(m_store->save_progress_and_claim_next(first, "w1", k_t0 + 1s, {t1}, {}, 30s,
                                                       ClaimOrder::NewFirst));
    EXPECT_EQ(m_store->find_operation(running.id)->stage, "WaitingForClusterDomain");

    // At k_t0 + 5s both are due: RecheckFirst takes the re-check, and its own save then
    // NewFirst the new one; after that nothing (the held one stays w8's).
    ASSERT_TRUE(m_store->claim(running.id, "w1", k_t0 + 4s, 30s));
    const auto a = m_store->save_progress_and_claim_next(first, "w1", k_t0 + 5s, {}, {}, 30s,
                                                         ClaimOrder::RecheckFirst);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->id, recheck.id);
    EXPECT_EQ(a->attempts, 2);
    auto [second, t2] = moved_on(*a, k_t0 + 6s, k_t0 + 1h);
    const auto b = m_store->save_progress_and_claim_next(second, "w1", k_t0 + 6s, {t2}, {}, 30s,
                                                         ClaimOrder::RecheckFirst);
    ASSERT_TRUE(b) << "the other queue fills the claim";
    EXPECT_EQ(b->id, fresh.id);
    EXPECT_EQ(b->attempts, 1);
    auto [third, t3] = moved_on(*b, k_t0 + 7s, k_t0 + 1h);
    EXPECT_FALSE(m_store->save_progress_and_claim_next(third, "w1", k_t0 + 7s, {t3}, {}, 30s,
                                                       ClaimOrder::NewFirst));
    EXPECT_EQ(m_store->find_operation(held.id)->lease->owner, "w8");

    // An operation saved due at once is claimable again by the same call, like any other.
    ASSERT_TRUE(m_store->claim(fresh.id, "w1", k_t0 + 8s, 30s));
    auto [again, t4] = moved_on(third, k_t0 + 8s, k_t0 + 8s);
    const auto c = m_store->save_progress_and_claim_next(again, "w1", k_t0 + 8s, {t4}, {}, 30s,
                                                         ClaimOrder::RecheckFirst);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->id, fresh.id);
}

TEST_P(StoreContract, ConcurrentSavesThatClaimNeverClaimTheSameOperation) {
    // Four workers on two connections chain passes: each save (its operation due again only in
    // an hour) claims the next. Every operation is claimed exactly once.
    constexpr int k_ops = 40;
    for (int i = 0; i < k_ops; ++i)
        stored_provisioning(*m_store, k_t0);
    auto second = open();
    std::mutex mu;
    std::multiset<std::string> claimed;
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w) {
        Store& store = w % 2 ? *second : *m_store;
        workers.emplace_back([&, w] {
            const std::string owner = "worker-" + std::to_string(w);
            const Timestamp now = k_t0 + 1s;
            auto first = store.claim_due(owner, now, 10min, 1);
            std::optional<Operation> op;
            if (!first.empty())
                op = first.front();
            while (op) {
                {
                    std::lock_guard lock(mu);
                    claimed.insert(op->id);
                }
                Operation done = *op;
                done.next_run_at = now + 1h;
                op = store.save_progress_and_claim_next(done, owner, now, {}, {}, 10min,
                                                        w % 2 ? ClaimOrder::NewFirst
                                                              : ClaimOrder::RecheckFirst);
            }
        });
    }
    for (auto& t : workers)
        t.join();
    EXPECT_EQ(claimed.size(), static_cast<std::size_t>(k_ops));
    for (const auto& id : claimed)
        EXPECT_EQ(claimed.count(id), 1u) << id << " was claimed twice";
    EXPECT_TRUE(m_store->claim_due("w9", k_t0 + 1s, 10min, k_ops).empty())
        << "every operation was saved not due and released";
}

} // namespace
} // namespace kprov::engine
