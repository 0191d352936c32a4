// What only the PostgreSQL store does: its key requirement, its migrations (atomic, serialized
// across processes), secrets at rest, row locks, reconnection and error messages. The behaviour
// every store shares is in store_contract_test.cpp; the takeover of an original provisioner
// database is in postgres_takeover_test.cpp.

#include "engine/error.hpp"
#include "engine/util/text.hpp"
#include "stores/migration_names.hpp"
#include "stores/open_store.hpp"
#include "stores/store_common.hpp"
#include "stores_testing.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <arpa/inet.h>
#include <atomic>
#include <barrier>
#include <chrono>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pqxx/pqxx>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

// libpqxx 6.4 leaks one libpq result (about 2 KB) when a connection breaks under it (seen with
// LeakSanitizer after pg_terminate_backend: a PGresult from PQgetResult, called inside libpqxx).
// The reconnect tests cause exactly that on purpose. libpq's frames carry no symbols here, so the
// suppression names its module: it covers memory libpq itself allocated, while a leaked libpqxx
// object of kprov's (a connection, a result) is still reported through its own allocation.
// Without a sanitizer nothing calls this function.
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libpq.so.5\n";
}

namespace kprov::stores {
namespace {

using namespace std::chrono_literals;
using engine::Operation;
using engine::OperationState;
using engine::OperationType;
using engine::Runtime;
using kprov::testing::k_t0;
using kprov::testing::migration_names;
using kprov::testing::recorded_names;
using kprov::testing::small_runtime;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

OpenOptions options(SchemaCheck schema, std::string key = k_key) {
    OpenOptions o;
    o.secret_key = std::move(key);
    o.schema = schema;
    o.pool_size = 2;
    return o;
}

// Direct SQL on the test database, beside the store.

std::vector<std::string> recorded_migrations(const std::string& url) {
    std::vector<std::string> out;
    for (const auto& row : sql(url, "SELECT version, name FROM schema_version ORDER BY version"))
        out.push_back(row[0].as<std::string>() + " " + row[1].as<std::string>());
    return out;
}

// --- opening ---------------------------------------------------------------------------------

TEST(PostgresStore, RefusesToOpenWithoutSecretKey) {
    // The key is checked before connecting, so no server is needed.
    for (const std::optional<std::string>& key :
         {std::optional<std::string>(), std::optional<std::string>("")}) {
        OpenOptions o = options(SchemaCheck::None);
        o.secret_key = key;
        try {
            open_store("postgresql://kprov:kprov@127.0.0.1:1/none", o);
            FAIL() << "opened without a key";
        } catch (const ConfigError& e) {
            EXPECT_THAT(e.what(), StartsWith("APP_DATABASE_SECRET_KEY is not set, a PostgreSQL "
                                             "store needs it"));
        }
    }
}

TEST(PostgresStore, ForSchemaWorkItOpensWithoutAKeyAndRefusesEverySecret) {
    KPROV_FRESH_POSTGRES(db);
    OpenOptions keyless = options(SchemaCheck::None);
    keyless.secret_key.reset();
    keyless.secrets = Secrets::Unused;
    auto store = open_store(db->url(), keyless);
    EXPECT_EQ(store->migrate().from_version, 0);
    EXPECT_EQ(store->schema_version(), latest_version("postgres"));

    Runtime r = small_runtime();
    r.administrators = {"admin@example.com"};
    auto keyed = open_store(db->url(), options(SchemaCheck::Require));
    keyed->insert_runtime(r, provisioning(r.id));
    try {
        store->find_runtime(r.id);
        FAIL() << "read a secret without a key";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("APP_DATABASE_SECRET_KEY"));
    }
    Runtime other = small_runtime();
    other.kubeconfig = "apiVersion: v1\nkind: Config\n";
    EXPECT_THROW(store->insert_runtime(other, provisioning(other.id)), ConfigError);
    EXPECT_FALSE(keyed->find_runtime(other.id)) << "nothing is written without its secrets";
}

TEST(PostgresStore, RefusesAKeyOfTheWrongLength) {
    EXPECT_THROW(open_store("postgresql://kprov:kprov@127.0.0.1:1/none",
                            options(SchemaCheck::None, "too-short")),
                 ConfigError);
}

TEST(PostgresStore, UnreachableServerIsStoreErrorWithoutThePassword) {
    try {
        open_store("postgresql://kprov:s3cret-pw@127.0.0.1:1/none?connect_timeout=5",
                   options(SchemaCheck::None));
        FAIL() << "connected to port 1";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("postgresql://kprov:***@127.0.0.1:1/none"));
        EXPECT_THAT(e.what(), Not(HasSubstr("s3cret-pw")));
    }
}

