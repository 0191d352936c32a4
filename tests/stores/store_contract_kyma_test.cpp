// The Store contract, Kyma part (src/engine/store.hpp, "Kyma"): configurations with their
// releases, secrets at rest, releases written by racing writers, upgrades and rollbacks. The
// same suite as store_contract_test.cpp, on every store.

#include "engine/error.hpp"
#include "stores/store_contract.hpp"

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;
using kprov::testing::expect_same_kyma;
using kprov::testing::k_t0;
using kprov::testing::new_operation;
using store_contract::full_kyma;
using store_contract::minimal_runtime;
using store_contract::StoreContract;

using store_contract::RawRows;

constexpr const char* k_global_secret = "s3cr3t-global-pw";
constexpr const char* k_component_secret = "t0k3n-component-secret";

class StoreContractKyma : public StoreContract {
protected:
    int count(const std::string& table) {
        return std::stoi(raw("SELECT count(*) FROM " + table).at(0).at(0).value());
    }

    // A runtime with `kyma` whose provisioning has finished, so an upgrade may start.
    Runtime idle_kyma_runtime(const KymaConfig& kyma) {
        Runtime r = minimal_runtime(kyma.cluster_id);
        r.kyma = kyma;
        Operation op = new_operation(r.id, OperationType::Provision, k_t0);
        op.state = OperationState::Succeeded;
        op.stage = "Finished";
        m_store->insert_runtime(r, op);
        return r;
    }

    // An UPGRADE operation as the engine starts one (§3.1 step 7).
    static Operation upgrade_operation(const std::string& runtime_id, Timestamp start) {
        Operation op = new_operation(runtime_id, OperationType::Upgrade, start, "StartingUpgrade");
        op.message = "Starting Kyma upgrade";
        return op;
    }

    // A second config of the runtime: another release, other overrides.
    KymaConfig next_kyma(const Runtime& r, const std::string& version) {
        KymaConfig k = full_kyma(r.id, stored_release(version));
        k.profile.reset();
        k.global = {{{"global.next", "yes", false}}, ""};
        return k;
    }
};

KymaRelease without_yaml(KymaRelease release) {
    release.tiller_yaml.clear();
    release.installer_yaml.clear();
    return release;
}

TEST_P(StoreContractKyma, ARuntimesKymaConfigReadsBackWithItsWholeRelease) {
    const KymaRelease release = stored_release("2.4.1");
    const KymaConfig kyma = full_kyma(new_uuid(), release);
    const Runtime r = idle_kyma_runtime(kyma);
    const auto got = m_store->find_runtime(r.id);
    ASSERT_TRUE(got);
    expect_same_kyma(got->kyma, kyma);
    EXPECT_EQ(got->kyma->release.installer_yaml, "installer: 2.4.1\n");
    EXPECT_EQ(got->kyma->release.tiller_yaml, "tiller: 2.4.1\n");

    // No Kyma: none read.
    const Runtime plain = minimal_runtime(new_uuid());
    m_store->insert_runtime(plain, new_operation(plain.id));
    EXPECT_FALSE(m_store->find_runtime(plain.id)->kyma);
    EXPECT_FALSE(m_store->find_runtime_status(plain.id)->runtime.kyma);
}

TEST_P(StoreContractKyma, RuntimeStatusReadsTheReleasesIdAndVersionButNotItsYaml) {
    KymaConfig kyma = full_kyma(new_uuid(), stored_release("2.4.1"));
    idle_kyma_runtime(kyma);
    const auto status = m_store->find_runtime_status(kyma.cluster_id);
    ASSERT_TRUE(status);
    kyma.release = without_yaml(kyma.release);
    expect_same_kyma(status->runtime.kyma, kyma);
}

