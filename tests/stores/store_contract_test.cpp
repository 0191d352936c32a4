// The Store contract (src/engine/store.hpp), run against every store: SQLite always, PostgreSQL
// when KPROV_TEST_PG_URI names a server (CI always provides one). The Kyma part is in
// store_contract_kyma_test.cpp.

#include "engine/error.hpp"
#include "stores/store_contract.hpp"

#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;
using kprov::testing::expect_same_runtime;
using kprov::testing::k_t0;
using kprov::testing::new_operation;
using kprov::testing::small_runtime;
using store_contract::azure_config;
using store_contract::full_kyma;
using store_contract::full_runtime;
using store_contract::minimal_runtime;
using store_contract::StoreContract;
using stores::OpenOptions;
using stores::SchemaCheck;
using stores::StoreBackend;

TEST_P(StoreContract, FullRuntimeReadsBackFieldByField) {
    Runtime r = full_runtime(new_uuid());
    r.kyma = full_kyma(r.id, stored_release());
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    const auto got = m_store->find_runtime(r.id);
    ASSERT_TRUE(got);
    expect_same_runtime(*got, r);
}

TEST_P(StoreContract, MinimalRuntimeKeepsAbsentFieldsAbsent) {
    const Runtime r = minimal_runtime(new_uuid());
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    const auto got = m_store->find_runtime(r.id);
    ASSERT_TRUE(got);
    expect_same_runtime(*got, r);
    EXPECT_FALSE(got->gardener.oidc);
    EXPECT_FALSE(got->gardener.dns);
    EXPECT_FALSE(got->gardener.volume_size_gb);
    EXPECT_FALSE(got->gardener.shoot_networking_filter_disabled);
    EXPECT_FALSE(got->kubeconfig);
    EXPECT_TRUE(got->administrators.empty());
}

TEST_P(StoreContract, EveryProviderConfigRoundTrips) {
    const std::vector<ProviderConfig> configs = {
        GcpConfig{{"europe-west3-a", "europe-west3-b"}},
        AzureConfig{"10.0.0.0/16", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
        AwsConfig{"10.1.0.0/16", {AwsZone{"a", "1", "2", "3"}, AwsZone{"b", "4", "5", "6"}}},
        OpenStackConfig{{"eu-de-1a"}, "FloatingIP-external-kyma-01", "converged-cloud-kyma", "f5"},
    };
    for (const auto& config : configs) {
        Runtime r = minimal_runtime(new_uuid());
        r.gardener.provider_config = config;
        m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
        const auto got = m_store->find_runtime(r.id);
        ASSERT_TRUE(got);
        EXPECT_TRUE(got->gardener.provider_config == config)
            << "provider " << provider_type(config);
    }
}

TEST_P(StoreContract, DuplicateRuntimeIdIsConflict) {
    const Runtime r = minimal_runtime(new_uuid());
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    EXPECT_THROW(m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0)),
                 Conflict);
}

TEST_P(StoreContract, AbsentThingsAreNulloptNotErrors) {
    const std::string missing = new_uuid();
    EXPECT_FALSE(m_store->find_runtime(missing));
    EXPECT_FALSE(m_store->find_operation(missing));
    EXPECT_FALSE(m_store->last_operation(missing));
    EXPECT_TRUE(m_store->operations_of(missing).empty());
    EXPECT_TRUE(m_store->transitions_of(missing).empty());
    EXPECT_FALSE(m_store->next_due());
    EXPECT_THROW(m_store->set_tenant(missing, "t", std::nullopt), NotFound);
}

TEST_P(StoreContract, OperationReadsBackWithEveryField) {
    const Runtime r = idle_runtime();
    Operation op =
        new_operation(r.id, OperationType::UpgradeShoot, k_t0 + 1h, "WaitingForShootNewVersion");
    op.last_transition.reset();
    op.next_run_at = k_t0 + 2h;
    m_store->insert_operation(op);
    const auto got = m_store->find_operation(op.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->type, OperationType::UpgradeShoot);
    EXPECT_EQ(got->state, OperationState::InProgress);
    EXPECT_EQ(got->message, op.message);
    EXPECT_EQ(got->start_timestamp, op.start_timestamp);
    EXPECT_FALSE(got->end_timestamp);
    EXPECT_EQ(got->cluster_id, r.id);
    EXPECT_EQ(got->stage, "WaitingForShootNewVersion");
    EXPECT_FALSE(got->last_transition);
    EXPECT_TRUE(got->last_error.empty());
    EXPECT_FALSE(got->lease);
    EXPECT_EQ(got->next_run_at, k_t0 + 2h);
    EXPECT_EQ(got->attempts, 0);
    EXPECT_TRUE(*got == op);
}

TEST_P(StoreContract, WakeUpAndHibernateTypesAreStored) {
    const Runtime r = idle_runtime();
    Operation op = new_operation(r.id, OperationType::WakeUp, k_t0 + 1h, "WaitForWakeUp");
    m_store->insert_operation(op);
    EXPECT_EQ(m_store->find_operation(op.id)->type, OperationType::WakeUp);
}

