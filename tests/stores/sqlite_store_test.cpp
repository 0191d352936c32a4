// What only the SQLite store does: its file, its key file, its migrations and its locking across
// connections and processes. The behaviour every store shares is in store_contract_test.cpp.

#include "engine/error.hpp"
#include "stores/cipher.hpp"
#include "stores/migration_names.hpp"
#include "stores/open_store.hpp"
#include "stores/store_common.hpp"
#include "stores_testing.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kprov::stores {
namespace {

using namespace std::chrono_literals;
using engine::Operation;
using engine::OperationState;
using engine::OperationType;
using engine::Runtime;
using kprov::testing::k_t0;
using kprov::testing::migration_names;
using kprov::testing::migration_versions;
using kprov::testing::recorded_names;
using kprov::testing::small_runtime;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

using ::testing::HasSubstr;

// The main file and its write-ahead log: everything SQLite has put on disk.
std::string bytes_on_disk(const std::string& db) {
    return read_file(db) + read_file(db + "-wal");
}

class SqliteStoreTest : public ::testing::Test {
protected:
    std::unique_ptr<StoreBackend> open(SchemaCheck check = SchemaCheck::Migrate,
                                       std::optional<std::string> key = k_key) {
        OpenOptions options;
        options.secret_key = std::move(key);
        options.schema = check;
        return open_store("sqlite://" + m_db, options);
    }

    std::vector<int> recorded_versions() {
        SQLite::Database raw(m_db, SQLite::OPEN_READONLY);
        SQLite::Statement st(raw, "SELECT version FROM schema_version ORDER BY version");
        std::vector<int> out;
        while (st.executeStep())
            out.push_back(st.getColumn(0).getInt());
        return out;
    }

