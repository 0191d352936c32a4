#pragma once
// Opening what commands talk to, from the effective configuration: the state store and
// Gardener. One place, so every command opens them the same way.

#include "cli/context.hpp"
#include "engine/engine_options.hpp"
#include "stores/open_store.hpp"

#include <memory>

namespace kprov::gardener {
class GardenerClient;
}

namespace kprov::cli {

/// The configured store. A local SQLite store gets its schema on first use; PostgreSQL must be
/// migrated with `kprov migrate` first (StoreError says so). `connections`: how many PostgreSQL
/// connections to keep (one per worker thread, plus the watch and the caller).
std::unique_ptr<stores::StoreBackend> open_configured_store(Context& ctx, int connections = 4);

/// A Gardener client for garden-<project>, from APP_GARDENER_KUBECONFIG_PATH (or
/// --gardener-kubeconfig). Throws ConfigError naming the file when it cannot be used.
std::shared_ptr<gardener::GardenerClient> open_gardener(Context& ctx);

/// compassRuntimeID as the API answers it (engine::compass_runtime_id): `runtime_id` while
/// Director registration is on and configured, else nullopt. A Director configuration that
/// cannot be read counts as off here: reading a runtime must not fail for it.
class CompassIds {
public:
    explicit CompassIds(Context& ctx);
    ~CompassIds();
    CompassIds(const CompassIds&) = delete;
    CompassIds& operator=(const CompassIds&) = delete;
    std::optional<std::string> operator()(const std::string& runtime_id) const;

private:
    std::unique_ptr<engine::Director> m_port; ///< keeps m_director.port alive
    engine::DirectorOptions m_director;
};

/// The runtime with this id; throws NotFound "runtime <id> not found" when there is none.
engine::Runtime find_runtime_or_throw(engine::Store& store, const std::string& runtime_id);

} // namespace kprov::cli
