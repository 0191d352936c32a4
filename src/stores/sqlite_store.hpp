#pragma once
// The SQLite store, internal to stores/ (open it with open_store("sqlite://...")).
//
// Concurrency: one connection per SqliteStore, used under a mutex, so a store is thread-safe.
// Every write runs in a BEGIN IMMEDIATE transaction, which takes the database's write lock
// before reading anything; other processes on the same file (kprov watch beside kprov
// provision) therefore serialize with it, waiting up to k_busy_timeout_ms. Multi-statement
// reads run in a deferred transaction, so they see one snapshot (WAL lets them run beside a
// writer).

#include "stores/cipher.hpp"
#include "stores/open_store.hpp"
#include "stores/row_mapping.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kprov::stores::sqlite {

class CachedStatement;

class SqliteStore final : public StoreBackend {
public:
    /// Opens (creating if needed) the database file; throws StoreError if it cannot.
    SqliteStore(std::string path, SecretCipher cipher);

    // engine::Store
    void insert_runtime(const engine::Runtime& runtime, const engine::Operation& first,
                        const engine::NewRuntimeLifecycle* lifecycle = nullptr) override;
    void insert_operation(const engine::Operation& op,
                          const engine::RuntimeUpgrade* upgrade = nullptr) override;
    std::optional<std::string> live_runtime_with_shoot(const std::string& project,
                                                       const std::string& shoot_name) override;
    void set_tenant(const std::string& runtime_id, const std::string& tenant,
                    const std::optional<engine::StageTransition>& note) override;
    std::optional<engine::KymaRelease> find_kyma_release(const std::string& version) override;
    engine::KymaRelease insert_kyma_release(const engine::KymaRelease& release) override;
    void insert_kyma_upgrade(const engine::Operation& op, const engine::KymaConfig& config,
                             const engine::RuntimeUpgradeRecord& record) override;
    std::optional<engine::RuntimeUpgradeRecord>
    find_runtime_upgrade(const std::string& operation_id) override;
    void roll_back_upgrade(const std::string& runtime_id, const std::string& operation_id) override;
    std::optional<engine::Runtime> find_runtime(const std::string& runtime_id) override;
    std::optional<engine::Operation> find_operation(const std::string& operation_id) override;
    std::optional<engine::Operation> last_operation(const std::string& runtime_id) override;
    std::vector<engine::Operation> operations_of(const std::string& runtime_id) override;
    std::vector<engine::StageTransition> transitions_of(const std::string& operation_id) override;
    std::vector<engine::RuntimeSummary> list_runtimes(const engine::RuntimeFilter& filter) override;
    std::vector<engine::RuntimeSummary> query_runtimes(const engine::RuntimeQuery& query) override;
    std::optional<std::string> tenant_of(const std::string& runtime_id) override;
    std::optional<engine::OperationWithTenant>
    find_operation_with_tenant(const std::string& operation_id) override;
    std::optional<engine::RuntimeWithLastOperation>
    find_runtime_status(const std::string& runtime_id) override;
    std::vector<std::string> runtime_ids_with_prefix(const std::string& prefix,
                                                     std::size_t limit) override;
    std::vector<std::string> operation_ids_with_prefix(const std::string& prefix,
                                                       std::size_t limit) override;
    std::vector<std::string> runtime_ids_named(const std::string& name, std::size_t limit) override;
    std::map<engine::OperationType, int> count_in_progress() override;
    std::optional<std::uint64_t> change_counter() override;
    std::optional<std::uint64_t> runtime_version(const std::string& runtime_id) override;
    engine::RuntimeLifecycle lifecycle_of(const std::string& runtime_id) override;
    bool change_lifecycle(const std::string& runtime_id,
                          const std::function<bool(engine::RuntimeLifecycle&)>& change,
                          const engine::RuntimeEvent& event) override;
    std::vector<std::string> expired_runtimes(Timestamp now, int limit) override;
    void record_event(const std::string& runtime_id, const engine::RuntimeEvent& event) override;
    std::vector<engine::RuntimeEvent> events_of(const std::string& runtime_id) override;
    std::vector<engine::Operation>
    claim_due(const std::string& owner, Timestamp now, std::chrono::milliseconds ttl, int limit,
              engine::ClaimOrder order = engine::ClaimOrder::NewFirst) override;
    std::optional<engine::Operation> claim(const std::string& operation_id,
                                           const std::string& owner, Timestamp now,
                                           std::chrono::milliseconds ttl) override;
    std::optional<engine::Operation> take_over(const std::string& operation_id,
                                               const std::string& owner, Timestamp now,
                                               std::chrono::milliseconds ttl) override;
    bool renew(const std::string& operation_id, const std::string& owner, Timestamp now,
               std::chrono::milliseconds ttl) override;
    void save_progress(const engine::Operation& op, const std::string& owner, Timestamp now,
                       const std::vector<engine::StageTransition>& transitions,
                       const engine::RuntimeChange& change, bool release) override;
    std::optional<engine::Operation>
    save_progress_and_claim_next(const engine::Operation& op, const std::string& owner,
                                 Timestamp now,
                                 const std::vector<engine::StageTransition>& transitions,
                                 const engine::RuntimeChange& change, std::chrono::milliseconds ttl,
                                 engine::ClaimOrder order) override;
    void release(const std::string& operation_id, const std::string& owner) override;
    int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) override;
    std::optional<Timestamp> next_due() override;

    // StoreBackend
    MigrationReport migrate() override;
    int schema_version() override;
    std::string dialect() const override { return "sqlite"; }
    std::string redacted_url() const override { return "sqlite://" + m_path; }
    std::unique_ptr<SecretRows> secret_rows() override;