// Issue 18, point 4: a server that accepts and never answers. libpq's default waits for ever;
// kprov's connect_timeout (here the URL's own 2 s, which it keeps) ends the attempt, and the
// error names the host and port.
TEST(PostgresStore, AServerThatNeverAnswersIsAnErrorWithinTheConnectTimeout) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener, 16), 0); // the kernel accepts; nobody ever answers
    socklen_t length = sizeof addr;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &length);
    const int port = ntohs(addr.sin_port);
    const auto start = std::chrono::steady_clock::now();
    try {
        open_store("postgresql://kprov:pw@127.0.0.1:" + std::to_string(port) +
                       "/none?connect_timeout=2",
                   options(SchemaCheck::None));
        FAIL() << "connected to a silent listener";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("127.0.0.1"));
        EXPECT_THAT(e.what(), HasSubstr(std::to_string(port)));
        EXPECT_THAT(e.what(), Not(HasSubstr(":pw@")));
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    ::close(listener);
    // Not a timing assertion of kprov's speed: it did not wait for ever (libpq's default).
    EXPECT_LT(waited, std::chrono::seconds(60));
}

TEST(PostgresStore, SqlErrorsNameTheRedactedUrlOnly) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    sql(db->url(), "DROP TABLE operation_transition");
    try {
        store->transitions_of(engine::new_uuid());
        FAIL() << "read a dropped table";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr(redact_url(db->url())));
        EXPECT_THAT(e.what(), HasSubstr("operation_transition"));
        EXPECT_THAT(e.what(), HasSubstr("SQLSTATE 42P01"));
        EXPECT_THAT(e.what(), Not(HasSubstr(":kprov@")));
    }
}

// --- migrations ------------------------------------------------------------------------------

TEST(PostgresMigrate, EmptyDatabaseGetsTheSchemaAndBothVersions) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::None));
    EXPECT_EQ(store->schema_version(), 0);
    EXPECT_EQ(store->dialect(), "postgres");

    const auto report = store->migrate();
    EXPECT_EQ(report.from_version, 0);
    EXPECT_EQ(report.to_version, latest_version("postgres"));
    EXPECT_THAT(report.applied, ElementsAreArray(migration_names("postgres")));
    EXPECT_EQ(store->schema_version(), latest_version("postgres"));
    EXPECT_THAT(recorded_migrations(db->url()), ElementsAreArray(recorded_names("postgres")));
    // The original's enum got kprov's value, and the one-in-progress index exists.
    EXPECT_EQ(
        sql(db->url(), "SELECT count(*) FROM pg_enum WHERE enumlabel = 'WAKE_UP'")[0][0].as<int>(),
        1);
    EXPECT_EQ(sql(db->url(), "SELECT count(*) FROM pg_indexes "
                             "WHERE indexname = 'operation_one_in_progress'")[0][0]
                  .as<int>(),
              1);
}

TEST(PostgresMigrate, SecondRunIsANoOp) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    const Runtime r = small_runtime();
    store->insert_runtime(r, provisioning(r.id));

    const auto again = store->migrate();
    EXPECT_EQ(again.from_version, latest_version("postgres"));
    EXPECT_EQ(again.to_version, latest_version("postgres"));
    EXPECT_TRUE(again.applied.empty());
    EXPECT_EQ(recorded_migrations(db->url()).size(), migrations_for("postgres").size());
    EXPECT_TRUE(store->find_runtime(r.id));
}

