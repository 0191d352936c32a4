#pragma once
// Internal to the PostgreSQL store: a small pool of libpqxx connections and the helpers every
// postgres_*.cpp file shares. libpqxx 6.4 API (see BUILDING.md).

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <type_traits>
#include <vector>

namespace kprov::stores::pg {

/// Query parameters in order; std::nullopt binds SQL NULL.
using Params = std::vector<std::optional<std::string>>;

/// Runs `sql` with `params` ($1, $2, ...) in `tx`.
pqxx::result exec(pqxx::transaction_base& tx, const std::string& sql, const Params& params);

/// Runs one statement on its own, without BEGIN and COMMIT (two round trips fewer): a statement
/// reads one snapshot and is atomic by itself. ConnectionPool::run runs it again after a broken
/// connection, when the first try may have been applied: only for reads and for writes that do
/// the same when applied twice.
pqxx::result exec_alone(pqxx::connection& c, const std::string& sql, const Params& params);

/// Connections to one database, each used by one thread at a time. Thread-safe.
class ConnectionPool {
public:
    /// Connects once now, so that a wrong URL or an unreachable server is reported at open.
    /// Throws StoreError (with the URL redacted). `size` < 1 is taken as 1.
    ConnectionPool(std::string url, int size);
    ~ConnectionPool();
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    /// Calls `fn(pqxx::connection&)` with a connection of its own and returns what it returns.
    /// `fn` must do its work in one transaction that it commits last, or in one statement of
    /// exec_alone: when the connection turns out to be broken (pqxx::broken_connection), it is
    /// replaced by a new one and `fn` runs once more. libpqxx errors leave as StoreError; kprov
    /// errors thrown by `fn` (Conflict, NotFound, LeaseLost, ...) pass through unchanged.
    template <typename Fn> std::invoke_result_t<Fn&, pqxx::connection&> run(Fn&& fn);

    /// The URL with its password replaced by "***".
    const std::string& redacted_url() const { return m_redacted_url; }

    /// Throws StoreError for `error`, naming the redacted URL and never the password.
    [[noreturn]] void fail(const std::exception& error) const;
    /// `error`'s message on one line, with its SQLSTATE and without the password.
    std::string describe(const std::exception& error) const;

private:
    // A connection checked out of the pool; given back (or dropped when broken) at destruction.
    struct Checkout {
        ConnectionPool& pool;
        std::unique_ptr<pqxx::connection> connection;
        explicit Checkout(ConnectionPool& p)
            : pool(p)
            , connection(p.acquire()) {}
        ~Checkout() { pool.give_back(std::move(connection)); }
        Checkout(const Checkout&) = delete;
        Checkout& operator=(const Checkout&) = delete;
    };

    std::unique_ptr<pqxx::connection> connect() const;
    std::unique_ptr<pqxx::connection> acquire();
    void give_back(std::unique_ptr<pqxx::connection> connection) noexcept;

    std::string m_url;
    std::string m_redacted_url;
    std::string m_password; // to scrub from libpq's messages, should one ever echo it
    std::size_t m_size;
    std::mutex m_mutex;
    std::condition_variable m_available;
    std::vector<std::unique_ptr<pqxx::connection>> m_idle;
    std::size_t m_open = 0; // idle + checked out
};

template <typename Fn> std::invoke_result_t<Fn&, pqxx::connection&> ConnectionPool::run(Fn&& fn) {
    Checkout checkout(*this);
    for (bool retried = false;; retried = true) {
        try {
            return fn(*checkout.connection);
        } catch (const pqxx::broken_connection& e) {
            if (retried)
                fail(e);
            checkout.connection.reset();
            checkout.connection = connect();
        } catch (const pqxx::pqxx_exception& e) {
            fail(e.base());
        }
    }
}

} // namespace kprov::stores::pg
