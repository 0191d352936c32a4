#include "stores/open_store.hpp"

#include "engine/error.hpp"
#include "engine/util/text.hpp"
#include "stores/backends.hpp"

#include <functional>

namespace kprov::stores {
namespace {

using Opener =
    std::function<std::unique_ptr<StoreBackend>(const std::string& url, const OpenOptions&)>;

struct Scheme {
    const char* prefix;
    const char* example;
    Opener open;
};

std::unique_ptr<StoreBackend> open_sqlite_url(const std::string& url, const OpenOptions& options) {
    // sqlite:///abs/path.db -> /abs/path.db; sqlite://relative.db -> relative.db
    const std::string path = url.substr(std::string_view("sqlite://").size());
    if (path.empty() || path == "/")
        throw ConfigError("store URL \"" + url +
                          "\" names no database file; expected "
                          "sqlite:///abs/path.db or sqlite://relative.db");
    return open_sqlite_store(path, options);
}

const Scheme k_schemes[] = {
    {"sqlite://", "sqlite:///abs/path.db", open_sqlite_url},
    {"postgres://", "postgres://user:pw@host:port/db?sslmode=...", open_postgres_store},
    {"postgresql://", "postgresql://user:pw@host:port/db", open_postgres_store},
};

} // namespace

std::unique_ptr<StoreBackend> open_store(const std::string& url, const OpenOptions& options) {
    for (const auto& scheme : k_schemes) {
        if (url.rfind(scheme.prefix, 0) == 0) {
            auto store = scheme.open(url, options);
            if (!options.create && store->schema_version() == 0)
                throw StoreMissing("store " + store->redacted_url() +
                                   " holds no kprov schema (an empty database), " +
                                   std::string(k_expected_existing_store) +
                                   "; `kprov migrate` creates its schema)");
            enforce_schema(*store, options.schema);
            return store;
        }
    }
    std::string known;
    for (const auto& scheme : k_schemes)
        known += std::string(known.empty() ? "" : ", ") + scheme.example;
    throw ConfigError("store URL \"" + redact_url(url) +
                      "\" has an unknown scheme; known: " + known);
}

std::optional<SecretCipher> configured_cipher(const OpenOptions& options) {
    if (options.secret_key && !options.secret_key->empty())
        return SecretCipher(*options.secret_key);
    if (options.secrets == Secrets::Unused)
        return SecretCipher::without_key();
    return std::nullopt;
}

void enforce_schema(StoreBackend& store, SchemaCheck check) {
    if (check == SchemaCheck::None)
        return;
    const int known = latest_version(store.dialect());
    const int current = store.schema_version();
    if (current > known)
        throw StoreError("the schema of " + store.redacted_url() + " is at version " +
                         std::to_string(current) + ", newer than this kprov knows (" +
                         std::to_string(known) + "); upgrade kprov");
    if (current == known)
        return;
    if (check == SchemaCheck::Migrate) {
        store.migrate();
        return;
    }
    throw StoreError("the schema of " + store.redacted_url() + " is at version " +
                     std::to_string(current) + ", this kprov needs " + std::to_string(known) +
                     "; run `kprov migrate`");
}

} // namespace kprov::stores