    testing::TempDir m_dir;
    std::string m_db = m_dir.file("kprov.db");
};

// --- the file and its schema -----------------------------------------------------------------

TEST_F(SqliteStoreTest, MigrateOnAnEmptyFileCreatesTheSchemaAndRecordsEachVersion) {
    auto store = open(SchemaCheck::None);
    EXPECT_EQ(store->schema_version(), 0);
    EXPECT_EQ(store->dialect(), "sqlite");
    EXPECT_EQ(store->redacted_url(), "sqlite://" + m_db);

    const auto report = store->migrate();
    EXPECT_EQ(report.from_version, 0);
    EXPECT_EQ(report.to_version, latest_version("sqlite"));
    EXPECT_THAT(report.applied, ElementsAreArray(migration_names("sqlite")));
    EXPECT_EQ(store->schema_version(), latest_version("sqlite"));
    EXPECT_THAT(recorded_versions(), ElementsAreArray(migration_versions("sqlite")));

    SQLite::Database raw(m_db, SQLite::OPEN_READONLY);
    for (const char* table : {"cluster", "gardener_config", "operation", "operation_transition",
                              "cluster_administrator", "oidc_config", "signing_algorithms",
                              "dns_config", "dns_providers"})
        EXPECT_TRUE(raw.tableExists(table)) << table;
    EXPECT_EQ(raw.execAndGet("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' "
                             "AND name = 'operation_one_in_progress'")
                  .getInt(),
              1);
    EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
}

TEST_F(SqliteStoreTest, SecondMigrateIsANoOp) {
    auto store = open(SchemaCheck::None);
    store->migrate();
    const auto again = store->migrate();
    EXPECT_TRUE(again.applied.empty());
    EXPECT_EQ(again.from_version, latest_version("sqlite"));
    EXPECT_EQ(again.to_version, latest_version("sqlite"));
    EXPECT_THAT(recorded_versions(), ElementsAreArray(migration_versions("sqlite")));
}

TEST_F(SqliteStoreTest, TwoStoresMigratingAtOnceApplyEachMigrationOnce) {
    auto a = open(SchemaCheck::None);
    auto b = open(SchemaCheck::None);
    MigrationReport ra, rb;
    std::thread ta([&] { ra = a->migrate(); });
    std::thread tb([&] { rb = b->migrate(); });
    ta.join();
    tb.join();
    EXPECT_EQ(ra.applied.size() + rb.applied.size(), migrations_for("sqlite").size());
    EXPECT_TRUE(ra.applied.empty() || rb.applied.empty());
    EXPECT_EQ(ra.to_version, latest_version("sqlite"));
    EXPECT_EQ(rb.to_version, latest_version("sqlite"));
    EXPECT_THAT(recorded_versions(), ElementsAreArray(migration_versions("sqlite")));
}

TEST_F(SqliteStoreTest, ANewerSchemaIsRefused) {
    open()->migrate();
    {
        SQLite::Database raw(m_db, SQLite::OPEN_READWRITE);
        raw.exec("INSERT INTO schema_version (version, name, applied_at) "
                 "VALUES (999, '0999_future', '2030-01-01 00:00:00.000000')");
    }
    for (auto check : {SchemaCheck::Migrate, SchemaCheck::Require}) {
        const auto message = message_of<StoreError>([&] { open(check); });
        EXPECT_THAT(message, HasSubstr("version 999"));
        EXPECT_THAT(message, HasSubstr("newer than this kprov knows"));
        EXPECT_THAT(message, HasSubstr(m_db));
    }
    // `kprov migrate` opens without a check; migrate() itself refuses and changes nothing.
    auto store = open(SchemaCheck::None);
    EXPECT_THAT(message_of<StoreError>([&] { store->migrate(); }), HasSubstr("upgrade kprov"));
    auto with_future = migration_versions("sqlite");
    with_future.push_back(999);
    EXPECT_THAT(recorded_versions(), ElementsAreArray(with_future));
}

TEST_F(SqliteStoreTest, RequireRefusesAnUnmigratedFile) {
    const auto message = message_of<StoreError>([&] { open(SchemaCheck::Require); });
    EXPECT_THAT(message, HasSubstr("version 0"));
    EXPECT_THAT(message, HasSubstr("kprov migrate"));
    open(SchemaCheck::None)->migrate();
    EXPECT_EQ(open(SchemaCheck::Require)->schema_version(), latest_version("sqlite"));
}

TEST_F(SqliteStoreTest, CreatesMissingParentDirectories) {
    m_db = m_dir.file("state/kprov/nested/kprov.db");
    auto store = open();
    EXPECT_TRUE(std::filesystem::exists(m_db));
    EXPECT_EQ(store->schema_version(), latest_version("sqlite"));
}

TEST_F(SqliteStoreTest, TheLastOperationIsReadFromTheIndexBackwardsWithTiesToTheLatestRow) {
    auto store = open();
    const Runtime r = small_runtime();
    Operation first = provisioning(r.id);
    first.state = OperationState::Succeeded;
    store->insert_runtime(r, first);
    // Started in the same instant as the first: the row inserted later is the last operation.
    Operation second = kprov::testing::new_operation(r.id, OperationType::UpgradeShoot, k_t0);
    store->insert_operation(second);
    EXPECT_EQ(store->last_operation(r.id)->id, second.id);
    EXPECT_EQ(store->find_runtime_status(r.id)->last->id, second.id);
    EXPECT_EQ(store->list_runtimes({}).at(0).last_operation->id, second.id);

    // Migration 0005: the index serves that order, so no runtime's operations are sorted.
    SQLite::Database raw(m_db, SQLite::OPEN_READONLY);
    SQLite::Statement plan(raw,
                           "EXPLAIN QUERY PLAN SELECT rowid FROM operation WHERE "
                           "cluster_id = 'x' ORDER BY start_timestamp DESC, rowid DESC LIMIT 1");
    std::string steps;
    while (plan.executeStep())
        steps += plan.getColumn(3).getString() + "\n";
    EXPECT_THAT(steps, HasSubstr("INDEX operation_cluster_start"));
    EXPECT_THAT(steps, ::testing::Not(HasSubstr("TEMP B-TREE")));
}

TEST_F(SqliteStoreTest, RefusesAnInMemoryDatabase) {
    OpenOptions options;
    options.secret_key = k_key;
    EXPECT_THROW(open_store("sqlite://:memory:", options), ConfigError);
}

TEST_F(SqliteStoreTest, AFileThatIsNotADatabaseIsAStoreErrorNamingIt) {
    std::ofstream(m_db) << "this is not an SQLite database, just text long enough to be read "
                           "as a header by SQLite when it opens the file................";
    const auto message = message_of<StoreError>([&] { open(); });
    EXPECT_THAT(message, HasSubstr("sqlite " + m_db + ":"));
}

TEST_F(SqliteStoreTest, MigrationFromVersionOneKeepsDataAndFailsSupersededOperations) {
    const std::string cluster = engine::new_uuid(), older = engine::new_uuid(),
                      newer = engine::new_uuid();
    {
        // A database made by the first schema only, with two in-progress operations of one
        // runtime (the original's check was not atomic).
        SQLite::Database raw(m_db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        raw.exec(std::string(migrations_for("sqlite").front().sql));
        raw.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                 "applied_at TEXT NOT NULL); INSERT INTO schema_version VALUES "
                 "(1, '0001_original_schema', '2026-01-01 00:00:00.000000')");
        raw.exec("INSERT INTO cluster (id, tenant, creation_timestamp) VALUES ('" + cluster +
                 "', 't', '2026-01-01 00:00:00.000000')");
        for (const auto& [id, start] : {std::pair{older, "2026-01-01 00:00:01.000000"},
                                        std::pair{newer, "2026-01-01 00:00:02.000000"}})
            raw.exec("INSERT INTO operation (id, type, state, start_timestamp, cluster_id, stage) "
                     "VALUES ('" +
                     id + "', 'PROVISION', 'IN_PROGRESS', '" + start + "', '" + cluster +
                     "', 'WaitingForClusterCreation')");
    }
    auto store = open(SchemaCheck::Migrate);
    EXPECT_EQ(store->schema_version(), latest_version("sqlite"));
    const auto kept = store->find_operation(newer);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->state, OperationState::InProgress);
    EXPECT_EQ(kept->stage, "WaitingForClusterCreation");
    EXPECT_EQ(kept->attempts, 0);
    const auto failed = store->find_operation(older);
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->state, OperationState::Failed);
    EXPECT_THAT(failed->message, HasSubstr("superseded"));
    EXPECT_TRUE(failed->end_timestamp);
    EXPECT_EQ(store->count_in_progress().at(OperationType::Provision), 1);
    // The legacy runtime reads with the defaults of the new columns.
    const auto runtime = store->find_runtime(cluster);
    ASSERT_TRUE(runtime);
    EXPECT_EQ(runtime->labels_json, "{}");
    EXPECT_EQ(runtime->name, "");
}