TEST_P(StoreContract, LastOperationIsTheLatestStartOfThatRuntimeOnly) {
    const Runtime a = idle_runtime();
    const Runtime b = idle_runtime();
    Operation a2 = new_operation(a.id, OperationType::DeprovisionNoInstall, k_t0 + 1h);
    m_store->insert_operation(a2);
    // A later operation of another runtime must not leak into a's answer.
    Operation b2 = new_operation(b.id, OperationType::UpgradeShoot, k_t0 + 3h);
    m_store->insert_operation(b2);
    EXPECT_EQ(m_store->last_operation(a.id)->id, a2.id);
    EXPECT_EQ(m_store->last_operation(b.id)->id, b2.id);
    const auto history = m_store->operations_of(a.id);
    ASSERT_EQ(history.size(), 2u);
    EXPECT_EQ(history[0].id, a2.id);
    EXPECT_EQ(history[1].type, OperationType::Provision);
}

TEST_P(StoreContract, SecondOperationIsRefusedWhileOneIsInProgress) {
    const Runtime r = minimal_runtime(new_uuid());
    Operation provision = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, provision);
    EXPECT_THROW(m_store->insert_operation(
                     new_operation(r.id, OperationType::DeprovisionNoInstall, k_t0 + 1s)),
                 OperationInProgress);
    EXPECT_EQ(m_store->operations_of(r.id).size(), 1u);

    // Once it ended, a new one may start.
    ASSERT_TRUE(m_store->claim(provision.id, "w1", k_t0, 30s));
    provision.state = OperationState::Succeeded;
    m_store->save_progress(provision, "w1", k_t0, {}, {}, true);
    m_store->insert_operation(new_operation(r.id, OperationType::DeprovisionNoInstall, k_t0 + 2s));
    EXPECT_EQ(m_store->operations_of(r.id).size(), 2u);
}

TEST_P(StoreContract, OperationForMissingRuntimeIsNotFound) {
    EXPECT_THROW(
        m_store->insert_operation(new_operation(new_uuid(), OperationType::Hibernate, k_t0)),
        NotFound);
}

TEST_P(StoreContract, OneInProgressRuleHoldsUnderConcurrentWriters) {
    auto second = open(); // another connection, as another process would have
    for (int round = 0; round < 5; ++round) {
        const Runtime r = idle_runtime();
        std::atomic<int> started{0}, refused{0};
        std::vector<std::thread> writers;
        for (int i = 0; i < 8; ++i) {
            Store& store = i % 2 ? *second : *m_store;
            writers.emplace_back([&, i] {
                try {
                    store.insert_operation(new_operation(r.id, OperationType::UpgradeShoot,
                                                         k_t0 + std::chrono::seconds(10 + i)));
                    ++started;
                } catch (const OperationInProgress&) {
                    ++refused;
                }
            });
        }
        for (auto& t : writers)
            t.join();
        EXPECT_EQ(started.load(), 1) << "round " << round;
        EXPECT_EQ(refused.load(), 7) << "round " << round;
        const auto counts = m_store->count_in_progress();
        EXPECT_EQ(counts.at(OperationType::UpgradeShoot), round + 1);
    }
}

TEST_P(StoreContract, UpgradeReplacesConfigAndAdministratorsWithItsOperation) {
    Runtime r = full_runtime(new_uuid());
    Operation provision = new_operation(r.id, OperationType::Provision, k_t0);
    provision.state = OperationState::Succeeded;
    m_store->insert_runtime(r, provision);

    RuntimeUpgrade upgrade{r.gardener, {"new-admin@example.com"}};
    upgrade.gardener.kubernetes_version = "1.31.1";
    upgrade.gardener.machine_type = "Standard_D8s_v5";
    upgrade.gardener.oidc = OidcConfig{"client-2", "g", "https://other", {"RS512"}, "email", ""};
    upgrade.gardener.dns.reset();
    upgrade.gardener.control_plane_failure_tolerance.reset();
    const Operation op = new_operation(r.id, OperationType::UpgradeShoot, k_t0 + 1h);
    m_store->insert_operation(op, &upgrade);

    r.gardener = upgrade.gardener;
    r.administrators = upgrade.administrators;
    expect_same_runtime(*m_store->find_runtime(r.id), r);

    // A refused upgrade changes nothing.
    RuntimeUpgrade refused = upgrade;
    refused.gardener.kubernetes_version = "1.99.0";
    refused.administrators = {};
    EXPECT_THROW(m_store->insert_operation(
                     new_operation(r.id, OperationType::UpgradeShoot, k_t0 + 2h), &refused),
                 OperationInProgress);
    expect_same_runtime(*m_store->find_runtime(r.id), r);
}

TEST_P(StoreContract, SetTenantRewritesTheTenant) {
    const Runtime r = idle_runtime();
    m_store->set_tenant(r.id, "moved-tenant", std::nullopt);
    EXPECT_EQ(m_store->find_runtime(r.id)->tenant, "moved-tenant");
}

