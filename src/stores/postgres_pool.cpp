#include "stores/postgres_pool.hpp"

#include "engine/error.hpp"
#include "engine/util/text.hpp"
#include "stores/open_store.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <poll.h>

namespace kprov::stores::pg {
namespace {

// The password of a libpq URI's user-info, percent-decoded; "" when there is none.
std::string password_of(const std::string& url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos)
        return {};
    const auto authority_start = scheme_end + 3;
    const auto at = url.rfind('@'); // as redact_url: the user info ends at the last '@'
    if (at == std::string::npos || at < authority_start)
        return {};
    const auto colon = url.find(':', authority_start);
    if (colon == std::string::npos || colon > at ||
        url.find_first_of("/?#", authority_start) < colon)
        return {};
    const std::string raw = url.substr(colon + 1, at - colon - 1);
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size() &&
            std::isxdigit(static_cast<unsigned char>(raw[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
            out += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += raw[i];
        }
    }
    return out;
}

void replace_all(std::string& s, const std::string& what, const std::string& with) {
    if (what.empty())
        return;
    for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + with.size()))
        s.replace(pos, what.size(), with);
}

// An idle connection has nothing to read: readable means the server sent its goodbye (a FATAL
// after a restart, failover or pg_terminate_backend) or closed the socket. Checking costs no
// round trip, and replacing such a connection before use spares libpqxx 6.4 the failed BEGIN,
// whose error result it leaks.
bool looks_alive(const pqxx::connection& c) {
    const int fd = c.sock();
    if (fd < 0)
        return false;
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
}

// libpq's messages span lines ("ERROR:  ...\nDETAIL:  ...\n"); a StoreError is one sentence.
std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    replace_all(s, "  ", " ");
    return s;
}

// libpq's defaults wait for ever on a server that accepts and never answers, and notice a
// dead peer only after the kernel's two hours. kprov's, added to `url` unless it names them
// itself: a connection attempt gives up after 10 s (libpq names the host and port), an idle
// connection is probed after 30 s and given up after three unanswered probes 10 s apart.
constexpr std::pair<const char*, const char*> k_connection_defaults[] = {
    {"connect_timeout", "10"},     {"keepalives", "1"},       {"keepalives_idle", "30"},
    {"keepalives_interval", "10"}, {"keepalives_count", "3"},
};

std::string with_connection_defaults(const std::string& url) {
    if (url.find("://") == std::string::npos)
        return url; // a key=value connection string: the user's own
    const auto fragment = url.find('#');
    std::string base = url.substr(0, fragment);
    const std::string tail = fragment == std::string::npos ? "" : url.substr(fragment);
    const auto query = base.find('?');
    for (const auto& [name, value] : k_connection_defaults) {
        const std::string key = std::string(name) + "=";
        const bool given =
            query != std::string::npos && (base.find("?" + key, query) != std::string::npos ||
                                           base.find("&" + key, query) != std::string::npos);
        if (!given)
            base += (base.find('?') == std::string::npos ? "?" : "&") + key + value;
    }
    return base + tail;
}

// A statement that runs longer is cancelled (SQLSTATE 57014) unless the URL's `options` set
// statement_timeout itself: no query of kprov's takes more than a fraction of this.
constexpr int k_statement_timeout_ms = 30'000;

} // namespace

pqxx::result exec(pqxx::transaction_base& tx, const std::string& sql, const Params& params) {
    // A prepared statement per SQL text and connection: the server parses and plans the store's
    // few statements once per connection instead of on every call. libpqxx prepares a name on
    // its first use and takes the same definition again as a no-op.
    char name[24];
    std::snprintf(name, sizeof name, "kprov_%016zx", std::hash<std::string>{}(sql));
    tx.conn().prepare(name, sql);
    return tx.exec_prepared(name, pqxx::prepare::make_dynamic_params(params));
}

pqxx::result exec_alone(pqxx::connection& c, const std::string& sql, const Params& params) {
    pqxx::nontransaction tx(c);
    return exec(tx, sql, params);
}

ConnectionPool::ConnectionPool(std::string url, int size)
    : m_url(with_connection_defaults(url))
    , m_redacted_url(redact_url(m_url))
    , m_password(password_of(m_url))
    , m_size(static_cast<std::size_t>(std::max(size, 1))) {
    m_idle.push_back(connect());
    m_open = 1;
}

ConnectionPool::~ConnectionPool() = default;

std::string ConnectionPool::describe(const std::exception& error) const {
    std::string message = one_line(error.what());
    replace_all(message, m_password, "***");
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&error);
        sql && !sql->sqlstate().empty())
        message += " (SQLSTATE " + sql->sqlstate() + ")";
    return message;
}

void ConnectionPool::fail(const std::exception& error) const {
    throw StoreError("PostgreSQL store " + m_redacted_url + ": " + describe(error));
}

std::unique_ptr<pqxx::connection> ConnectionPool::connect() const {
    try {
        auto c = std::make_unique<pqxx::connection>(m_url);
        // set_variable (not a raw SET) so that libpqxx restores them if it ever reconnects.
        // Timestamps travel as text, so the session must print them in ISO form and UTC.
        c->set_variable("TimeZone", "'UTC'");
        c->set_variable("DateStyle", "'ISO, YMD'");
        c->set_variable("lock_timeout", std::to_string(k_busy_timeout_ms));
        if (m_url.find("statement_timeout") == std::string::npos)
            c->set_variable("statement_timeout", std::to_string(k_statement_timeout_ms));
        c->set_variable("application_name", "'kprov'");
        // IF NOT EXISTS and friends would print NOTICEs on stderr through libpqxx.
        c->set_variable("client_min_messages", "warning");
        return c;
    } catch (const pqxx::pqxx_exception& e) {
        fail(e.base());
    }
}

std::unique_ptr<pqxx::connection> ConnectionPool::acquire() {
    std::unique_ptr<pqxx::connection> dead; // closed after the lock is released
    {
        std::unique_lock lock(m_mutex);
        m_available.wait(lock, [&] { return !m_idle.empty() || m_open < m_size; });
        if (m_idle.empty()) {
            ++m_open; // reserve the slot before connecting outside the lock
        } else {
            auto c = std::move(m_idle.back());
            m_idle.pop_back();
            if (looks_alive(*c))
                return c;
            dead = std::move(c); // its slot passes to the new connection
        }
    }
    dead.reset();
    try {
        return connect();
    } catch (...) {
        std::lock_guard lock(m_mutex);
        --m_open;
        m_available.notify_one();
        throw;
    }
}

void ConnectionPool::give_back(std::unique_ptr<pqxx::connection> connection) noexcept {
    std::lock_guard lock(m_mutex);
    if (connection && connection->is_open())
        m_idle.push_back(std::move(connection));
    else
        --m_open; // a broken one is dropped; the next acquire opens a fresh connection
    m_available.notify_one();
}

} // namespace kprov::stores::pg