// --- secrets ---------------------------------------------------------------------------------

TEST_F(SqliteStoreTest, WithoutAKeyAKeyFileIsCreatedBesideTheDatabaseAndReused) {
    const std::string key_file = m_db + ".key";
    Runtime r = small_runtime();
    r.administrators = {"admin@example.com"};
    {
        auto store = open(SchemaCheck::Migrate, std::nullopt);
        store->insert_runtime(r, provisioning(r.id));
    }
    ASSERT_TRUE(std::filesystem::exists(key_file));
    struct stat st {};
    ASSERT_EQ(::stat(key_file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    const std::string key = read_file(key_file);

    auto reopened = open(SchemaCheck::Require, std::nullopt);
    EXPECT_EQ(read_file(key_file), key);
    EXPECT_EQ(reopened->find_runtime(r.id)->administrators, r.administrators);
    // The key really is what protects the values: another key cannot read them.
    auto other_key = open(SchemaCheck::Require, std::string(32, 'k'));
    EXPECT_THROW(other_key->find_runtime(r.id), StoreError);
}

// A store with one encrypted value in `table`, written with a key file that is then removed.
class SqliteStoreWithoutItsKeyFile : public SqliteStoreTest,
                                     public ::testing::WithParamInterface<std::string> {};

TEST_P(SqliteStoreWithoutItsKeyFile, IsRefusedNamingTheKeyFileAndLeftAsItWas) {
    const std::string key_file = m_db + ".key";
    Runtime r = small_runtime();
    if (GetParam() == "cluster_administrator")
        r.administrators = {"admin@example.com"};
    else
        r.kubeconfig = "apiVersion: v1\nkind: Config\n";
    open(SchemaCheck::Migrate, std::nullopt)->insert_runtime(r, provisioning(r.id));
    ASSERT_TRUE(std::filesystem::remove(key_file));
    const auto before = m_dir.contents();
    ASSERT_EQ(before.size(), 1u) << "the closed store is one file";

    for (const auto check : {SchemaCheck::Migrate, SchemaCheck::Require}) {
        const auto message =
            message_of<ConfigError>([&] { open(check, std::nullopt)->find_runtime(r.id); });
        EXPECT_THAT(message, HasSubstr("\"" + key_file + "\" is missing"));
        EXPECT_THAT(message, HasSubstr("APP_DATABASE_SECRET_KEY"));
    }
    EXPECT_EQ(m_dir.contents(), before) << "no key file, database unchanged";
}

INSTANTIATE_TEST_SUITE_P(EncryptedValueIn, SqliteStoreWithoutItsKeyFile,
                         ::testing::Values("cluster", "cluster_administrator"));

TEST_F(SqliteStoreTest, AStoreWithoutEncryptedValuesGetsAKeyFileWhenItHasNone) {
    const std::string key_file = m_db + ".key";
    // Rows, but no encrypted value: no kubeconfig, no administrator.
    const Runtime r = small_runtime();
    open(SchemaCheck::Migrate, k_key)->insert_runtime(r, provisioning(r.id));
    ASSERT_FALSE(std::filesystem::exists(key_file)) << "a configured key makes no key file";

    auto store = open(SchemaCheck::Require, std::nullopt);
    ASSERT_TRUE(std::filesystem::exists(key_file));
    struct stat st {};
    ASSERT_EQ(::stat(key_file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_TRUE(store->find_runtime(r.id));
}

TEST_F(SqliteStoreTest, AFileThatIsNotADatabaseGetsNoKeyFile) {
    std::ofstream(m_db) << "this is not an SQLite database, just text long enough to be read "
                           "as a header by SQLite when it opens the file................";
    const auto message = message_of<StoreError>([&] { open(SchemaCheck::Migrate, std::nullopt); });
    EXPECT_THAT(message, HasSubstr("sqlite " + m_db + ":"));
    EXPECT_FALSE(std::filesystem::exists(m_db + ".key"));
}

TEST_F(SqliteStoreTest, ForSchemaWorkItOpensWithoutAKeyAndRefusesEverySecret) {
    Runtime r = small_runtime();
    r.administrators = {"admin@example.com"};
    open()->insert_runtime(r, provisioning(r.id));

    OpenOptions options;
    options.secrets = Secrets::Unused;
    options.schema = SchemaCheck::None;
    auto store = open_store("sqlite://" + m_db, options);
    EXPECT_EQ(store->migrate().applied.size(), 0u);
    EXPECT_FALSE(std::filesystem::exists(m_db + ".key"));
    EXPECT_THAT(message_of<ConfigError>([&] { store->find_runtime(r.id); }),
                HasSubstr("APP_DATABASE_SECRET_KEY"));

    Runtime other = small_runtime();
    other.administrators = {"other@example.com"};
    EXPECT_THAT(
        message_of<ConfigError>([&] { store->insert_runtime(other, provisioning(other.id)); }),
        HasSubstr("APP_DATABASE_SECRET_KEY"));
    EXPECT_FALSE(open()->find_runtime(other.id)) << "nothing is written without its secrets";
}

TEST_F(SqliteStoreTest, SecretsAreNotPlaintextInTheDatabaseFiles) {
    const std::string kubeconfig = "apiVersion: v1\nkind: Config\ntoken: SECRET-TOKEN-4711\n";
    const std::string admin = "very-secret-admin@example.com";
    auto store = open();
    Runtime r = small_runtime();
    r.administrators = {admin};
    r.kubeconfig = kubeconfig;
    Operation op = provisioning(r.id);
    store->insert_runtime(r, op);
    ASSERT_TRUE(store->claim(op.id, "w", k_t0, 30s));
    engine::RuntimeChange change;
    change.kubeconfig = kubeconfig + "# refreshed\n";
    store->save_progress(op, "w", k_t0, {}, change, true);
    EXPECT_EQ(store->find_runtime(r.id)->kubeconfig, *change.kubeconfig);
    EXPECT_EQ(store->find_runtime(r.id)->administrators, r.administrators);

    const std::string disk = bytes_on_disk(m_db);
    EXPECT_EQ(disk.find("SECRET-TOKEN-4711"), std::string::npos);
    EXPECT_EQ(disk.find(admin), std::string::npos);

    SQLite::Database raw(m_db, SQLite::OPEN_READONLY);
    SQLite::Statement c(raw, "SELECT kubeconfig, is_kubeconfig_encrypted FROM cluster");
    ASSERT_TRUE(c.executeStep());
    EXPECT_THAT(c.getColumn(0).getString(), ::testing::StartsWith("v2:"));
    EXPECT_EQ(c.getColumn(1).getInt(), 1);
    SQLite::Statement a(raw, "SELECT user_id, is_user_id_encrypted FROM cluster_administrator");
    ASSERT_TRUE(a.executeStep());
    EXPECT_THAT(a.getColumn(0).getString(), ::testing::StartsWith("v2:"));
    EXPECT_EQ(a.getColumn(1).getInt(), 1);
}

TEST_F(SqliteStoreTest, LegacyRowsReadWhetherPlaintextOrInTheOriginalsFormat) {
    auto store = open();
    const Runtime r = small_runtime();
    store->insert_runtime(r, provisioning(r.id));
    const SecretCipher cipher(k_key);
    {
        SQLite::Database raw(m_db, SQLite::OPEN_READWRITE);
        SQLite::Statement k(raw, "UPDATE cluster SET kubeconfig = ?, is_kubeconfig_encrypted = 0 "
                                 "WHERE id = ?");
        k.bind(1, std::string("plain: kubeconfig"));
        k.bind(2, r.id);
        k.exec();
        SQLite::Statement a(raw, "INSERT INTO cluster_administrator (id, cluster_id, user_id, "
                                 "is_user_id_encrypted) VALUES (?, ?, ?, ?)");
        const std::vector<std::pair<std::string, int>> admins = {
            {"plain@example.com", 0}, {cipher.encrypt_legacy("legacy@example.com"), 1}};
        for (const auto& [user_id, encrypted] : admins) {
            a.bind(1, engine::new_uuid());
            a.bind(2, r.id);
            a.bind(3, user_id);
            a.bind(4, encrypted);
            a.exec();
            a.reset();
        }
    }
    const auto got = store->find_runtime(r.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->kubeconfig, "plain: kubeconfig");
    EXPECT_THAT(got->administrators, ElementsAre("plain@example.com", "legacy@example.com"));
}

// --- locking across connections and processes ------------------------------------------------

class SqliteClaimTest : public SqliteStoreTest {
protected:
    std::set<std::string> insert_due(int count) {
        auto store = open();
        std::set<std::string> ids;
        for (int i = 0; i < count; ++i) {
            const Runtime r = small_runtime();
            const Operation op = provisioning(r.id);
            store->insert_runtime(r, op);
            ids.insert(op.id);
        }
        return ids;
    }

    // Claims until nothing is left, recording what it got (bounded, so a store that hands
    // out the same operation again fails the test instead of hanging it).
    static std::vector<std::string> drain(engine::Store& store, const std::string& owner) {
        std::vector<std::string> got;
        for (int round = 0, empty_rounds = 0; empty_rounds < 3 && round < 500; ++round) {
            const auto claimed = store.claim_due(owner, k_t0 + 1s, 1h, 2);
            empty_rounds = claimed.empty() ? empty_rounds + 1 : 0;
            for (const auto& op : claimed)
                got.push_back(op.id);
        }
        return got;
    }
};

TEST_F(SqliteClaimTest, ConcurrentClaimsFromSeveralConnectionsNeverShareAnOperation) {
    const auto ids = insert_due(60);
    std::vector<std::unique_ptr<StoreBackend>> stores;
    for (int i = 0; i < 3; ++i)
        stores.push_back(open());
    std::vector<std::vector<std::string>> got(6);
    std::vector<std::thread> workers;
    for (int w = 0; w < 6; ++w) // two threads on each connection
        workers.emplace_back([&, w] { got[w] = drain(*stores[w % 3], "w" + std::to_string(w)); });
    for (auto& t : workers)
        t.join();

    std::multiset<std::string> all;
    for (const auto& g : got)
        all.insert(g.begin(), g.end());
    EXPECT_EQ(all.size(), ids.size());
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), ids);
    // The database agrees: every operation was leased exactly once, to the one who reported it.
    for (int w = 0; w < 6; ++w)
        for (const auto& id : got[w]) {
            const auto op = stores[0]->find_operation(id);
            EXPECT_EQ(op->attempts, 1) << id;
            EXPECT_EQ(op->lease->owner, "w" + std::to_string(w)) << id;
        }
}

TEST_F(SqliteClaimTest, ConcurrentClaimsFromTwoProcessesNeverShareAnOperation) {
    const auto ids = insert_due(60);
    const std::string child_out = m_dir.file("child.txt");
    const pid_t child = ::fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        // A separate process with its own connection, as `kprov watch` beside `kprov provision`.
        int code = 0;
        try {
            auto store = open();
            std::ofstream out(child_out);
            for (const auto& id : drain(*store, "child"))
                out << id << '\n';
        } catch (...) {
            code = 1;
        }
        ::_exit(code);
    }
    auto store = open();
    const auto mine = drain(*store, "parent");
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    std::multiset<std::string> all(mine.begin(), mine.end());
    std::istringstream theirs(read_file(child_out));
    for (std::string id; std::getline(theirs, id);)
        all.insert(id);
    EXPECT_EQ(all.size(), ids.size());
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), ids);
}

