#pragma once
// Opening a store by URL, from one table of schemes (sqlite://, postgres://, postgresql://).

#include "engine/store.hpp"
#include "stores/migrations.hpp"
#include "stores/re_encrypt.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kprov::stores {

class SecretRows;

/// A Store that can also report and upgrade its schema.
class StoreBackend : public engine::Store {
public:
    /// Applies every pending migration in one transaction, serialized against other processes
    /// doing the same (a second concurrent or later run is a no-op). Throws StoreError if the
    /// database's schema is newer than this build knows.
    virtual MigrationReport migrate() = 0;
    /// The version recorded in schema_version; 0 for an empty database.
    virtual int schema_version() = 0;
    /// "sqlite" or "postgres".
    virtual std::string dialect() const = 0;
    /// The URL with any password replaced by "***", fit for logs and messages.
    virtual std::string redacted_url() const = 0;
    /// Rewrites every secret still in the legacy format or in plaintext in the current format,
    /// in batches, each row only if it still holds the value read (safe beside running workers;
    /// a rerun continues with what is left). Needs the key the old values were encrypted with.
    /// A row whose old value does not decrypt is counted and reported, not fatal. Throws
    /// StoreError when the database fails. (re_encrypt_rows.cpp)
    ReEncryptReport re_encrypt(const ReEncryptOptions& options);
    /// The rows of the secret columns, with the store's cipher: what re_encrypt works on
    /// (stores/re_encrypt_rows.hpp). Valid while the store is.
    virtual std::unique_ptr<SecretRows> secret_rows() = 0;
};

enum class SchemaCheck {
    Migrate, ///< apply pending migrations on open (local SQLite: zero set-up)
    Require, ///< refuse to open unless the schema is exactly current ("run kprov migrate")
    None,    ///< open as is (kprov migrate itself)
};

enum class Secrets {
    Needed, ///< the store reads and writes secrets, so it needs a key (see secret_key)
    Unused, ///< schema work only (kprov migrate): opens without a key, reads or creates no key
            ///< file; a secret read or written without a key throws ConfigError
};

struct OpenOptions {
    /// APP_DATABASE_SECRET_KEY (empty counts as absent). When absent and secrets are Needed, a
    /// SQLite store uses "<db>.key" beside the database, creating it only while the database
    /// holds no encrypted value (else ConfigError naming the file); a PostgreSQL store refuses
    /// to open (ConfigError naming APP_DATABASE_SECRET_KEY).
    std::optional<std::string> secret_key;
    Secrets secrets = Secrets::Needed;
    SchemaCheck schema = SchemaCheck::Require;
    int pool_size = 4; ///< PostgreSQL connections kept open
    /// KPROV_REFUSE_LEGACY_SECRETS: reading a secret in the legacy format or in plaintext
    /// throws StoreError (re_encrypt still reads them, to rewrite them).
    bool refuse_legacy_secrets = false;
    /// False for readers: open only a store that exists and create nothing, neither a SQLite
    /// database, its directory nor its key file (a store without a key file and without
    /// encrypted values opens with no key: reading a secret then throws ConfigError). A SQLite
    /// file that is not there, or a database without kprov's schema, is StoreMissing.
    bool create = true;
    /// Told, during open_store only, of what the user should know about the store's files
    /// (a SQLite database or directory others can read). May be empty.
    std::function<void(const std::string&)> warn;
};

/// What a StoreMissing message says the user expected, and where to look; the message ends by
/// saying what creates the store.
inline constexpr const char* k_expected_existing_store =
    "expected an existing store (check --store or KPROV_STORE";

/// The store a reader asked for does not exist (OpenOptions::create); the message names it and
/// what creates it.
class StoreMissing : public StoreError {
public:
    using StoreError::StoreError;
};

/// Opens the store at `url`. Throws ConfigError for an unknown scheme (the message lists the
/// known ones), a malformed URL or a key that is missing (see OpenOptions::secret_key), StoreError
/// when the database cannot be reached or its schema is newer than this build knows (always
/// refused) or older (refused with SchemaCheck::Require), StoreMissing (see OpenOptions::create).
std::unique_ptr<StoreBackend> open_store(const std::string& url, const OpenOptions& options);

} // namespace kprov::stores
