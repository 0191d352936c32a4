// The SQLite store: connection, schema migrations and reads. Writes and leases are in
// sqlite_store_writes.cpp.

#include "stores/sqlite_store.hpp"

#include "engine/error.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <mutex>
#include <sqlite3.h>

namespace kprov::stores::sqlite {

using engine::Operation;

// --- statements ------------------------------------------------------------------------------

namespace {

// Each runtime's (alias c) last operation as o: the latest start, the latest row among equal
// starts, the first entry of operation_cluster_start read backwards (migration 0005).
constexpr std::string_view k_join_last_operation =
    " LEFT JOIN operation o ON o.rowid = (SELECT rowid FROM operation"
    " WHERE cluster_id = c.id ORDER BY start_timestamp DESC, rowid DESC LIMIT 1)";

// runtime_version.version (migration 0006) at `column`; nullopt when NULL (no such runtime).
std::optional<std::uint64_t> version_at(const RowView& row, int column) {
    if (row.is_null(column))
        return std::nullopt;
    return static_cast<std::uint64_t>(row.integer(column));
}

void bind_value(SQLite::Statement& statement, int index, const DbValue& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>)
                statement.bind(index);
            else if constexpr (std::is_same_v<T, std::string>)
                statement.bind(index, v);
            else if constexpr (std::is_same_v<T, bool>)
                statement.bind(index, v ? 1 : 0);
            else
                statement.bind(index, static_cast<int64_t>(v));
        },
        value);
}

} // namespace

SQLite::Statement prepare(SQLite::Database& db, const std::string& sql,
                          const std::vector<DbValue>& params) {
    SQLite::Statement statement(db, sql);
    for (std::size_t i = 0; i < params.size(); ++i)
        bind_value(statement, static_cast<int>(i + 1), params[i]);
    return statement;
}

std::string assignments(const std::vector<ColumnValue>& values) {
    std::string out;
    for (const auto& v : values) {
        out += out.empty() ? "" : ", ";
        out += std::string(v.column) + " = ?";
    }
    return out;
}

std::vector<DbValue> parameters(const std::vector<ColumnValue>& columns,
                                std::vector<DbValue> more) {
    std::vector<DbValue> out;
    out.reserve(columns.size() + more.size());
    for (const auto& c : columns)
        out.push_back(c.value);
    for (auto& m : more)
        out.push_back(std::move(m));
    return out;
}

// --- opening ---------------------------------------------------------------------------------

namespace {

// Process-wide settings, which SQLite takes only before its first use. Memory statistics
// (sqlite3_status) are on by default and put one global mutex around every allocation SQLite
// makes: with one connection per thread, the threads of kprov serve queued on it for every
// column they read. kprov reads no memory statistics.
void configure_sqlite_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        // SQLITE_MISUSE when something in this process used SQLite first: statistics stay on,
        // which costs speed only.
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    });
}

} // namespace

SqliteStore::SqliteStore(std::string path, SecretCipher cipher)
    : m_path(std::move(path))
    , m_cipher(std::move(cipher)) {
    configure_sqlite_once();
    try {
        m_db = std::make_unique<SQLite::Database>(
            // No mutex of SQLite's own: m_mutex already serializes every use of the
            // connection, and SQLite's would be taken on every call (every column read).
            m_path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX,
            k_busy_timeout_ms);
        // WAL lets readers (kprov status) run beside a writer (kprov watch); NORMAL is durable
        // in WAL mode except for the last commits on power loss, never corrupting.
        m_db->exec("PRAGMA journal_mode = WAL");
        m_db->exec("PRAGMA synchronous = NORMAL");
        m_db->exec("PRAGMA foreign_keys = ON");
        // Reads through the OS page cache, without a pread() per page the connection's own
        // cache (2 MB) misses.
        m_db->exec("PRAGMA mmap_size = 268435456");
    } catch (const SQLite::Exception& e) {
        fail(e);
    }
}