TEST_P(StoreContract, SetTenantWithANoteAppendsItToTheOperationsHistory) {
    const Runtime r = idle_runtime();
    const auto op = m_store->last_operation(r.id);
    ASSERT_TRUE(op);
    const StageTransition note{op->id,           "Finished", "Finished", OperationState::Succeeded,
                               "tenant changed", k_t0 + 5s};
    m_store->set_tenant(r.id, "moved-tenant", note);
    EXPECT_EQ(m_store->find_runtime(r.id)->tenant, "moved-tenant");
    const auto history = m_store->transitions_of(op->id);
    ASSERT_FALSE(history.empty());
    EXPECT_EQ(history.back(), note);
    // A refused rewrite writes no entry either.
    const std::string missing = new_uuid();
    EXPECT_THROW(m_store->set_tenant(
                     missing, "t",
                     StageTransition{op->id, "", "", OperationState::Succeeded, "never", k_t0}),
                 NotFound);
    EXPECT_EQ(m_store->transitions_of(op->id).size(), history.size());
}

TEST_P(StoreContract, ListShowsNewestFirstWithLastOperationAndFilters) {
    const Runtime old_one = idle_runtime(k_t0);
    const Runtime new_one = minimal_runtime(new_uuid(), k_t0 + 1h);
    const Operation running = new_operation(new_one.id, OperationType::Provision, k_t0 + 1h);
    m_store->insert_runtime(new_one, running);

    auto all = m_store->list_runtimes({});
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].id, new_one.id);
    EXPECT_EQ(all[0].shoot_name, new_one.gardener.name);
    EXPECT_EQ(all[0].provider, "aws");
    EXPECT_EQ(all[0].region, "eu-central-1");
    EXPECT_EQ(all[0].tenant, "tenant-b");
    ASSERT_TRUE(all[0].last_operation);
    EXPECT_EQ(all[0].last_operation->id, running.id);
    EXPECT_EQ(all[1].id, old_one.id);
    EXPECT_EQ(all[1].last_operation->state, OperationState::Succeeded);

    auto in_progress = m_store->list_runtimes({OperationState::InProgress, false});
    ASSERT_EQ(in_progress.size(), 1u);
    EXPECT_EQ(in_progress[0].id, new_one.id);
    auto succeeded = m_store->list_runtimes({OperationState::Succeeded, false});
    ASSERT_EQ(succeeded.size(), 1u);
    EXPECT_EQ(succeeded[0].id, old_one.id);
    EXPECT_TRUE(m_store->list_runtimes({OperationState::Failed, false}).empty());
}

TEST_P(StoreContract, TakeOverLeasesAnInProgressOperationWhoeverHoldsIt) {
    const Runtime a = minimal_runtime(new_uuid());
    const Runtime b = minimal_runtime(new_uuid());
    Operation running = new_operation(a.id, OperationType::Provision, k_t0);
    Operation done = new_operation(b.id, OperationType::Provision, k_t0);
    done.state = OperationState::Succeeded;
    m_store->insert_runtime(a, running);
    m_store->insert_runtime(b, done);
    ASSERT_TRUE(m_store->claim(running.id, "w1", k_t0, 30s));
    EXPECT_FALSE(m_store->claim(running.id, "w2", k_t0 + 1s, 30s)) << "w1's lease is live";

    const auto taken = m_store->take_over(running.id, "w2", k_t0 + 1s, 30s);
    ASSERT_TRUE(taken);
    ASSERT_TRUE(taken->lease);
    EXPECT_EQ(taken->lease->owner, "w2");
    EXPECT_EQ(taken->lease->expires_at, k_t0 + 31s);
    EXPECT_FALSE(m_store->renew(running.id, "w1", k_t0 + 2s, 30s)) << "w1 lost it";
    EXPECT_THROW(m_store->save_progress(*taken, "w1", k_t0 + 2s, {}, {}, true), LeaseLost);

    EXPECT_FALSE(m_store->take_over(done.id, "w2", k_t0, 30s)) << "not in progress";
    EXPECT_FALSE(m_store->take_over(new_uuid(), "w2", k_t0, 30s)) << "no such operation";
}

TEST_P(StoreContract, ClaimDueLeasesOnlyDueFreeInProgressOperations) {
    const Runtime a = minimal_runtime(new_uuid());
    const Runtime b = minimal_runtime(new_uuid());
    const Runtime c = minimal_runtime(new_uuid());
    Operation due = new_operation(a.id, OperationType::Provision, k_t0);
    Operation later = new_operation(b.id, OperationType::Provision, k_t0);
    later.next_run_at = k_t0 + 10min;
    Operation done = new_operation(c.id, OperationType::Provision, k_t0);
    done.state = OperationState::Succeeded;
    m_store->insert_runtime(a, due);
    m_store->insert_runtime(b, later);
    m_store->insert_runtime(c, done);

    auto claimed = m_store->claim_due("w1", k_t0 + 1s, 30s, 10);
    ASSERT_EQ(claimed.size(), 1u);
    EXPECT_EQ(claimed[0].id, due.id);
    ASSERT_TRUE(claimed[0].lease);
    EXPECT_EQ(claimed[0].lease->owner, "w1");
    EXPECT_EQ(claimed[0].lease->expires_at, k_t0 + 31s);
    EXPECT_EQ(claimed[0].attempts, 1);
    EXPECT_TRUE(m_store->find_operation(due.id)->lease == claimed[0].lease);

    // Leased: nobody else gets it until the lease expires.
    EXPECT_TRUE(m_store->claim_due("w2", k_t0 + 2s, 30s, 10).empty());
    auto after_expiry = m_store->claim_due("w2", k_t0 + 32s, 30s, 10);
    ASSERT_EQ(after_expiry.size(), 1u);
    EXPECT_EQ(after_expiry[0].lease->owner, "w2");
    EXPECT_EQ(after_expiry[0].attempts, 2);

    // Later work becomes due with time; the limit is honoured, and `later`, never claimed,
    // goes before `due`'s re-check although that fell due first.
    auto one = m_store->claim_due("w3", k_t0 + 20min, 30s, 1);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].id, later.id);
}