TEST_P(StoreContractKyma, ComponentsReadInComponentOrderThenInRowOrder) {
    KymaConfig kyma = full_kyma(new_uuid(), stored_release());
    // As rows the original wrote before component_order existed (0) beside ordered ones.
    kyma.components = {
        {new_uuid(), "c", "ns", std::nullopt, {}, 3},
        {new_uuid(), "zero-1", "ns", {}, {}, 0},
        {new_uuid(), "b", "ns", std::nullopt, {}, 1},
        {new_uuid(), "zero-2", "ns", {}, {}, 0},
    };
    idle_kyma_runtime(kyma);
    // NULL reads as 0, and keeps its place among the zeros.
    raw("UPDATE kyma_component_config SET component_order = NULL WHERE component = 'zero-2'");
    std::vector<std::string> names;
    const auto got = m_store->find_runtime(kyma.cluster_id);
    for (const auto& c : got->kyma->components)
        names.push_back(c.name);
    // Equal orders keep the order they were written in: rowid (SQLite), ascending ids
    // (PostgreSQL) when the store makes the ids up.
    if (GetParam() == "sqlite")
        EXPECT_EQ(names, (std::vector<std::string>{"zero-1", "zero-2", "b", "c"}));
    else
        EXPECT_EQ(names.size(), 4u);
    EXPECT_EQ(names[2], "b");
    EXPECT_EQ(names[3], "c");

    KymaConfig unnamed = full_kyma(new_uuid(), stored_release());
    for (auto& c : unnamed.components) {
        c.id.clear();
        c.order = 0;
    }
    idle_kyma_runtime(unnamed);
    names.clear();
    const auto got_unnamed = m_store->find_runtime(unnamed.cluster_id);
    for (const auto& c : got_unnamed->kyma->components) {
        names.push_back(c.name);
        EXPECT_FALSE(c.id.empty());
    }
    EXPECT_EQ(names,
              (std::vector<std::string>{"cluster-essentials", "compass-runtime-agent", "istio"}));
}

TEST_P(StoreContractKyma, AConfigWhoseReleaseIsNotStoredIsNotFoundAndWritesNothing) {
    KymaRelease unknown{new_uuid(), "9.9.9", "", "installer"};
    const KymaConfig kyma = full_kyma(new_uuid(), unknown);
    Runtime r = minimal_runtime(kyma.cluster_id);
    r.kyma = kyma;
    EXPECT_THROW(m_store->insert_runtime(r, new_operation(r.id)), NotFound);
    EXPECT_FALSE(m_store->find_runtime(r.id));
    EXPECT_EQ(count("kyma_config"), 0);
}

TEST_P(StoreContractKyma, SecretValuesAreEncryptedAtRest) {
    const KymaConfig kyma = full_kyma(new_uuid(), stored_release());
    idle_kyma_runtime(kyma);
    const auto global = raw("SELECT global_configuration FROM kyma_config");
    ASSERT_EQ(global.size(), 1u);
    const std::string stored = global[0][0].value();
    EXPECT_EQ(stored.find(k_global_secret), std::string::npos) << stored;
    EXPECT_NE(stored.find("rt.kyma.example.com"), std::string::npos) << "plain values stay plain";
    EXPECT_NE(stored.find("\"encrypted\""), std::string::npos) << stored;
    for (const auto& row : raw("SELECT configuration FROM kyma_component_config"))
        EXPECT_EQ(row[0].value_or("").find(k_component_secret), std::string::npos) << *row[0];
    if (GetParam() == "sqlite")
        for (const auto& [name, bytes] : m_dir.contents()) {
            EXPECT_EQ(bytes.find(k_global_secret), std::string::npos) << name;
            EXPECT_EQ(bytes.find(k_component_secret), std::string::npos) << name;
        }
    // ... and read back in plaintext.
    expect_same_kyma(m_store->find_runtime(kyma.cluster_id)->kyma, kyma);
}

