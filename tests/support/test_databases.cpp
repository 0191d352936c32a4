#include "support/test_databases.hpp"

#include "engine/model.hpp"
#include "support/skip.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <pqxx/pqxx>
#include <stdexcept>
#include <sys/stat.h>

namespace kprov::testing {

TempDir::TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kprov-test-XXXXXX";
    if (!mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a temporary directory");
    m_path = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

std::string TempDir::write(const std::string& relative, const std::string& text) const {
    const auto file = std::filesystem::path(m_path) / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
}

unsigned file_mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

std::map<std::string, std::string> TempDir::contents() const {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(m_path)) {
        std::ifstream in(entry.path(), std::ios::binary);
        out[entry.path().filename().string()].assign(std::istreambuf_iterator<char>(in), {});
    }
    return out;
}

std::optional<std::string> postgres_server_uri() {
    const char* uri = std::getenv("KPROV_TEST_PG_URI");
    if (!uri || !*uri)
        return std::nullopt;
    return std::string(uri);
}

namespace {

bool env_is_one(const char* name) {
    const char* v = std::getenv(name);
    return v && std::string(v) == "1";
}

} // namespace

bool ci_requires_everything() {
    return ci_requires_everything_env();
}

bool postgres_required() {
    return env_is_one("KPROV_REQUIRE_POSTGRES") || ci_requires_everything();
}

namespace {

// Replaces the database name (the path after the authority) of a libpq URI.
std::string with_database(const std::string& uri, const std::string& db) {
    const auto authority = uri.find("://") + 3;
    const auto slash = uri.find('/', authority);
    const auto query = uri.find('?', authority);
    const std::string base = uri.substr(0, std::min(slash, query));
    const std::string rest = query == std::string::npos ? "" : uri.substr(query);
    return base + "/" + db + rest;
}

} // namespace

PostgresDatabase::PostgresDatabase(const std::string& server_uri)
    : m_server(server_uri) {
    std::string suffix = engine::new_uuid().substr(0, 13);
    std::erase(suffix, '-');
    m_name = "kprov_t_" + suffix;
    pqxx::connection c{server_uri};
    pqxx::nontransaction w{c};
    w.exec0("CREATE DATABASE " + m_name);
    m_url = with_database(server_uri, m_name);
}

PostgresDatabase::~PostgresDatabase() {
    try {
        pqxx::connection c{m_server};
        pqxx::nontransaction w{c};
        w.exec0("DROP DATABASE IF EXISTS " + m_name + " WITH (FORCE)");
    } catch (...) {
        // A leftover test database is harmless; the throwaway server is removed after the run.
    }
}

} // namespace kprov::testing