TEST_P(StoreContract, ClaimDueTakesNewOperationsBeforeEarlierReChecks) {
    // Twenty operations were claimed once and wait for re-checks that are all overdue; a new
    // operation, due only now, is claimed first, and the re-checks follow by due time.
    std::vector<std::string> waiting;
    for (int i = 0; i < 20; ++i) {
        const Runtime r = minimal_runtime(new_uuid());
        Operation op =
            new_operation(r.id, OperationType::Provision, k_t0 + std::chrono::seconds(i));
        m_store->insert_runtime(r, op);
        waiting.push_back(op.id);
    }
    ASSERT_EQ(m_store->claim_due("w1", k_t0 + 1min, 1s, 100).size(), 20u);

    const Runtime fresh_runtime = minimal_runtime(new_uuid());
    const Operation fresh = new_operation(fresh_runtime.id, OperationType::Provision, k_t0 + 1h);
    m_store->insert_runtime(fresh_runtime, fresh);

    const auto first = m_store->claim_due("w2", k_t0 + 1h, 30s, 1);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].id, fresh.id);
    EXPECT_EQ(first[0].attempts, 1);

    const auto rest = m_store->claim_due("w2", k_t0 + 1h, 30s, 3);
    ASSERT_EQ(rest.size(), 3u);
    for (std::size_t i = 0; i < rest.size(); ++i) {
        EXPECT_EQ(rest[i].id, waiting[i]);
        EXPECT_EQ(rest[i].attempts, 2);
    }
}

TEST_P(StoreContract, ClaimDueRecheckFirstTakesReChecksBeforeNewOperations) {
    // Two operations were claimed once and are due again (re-checks); three new ones are due
    // earlier than them. RecheckFirst takes the re-checks by due time, then fills the batch
    // with new operations by due time.
    //
    // n operations of new runtimes, started a second apart from `first`:
    const auto start_operations = [&](int n, Timestamp first) {
        std::vector<std::string> ids;
        for (int i = 0; i < n; ++i) {
            const Runtime r = minimal_runtime(new_uuid());
            const Operation op =
                new_operation(r.id, OperationType::Provision, first + std::chrono::seconds(i));
            m_store->insert_runtime(r, op);
            ids.push_back(op.id);
        }
        return ids;
    };
    const auto rechecks = start_operations(2, k_t0 + 3min);
    ASSERT_EQ(m_store->claim_due("w1", k_t0 + 4min, 1s, 10).size(), 2u);
    const auto fresh = start_operations(3, k_t0 + 2min);

    const auto batch =
        m_store->claim_due("w2", k_t0 + 1h, 30s, 4, engine::ClaimOrder::RecheckFirst);
    ASSERT_EQ(batch.size(), 4u);
    EXPECT_EQ(batch[0].id, rechecks[0]);
    EXPECT_EQ(batch[1].id, rechecks[1]);
    EXPECT_EQ(batch[2].id, fresh[0]);
    EXPECT_EQ(batch[3].id, fresh[1]);
    EXPECT_EQ(batch[0].attempts, 2);
    EXPECT_EQ(batch[2].attempts, 1);

    // NewFirst takes the one new operation left.
    const auto last = m_store->claim_due("w3", k_t0 + 1h, 30s, 1, engine::ClaimOrder::NewFirst);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0].id, fresh[2]);
}

TEST_P(StoreContract, ClaimDueFillsTheBatchWithReChecksAfterNewOperations) {
    const Runtime old_runtime = minimal_runtime(new_uuid());
    const Operation old_op = new_operation(old_runtime.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(old_runtime, old_op);
    ASSERT_EQ(m_store->claim_due("w1", k_t0, 1s, 10).size(), 1u);
    const Runtime new_runtime = minimal_runtime(new_uuid());
    const Operation new_op = new_operation(new_runtime.id, OperationType::Provision, k_t0 + 1min);
    m_store->insert_runtime(new_runtime, new_op);

    const auto batch = m_store->claim_due("w2", k_t0 + 1min, 30s, 10);
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].id, new_op.id);
    EXPECT_EQ(batch[1].id, old_op.id);
}

TEST_P(StoreContract, ClaimOneIgnoresDueTimeButRespectsLeases) {
    const Runtime r = minimal_runtime(new_uuid());
    Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    op.next_run_at = k_t0 + 1h;
    m_store->insert_runtime(r, op);
    auto mine = m_store->claim(op.id, "cli", k_t0, 30s);
    ASSERT_TRUE(mine);
    EXPECT_EQ(mine->lease->owner, "cli");
    EXPECT_FALSE(m_store->claim(op.id, "other", k_t0 + 1s, 30s));
    EXPECT_TRUE(m_store->claim(op.id, "cli", k_t0 + 1s, 30s)); // re-claim by the holder
    EXPECT_FALSE(m_store->claim(new_uuid(), "cli", k_t0, 30s));
}