TEST_P(StoreContractKyma, RowsTheOriginalWroteReadWithTheirPlaintextSecrets) {
    const KymaConfig kyma = full_kyma(new_uuid(), stored_release());
    idle_kyma_runtime(kyma);
    // The original stored secret values in plain jsonb; its earliest rows held a bare array.
    raw("UPDATE kyma_config SET global_configuration = '{\"configEntries\": [{\"key\": "
        "\"legacy.password\", \"value\": \"plain-old\", \"secret\": true}], "
        "\"conflictStrategy\": \"Replace\"}'");
    raw("UPDATE kyma_component_config SET configuration = '[{\"key\": \"a\", \"value\": \"1\", "
        "\"secret\": false}]' WHERE component = 'cluster-essentials'");
    raw("UPDATE kyma_component_config SET configuration = NULL WHERE component = 'istio'");
    const auto got = m_store->find_runtime(kyma.cluster_id);
    ASSERT_TRUE(got && got->kyma);
    EXPECT_EQ(got->kyma->global,
              (KymaOverrides{{{"legacy.password", "plain-old", true}}, "Replace"}));
    ASSERT_EQ(got->kyma->components.size(), 3u);
    EXPECT_EQ(got->kyma->components[0].configuration, (KymaOverrides{{{"a", "1", false}}, ""}));
    EXPECT_EQ(got->kyma->components[1].configuration, kyma.components[1].configuration);
    EXPECT_EQ(got->kyma->components[2].configuration, KymaOverrides{});
}

TEST_P(StoreContractKyma, ACiphertextMovedToAnotherEntryDoesNotDecrypt) {
    const KymaConfig kyma = full_kyma(new_uuid(), stored_release());
    idle_kyma_runtime(kyma);
    const std::string global = raw("SELECT global_configuration FROM kyma_config")[0][0].value();
    const std::string moved = std::string(global).replace(
        global.find("global.adminPassword"), std::string("global.adminPassword").size(),
        "global.otherPassword");
    raw("UPDATE kyma_config SET global_configuration = '" + moved + "'");
    try {
        m_store->find_runtime(kyma.cluster_id);
        ADD_FAILURE() << "a ciphertext decrypted under another key";
    } catch (const StoreError& e) {
        EXPECT_EQ(std::string(e.what()).find(k_global_secret), std::string::npos);
    }
}

TEST_P(StoreContractKyma, AConfigWithoutItsComponentsReadsAsNoKyma) {
    // The original's inner joins failed the whole runtime; kprov keeps it readable.
    const KymaConfig kyma = full_kyma(new_uuid(), stored_release());
    const Runtime r = idle_kyma_runtime(kyma);
    raw("DELETE FROM kyma_component_config");
    const auto got = m_store->find_runtime(r.id);
    ASSERT_TRUE(got);
    EXPECT_FALSE(got->kyma);
    EXPECT_EQ(got->gardener.name, r.gardener.name);
    const auto status = m_store->find_runtime_status(r.id);
    ASSERT_TRUE(status);
    EXPECT_FALSE(status->runtime.kyma);
}

TEST_P(StoreContractKyma, ReleasesAreStoredOncePerVersion) {
    EXPECT_FALSE(m_store->find_kyma_release("2.4.1"));
    const KymaRelease first = m_store->insert_kyma_release({"", "2.4.1", "", "installer: a"});
    EXPECT_EQ(first.id.size(), 36u) << "a new uuid";
    EXPECT_EQ(first.version, "2.4.1");
    EXPECT_EQ(first.tiller_yaml, "");
    EXPECT_EQ(first.installer_yaml, "installer: a");
    EXPECT_EQ(m_store->find_kyma_release("2.4.1"), first);
    // A later writer of the version gets the stored row.
    EXPECT_EQ(m_store->insert_kyma_release({"", "2.4.1", "t", "installer: b"}), first);
    const KymaRelease with_id{new_uuid(), "PR-123", "tiller", "installer"};
    EXPECT_EQ(m_store->insert_kyma_release(with_id), with_id);
    EXPECT_EQ(count("kyma_release"), 2);
}

TEST_P(StoreContractKyma, RacingWritersOfAReleaseAllGetTheOneStoredRow) {
    auto second = open(); // another connection on the same database
    for (int round = 0; round < 3; ++round) {
        const std::string version = "2." + std::to_string(round) + ".0";
        std::vector<KymaRelease> got(6);
        std::vector<std::thread> writers;
        for (int i = 0; i < 6; ++i) {
            Store& store = i % 2 ? *second : *m_store;
            writers.emplace_back([&, i] {
                got[i] = store.insert_kyma_release(
                    {"", version, "tiller", "installer by writer " + std::to_string(i)});
            });
        }
        for (auto& t : writers)
            t.join();
        for (const auto& release : got)
            EXPECT_EQ(release, got[0]) << "round " << round;
        EXPECT_EQ(m_store->find_kyma_release(version), got[0]);
    }
    EXPECT_EQ(count("kyma_release"), 3);
}