TEST(PostgresMigrate, ConcurrentRunsOnAnEmptyDatabaseApplyOnce) {
    KPROV_FRESH_POSTGRES(db);
    // Two stores, as two `kprov migrate` processes would have: separate connections.
    auto first = open_store(db->url(), options(SchemaCheck::None));
    auto second = open_store(db->url(), options(SchemaCheck::None));
    std::barrier start(2);
    MigrationReport reports[2];
    std::string errors[2];
    auto run = [&](int i, StoreBackend& store) {
        start.arrive_and_wait();
        try {
            reports[i] = store.migrate();
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
    };
    std::thread a(run, 0, std::ref(*first));
    std::thread b(run, 1, std::ref(*second));
    a.join();
    b.join();
    EXPECT_EQ(errors[0], "");
    EXPECT_EQ(errors[1], "");
    EXPECT_EQ(reports[0].applied.size() + reports[1].applied.size(),
              migrations_for("postgres").size());
    EXPECT_TRUE(reports[0].applied.empty() || reports[1].applied.empty());
    EXPECT_EQ(reports[0].to_version, latest_version("postgres"));
    EXPECT_EQ(reports[1].to_version, latest_version("postgres"));
    EXPECT_THAT(recorded_migrations(db->url()), ElementsAreArray(recorded_names("postgres")));
}

TEST(PostgresMigrate, AFailingMigrationChangesNothing) {
    KPROV_FRESH_POSTGRES(db);
    // A table in the way that 0002's CREATE TABLE IF NOT EXISTS skips and its index then trips.
    sql(db->url(), "CREATE TABLE operation_transition (x integer)");
    auto store = open_store(db->url(), options(SchemaCheck::None));
    try {
        store->migrate();
        FAIL() << "migrated over a conflicting table";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("migration 0002_kprov_engine failed"));
        EXPECT_THAT(e.what(), HasSubstr(redact_url(db->url())));
    }
    // 0001 was rolled back with it: no schema_version rows, no cluster table.
    EXPECT_EQ(store->schema_version(), 0);
    EXPECT_EQ(sql(db->url(), "SELECT to_regclass('cluster') IS NULL")[0][0].as<bool>(), true);
}

TEST(PostgresMigrate, NewerSchemaIsRefused) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    sql(db->url(), "INSERT INTO schema_version VALUES (9999, '9999_from_the_future', now())");
    for (auto check : {SchemaCheck::Require, SchemaCheck::Migrate})
        try {
            open_store(db->url(), options(check));
            FAIL() << "opened a schema newer than this build";
        } catch (const StoreError& e) {
            EXPECT_THAT(e.what(), HasSubstr("newer than this kprov knows"));
        }
    EXPECT_THROW(store->migrate(), StoreError);
    EXPECT_EQ(recorded_migrations(db->url()).size(), migrations_for("postgres").size() + 1);
}

TEST(PostgresMigrate, OlderSchemaIsRefusedUnlessMigrating) {
    KPROV_FRESH_POSTGRES(db);
    try {
        open_store(db->url(), options(SchemaCheck::Require));
        FAIL() << "opened an empty database with SchemaCheck::Require";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("run `kprov migrate`"));
    }
    EXPECT_EQ(open_store(db->url(), options(SchemaCheck::Migrate))->schema_version(),
              latest_version("postgres"));
    EXPECT_EQ(open_store(db->url(), options(SchemaCheck::Require))->schema_version(),
              latest_version("postgres"));
}

// --- data ------------------------------------------------------------------------------------

TEST(PostgresStore, SecretsAreCiphertextAtRest) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    Runtime r = small_runtime();
    r.administrators = {"first.admin@example.com", "second.admin@example.com"};
    r.kubeconfig = "apiVersion: v1\nkind: Config\n# token: do-not-leak\n";
    store->insert_runtime(r, provisioning(r.id));

    const auto cluster = sql(db->url(), "SELECT kubeconfig, is_kubeconfig_encrypted FROM cluster "
                                        "WHERE id = '" +
                                            r.id + "'");
    EXPECT_THAT(cluster[0][0].as<std::string>(), StartsWith("v2:"));
    EXPECT_THAT(cluster[0][0].as<std::string>(), Not(HasSubstr("do-not-leak")));
    EXPECT_TRUE(cluster[0][1].as<bool>());
    const auto admins = sql(db->url(), "SELECT user_id, is_user_id_encrypted "
                                       "FROM cluster_administrator WHERE cluster_id = '" +
                                           r.id + "'");
    ASSERT_EQ(admins.size(), 2u);
    for (const auto& row : admins) {
        EXPECT_THAT(row[0].as<std::string>(), StartsWith("v2:"));
        EXPECT_THAT(row[0].as<std::string>(), Not(HasSubstr("example.com")));
        EXPECT_TRUE(row[1].as<bool>());
    }
    const auto got = store->find_runtime(r.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->kubeconfig, r.kubeconfig);
    EXPECT_EQ(got->administrators, r.administrators);

    // Another key reads the rows but not the secrets.
    auto other =
        open_store(db->url(), options(SchemaCheck::Require, "fedcba9876543210fedcba9876543210"));
    EXPECT_THROW(other->find_runtime(r.id), StoreError);
    // A ciphertext copied to another runtime does not decrypt there (the context binds it).
    const Runtime victim = small_runtime();
    store->insert_runtime(victim, provisioning(victim.id));
    sql(db->url(), "UPDATE cluster SET kubeconfig = (SELECT kubeconfig FROM cluster WHERE id = '" +
                       r.id + "'), is_kubeconfig_encrypted = true WHERE id = '" + victim.id + "'");
    EXPECT_THROW(store->find_runtime(victim.id), StoreError);
}