TEST_P(StoreContract, RenewExtendsOnlyTheHoldersLiveLease) {
    const Runtime r = minimal_runtime(new_uuid());
    const Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));
    EXPECT_TRUE(m_store->renew(op.id, "w1", k_t0 + 20s, 30s));
    EXPECT_EQ(m_store->find_operation(op.id)->lease->expires_at, k_t0 + 50s);
    EXPECT_FALSE(m_store->renew(op.id, "w2", k_t0 + 21s, 30s));
    EXPECT_FALSE(m_store->renew(op.id, "w1", k_t0 + 51s, 30s)); // expired
}

TEST_P(StoreContract, SaveProgressIsFencedByTheLease) {
    const Runtime r = minimal_runtime(new_uuid());
    Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));

    Operation stale = op;
    stale.stage = "WaitingForClusterDomain";
    const StageTransition t{
        op.id,   "CreatingShoot", "WaitingForClusterDomain", OperationState::InProgress,
        "stale", k_t0 + 1s};
    EXPECT_THROW(m_store->save_progress(stale, "w2", k_t0 + 1s, {t}, {}, false), LeaseLost);
    EXPECT_THROW(m_store->save_progress(stale, "w1", k_t0 + 31s, {t}, {}, false), LeaseLost);
    EXPECT_EQ(m_store->find_operation(op.id)->stage, "CreatingShoot");
    EXPECT_TRUE(m_store->transitions_of(op.id).empty());
}

TEST_P(StoreContract, SaveProgressWritesStateTransitionsAndRuntimeChanges) {
    const Runtime r = minimal_runtime(new_uuid());
    Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));

    op.stage = "WaitingForClusterCreation";
    op.message = "Operation in progress. Stage WaitingForClusterCreation";
    op.last_transition = k_t0 + 2s;
    op.next_run_at = k_t0 + 22s;
    op.last_error = {"error during cluster provisioning: rate limits exceeded",
                     "ERR_INFRA_RATE_LIMITS_EXCEEDED", "gardener"};
    const std::vector<StageTransition> moves = {
        {op.id, "CreatingShoot", "WaitingForClusterDomain", OperationState::InProgress, "m1",
         k_t0 + 1s},
        {op.id, "WaitingForClusterDomain", "WaitingForClusterCreation", OperationState::InProgress,
         "m2", k_t0 + 2s},
    };
    RuntimeChange change;
    change.seed = "aws-eu2";
    change.kubeconfig = "apiVersion: v1\nkind: Config\n# secret\n";
    m_store->save_progress(op, "w1", k_t0 + 2s, moves, change, false);

    auto got = m_store->find_operation(op.id);
    EXPECT_EQ(got->stage, op.stage);
    EXPECT_EQ(got->message, op.message);
    EXPECT_EQ(got->last_transition, op.last_transition);
    EXPECT_EQ(got->next_run_at, op.next_run_at);
    EXPECT_EQ(got->last_error, op.last_error);
    EXPECT_EQ(got->lease->owner, "w1");
    EXPECT_EQ(m_store->transitions_of(op.id), moves);
    auto runtime = m_store->find_runtime(r.id);
    EXPECT_EQ(runtime->gardener.seed, "aws-eu2");
    EXPECT_EQ(runtime->kubeconfig, change.kubeconfig);

    // Finishing: state, end time, cleared last error, release, soft delete.
    op.state = OperationState::Succeeded;
    op.stage = "Finished";
    op.message = "Operation succeeded";
    op.end_timestamp = k_t0 + 5s;
    op.last_error = {};
    RuntimeChange gone;
    gone.soft_delete = true;
    m_store->save_progress(op, "w1", k_t0 + 5s,
                           {{op.id, "WaitingForClusterCreation", "Finished",
                             OperationState::Succeeded, "Operation succeeded", k_t0 + 5s}},
                           gone, true);
    got = m_store->find_operation(op.id);
    EXPECT_EQ(got->state, OperationState::Succeeded);
    EXPECT_EQ(got->end_timestamp, k_t0 + 5s);
    EXPECT_TRUE(got->last_error.empty());
    EXPECT_FALSE(got->lease);
    EXPECT_EQ(m_store->transitions_of(op.id).size(), 3u);
    EXPECT_EQ(m_store->transitions_of(op.id).back().state, OperationState::Succeeded);

    // Soft delete: still readable, hidden from list unless asked for.
    EXPECT_TRUE(m_store->find_runtime(r.id)->deleted);
    EXPECT_TRUE(m_store->list_runtimes({}).empty());
    auto with_deleted = m_store->list_runtimes({std::nullopt, true});
    ASSERT_EQ(with_deleted.size(), 1u);
    EXPECT_TRUE(with_deleted[0].deleted);
    EXPECT_TRUE(m_store->count_in_progress().empty());
}

TEST_P(StoreContract, ReleaseDropsOnlyTheHoldersLease) {
    const Runtime r = minimal_runtime(new_uuid());
    const Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));
    m_store->release(op.id, "w2");
    EXPECT_EQ(m_store->find_operation(op.id)->lease->owner, "w1");
    m_store->release(op.id, "w1");
    EXPECT_FALSE(m_store->find_operation(op.id)->lease);
    EXPECT_TRUE(m_store->claim(op.id, "w2", k_t0 + 1s, 30s));
}