private:
    /// Runs `f` holding the connection; SQLite failures become StoreError naming the file.
    template <typename F> auto locked(F&& f) -> decltype(f());
    /// locked() inside a BEGIN IMMEDIATE transaction, committed when `f` returns.
    template <typename F> auto write(F&& f) -> decltype(f());
    /// locked() inside a deferred (read) transaction: one consistent snapshot.
    template <typename F> auto read(F&& f) -> decltype(f());
    template <typename F>
    auto in_transaction(SQLite::TransactionBehavior behavior, F&& f) -> decltype(f());

    [[noreturn]] void fail(const SQLite::Exception& e) const;

    /// `sql` prepared once per connection and kept (preparing cost more than running the
    /// store's small indexed queries), with `params` bound to ?1, ?2, ... Expects the
    /// connection to be held.
    CachedStatement cached(const std::string& sql, const std::vector<DbValue>& params = {});
    /// INSERT INTO table (columns...) VALUES (?...) with `values` bound, through cached().
    void insert_row(const std::string& table, const std::vector<ColumnValue>& values);

    // Helpers that expect the connection to be held (sqlite_store_writes.cpp).
    void insert_gardener_config(const std::string& cluster_id, const engine::GardenerConfig& g);
    void insert_gardener_children(const std::string& gardener_id, const engine::GardenerConfig& g);
    /// The runtime's row of live_shoot; ShootNameTaken when another live runtime holds it.
    void claim_shoot_name(const engine::Runtime& runtime);
    void insert_administrators(const std::string& cluster_id,
                               const std::vector<std::string>& administrators);
    void insert_new_operation(const engine::Operation& op);
    void apply_upgrade(const std::string& cluster_id, const engine::RuntimeUpgrade& upgrade);
    std::vector<engine::Operation> claim_where(const std::string& condition,
                                               const std::vector<DbValue>& params,
                                               const std::string& owner, Timestamp now,
                                               std::chrono::milliseconds ttl);
    /// claim_due's claim, inside the caller's write transaction (limit > 0).
    std::vector<engine::Operation> claim_due_held(const std::string& owner, Timestamp now,
                                                  std::chrono::milliseconds ttl, int limit,
                                                  engine::ClaimOrder order);
    /// save_progress's fenced writes, inside the caller's write transaction.
    void save_fenced(const engine::Operation& op, const std::string& owner, Timestamp now,
                     const std::vector<engine::StageTransition>& transitions,
                     const engine::RuntimeChange& change, bool release);

    // Helpers that expect the connection to be held (sqlite_store_kyma.cpp).
    /// Writes the kyma_config row and its components; NotFound when its release is not stored.
    void insert_kyma_config(const std::string& cluster_id, const engine::KymaConfig& config);
    /// The config `config_id` with its release (the YAML texts only `with_yaml`) and its
    /// components; nullopt when it, its release or its components are missing.
    std::optional<engine::KymaConfig> read_kyma(const std::string& config_id, bool with_yaml);

    // Helpers that expect the connection to be held (sqlite_store_lifecycle.cpp).
    void insert_event(const std::string& runtime_id, const engine::RuntimeEvent& event);

    // Helpers that expect the connection to be held (sqlite_store.cpp).
    std::vector<engine::Operation> select_operations(const std::string& where_and_order,
                                                     const std::vector<DbValue>& params);
    void read_gardener_children(engine::GardenerConfig& g);

    std::string m_path;
    SecretCipher m_cipher;
    std::mutex m_mutex;
    std::unique_ptr<SQLite::Database> m_db;
    struct Prepared {
        std::unique_ptr<SQLite::Statement> statement;
        bool in_use = false;
    };
    /// By SQL text; declared after m_db, so destroyed before the connection closes.
    std::unordered_map<std::string, Prepared> m_statements;
};