TEST_P(StoreContractKyma, AnUpgradeSwitchesTheActiveConfigWhenItIsRequested) {
    const KymaConfig before = full_kyma(new_uuid(), stored_release("2.4.1"));
    const Runtime r = idle_kyma_runtime(before);
    const KymaConfig after = next_kyma(r, "2.5.0");
    const Operation op = upgrade_operation(r.id, k_t0 + 1h);
    m_store->insert_kyma_upgrade(op, after, {"", op.id, UpgradeState::InProgress, before.id, ""});

    expect_same_kyma(m_store->find_runtime(r.id)->kyma, after);
    EXPECT_EQ(m_store->last_operation(r.id), op);
    const auto record = m_store->find_runtime_upgrade(op.id);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->id.size(), 36u);
    EXPECT_EQ(record->operation_id, op.id);
    EXPECT_EQ(record->state, UpgradeState::InProgress);
    EXPECT_EQ(record->pre_upgrade_kyma_config_id, before.id);
    EXPECT_EQ(record->post_upgrade_kyma_config_id, after.id);
    EXPECT_FALSE(m_store->find_runtime_upgrade(new_uuid()));
    EXPECT_FALSE(m_store->find_runtime_upgrade("not-a-uuid"));
}

TEST_P(StoreContractKyma, AnUpgradeRefusedWritesNothing) {
    const KymaConfig before = full_kyma(new_uuid(), stored_release("2.4.1"));
    const Runtime r = idle_kyma_runtime(before);
    const KymaConfig after = next_kyma(r, "2.5.0");
    const Operation op = upgrade_operation(r.id, k_t0 + 1h);
    m_store->insert_kyma_upgrade(op, after, {});
    const int configs = count("kyma_config"), components = count("kyma_component_config");

    // The first upgrade is still in progress.
    const KymaConfig refused = next_kyma(r, "2.6.0");
    const Operation again = upgrade_operation(r.id, k_t0 + 2h);
    EXPECT_THROW(m_store->insert_kyma_upgrade(again, refused, {}), OperationInProgress);
    // Its release is not stored (after the first upgrade ended).
    Operation finished = op;
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0 + 1h, 30s));
    finished.state = OperationState::Succeeded;
    m_store->save_progress(finished, "w1", k_t0 + 1h, {}, {}, true);
    KymaConfig unknown = next_kyma(r, "2.7.0");
    unknown.release.id = new_uuid();
    EXPECT_THROW(m_store->insert_kyma_upgrade(again, unknown, {}), NotFound);
    // The runtime does not exist.
    const Operation elsewhere = upgrade_operation(new_uuid(), k_t0 + 2h);
    EXPECT_THROW(m_store->insert_kyma_upgrade(elsewhere, refused, {}), NotFound);

    EXPECT_EQ(count("kyma_config"), configs);
    EXPECT_EQ(count("kyma_component_config"), components);
    EXPECT_EQ(count("runtime_upgrade"), 1);
    EXPECT_FALSE(m_store->find_operation(again.id));
    expect_same_kyma(m_store->find_runtime(r.id)->kyma, after);

    // A runtime without Kyma has nothing to upgrade from.
    const Runtime plain = idle_runtime();
    EXPECT_THROW(m_store->insert_kyma_upgrade(upgrade_operation(plain.id, k_t0 + 3h),
                                              next_kyma(plain, "2.8.0"), {}),
                 Conflict);
    EXPECT_EQ(m_store->operations_of(plain.id).size(), 1u);
}