TEST_P(StoreContract, MakeDueAndNextDueScheduleWaitingOperations) {
    const Runtime a = minimal_runtime(new_uuid());
    const Runtime b = minimal_runtime(new_uuid());
    Operation oa = new_operation(a.id, OperationType::Provision, k_t0);
    oa.next_run_at = k_t0 + 20s;
    Operation ob = new_operation(b.id, OperationType::Provision, k_t0);
    ob.next_run_at = k_t0 + 5s;
    m_store->insert_runtime(a, oa);
    m_store->insert_runtime(b, ob);
    EXPECT_EQ(m_store->next_due(), k_t0 + 5s);

    EXPECT_EQ(m_store->make_due({a.id}, k_t0 + 1s), 1);
    EXPECT_EQ(m_store->find_operation(oa.id)->next_run_at, k_t0 + 1s);
    EXPECT_EQ(m_store->next_due(), k_t0 + 1s);
    EXPECT_EQ(m_store->make_due({new_uuid()}, k_t0 + 1s), 0);
    EXPECT_EQ(m_store->make_due({}, k_t0 + 1s), 0);
}

TEST_P(StoreContract, ConcurrentWorkersNeverClaimTheSameOperation) {
    constexpr int k_ops = 40;
    for (int i = 0; i < k_ops; ++i) {
        const Runtime r = minimal_runtime(new_uuid());
        m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    }
    auto second = open();
    std::mutex mu;
    std::multiset<std::string> claimed;
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w) {
        Store& store = w % 2 ? *second : *m_store;
        workers.emplace_back([&, w] {
            const std::string owner = "worker-" + std::to_string(w);
            for (int round = 0; round < 30; ++round) {
                for (const auto& op : store.claim_due(owner, k_t0 + 1s, 10min, 3)) {
                    std::lock_guard lock(mu);
                    claimed.insert(op.id);
                }
            }
        });
    }
    for (auto& t : workers)
        t.join();
    EXPECT_EQ(claimed.size(), static_cast<std::size_t>(k_ops));
    for (const auto& id : claimed)
        EXPECT_EQ(claimed.count(id), 1u) << id << " was claimed twice";
}

TEST_P(StoreContract, DataSurvivesReopening) {
    Runtime r = full_runtime(new_uuid());
    r.kyma = full_kyma(r.id, stored_release());
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    m_store.reset();
    auto reopened = open();
    const auto got = reopened->find_runtime(r.id);
    ASSERT_TRUE(got);
    expect_same_runtime(*got, r);
    EXPECT_EQ(reopened->schema_version(), stores::latest_version(reopened->dialect()));
}

// --- queries of the command line (list -l/--limit, ids by prefix) ----------------------------

TEST_P(StoreContract, QueryRuntimesMatchesLabelsAndStopsAtTheLimit) {
    std::vector<Runtime> runtimes;
    const char* labels[] = {R"({"team":"a","n":3})", R"({"team":"b"})", R"({"team":"a"})", "{}"};
    for (int i = 0; i < 4; ++i) {
        Runtime r = minimal_runtime(new_uuid(), k_t0 + std::chrono::hours(i));
        r.labels_json = labels[i];
        m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
        runtimes.push_back(r);
    }
    RuntimeQuery all;
    auto got = m_store->query_runtimes(all);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].id, runtimes[3].id) << "newest first";
    EXPECT_EQ(nlohmann::json::parse(got[3].labels_json), nlohmann::json::parse(labels[0]));
    ASSERT_TRUE(got[0].last_operation);

    RuntimeQuery two;
    two.limit = 2;
    got = m_store->query_runtimes(two);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].id, runtimes[3].id);
    EXPECT_EQ(got[1].id, runtimes[2].id);

    RuntimeQuery team_a;
    team_a.labels = {{"team", "a"}};
    got = m_store->query_runtimes(team_a);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].id, runtimes[2].id);
    EXPECT_EQ(got[1].id, runtimes[0].id);
    team_a.limit = 1;
    ASSERT_EQ(m_store->query_runtimes(team_a).size(), 1u);

    RuntimeQuery number; // a label that is not a string matches its JSON text
    number.labels = {{"team", "a"}, {"n", "3"}};
    got = m_store->query_runtimes(number);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].id, runtimes[0].id);

    Runtime quoted = minimal_runtime(new_uuid(), k_t0 - 1h);
    quoted.labels_json = R"({"q":"say \"hi\"","u":"\u00e9t\u00e9"})";
    m_store->insert_runtime(quoted, new_operation(quoted.id, OperationType::Provision, k_t0));
    RuntimeQuery escaped; // values JSON escapes in the stored text
    escaped.labels = {{"q", "say \"hi\""}};
    got = m_store->query_runtimes(escaped);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].id, quoted.id);
    escaped.labels = {{"u", "\xc3\xa9t\xc3\xa9"}};
    got = m_store->query_runtimes(escaped);
    ASSERT_EQ(got.size(), 1u) << "a label written with \\u escapes matches its UTF-8 value";
    EXPECT_EQ(got[0].id, quoted.id);

    RuntimeQuery failed;
    failed.filter.state = OperationState::Failed;
    EXPECT_TRUE(m_store->query_runtimes(failed).empty());
    RuntimeQuery nobody;
    nobody.labels = {{"team", "c"}};
    EXPECT_TRUE(m_store->query_runtimes(nobody).empty());
}

