#pragma once
// Throwaway databases for tests: a temporary directory for SQLite files, and a fresh PostgreSQL
// database per test created on the server named by KPROV_TEST_PG_URI (the role needs CREATEDB).
// Without KPROV_TEST_PG_URI, PostgreSQL tests are skipped with a reason, unless
// KPROV_REQUIRE_POSTGRES=1 or KPROV_CI=1 (set by .ci/run), which turns the skip into a failure.

#include <map>
#include <optional>
#include <string>

namespace kprov::testing {

/// A new empty directory under $TMPDIR, removed with everything in it at destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }
    /// Writes `text` to `relative` under the directory (creating parents, binary); returns the
    /// file's path.
    std::string write(const std::string& relative, const std::string& text) const;
    /// Every file directly in the directory, by name, with its bytes: what a test compares to
    /// show that nothing was created, removed or written.
    std::map<std::string, std::string> contents() const;

private:
    std::string m_path;
};

/// The permission bits (07777) of the file at `path`, following symlinks; a failure if there is
/// no such file.
unsigned file_mode(const std::string& path);

/// The server URI from KPROV_TEST_PG_URI, or nullopt.
std::optional<std::string> postgres_server_uri();

/// True when KPROV_CI=1 (set by scripts/test): a test must fail, not skip, when something it
/// needs (a server, a tool) is missing.
bool ci_requires_everything();

/// True when KPROV_REQUIRE_POSTGRES=1 or KPROV_CI=1: a missing server must fail the test.
bool postgres_required();

/// A fresh database "kprov_t_<random>" on the test server, dropped (with FORCE) at destruction.
class PostgresDatabase {
public:
    /// Throws std::runtime_error when the server cannot be reached.
    explicit PostgresDatabase(const std::string& server_uri);
    ~PostgresDatabase();
    PostgresDatabase(const PostgresDatabase&) = delete;
    PostgresDatabase& operator=(const PostgresDatabase&) = delete;
    /// postgresql://user:pw@host:port/kprov_t_<random>
    const std::string& url() const { return m_url; }
    const std::string& name() const { return m_name; }

private:
    std::string m_server;
    std::string m_name;
    std::string m_url;
};

} // namespace kprov::testing

/// In a test body: skips (or fails, in CI) when no PostgreSQL server is configured; otherwise
/// declares `std::unique_ptr<PostgresDatabase> var` holding a fresh database.
#define KPROV_FRESH_POSTGRES(var)                                                                  \
    auto var##_uri = ::kprov::testing::postgres_server_uri();                                      \
    if (!var##_uri) {                                                                              \
        if (::kprov::testing::postgres_required())                                                 \
            FAIL() << "KPROV_REQUIRE_POSTGRES=1 but KPROV_TEST_PG_URI is not set";                 \
        GTEST_SKIP() << "set KPROV_TEST_PG_URI to a PostgreSQL server to run this test";           \
    }                                                                                              \
    auto var = std::make_unique<::kprov::testing::PostgresDatabase>(*var##_uri)
