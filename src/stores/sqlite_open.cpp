// Opening a SQLite store: its file, its directory and the key that protects its secrets.

#include "engine/error.hpp"
#include "stores/backends.hpp"
#include "stores/sqlite_store.hpp"
#include "stores/store_common.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <filesystem>
#include <system_error>
#include <utility>

namespace kprov::stores {
namespace {

// Where the schema keeps encrypted values (schemas/sql/sqlite/0001_original_schema.sql), and the
// rows that hold one (as read_cluster and read_secret decide).
struct EncryptedColumn {
    const char* table;
    const char* condition;
};

constexpr EncryptedColumn k_encrypted_columns[] = {
    {"cluster", "kubeconfig IS NOT NULL AND is_kubeconfig_encrypted != 0"},
    {"cluster_administrator", "is_user_id_encrypted != 0"},
};

bool has_table(SQLite::Database& db, const std::string& table) {
    SQLite::Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    st.bind(1, table);
    return st.executeStep();
}

// Read-write without OPEN_CREATE, not read-only: a read-only connection to a WAL database leaves
// -wal and -shm files behind, while the last read-write connection to close removes them again,
// and reading alone leaves the database file as it was (contents and mtime).
bool holds_encrypted_values(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return false; // a new store; one that cannot be looked at fails when it is opened
    try {
        SQLite::Database db(path, SQLite::OPEN_READWRITE, k_busy_timeout_ms);
        for (const auto& column : k_encrypted_columns) {
            if (!has_table(db, column.table))
                continue;
            SQLite::Statement st(db, std::string("SELECT 1 FROM ") + column.table + " WHERE " +
                                         column.condition + " LIMIT 1");
            if (st.executeStep())
                return true;
        }
        return false;
    } catch (const SQLite::Exception& e) {
        throw StoreError("sqlite " + path + ": " + e.what());
    }
}

// A new key for a store that already holds secrets would decrypt none of them and encrypt new
// ones with a key the old ones do not share: refuse before anything is written, so the store
// stays as it was until its key is restored.
SecretCipher key_file_cipher(const std::string& path) {
    const std::string key_path = path + ".key";
    if (auto key = load_key_file(key_path))
        return SecretCipher(std::move(*key));
    if (holds_encrypted_values(path))
        throw ConfigError("key file \"" + key_path + "\" is missing but the SQLite store \"" +
                          path +
                          "\" holds encrypted secrets, expected the key they were encrypted "
                          "with: restore the key file or set APP_DATABASE_SECRET_KEY");
    return SecretCipher(load_or_create_key_file(key_path));
}

} // namespace

std::unique_ptr<StoreBackend> open_sqlite_store(const std::string& path,
                                                const OpenOptions& options) {
    if (path.empty() || path == ":memory:")
        throw ConfigError("SQLite database \"" + path +
                          "\" is not a file; kprov's state must survive the process, so name a "
                          "file (sqlite:///abs/path.db)");
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    if (ec)
        throw StoreError("sqlite " + path + ": cannot create directory " + parent.string() + ": " +
                         ec.message());
    auto cipher = configured_cipher(options);
    if (!cipher)
        cipher = key_file_cipher(path);
    return std::make_unique<sqlite::SqliteStore>(path, std::move(*cipher));
}

} // namespace kprov::stores