TEST_P(StoreContract, IdsWithPrefixComeInIdOrderUpToTheLimit) {
    std::vector<std::string> runtime_ids, operation_ids;
    for (int i = 0; i < 3; ++i) {
        const Runtime r = minimal_runtime(new_uuid());
        const Operation op = new_operation(r.id, OperationType::Provision, k_t0);
        m_store->insert_runtime(r, op);
        runtime_ids.push_back(r.id);
        operation_ids.push_back(op.id);
    }
    std::sort(runtime_ids.begin(), runtime_ids.end());
    std::sort(operation_ids.begin(), operation_ids.end());
    EXPECT_EQ(m_store->runtime_ids_with_prefix("", 10), runtime_ids);
    EXPECT_EQ(m_store->runtime_ids_with_prefix("", 2),
              (std::vector<std::string>{runtime_ids[0], runtime_ids[1]}));
    EXPECT_EQ(m_store->runtime_ids_with_prefix(runtime_ids[1], 10),
              std::vector<std::string>{runtime_ids[1]});
    EXPECT_EQ(m_store->runtime_ids_with_prefix(runtime_ids[2].substr(0, 30), 10),
              std::vector<std::string>{runtime_ids[2]});
    EXPECT_EQ(m_store->operation_ids_with_prefix(operation_ids[0].substr(0, 30), 10),
              std::vector<std::string>{operation_ids[0]});
    EXPECT_EQ(m_store->operation_ids_with_prefix("", 10), operation_ids);
    // LIKE's wildcards are plain characters here.
    EXPECT_TRUE(m_store->runtime_ids_with_prefix("%", 10).empty());
    EXPECT_TRUE(m_store->runtime_ids_with_prefix("_", 10).empty());
    EXPECT_TRUE(m_store->runtime_ids_with_prefix("zzz", 10).empty());
    EXPECT_TRUE(m_store->operation_ids_with_prefix(runtime_ids[0], 10).empty());
}

TEST_P(StoreContract, RuntimeIdsNamedMatchRuntimeOrShootNameLiveOnesFirst) {
    // An older runtime named "orders", deprovisioned; a newer live one of the same name; a
    // third whose shoot is called "orders".
    Runtime gone = minimal_runtime(new_uuid(), k_t0);
    gone.name = "orders";
    gone.gardener.name = "shoot-gone";
    Operation deprovisioning = new_operation(gone.id, OperationType::Deprovision, k_t0);
    m_store->insert_runtime(gone, deprovisioning);
    ASSERT_TRUE(m_store->claim(deprovisioning.id, "w1", k_t0, 30s));
    deprovisioning.state = OperationState::Succeeded;
    deprovisioning.end_timestamp = k_t0 + 1s;
    RuntimeChange soft_delete;
    soft_delete.soft_delete = true;
    m_store->save_progress(deprovisioning, "w1", k_t0 + 1s, {}, soft_delete, true);
    Runtime live = minimal_runtime(new_uuid(), k_t0 - 1h);
    live.name = "orders";
    live.gardener.name = "shoot-live";
    m_store->insert_runtime(live, new_operation(live.id, OperationType::Provision, k_t0));
    Runtime by_shoot = minimal_runtime(new_uuid(), k_t0 + 1h);
    by_shoot.name = "payments";
    by_shoot.gardener.name = "orders";
    m_store->insert_runtime(by_shoot, new_operation(by_shoot.id, OperationType::Provision, k_t0));

    EXPECT_EQ(m_store->runtime_ids_named("orders", 10),
              (std::vector<std::string>{by_shoot.id, live.id, gone.id}));
    EXPECT_EQ(m_store->runtime_ids_named("orders", 1), std::vector<std::string>{by_shoot.id});
    EXPECT_EQ(m_store->runtime_ids_named("shoot-gone", 10), std::vector<std::string>{gone.id});
    EXPECT_EQ(m_store->runtime_ids_named("payments", 10), std::vector<std::string>{by_shoot.id});
    EXPECT_TRUE(m_store->runtime_ids_named("order", 10).empty()) << "names match exactly";
    EXPECT_TRUE(m_store->runtime_ids_named("%", 10).empty());
}

TEST_P(StoreContract, TenantOfReadsTheStoredTenant) {
    Runtime r = minimal_runtime(new_uuid());
    r.tenant = "global-account-1";
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    EXPECT_EQ(m_store->tenant_of(r.id), "global-account-1");
    m_store->set_tenant(r.id, "global-account-2", std::nullopt);
    EXPECT_EQ(m_store->tenant_of(r.id), "global-account-2");
    EXPECT_EQ(m_store->tenant_of(new_uuid()), std::nullopt);
    EXPECT_EQ(m_store->tenant_of("not-a-uuid"), std::nullopt);
}

