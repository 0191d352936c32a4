#pragma once
// What the command line needs to ask for an engine: its log lines, its lease owner, the store a
// command may open, and the engine assembled over them by the composition root
// (app/engine_assembly.hpp). Shared by the operation commands, `wait`, `watch` and `serve`.

#include "app/engine_assembly.hpp"
#include "cli/access.hpp"
#include "cli/context.hpp"
#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/run/executor.hpp"
#include "engine/run/watched_shoots.hpp"
#include "engine/service/service.hpp"
#include "stores/open_store.hpp"

#include <chrono>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spdlog {
class logger;
namespace sinks {
class sink;
}
} // namespace spdlog

namespace kprov::gardener {
class GardenerClient;
class ClusterBindings;
class GardenerLandscape;
} // namespace kprov::gardener

namespace kprov::cli {

/// "<prefix>-<hostname>-<pid>-<8 random hex digits>": a lease owner unique to this process run.
std::string new_owner_id(std::string_view prefix);

/// "<user>@<hostname>": who is at this terminal, for the records of what they changed.
std::string user_at_host();

/// The log threshold for the configured --log-level (trace, debug, info, warn[ing], error,
/// fatal, panic): -v lowers it to debug, -q raises it to error.
engine::LogLevel log_threshold(Context& ctx);

/// The shapes of log lines: a command's short human lines, a daemon's text lines with a time
/// stamp, and a daemon's JSON lines (one object per line: ts, level, msg, then the fields of
/// engine/util/thread_log_fields.hpp) for Loki, Elasticsearch and the like.
enum class LogLineFormat {
    Command,   ///< "kprov: <level>: <message>"
    Text,      ///< "2026-01-02T03:04:05.678Z kprov: <level>: <message>"
    JsonLines, ///< {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"...","runtime":"..."}
};

/// `time` in RFC 3339, UTC, with milliseconds: "2026-01-02T03:04:05.678Z".
std::string rfc3339_utc(std::chrono::system_clock::time_point time);

/// One line, with its newline. `level` is spdlog's name ("info", "warning"); `fields` (later
/// ones of a key win) appear in JSON only. Text that is not UTF-8 is written with U+FFFD.
std::string format_log_line(LogLineFormat format, std::string_view level,
                            std::chrono::system_clock::time_point time, std::string_view message,
                            const std::vector<std::pair<std::string, std::string>>& fields);

/// A thread-safe sink writing format_log_line() lines to `out` (which must outlive it), with the
/// calling thread's log fields. A message repeated right after itself, numbers aside, is written
/// once, then the number of repeats when another message comes or the sink is destroyed:
/// "(the last message was repeated 20 more times)".
std::shared_ptr<spdlog::sinks::sink> make_log_sink(std::ostream& out, LogLineFormat format);

/// How log lines look. A command's are short, for a person at a terminal; a daemon's (watch,
/// serve) are for a log collector: an RFC 3339 UTC time stamp on every line, and with
/// log.format json one JSON object per line (ts, level, msg and the fields of
/// engine/util/thread_log_fields.hpp).
enum class LogStyle { Command, Daemon };

/// The command's logger: writes to ctx.err() at log_threshold(ctx): "kprov: <level>: <message>"
/// for a command; "<time> kprov: <level>: <message>" or a JSON object for a daemon. Given
/// explicitly to every component that logs (the engine as sink(), the adapters as logger(),
/// net/logger.hpp); nothing process-global is set. Threads that log must end before it does:
/// what logs to it afterwards goes nowhere.
class LogScope {
public:
    explicit LogScope(Context& ctx, LogStyle style = LogStyle::Command);
    ~LogScope();
    LogScope(const LogScope&) = delete;
    LogScope& operator=(const LogScope&) = delete;