TEST_F(SqliteStoreTest, TheChangeCounterMovesWithEveryCommitOfAnyConnectionAndOnlyThen) {
    auto store = open();
    auto reader = open(); // a second connection, as serve's readers are
    const Runtime r = small_runtime();
    const auto before = store->change_counter();
    const auto seen_before = reader->change_counter();
    ASSERT_TRUE(before && seen_before);
    EXPECT_EQ(store->change_counter(), before) << "nothing was written";
    EXPECT_EQ(reader->change_counter(), seen_before);
    (void)reader->find_runtime(r.id);
    EXPECT_EQ(reader->change_counter(), seen_before) << "a read is not a change";

    // Its own write moves a connection's counter, and every other connection's.
    store->insert_runtime(r, provisioning(r.id));
    const auto after_insert = store->change_counter();
    const auto seen_insert = reader->change_counter();
    EXPECT_NE(after_insert, before);
    EXPECT_NE(seen_insert, seen_before);

    // So does a commit by a connection that is no store at all (another process, sqlite3).
    {
        SQLite::Database other(m_db, SQLite::OPEN_READWRITE);
        other.exec("UPDATE operation SET message = 'changed elsewhere'");
    }
    EXPECT_NE(store->change_counter(), after_insert);
    EXPECT_NE(reader->change_counter(), seen_insert);
    EXPECT_EQ(reader->change_counter(), reader->change_counter());
}