TEST_P(StoreContractKyma, SaveProgressWritesTheUpgradeStateUnderTheLease) {
    const KymaConfig before = full_kyma(new_uuid(), stored_release("2.4.1"));
    const Runtime r = idle_kyma_runtime(before);
    Operation op = upgrade_operation(r.id, k_t0 + 1h);
    m_store->insert_kyma_upgrade(op, next_kyma(r, "2.5.0"), {});
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0 + 1h, 30s));

    RuntimeChange succeeded;
    succeeded.upgrade_state = UpgradeState::Succeeded;
    op.stage = "Finished";
    m_store->save_progress(op, "w1", k_t0 + 1h + 1s, {}, succeeded, false);
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, UpgradeState::Succeeded);

    // Without the lease nothing is written.
    RuntimeChange failed;
    failed.upgrade_state = UpgradeState::Failed;
    EXPECT_THROW(m_store->save_progress(op, "w2", k_t0 + 1h + 2s, {}, failed, true), LeaseLost);
    EXPECT_THROW(m_store->save_progress(op, "w1", k_t0 + 2h, {}, failed, true), LeaseLost)
        << "an expired lease";
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, UpgradeState::Succeeded);

    m_store->save_progress(op, "w1", k_t0 + 1h + 3s, {}, failed, true);
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, UpgradeState::Failed);
}

TEST_P(StoreContractKyma, RollingBackMakesThePreUpgradeConfigActiveAgain) {
    const KymaConfig before = full_kyma(new_uuid(), stored_release("2.4.1"));
    const Runtime r = idle_kyma_runtime(before);
    Operation op = upgrade_operation(r.id, k_t0 + 1h);
    const KymaConfig after = next_kyma(r, "2.5.0");
    m_store->insert_kyma_upgrade(op, after, {});
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0 + 1h, 30s));
    op.state = OperationState::Succeeded;
    RuntimeChange succeeded;
    succeeded.upgrade_state = UpgradeState::Succeeded;
    m_store->save_progress(op, "w1", k_t0 + 1h, {}, succeeded, true);

    const auto version = m_store->runtime_version(r.id);
    m_store->roll_back_upgrade(r.id, op.id);
    expect_same_kyma(m_store->find_runtime(r.id)->kyma, before);
    EXPECT_EQ(m_store->find_runtime_upgrade(op.id)->state, UpgradeState::RolledBack);
    if (version) {
        EXPECT_GT(m_store->runtime_version(r.id), version) << "the API shows another config";
    }

    // Only an upgrade operation of that runtime.
    const Runtime other = idle_runtime();
    EXPECT_THROW(m_store->roll_back_upgrade(other.id, op.id), NotFound);
    EXPECT_THROW(m_store->roll_back_upgrade(r.id, new_uuid()), NotFound);
    EXPECT_THROW(m_store->roll_back_upgrade(r.id, "not-a-uuid"), NotFound);
    expect_same_kyma(m_store->find_runtime(r.id)->kyma, before);
}

TEST_P(StoreContractKyma, ARuntimesVersionMovesWithItsKymaUpgrade) {
    const KymaConfig before = full_kyma(new_uuid(), stored_release("2.4.1"));
    const Runtime r = idle_kyma_runtime(before);
    const Runtime other = idle_kyma_runtime(full_kyma(new_uuid(), stored_release("2.4.1")));
    const auto seen = m_store->runtime_version(r.id);
    if (!seen) {
        EXPECT_EQ(GetParam(), "postgres") << "the SQLite store keeps versions";
        return;
    }
    const auto other_seen = m_store->runtime_version(other.id);
    Operation op = upgrade_operation(r.id, k_t0 + 1h);
    m_store->insert_kyma_upgrade(op, next_kyma(r, "2.5.0"), {});
    const auto upgraded = m_store->runtime_version(r.id);
    EXPECT_GT(upgraded, seen);
    EXPECT_EQ(m_store->find_runtime_status(r.id)->version, upgraded);
    ASSERT_TRUE(m_store->claim(op.id, "w1", k_t0 + 1h, 30s));
    RuntimeChange succeeded;
    succeeded.upgrade_state = UpgradeState::Succeeded;
    m_store->save_progress(op, "w1", k_t0 + 1h, {}, succeeded, false);
    EXPECT_GT(m_store->runtime_version(r.id), upgraded);
    EXPECT_EQ(m_store->runtime_version(other.id), other_seen) << "another runtime's upgrade";
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractKyma, ::testing::Values("sqlite", "postgres"),
                         [](const auto& param_info) { return param_info.param; });

} // namespace
} // namespace kprov::engine