/// A prepared statement from a store's cache (SqliteStore::cached), bound for one use. Reset when
/// the handle goes, so that a finished read keeps no snapshot open. A statement already in use
/// (the same SQL nested) is prepared afresh and owned by its handle instead.
class CachedStatement {
public:
    CachedStatement(SQLite::Statement& statement, bool* in_use)
        : m_statement(&statement)
        , m_in_use(in_use) {
        *m_in_use = true;
    }
    explicit CachedStatement(std::unique_ptr<SQLite::Statement> own)
        : m_own(std::move(own))
        , m_statement(m_own.get()) {}
    CachedStatement(CachedStatement&& other) noexcept
        : m_own(std::move(other.m_own))
        , m_statement(std::exchange(other.m_statement, nullptr))
        , m_in_use(std::exchange(other.m_in_use, nullptr)) {}
    CachedStatement& operator=(CachedStatement&&) = delete;
    ~CachedStatement() {
        if (m_statement != nullptr)
            m_statement->tryReset();
        if (m_in_use != nullptr)
            *m_in_use = false;
    }

    bool executeStep() { return m_statement->executeStep(); }
    int exec() { return m_statement->exec(); }
    SQLite::Column getColumn(int index) const { return m_statement->getColumn(index); }
    operator const SQLite::Statement&() const { return *m_statement; }

private:
    std::unique_ptr<SQLite::Statement> m_own;
    SQLite::Statement* m_statement = nullptr;
    bool* m_in_use = nullptr;
};

/// A SQLiteCpp result row as a RowView (valid until the statement steps again).
class SqliteRow final : public RowView {
public:
    explicit SqliteRow(const SQLite::Statement& statement)
        : m_statement(statement) {}
    bool is_null(int column) const override { return m_statement.isColumnNull(column); }
    std::string text(int column) const override {
        return m_statement.getColumn(column).getString();
    }
    std::int64_t integer(int column) const override {
        return m_statement.getColumn(column).getInt64();
    }
    bool boolean(int column) const override {
        return m_statement.getColumn(column).getInt64() != 0;
    }

private:
    const SQLite::Statement& m_statement;
};

/// A prepared statement with `params` bound to ?1, ?2, ...
SQLite::Statement prepare(SQLite::Database& db, const std::string& sql,
                          const std::vector<DbValue>& params = {});

/// "a = ?, b = ?, ..." for an UPDATE's SET clause.
std::string assignments(const std::vector<ColumnValue>& values);

/// The values of `columns`, in order, followed by `more`: the parameters of an UPDATE whose SET
/// clause is assignments(columns) and whose WHERE clause binds `more`.
std::vector<DbValue> parameters(const std::vector<ColumnValue>& columns,
                                std::vector<DbValue> more = {});

template <typename F> auto SqliteStore::locked(F&& f) -> decltype(f()) {
    std::lock_guard lock(m_mutex);
    try {
        return f();
    } catch (const SQLite::Exception& e) {
        fail(e);
    }
}

template <typename F>
auto SqliteStore::in_transaction(SQLite::TransactionBehavior behavior, F&& f) -> decltype(f()) {
    return locked([&]() -> decltype(f()) {
        SQLite::Transaction tx(*m_db, behavior);
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            tx.commit();
        } else {
            auto result = f();
            tx.commit();
            return result;
        }
    });
}

template <typename F> auto SqliteStore::write(F&& f) -> decltype(f()) {
    return in_transaction(SQLite::TransactionBehavior::IMMEDIATE, std::forward<F>(f));
}

template <typename F> auto SqliteStore::read(F&& f) -> decltype(f()) {
    return in_transaction(SQLite::TransactionBehavior::DEFERRED, std::forward<F>(f));
}

} // namespace kprov::stores::sqlite