// Migration 0006's triggers: a write to any table the API shows a runtime from moves that
// runtime's version, whoever writes (here plain SQL on another connection); a lease does not.
TEST_F(SqliteStoreTest, EveryTableTheApiShowsMovesTheRuntimesVersionWhoeverWrites) {
    auto store = open();
    Runtime r = small_runtime();
    r.gardener.oidc =
        engine::OidcConfig{"client", "groups", "https://issuer", {"RS256"}, "sub", "-"};
    r.gardener.dns = engine::DnsConfig{"example.org", {{{"a.org"}, true, "secret", "aws-route53"}}};
    r.administrators = {"admin@example.org"};
    store->insert_runtime(r, provisioning(r.id));
    const Runtime other = small_runtime();
    store->insert_runtime(other, provisioning(other.id));
    const auto other_version = store->runtime_version(other.id);

    SQLite::Database raw(m_db, SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA foreign_keys = ON"); // as kprov's connections: deletes cascade
    const std::string gardener = "(SELECT id FROM gardener_config WHERE cluster_id = ?1)";
    const std::string oidc =
        "(SELECT id FROM oidc_config WHERE gardener_config_id IN " + gardener + ")";
    const std::string dns =
        "(SELECT id FROM dns_config WHERE gardener_config_id IN " + gardener + ")";
    const auto version_after = [&](const std::string& sql) {
        SQLite::Statement st(raw, sql);
        st.bind(1, r.id);
        EXPECT_GT(st.exec(), 0) << sql;
        return store->runtime_version(r.id);
    };
    auto seen = store->runtime_version(r.id);
    ASSERT_TRUE(seen);
    for (const std::string& sql : std::vector<std::string>{
             "UPDATE cluster SET sub_account_id = 'sa' WHERE id = ?1",
             "UPDATE gardener_config SET machine_type = 'm6i.xlarge' WHERE cluster_id = ?1",
             "UPDATE operation SET message = 'm' WHERE cluster_id = ?1",
             "UPDATE oidc_config SET client_id = 'c2' WHERE id IN " + oidc,
             "UPDATE signing_algorithms SET algorithm = 'ES256' WHERE oidc_config_id IN " + oidc,
             "DELETE FROM signing_algorithms WHERE oidc_config_id IN " + oidc,
             "UPDATE dns_providers SET type = 'gcp' WHERE dns_config_id IN " + dns,
             "DELETE FROM dns_providers WHERE dns_config_id IN " + dns,
             "UPDATE dns_config SET domain = 'example.com' WHERE id IN " + dns,
             "DELETE FROM oidc_config WHERE id IN " + oidc,
             "DELETE FROM dns_config WHERE id IN " + dns,
             "DELETE FROM operation WHERE cluster_id = ?1",
         }) {
        const auto now = version_after(sql);
        EXPECT_GT(now, seen) << sql;
        seen = now;
    }
    EXPECT_EQ(version_after("UPDATE cluster_administrator SET user_id = user_id || 'x' "
                            "WHERE cluster_id = ?1"),
              seen)
        << "administrators are not shown";
    EXPECT_EQ(store->runtime_version(other.id), other_version) << "only its own runtime";

    // Gone and created again under the same id: the version goes on growing.
    const auto removed = version_after("DELETE FROM cluster WHERE id = ?1");
    EXPECT_GT(removed, seen);
    store->insert_runtime(r, provisioning(r.id));
    EXPECT_GT(store->runtime_version(r.id), removed);
}

TEST_F(SqliteStoreTest, AWriterWaitsForAnotherConnectionsTransactionInsteadOfFailing) {
    auto store = open();
    const Runtime r = small_runtime();
    store->insert_runtime(r, provisioning(r.id));

    SQLite::Database other(m_db, SQLite::OPEN_READWRITE);
    other.exec("BEGIN IMMEDIATE");
    std::atomic<bool> done{false};
    std::thread writer([&] {
        store->set_tenant(r.id, "moved", std::nullopt);
        done = true;
    });
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(done) << "the write did not wait for the other connection's lock";
    other.exec("COMMIT");
    writer.join();
    EXPECT_TRUE(done);
    EXPECT_EQ(store->find_runtime(r.id)->tenant, "moved");
}

} // namespace
} // namespace kprov::stores