    /// An engine LogSink writing to the same place; thread-safe, valid while the scope lives.
    engine::LogSink sink() const;
    /// The logger itself, for the adapters' options (`log`); thread-safe.
    const std::shared_ptr<spdlog::logger>& logger() const { return m_logger; }

private:
    std::shared_ptr<spdlog::logger> m_logger;
};

/// Everything an engine command needs: the store it opened (StoreError, ConfigError at
/// construction) and app::EngineAssembly over it, whose Gardener is opened at its first use, so
/// that a command that needs no Gardener call (provision without --wait) works with only a
/// store. Members are thread-safe as the engine's ports are.
class EngineAccess {
public:
    /// `owner_prefix` names the kind of process in lease owners ("cli", "watch", "serve");
    /// "watch" and "serve" log as daemons (LogStyle::Daemon).
    /// `store_connections`: PostgreSQL connections to keep (see open_configured_store).
    /// `store_use`: whether the store may be created (see open_configured_store).
    explicit EngineAccess(Context& ctx, std::string_view owner_prefix = "cli",
                          int store_connections = 4, StoreUse store_use = StoreUse::Create);
    ~EngineAccess();
    EngineAccess(const EngineAccess&) = delete;
    EngineAccess& operator=(const EngineAccess&) = delete;

    stores::StoreBackend& store() { return *m_store; }
    /// The composition root's engine over store().
    app::EngineAssembly& engine() { return *m_engine; }
    /// The Gardener client, opened on first call. Throws ConfigError when the Gardener
    /// kubeconfig cannot be used.
    gardener::GardenerClient& gardener() { return m_engine->gardener(); }
    /// The ShootClient port; opens Gardener at its first call (ConfigError then).
    engine::ShootClient& shoots() { return m_engine->shoots(); }
    engine::RuntimeClusterClient& clusters() { return m_engine->clusters(); }
    /// The landscape (CloudProfiles, bindings) over the same Gardener client: read once by a
    /// one-shot command, kept KPROV_LANDSCAPE_CACHE_SECONDS by watch and serve.
    engine::Landscape& landscape() { return m_engine->landscape(); }
    engine::EngineService& service() { return m_engine->service(); }
    /// The executor over store(), built at the first call (serve and watch run their own, over
    /// a metered store: engine().executor_over).
    engine::Executor& executor() { return m_engine->executor(); }
    const Clock& clock() const { return m_engine->clock(); }
    const engine::EngineOptions& options() const { return m_engine->options(); }
    /// The ports the service and executor run over (EnginePorts::store is store()).
    const engine::EnginePorts& ports() const { return m_engine->ports(); }
    /// This process's lease owner id (new_owner_id).
    const std::string& owner() const { return m_owner; }
    /// The request's tenant and sub-account (--tenant, --sub-account, KPROV_TENANT, ...); empty
    /// when not given.
    engine::RequestContext request() const;
    /// The engine's log sink (LogScope::sink of this access's scope).
    engine::LogSink log() const { return m_log.sink(); }
    /// The same log as a logger, for the adapters a command builds itself (LogScope::logger).
    const std::shared_ptr<spdlog::logger>& logger() const { return m_log.logger(); }
    /// The Installation CR watches of this process (EnginePorts::installation_watches); null
    /// without a Kyma installer. A daemon or a --wait tells it whom to wake (set_on_change).
    engine::InstallationWatches* installation_watches() { return m_engine->installation_watches(); }
    /// The KCP (KPROV_KYMA_INSTALLER=lifecycle-manager); null with any other backend.
    engine::KymaLifecycleManager* kcp() { return m_engine->kcp(); }
    /// The shoots as this process's watch delivered them (EngineDaemon fills it); shoots()
    /// answers ShootClient::watched from it.
    engine::WatchedShoots& watched_shoots() { return m_engine->watched_shoots(); }

private:
    Context& m_ctx;
    LogScope m_log;
    std::string m_owner;
    /// StoreUse::Peek of a missing store: the directory of the empty scratch store, removed at
    /// destruction (after m_store, declared below it, is closed).
    class ScratchDir;
    std::unique_ptr<ScratchDir> m_scratch;
    std::unique_ptr<stores::StoreBackend> m_store;
    std::unique_ptr<app::EngineAssembly> m_engine; ///< over m_store
};

} // namespace kprov::cli
