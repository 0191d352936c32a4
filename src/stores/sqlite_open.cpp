// Opening a SQLite store: its file, its directory and the key that protects its secrets.

#include "engine/error.hpp"
#include "stores/backends.hpp"
#include "stores/sqlite_store.hpp"
#include "stores/store_common.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
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
    // kyma_rows.cpp writes compact JSON: an encrypted entry holds exactly this text.
    {"kyma_config", "global_configuration LIKE '%\"encrypted\":true%'"},
    {"kyma_component_config", "configuration LIKE '%\"encrypted\":true%'"},
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
// A reader that may create nothing goes without a key where there is nothing to decrypt.
SecretCipher key_file_cipher(const std::string& path, bool create) {
    const std::string key_path = path + ".key";
    if (auto key = load_key_file(key_path))
        return SecretCipher(std::move(*key));
    if (holds_encrypted_values(path))
        throw ConfigError("key file \"" + key_path + "\" is missing but the SQLite store \"" +
                          path +
                          "\" holds encrypted secrets, expected the key they were encrypted "
                          "with: restore the key file or set APP_DATABASE_SECRET_KEY");
    return create ? SecretCipher(load_or_create_key_file(key_path)) : SecretCipher::without_key();
}

// Creates `dir` and each missing parent with mode 0700, whatever the umask: the directory of
// kprov's state is nobody else's business (the XDG spec asks the same of its base directories).
void create_private_directories(const std::filesystem::path& dir, const std::string& path) {
    std::error_code ec;
    if (dir.empty() || std::filesystem::is_directory(dir, ec))
        return;
    create_private_directories(dir.parent_path(), path);
    if (::mkdir(dir.c_str(), 0700) != 0) {
        const int error = errno;
        if (error == EEXIST && std::filesystem::is_directory(dir, ec))
            return; // another process made it meanwhile
        throw StoreError("sqlite " + path + ": cannot create directory " + dir.string() + ": " +
                         std::generic_category().message(error));
    }
    // The umask may have cleared bits of 0700 (e.g. 0277 would leave the owner locked out).
    if (::chmod(dir.c_str(), 0700) != 0)
        throw StoreError("sqlite " + path + ": cannot set the mode of directory " + dir.string() +
                         ": " + std::generic_category().message(errno));
}

// Creates an empty database file with mode 0600, whatever the umask; SQLite takes an empty file
// for an empty database and gives its -wal, -shm and -journal files the database's mode.
void create_private_file(const std::string& path) {
    const int fd =
        ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            return; // an existing database (or one another process just created)
        throw StoreError("sqlite " + path + ": cannot create the database file: " +
                         std::generic_category().message(errno));
    }
    const int chmod_result = ::fchmod(fd, 0600);
    const int error = errno;
    ::close(fd);
    if (chmod_result != 0)
        throw StoreError("sqlite " + path + ": cannot set the mode of the database file: " +
                         std::generic_category().message(error));
}

// Files kprov did not create may be looser than it would make them; it says so rather than
// chmod them behind the back of whoever chose their modes.
void warn_if_shared(const std::string& what, const std::string& file, const char* chmod_mode,
                    const OpenOptions& options) {
    struct stat st {};
    if (!options.warn || ::stat(file.c_str(), &st) != 0 || (st.st_mode & (S_IRWXG | S_IRWXO)) == 0)
        return;
    options.warn(what + " " + file + " is accessible by group or others (mode " +
                 octal_mode(st.st_mode) + "), expected " + chmod_mode +
                 " as kprov creates it; run: chmod " + (chmod_mode + 1) + " " + file);
}

void warn_of_shared_files(const std::string& path, const std::filesystem::path& parent,
                          const OpenOptions& options) {
    if (!parent.empty())
        warn_if_shared("the directory of the SQLite store", parent.string(), "0700", options);
    warn_if_shared("the SQLite store", path, "0600", options);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        std::error_code ec;
        if (std::filesystem::exists(path + suffix, ec))
            warn_if_shared("the SQLite store's file", path + suffix, "0600", options);
    }
}

// A symbolic link planted at the store's path (or at one of SQLite's files beside it) would
// have the store created or written wherever it points, with whatever mode is there: refused,
// as the key file's is. A linked directory is fine: the files are made in it with 0600.
void refuse_symbolic_links(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        const std::string file = path + suffix;
        struct stat st {};
        if (::lstat(file.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            continue;
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(file, ec);
        throw ConfigError(std::string(*suffix ? "the SQLite store's file " : "SQLite store ") +
                          file + " is a symbolic link" +
                          (ec ? std::string() : " (to " + target.string() + ")") +
                          ", expected a regular file: a link could place the store elsewhere "
                          "with other permissions; name the file itself in the store URL");
    }
}

} // namespace

std::unique_ptr<StoreBackend> open_sqlite_store(const std::string& path,
                                                const OpenOptions& options) {
    if (path.empty() || path == ":memory:")
        throw ConfigError("SQLite database \"" + path +
                          "\" is not a file; kprov's state must survive the process, so name a "
                          "file (sqlite:///abs/path.db)");
    refuse_symbolic_links(path);
    std::error_code ec;
    if (!options.create && !std::filesystem::exists(path, ec))
        throw StoreMissing("SQLite store \"" + path + "\" does not exist, " +
                           std::string(k_expected_existing_store) +
                           "; `kprov migrate` or an operation command such as `kprov provision` "
                           "creates it)");
    const auto parent = std::filesystem::path(path).parent_path();
    if (options.create)
        create_private_directories(parent, path);
    auto cipher = configured_cipher(options);
    if (!cipher)
        cipher = key_file_cipher(path, options.create);
    cipher->refuse_old_formats(options.refuse_legacy_secrets);
    if (options.create)
        create_private_file(path);
    warn_of_shared_files(path, parent, options);
    return std::make_unique<sqlite::SqliteStore>(path, std::move(*cipher));
}

} // namespace kprov::stores