TEST(PostgresStore, ChildRowsReadBackInTheCallersOrder) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    Runtime r = small_runtime();
    for (char c = 'z'; c >= 'a'; c -= 3)
        r.administrators.push_back(std::string(1, c) + "@example.com");
    r.gardener.oidc = engine::OidcConfig{"client", "groups", "https://issuer", {}, "sub", "-"};
    r.gardener.oidc->signing_algs = {"RS512", "ES256", "RS256", "PS384", "ES512", "EdDSA"};
    r.gardener.dns = engine::DnsConfig{"d.example.com", {}};
    for (int i = 9; i >= 0; --i)
        r.gardener.dns->providers.push_back(
            engine::DnsProvider{{"p" + std::to_string(i) + ".example.com"}, i == 9, "s", "t"});
    store->insert_runtime(r, provisioning(r.id));
    const auto got = store->find_runtime(r.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->administrators, r.administrators);
    EXPECT_EQ(got->gardener.oidc, r.gardener.oidc);
    EXPECT_EQ(got->gardener.dns, r.gardener.dns);
}

TEST(PostgresStore, IdsThatAreNotUuidsAreAbsent) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    EXPECT_FALSE(store->find_runtime("not-a-uuid"));
    EXPECT_FALSE(store->find_operation("42"));
    EXPECT_FALSE(store->last_operation("x"));
    EXPECT_TRUE(store->operations_of("x").empty());
    EXPECT_TRUE(store->transitions_of("x").empty());
    EXPECT_FALSE(store->claim("x", "w", k_t0, 30s));
    EXPECT_FALSE(store->renew("x", "w", k_t0, 30s));
    EXPECT_EQ(store->make_due({"x", "y"}, k_t0), 0);
    EXPECT_THROW(store->set_tenant("x", "t", std::nullopt), NotFound);
    EXPECT_THROW(store->insert_operation(provisioning("x")), NotFound);
}

TEST(PostgresStore, LabelsReadBackAsWritten) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    Runtime r = small_runtime();
    r.labels_json = R"({"a":{"b":[1,2]},"env":"dev"})"; // what nlohmann::json::dump() writes
    store->insert_runtime(r, provisioning(r.id));
    const auto got = store->find_runtime(r.id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->labels_json, r.labels_json);
}

TEST(PostgresStore, TheRequestJsonColumnOfEarlierVersionsIsNeitherWrittenNorRead) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    const Runtime r = small_runtime();
    store->insert_runtime(r, provisioning(r.id));
    pqxx::connection c{db->url()};
    pqxx::work tx{c};
    EXPECT_TRUE(
        tx.exec1("SELECT kyma_config FROM cluster WHERE id = " + tx.quote(r.id))[0].is_null());
    // What an earlier kprov left there shows nowhere: the Kyma config is active_kyma_config_id's.
    tx.exec0("UPDATE cluster SET kyma_config = '{\"version\": \"1.0\"}'");
    tx.commit();
    EXPECT_FALSE(store->find_runtime(r.id)->kyma);
}

// --- concurrency and connections ---------------------------------------------------------------

TEST(PostgresStore, ClaimDueSkipsRowsLockedByOthersWithoutWaiting) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    std::vector<std::string> ops;
    for (int i = 0; i < 3; ++i) {
        const Runtime r = small_runtime();
        const Operation op = provisioning(r.id);
        store->insert_runtime(r, op);
        ops.push_back(op.id);
    }
    // Another session holds a row lock on the first operation (as a claim in flight would).
    pqxx::connection other{db->url()};
    pqxx::work locker{other};
    locker.exec("SELECT 1 FROM operation WHERE id = '" + ops[0] + "' FOR UPDATE");

    const auto before = std::chrono::steady_clock::now();
    const auto claimed = store->claim_due("w1", k_t0 + 1s, 30s, 10);
    EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
    std::set<std::string> ids;
    for (const auto& op : claimed)
        ids.insert(op.id);
    EXPECT_EQ(ids, (std::set<std::string>{ops[1], ops[2]}));
    locker.abort();

    const auto rest = store->claim_due("w2", k_t0 + 1s, 30s, 10);
    ASSERT_EQ(rest.size(), 1u);
    EXPECT_EQ(rest[0].id, ops[0]);
}

