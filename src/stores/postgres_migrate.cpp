// The PostgreSQL store: schema migrations (schemas/sql/postgres/NNNN_name.sql, embedded).

#include "engine/error.hpp"
#include "stores/migrations.hpp"
#include "stores/postgres_store.hpp"
#include "stores/store_common.hpp"

namespace kprov::stores::pg {
namespace {

// The key of the transaction-level advisory lock that serializes `kprov migrate` runs across
// processes: "kprovmig" in ASCII. Any fixed value works as long as every kprov uses the same.
constexpr long long k_migration_lock = 0x6b70726f766d6967;
constexpr int k_migration_lock_wait_ms = 5 * 60 * 1000;

} // namespace

MigrationReport PostgresStore::migrate() {
    const auto migrations = migrations_for("postgres");
    const int known = migrations.empty() ? 0 : migrations.back().version;
    return m_pool.run([&](pqxx::connection& c) {
        // One transaction: either every pending file is applied and recorded, or none is. A
        // second process blocks on the lock and then finds nothing left to do.
        pqxx::work tx(c);
        // Another migration may take a while on a large database: wait for it longer than for
        // an ordinary lock, but not for the tables' locks (a live original provisioner would
        // queue behind our DDL).
        tx.exec("SET LOCAL lock_timeout = '" + std::to_string(k_migration_lock_wait_ms) + "'");
        tx.exec("SELECT pg_advisory_xact_lock(" + std::to_string(k_migration_lock) + ")");
        tx.exec("SET LOCAL lock_timeout = '" + std::to_string(k_busy_timeout_ms) + "'");
        tx.exec("CREATE TABLE IF NOT EXISTS schema_version ("
                "version integer PRIMARY KEY, "
                "name text NOT NULL, "
                "applied_at timestamp without time zone NOT NULL)");
        MigrationReport report;
        report.from_version =
            tx.exec1("SELECT coalesce(max(version), 0) FROM schema_version")[0].as<int>();
        report.to_version = report.from_version;
        if (report.from_version > known)
            throw StoreError("the schema of " + m_pool.redacted_url() + " is at version " +
                             std::to_string(report.from_version) +
                             ", newer than this kprov knows (" + std::to_string(known) +
                             "); upgrade kprov");
        for (const auto& m : migrations) {
            if (m.version <= report.from_version)
                continue;
            try {
                tx.exec(std::string(m.sql));
            } catch (const pqxx::sql_error& e) {
                throw StoreError("PostgreSQL store " + m_pool.redacted_url() + ": migration " +
                                 m.name + " failed, nothing was changed: " + m_pool.describe(e));
            }
            exec(tx,
                 "INSERT INTO schema_version (version, name, applied_at) "
                 "VALUES ($1, $2, now() AT TIME ZONE 'UTC')",
                 {std::to_string(m.version), m.name});
            report.applied.push_back(m.name);
            report.to_version = m.version;
        }
        tx.commit();
        return report;
    });
}

int PostgresStore::schema_version() {
    return m_pool.run([&](pqxx::connection& c) {
        pqxx::read_transaction tx(c);
        int version = 0;
        if (!tx.exec1("SELECT to_regclass('schema_version') IS NULL")[0].as<bool>())
            version = tx.exec1("SELECT coalesce(max(version), 0) FROM schema_version")[0].as<int>();
        tx.commit();
        return version;
    });
}

} // namespace kprov::stores::pg
