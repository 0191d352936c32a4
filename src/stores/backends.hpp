#pragma once
// The store implementations behind open_store()'s scheme table. Internal to stores/.

#include "stores/cipher.hpp"
#include "stores/open_store.hpp"

#include <memory>
#include <optional>
#include <string>

namespace kprov::stores {

/// `path` is a file path ("" or ":memory:" are refused: state must survive the process).
std::unique_ptr<StoreBackend> open_sqlite_store(const std::string& path,
                                                const OpenOptions& options);

/// `url` is a libpq URI (postgres:// or postgresql://).
std::unique_ptr<StoreBackend> open_postgres_store(const std::string& url,
                                                  const OpenOptions& options);

/// The cipher of the configured key (ConfigError if its length is wrong); without a key, one that
/// refuses every use when secrets are Unused, else nullopt (each backend decides what then).
std::optional<SecretCipher> configured_cipher(const OpenOptions& options);

/// Applies the SchemaCheck policy after a backend connected: migrates, or refuses a schema that
/// is older (with Require) or newer (always) than this build knows. Shared by both backends.
void enforce_schema(StoreBackend& store, SchemaCheck check);

} // namespace kprov::stores
