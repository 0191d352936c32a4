#pragma once
// Opening what commands talk to, from the effective configuration: the state store and
// Gardener. One place, so every command opens them the same way.

#include "cli/context.hpp"
#include "engine/engine_options.hpp"
#include "stores/open_store.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace spdlog {
class logger;
}

namespace kprov::gardener {
class GardenerClient;
}

namespace kprov::cli {

/// Whether a command may create the store it is pointed at.
enum class StoreUse {
    Create,   ///< migrate and the operation commands: a new SQLite store is made on first use
    Existing, ///< the read commands and wait: a store that is not there is an error
    /// plan and the dry runs: an existing store is read; a missing one reads as empty
    /// (EngineAccess then works on a scratch store of its own, removed again), and nothing is
    /// created where the store would be: no database, no key file, no directory
    Peek,
};

/// The configured store. A local SQLite store gets its schema on first use (StoreUse::Create);
/// PostgreSQL must be migrated with `kprov migrate` first (StoreError says so). With
/// StoreUse::Existing nothing is created: a missing store is StoreMissing naming it and what
/// creates it. `connections`: how many PostgreSQL connections to keep (one per worker thread,
/// plus the watch and the caller).
std::unique_ptr<stores::StoreBackend> open_configured_store(Context& ctx, int connections = 4,
                                                            StoreUse use = StoreUse::Create);

/// A Gardener client for garden-<project>, from APP_GARDENER_KUBECONFIG_PATH (or
/// --gardener-kubeconfig). Throws ConfigError naming the file and the flag, variable and config
/// key to change when it cannot be used, or when no kubeconfig was set at all.
struct GardenerUse {
    /// gardener::ClientOptions::on_request: told about each of the client's requests.
    std::function<void(const std::string& label, const std::string& method, int status)> on_request;
    /// Each request is given at most that and tried once, for what must answer now (a
    /// status); without it, requests wait and retry as the engine's do.
    std::optional<std::chrono::milliseconds> answer_within;
    /// The command's logger (LogScope::logger), the client's ClientOptions::log. Null: the
    /// client logs nowhere.
    std::shared_ptr<spdlog::logger> log;
};
std::shared_ptr<gardener::GardenerClient> open_gardener(Context& ctx, GardenerUse use = {});

/// Whether a Gardener kubeconfig was set at all (any origin but the default): `kprov plan` then
/// checks the landscape, and plans without it otherwise.
bool gardener_configured(Context& ctx);

/// Fails fast, before anything is written: one cheap request (a one-item list of the project's
/// shoots, 4 s to connect, 8 s a try) to the Gardener API with the configured credentials. A
/// connection cut after it was made (EOF, reset) is tried again, up to 8 tries within about
/// 4 s; a refused connection, a DNS or TLS failure and a timeout fail at once. Any HTTP answer
/// but 401/403 (429 and 5xx included) counts as an answer. Throws
/// ConfigError naming the kubeconfig, the server and the settings to change when nothing answers or
/// the answer is 401/403; any other answer counts as an answer. Done once per process and
/// kubeconfig. Thread-safe. The check's client logs to `log` (the command's logger).
void check_gardener_answers(Context& ctx, std::shared_ptr<spdlog::logger> log);

/// The configured Gardener project; ConfigError "no Gardener project set" naming the flag, the
/// variable and the config key when it was never set (its default names no real project).
std::string configured_project(Context& ctx);

/// "--gardener-kubeconfig, APP_GARDENER_KUBECONFIG_PATH or config key gardener.kubeconfig_path":
/// every way to set the setting `key`, for messages.
std::string ways_to_set(std::string_view key);

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
    std::unique_ptr<engine::Director>
        m_port; ///< the Director client, whose presence turns the flags on
    engine::DirectorOptions m_director;
};

} // namespace kprov::cli