void SqliteStore::fail(const SQLite::Exception& e) const {
    throw StoreError("sqlite " + m_path + ": " + e.what());
}

// --- schema ----------------------------------------------------------------------------------

namespace {

int recorded_version(SQLite::Database& db) {
    auto exists = prepare(
        db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
    exists.executeStep();
    if (exists.getColumn(0).getInt() == 0)
        return 0;
    auto max = prepare(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    max.executeStep();
    return max.getColumn(0).getInt();
}

// Restores foreign key enforcement however migrate() leaves.
class ForeignKeysOff {
public:
    explicit ForeignKeysOff(SQLite::Database& db)
        : m_db(db) {
        m_db.exec("PRAGMA foreign_keys = OFF");
    }
    ~ForeignKeysOff() { m_db.tryExec("PRAGMA foreign_keys = ON"); }
    ForeignKeysOff(const ForeignKeysOff&) = delete;
    ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

private:
    SQLite::Database& m_db;
};

} // namespace

MigrationReport SqliteStore::migrate() {
    const auto migrations = migrations_for("sqlite");
    const int latest = migrations.empty() ? 0 : migrations.back().version;
    return locked([&] {
        // Table rebuilds (0002 recreates `operation`) need foreign keys off, and the pragma is a
        // no-op inside a transaction; integrity is checked before the commit instead.
        ForeignKeysOff fk_off(*m_db);
        SQLite::Transaction tx(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        m_db->exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                   "name TEXT NOT NULL, applied_at TEXT NOT NULL)");
        MigrationReport report;
        report.from_version = recorded_version(*m_db);
        report.to_version = report.from_version;
        if (report.from_version > latest)
            throw StoreError("the schema of " + redacted_url() + " is at version " +
                             std::to_string(report.from_version) +
                             ", newer than this kprov knows (" + std::to_string(latest) +
                             "); upgrade kprov");
        for (const auto& m : migrations) {
            if (m.version <= report.from_version)
                continue;
            try {
                m_db->exec(std::string(m.sql));
            } catch (const SQLite::Exception& e) {
                throw StoreError("sqlite " + m_path + ": migration " + m.name +
                                 " failed: " + e.what());
            }
            cached("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                   {std::int64_t{m.version}, m.name, format_db_time(SystemClock().now())})
                .exec();
            report.applied.push_back(m.name);
            report.to_version = m.version;
        }
        auto check = cached("PRAGMA foreign_key_check");
        if (check.executeStep())
            throw StoreError("sqlite " + m_path + ": migration left a row of table " +
                             check.getColumn(0).getString() +
                             " whose foreign key points nowhere; nothing was applied");
        tx.commit();
        return report;
    });
}

void SqliteStore::insert_row(const std::string& table, const std::vector<ColumnValue>& values) {
    std::string columns, marks;
    for (const auto& v : values) {
        columns += columns.empty() ? "" : ", ";
        columns += v.column;
        marks += marks.empty() ? "?" : ", ?";
    }
    cached("INSERT INTO " + table + " (" + columns + ") VALUES (" + marks + ")", parameters(values))
        .exec();
}

CachedStatement SqliteStore::cached(const std::string& sql, const std::vector<DbValue>& params) {
    const auto bind = [&params](SQLite::Statement& statement) {
        for (std::size_t i = 0; i < params.size(); ++i)
            bind_value(statement, static_cast<int>(i + 1), params[i]);
    };
    Prepared& slot = m_statements[sql];
    if (slot.in_use) { // the same SQL nested: a statement of its own
        auto own = std::make_unique<SQLite::Statement>(*m_db, sql);
        bind(*own);
        return CachedStatement(std::move(own));
    }
    if (!slot.statement)
        slot.statement = std::make_unique<SQLite::Statement>(*m_db, sql);
    else
        slot.statement->clearBindings();
    bind(*slot.statement);
    return CachedStatement(*slot.statement, &slot.in_use);
}

int SqliteStore::schema_version() {
    return locked([&] { return recorded_version(*m_db); });
}

// --- reads -----------------------------------------------------------------------------------

std::vector<Operation> SqliteStore::select_operations(const std::string& where_and_order,
                                                      const std::vector<DbValue>& params) {
    auto st =
        cached("SELECT " + std::string(k_operation_columns) + " FROM operation " + where_and_order,
               params);
    std::vector<Operation> out;
    while (st.executeStep())
        out.push_back(read_operation(SqliteRow(st)));
    return out;
}

void SqliteStore::read_gardener_children(engine::GardenerConfig& g) {
    auto oidc = cached("SELECT id, " + std::string(k_oidc_columns) +
                           " FROM oidc_config WHERE gardener_config_id = ? ORDER BY rowid LIMIT 1",
                       {g.id});
    if (oidc.executeStep()) {
        engine::OidcConfig o = read_oidc_config(SqliteRow(oidc), 1);
        auto algs = cached("SELECT algorithm FROM signing_algorithms WHERE oidc_config_id = ? "
                           "ORDER BY rowid",
                           {oidc.getColumn(0).getString()});
        while (algs.executeStep())
            o.signing_algs.push_back(algs.getColumn(0).getString());
        g.oidc = std::move(o);
    }
    auto dns = cached("SELECT id, domain FROM dns_config WHERE gardener_config_id = ? "
                      "ORDER BY rowid LIMIT 1",
                      {g.id});
    if (dns.executeStep()) {
        engine::DnsConfig d{dns.getColumn(1).getString(), {}};
        auto providers = cached("SELECT " + std::string(k_dns_provider_columns) +
                                    " FROM dns_providers WHERE dns_config_id = ? ORDER BY rowid",
                                {dns.getColumn(0).getString()});
        while (providers.executeStep())
            d.providers.push_back(read_dns_provider(SqliteRow(providers)));
        g.dns = std::move(d);
    }
}

std::optional<engine::Runtime> SqliteStore::find_runtime(const std::string& runtime_id) {
    return read([&]() -> std::optional<engine::Runtime> {
        auto st = cached("SELECT " + qualified(k_cluster_columns, "c") + ", " +
                             qualified(k_gardener_columns, "g") +
                             " FROM cluster c LEFT JOIN gardener_config g ON g.cluster_id = c.id"
                             " WHERE c.id = ?",
                         {runtime_id});
        if (!st.executeStep())
            return std::nullopt;
        const SqliteRow row(st);
        engine::Runtime r = read_cluster(row, m_cipher);
        const auto active_kyma = row.optional_text(k_cluster_active_kyma_column);
        if (!row.is_null(k_cluster_column_count)) {
            r.gardener = read_gardener_config(row, k_cluster_column_count);
            read_gardener_children(r.gardener);
        }
        if (active_kyma)
            r.kyma = read_kyma(*active_kyma, true);
        auto admins = cached("SELECT user_id, is_user_id_encrypted FROM cluster_administrator "
                             "WHERE cluster_id = ? ORDER BY rowid",
                             {runtime_id});
        while (admins.executeStep()) {
            const SqliteRow admin(admins);
            r.administrators.push_back(read_secret(m_cipher, admin.text(0),
                                                   admin.boolean_or_false(1),
                                                   administrator_context(runtime_id)));
        }
        return r;
    });
}

std::optional<Operation> SqliteStore::find_operation(const std::string& operation_id) {
    return locked([&]() -> std::optional<Operation> {
        auto ops = select_operations("WHERE id = ?", {operation_id});
        if (ops.empty())
            return std::nullopt;
        return std::move(ops.front());
    });
}

std::optional<std::string> SqliteStore::live_runtime_with_shoot(const std::string& project,
                                                                const std::string& shoot_name) {
    return locked([&]() -> std::optional<std::string> {
        auto q =
            cached("SELECT cluster_id FROM live_shoot WHERE project_name = ? AND shoot_name = ?",
                   {project, shoot_name});
        if (!q.executeStep())
            return std::nullopt;
        return q.getColumn(0).getString();
    });
}

std::optional<Operation> SqliteStore::last_operation(const std::string& runtime_id) {
    return locked([&]() -> std::optional<Operation> {
        auto ops = select_operations(
            "WHERE cluster_id = ? ORDER BY start_timestamp DESC, rowid DESC LIMIT 1", {runtime_id});
        if (ops.empty())
            return std::nullopt;
        return std::move(ops.front());
    });
}

std::vector<Operation> SqliteStore::operations_of(const std::string& runtime_id) {
    return locked([&] {
        return select_operations("WHERE cluster_id = ? ORDER BY start_timestamp DESC, rowid DESC",
                                 {runtime_id});
    });
}

std::vector<engine::StageTransition> SqliteStore::transitions_of(const std::string& operation_id) {
    return locked([&] {
        auto st = cached("SELECT " + std::string(k_transition_columns) +
                             " FROM operation_transition WHERE operation_id = ? ORDER BY id",
                         {operation_id});
        std::vector<engine::StageTransition> out;
        while (st.executeStep())
            out.push_back(read_transition(SqliteRow(st)));
        return out;
    });
}

std::vector<engine::RuntimeSummary>
SqliteStore::list_runtimes(const engine::RuntimeFilter& filter) {
    // One query: each runtime's last operation comes from a correlated subquery served by the
    // operation_cluster_start index, not from one query per runtime.
    const std::string sql =
        "SELECT " + std::string(k_summary_columns) + ", " + qualified(k_operation_columns, "o") +
        " FROM cluster c"
        " LEFT JOIN gardener_config g ON g.cluster_id = c.id" +
        std::string(k_join_last_operation) +
        " WHERE (?1 OR COALESCE(c.deleted, 0) = 0) AND (?2 IS NULL OR o.state = ?2)"
        " ORDER BY c.creation_timestamp DESC, c.rowid DESC";
    const DbValue state = filter.state ? DbValue(std::string(to_db(*filter.state))) : DbValue();
    return locked([&] {
        auto st = cached(sql, {filter.include_deleted, state});
        std::vector<engine::RuntimeSummary> out;
        while (st.executeStep())
            out.push_back(read_summary(SqliteRow(st)));
        return out;
    });
}

std::vector<engine::RuntimeSummary> SqliteStore::query_runtimes(const engine::RuntimeQuery& query) {
    // list_runtimes' query with the labels in front; the cluster_creation index serves the
    // order, so the scan stops at the limit. Labels are matched here, while stepping, so a
    // label filter also stops as soon as it has enough.
    const std::string sql =
        "SELECT c.labels, " + std::string(k_summary_columns) + ", " +
        qualified(k_operation_columns, "o") +
        " FROM cluster c"
        " LEFT JOIN gardener_config g ON g.cluster_id = c.id" +
        std::string(k_join_last_operation) +
        " WHERE (?1 OR COALESCE(c.deleted, 0) = 0) AND (?2 IS NULL OR o.state = ?2)"
        "   AND (?4 IS NULL OR instr(c.labels, ?4) > 0)"
        " ORDER BY c.creation_timestamp DESC, c.rowid DESC LIMIT ?3";
    const auto& filter = query.filter;
    // A cheap necessary condition, so that SQLite skips most rows before their last operation is
    // looked up: a value of printable ASCII without '"', '\\' and '/' appears as is in any JSON
    // text of the labels (other characters may be written escaped).
    DbValue contains;
    if (!query.labels.empty()) {
        const std::string& value = query.labels.front().second;
        if (!value.empty() && std::none_of(value.begin(), value.end(), [](unsigned char c) {
                return c == '"' || c == '\\' || c == '/' || c < 0x20 || c > 0x7e;
            }))
            contains = value;
    }
    const DbValue state = filter.state ? DbValue(std::string(to_db(*filter.state))) : DbValue();
    const std::int64_t sql_limit =
        query.labels.empty() && query.limit > 0 ? static_cast<std::int64_t>(query.limit) : -1;
    return locked([&] {
        auto st = cached(sql, {filter.include_deleted, state, sql_limit, contains});
        std::vector<engine::RuntimeSummary> out;
        while ((query.limit == 0 || out.size() < query.limit) && st.executeStep()) {
            const SqliteRow row(st);
            std::string labels = row.text_or_empty(0);
            if (!engine::labels_match(labels, query.labels))
                continue;
            out.push_back(read_summary(row, 1));
            out.back().labels_json = std::move(labels);
        }
        return out;
    });
}

namespace {

// Ids in [prefix, prefix + 0xFF): a range the primary key's index answers.
std::vector<std::string> ids_with_prefix(SQLite::Database& db, const std::string& table,
                                         const std::string& prefix, std::size_t limit) {
    auto st =
        prepare(db, "SELECT id FROM " + table + " WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
                {prefix, prefix + '\xff', static_cast<std::int64_t>(limit)});
    std::vector<std::string> out;
    while (st.executeStep())
        out.push_back(st.getColumn(0).getString());
    return out;
}

} // namespace

std::optional<std::string> SqliteStore::tenant_of(const std::string& runtime_id) {
    return locked([&]() -> std::optional<std::string> {
        auto st = cached("SELECT tenant FROM cluster WHERE id = ?", {runtime_id});
        if (!st.executeStep())
            return std::nullopt;
        return st.getColumn(0).getString();
    });
}

std::optional<engine::OperationWithTenant>
SqliteStore::find_operation_with_tenant(const std::string& operation_id) {
    static const std::string sql = "SELECT " + qualified(k_operation_columns, "o") +
                                   ", c.tenant, v.version FROM operation o"
                                   " LEFT JOIN cluster c ON c.id = o.cluster_id"
                                   " LEFT JOIN runtime_version v ON v.cluster_id = o.cluster_id"
                                   " WHERE o.id = ?";
    return locked([&]() -> std::optional<engine::OperationWithTenant> {
        auto st = cached(sql, {operation_id});
        if (!st.executeStep())
            return std::nullopt;
        const SqliteRow row(st);
        return engine::OperationWithTenant{read_operation(row),
                                           row.optional_text(k_operation_column_count),
                                           version_at(row, k_operation_column_count + 1)};
    });
}

std::optional<engine::RuntimeWithLastOperation>
SqliteStore::find_runtime_status(const std::string& runtime_id) {
    // One statement for the cluster, its gardener config and its last operation; the OIDC and
    // DNS children only when there are some, the Kyma config when there is one. No BEGIN/COMMIT:
    // while the first statement has not been reset, SQLite keeps its read transaction, so the
    // children see the same snapshot. The kubeconfig is not selected, so not decrypted.
    static const std::string sql =
        "SELECT " + cluster_columns_without_kubeconfig("c") + ", " +
        qualified(k_gardener_columns, "g") + ", " + qualified(k_operation_columns, "o") +
        ", EXISTS (SELECT 1 FROM oidc_config WHERE gardener_config_id = g.id)"
        " OR EXISTS (SELECT 1 FROM dns_config WHERE gardener_config_id = g.id)"
        ", (SELECT version FROM runtime_version WHERE cluster_id = c.id)"
        " FROM cluster c LEFT JOIN gardener_config g ON g.cluster_id = c.id" +
        std::string(k_join_last_operation) + " WHERE c.id = ?";
    return locked([&]() -> std::optional<engine::RuntimeWithLastOperation> {
        auto st = cached(sql, {runtime_id});
        if (!st.executeStep())
            return std::nullopt;
        const SqliteRow row(st);
        const int operation = k_cluster_column_count + k_gardener_column_count;
        engine::RuntimeWithLastOperation out{
            read_cluster(row, m_cipher), std::nullopt,
            version_at(row, operation + k_operation_column_count + 1)};
        if (!row.is_null(operation))
            out.last = read_operation(row, operation);
        if (!row.is_null(k_cluster_column_count)) {
            out.runtime.gardener = read_gardener_config(row, k_cluster_column_count);
            if (row.boolean(operation + k_operation_column_count))
                read_gardener_children(out.runtime.gardener);
        }
        // The release's id and version only: this path serves the API at high rates.
        if (const auto active_kyma = row.optional_text(k_cluster_active_kyma_column))
            out.runtime.kyma = read_kyma(*active_kyma, false);
        return out;
    });
}

std::vector<std::string> SqliteStore::runtime_ids_with_prefix(const std::string& prefix,
                                                              std::size_t limit) {
    return locked([&] { return ids_with_prefix(*m_db, "cluster", prefix, limit); });
}

std::vector<std::string> SqliteStore::operation_ids_with_prefix(const std::string& prefix,
                                                                std::size_t limit) {
    return locked([&] { return ids_with_prefix(*m_db, "operation", prefix, limit); });
}

std::vector<std::string> SqliteStore::runtime_ids_named(const std::string& name,
                                                        std::size_t limit) {
    return locked([&] {
        auto st = prepare(*m_db,
                          "SELECT id FROM cluster WHERE runtime_name = ?1 OR id IN "
                          "(SELECT cluster_id FROM gardener_config WHERE name = ?1) "
                          "ORDER BY COALESCE(deleted, 0), creation_timestamp DESC, id LIMIT ?2",
                          {name, static_cast<std::int64_t>(limit)});
        std::vector<std::string> out;
        while (st.executeStep())
            out.push_back(st.getColumn(0).getString());
        return out;
    });
}

std::map<engine::OperationType, int> SqliteStore::count_in_progress() {
    return locked([&] {
        auto st = cached("SELECT type, COUNT(*) FROM operation "
                         "WHERE state = 'IN_PROGRESS' GROUP BY type");
        std::map<engine::OperationType, int> out;
        while (st.executeStep()) {
            const std::string type = st.getColumn(0).getString();
            const auto parsed = engine::operation_type_from_db(type);
            if (!parsed)
                throw StoreError("sqlite " + m_path + ": the stored operation type \"" + type +
                                 "\" is unknown to this kprov");
            out[*parsed] = st.getColumn(1).getInt();
        }
        return out;
    });
}

std::optional<std::uint64_t> SqliteStore::runtime_version(const std::string& runtime_id) {
    return locked([&]() -> std::optional<std::uint64_t> {
        auto st = cached("SELECT version FROM runtime_version WHERE cluster_id = ?", {runtime_id});
        if (!st.executeStep())
            return std::nullopt;
        return version_at(SqliteRow(st), 0);
    });
}

std::optional<std::uint64_t> SqliteStore::change_counter() {
    // PRAGMA data_version moves when another connection or process commits (it starts a read
    // transaction, so it sees every commit made before it); this connection's own writes move
    // total_changes instead. Both only grow, so their sum does.
    return locked([&]() -> std::optional<std::uint64_t> {
        auto st = cached("PRAGMA data_version");
        st.executeStep();
        const auto others = static_cast<std::uint64_t>(st.getColumn(0).getInt64());
        return others + static_cast<std::uint64_t>(sqlite3_total_changes64(m_db->getHandle()));
    });
}

std::optional<Timestamp> SqliteStore::next_due() {
    return locked([&] {
        auto st = cached("SELECT MIN(next_run_at) FROM operation "
                         "WHERE state = 'IN_PROGRESS'");
        st.executeStep();
        return SqliteRow(st).optional_time(0, "operation.next_run_at");
    });
}

} // namespace kprov::stores::sqlite