TEST_P(StoreContract, RuntimeStatusReadsTheRuntimeAndItsLastOperationTogether) {
    Runtime r = full_runtime(new_uuid());
    r.kubeconfig = "apiVersion: v1";
    m_store->insert_runtime(r, new_operation(r.id, OperationType::Provision, k_t0));
    const auto first = m_store->last_operation(r.id);
    ASSERT_TRUE(first);
    const auto got = m_store->find_runtime_status(r.id);
    ASSERT_TRUE(got);
    Runtime expected = r;
    expected.administrators.clear(); // not part of a status
    expected.kubeconfig.reset();
    expect_same_runtime(got->runtime, expected);
    ASSERT_TRUE(got->last);
    EXPECT_EQ(got->last->id, first->id);
    EXPECT_EQ(m_store->find_runtime_status(new_uuid()), std::nullopt);

    // Without OIDC and DNS rows (one statement on PostgreSQL): the same fields.
    Runtime plain = full_runtime(new_uuid());
    plain.gardener.oidc.reset();
    plain.gardener.dns.reset();
    plain.kubeconfig = "apiVersion: v1";
    m_store->insert_runtime(plain, new_operation(plain.id, OperationType::Provision, k_t0));
    const auto plain_status = m_store->find_runtime_status(plain.id);
    ASSERT_TRUE(plain_status);
    Runtime expected_plain = plain;
    expected_plain.administrators.clear();
    expected_plain.kubeconfig.reset();
    expect_same_runtime(plain_status->runtime, expected_plain);
    ASSERT_TRUE(plain_status->last);
    EXPECT_EQ(plain_status->last->cluster_id, plain.id);

    const Runtime bare = idle_runtime();
    Operation later = new_operation(bare.id, OperationType::DeprovisionNoInstall, k_t0 + 1h);
    m_store->insert_operation(later);
    const auto bare_status = m_store->find_runtime_status(bare.id);
    ASSERT_TRUE(bare_status);
    EXPECT_EQ(bare_status->last->id, later.id);
    EXPECT_EQ(bare_status->runtime.tenant, bare.tenant);
}

TEST_P(StoreContract, OperationWithTenantReadsBothInOneGo) {
    Runtime r = minimal_runtime(new_uuid());
    r.tenant = "global-account-1";
    const Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    const auto got = m_store->find_operation_with_tenant(op.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->operation.id, op.id);
    EXPECT_EQ(got->operation.cluster_id, r.id);
    EXPECT_EQ(got->tenant, "global-account-1");
    EXPECT_EQ(m_store->find_operation_with_tenant(new_uuid()), std::nullopt);
}

// The answer cache reuses a runtime's answers while its version stands (Store::runtime_version).
// A store without versions says so everywhere; one with them moves a runtime's version with
// every write the API would show, and with no other.
TEST_P(StoreContract, ARuntimesVersionMovesWithWhatTheApiShowsOfItAndNothingElse) {
    const Runtime r = small_runtime(new_uuid());
    const Runtime other = small_runtime(new_uuid());
    Operation op = new_operation(r.id, OperationType::Provision, k_t0);
    m_store->insert_runtime(r, op);
    m_store->insert_runtime(other, new_operation(other.id, OperationType::Provision, k_t0));
    const auto version = [&] {
        const auto v = m_store->runtime_version(r.id);
        EXPECT_EQ(m_store->find_runtime_status(r.id)->version, v) << "read with the rows";
        EXPECT_EQ(m_store->find_operation_with_tenant(op.id)->runtime_version, v);
        return v;
    };
    auto seen = version();
    if (!seen) {
        EXPECT_EQ(GetParam(), "postgres") << "the SQLite store keeps versions";
        return;
    }
    EXPECT_EQ(m_store->runtime_version(new_uuid()), std::nullopt);
    const auto moved = [&](const char* what) {
        const auto now = version();
        EXPECT_GT(now, seen) << what;
        seen = now;
    };
    const auto stood = [&](const char* what) {
        EXPECT_EQ(version(), seen) << what;
    };

    // What only the workers see: leases, attempts, due times.
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));
    m_store->release(op.id, "w1");
    m_store->make_due({r.id}, k_t0 + 1s);
    stood("claims, releases and due times");
    m_store->set_tenant(other.id, "elsewhere", std::nullopt);
    stood("another runtime's change");

    m_store->set_tenant(r.id, "moved", std::nullopt);
    moved("the tenant");
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0, 30s));
    op.message = "halfway";
    m_store->save_progress(op, "w1", k_t0 + 1s, {}, {}, false);
    moved("the operation's progress");
    op.state = OperationState::Succeeded;
    op.end_timestamp = k_t0 + 2s;
    m_store->save_progress(op, "w1", k_t0 + 2s, {}, {}, true);
    moved("the operation's end");
    RuntimeUpgrade upgrade{r.gardener, {}};
    upgrade.gardener.machine_type = "m6i.xlarge";
    upgrade.gardener.oidc =
        engine::OidcConfig{"client", "groups", "https://issuer", {"RS256"}, "sub", "-"};
    const Operation next = new_operation(r.id, OperationType::UpgradeShoot, k_t0 + 3s);
    m_store->insert_operation(next, &upgrade);
    moved("an upgrade");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract, ::testing::Values("sqlite", "postgres"),
                         [](const auto& param_info) { return param_info.param; });

} // namespace
} // namespace kprov::engine