TEST(PostgresStore, ConcurrentClaimDueFromTwoStoresNeverSharesAnOperation) {
    KPROV_FRESH_POSTGRES(db);
    auto first = open_store(db->url(), options(SchemaCheck::Migrate));
    auto second = open_store(db->url(), options(SchemaCheck::Require));
    constexpr int k_ops = 60;
    for (int i = 0; i < k_ops; ++i) {
        const Runtime r = small_runtime();
        first->insert_runtime(r, provisioning(r.id));
    }
    std::mutex mu;
    std::multiset<std::string> claimed;
    std::barrier start(2);
    auto work = [&](engine::Store& store, const std::string& owner) {
        start.arrive_and_wait();
        for (int round = 0; round < 40; ++round)
            for (const auto& op : store.claim_due(owner, k_t0 + 1s, 10min, 2)) {
                std::lock_guard lock(mu);
                claimed.insert(op.id);
            }
    };
    std::thread a(work, std::ref(*first), "a");
    std::thread b(work, std::ref(*second), "b");
    a.join();
    b.join();
    EXPECT_EQ(claimed.size(), static_cast<std::size_t>(k_ops));
    for (const auto& id : claimed)
        EXPECT_EQ(claimed.count(id), 1u) << id << " was claimed twice";
}

TEST(PostgresStore, ReplacesConnectionsTheServerClosedWhileIdle) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    const Runtime r = small_runtime();
    store->insert_runtime(r, provisioning(r.id));

    // As after a server restart or a failover: every idle pooled connection is gone. The pool
    // notices at checkout (or, if the goodbye is still in flight, when BEGIN fails) and reconnects.
    const auto killed =
        sql(db->url(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND "
                       "application_name = 'kprov' AND pid <> pg_backend_pid()");
    ASSERT_GE(killed[0][0].as<int>(), 1);

    EXPECT_TRUE(store->find_runtime(r.id));
    const Runtime after = small_runtime();
    store->insert_runtime(after, provisioning(after.id)); // a write, after a reconnect
    EXPECT_TRUE(store->find_runtime(after.id));
}

// The pid of the store's session that waits for a row lock, other than `not_this`; 0 if none
// does within a few seconds.
int waiting_store_backend(const std::string& url, int not_this = 0) {
    for (int i = 0; i < 250; ++i) {
        const auto r = sql(url, "SELECT pid FROM pg_stat_activity WHERE datname = "
                                "current_database() AND application_name = 'kprov' AND "
                                "wait_event_type = 'Lock' AND pid <> " +
                                    std::to_string(not_this));
        if (!r.empty())
            return r[0][0].as<int>();
        std::this_thread::sleep_for(20ms);
    }
    return 0;
}

TEST(PostgresStore, RetriesACallWhoseConnectionBrokeBeforeCommitting) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate));
    const Runtime r = small_runtime();
    const Operation op = provisioning(r.id);
    store->insert_runtime(r, op);

    // Hold the operation's row so that the store's claim waits inside its transaction...
    pqxx::connection holder{db->url()};
    pqxx::work held{holder};
    held.exec("SELECT 1 FROM operation WHERE id = '" + op.id + "' FOR UPDATE");
    std::optional<Operation> claimed;
    std::string error;
    std::thread worker([&] {
        try {
            claimed = store->claim(op.id, "w1", k_t0, 30s);
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    // ...then kill its session mid-statement: the store reconnects and runs the claim again.
    const int first = waiting_store_backend(db->url());
    ASSERT_NE(first, 0);
    sql(db->url(), "SELECT pg_terminate_backend(" + std::to_string(first) + ")");
    const int second = waiting_store_backend(db->url(), first);
    held.abort();
    worker.join();
    EXPECT_NE(second, 0) << "the claim was not retried on a new connection";
    EXPECT_EQ(error, "");
    ASSERT_TRUE(claimed);
    EXPECT_EQ(claimed->lease->owner, "w1");
    EXPECT_EQ(claimed->attempts, 1); // the broken attempt wrote nothing
}

TEST(PostgresStore, ManyThreadsShareASmallPool) {
    KPROV_FRESH_POSTGRES(db);
    auto store = open_store(db->url(), options(SchemaCheck::Migrate)); // pool_size 2
    std::atomic<int> inserted{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 5; ++i) {
                const Runtime r = small_runtime();
                store->insert_runtime(r, provisioning(r.id));
                if (store->find_runtime(r.id))
                    ++inserted;
            }
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(inserted.load(), 30);
    EXPECT_LE(sql(db->url(), "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                             "current_database() AND application_name = 'kprov'")[0][0]
                  .as<int>(),
              2);
}

} // namespace
} // namespace kprov::stores
