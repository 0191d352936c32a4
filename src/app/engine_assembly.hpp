#pragma once
// kprov's composition root: where the engine's ports are built from the effective
// configuration and the engine is assembled over them, for one-shot commands, `kprov watch`
// and `kprov serve` alike. The fronts (cli/, api/) ask for an engine here and never build an
// adapter themselves; the engine (engine/) knows only the ports. What a daemon runs over the
// engine (workers, shoot watch, reaper, secret refresher) is cli/engine_daemon.hpp.

#include "config/settings.hpp"
#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/run/executor.hpp"
#include "engine/run/watched_shoots.hpp"
#include "engine/service/service.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

namespace spdlog {
class logger;
}

namespace kprov::gardener {
class GardenerClient;
class ClusterBindings;
class GardenerLandscape;
} // namespace kprov::gardener

namespace kprov::app {

/// How the engine runs: one request of a command, or a long-running daemon (watch, serve).
enum class RunMode {
    Command, ///< reads the landscape once; says configuration notes at debug level
    Daemon,  ///< keeps the landscape KPROV_LANDSCAPE_CACHE_SECONDS; says them once, as warnings
};

/// Told about each request of the Gardener client: its label, the verb and the HTTP status (0:
/// no answer); gardener::RequestObserver.
using RequestObserver =
    std::function<void(const std::string& label, const std::string& method, int status)>;

/// Opens the Gardener client with `on_request` as its ClientOptions::on_request (throws
/// ConfigError when its kubeconfig cannot be used). Called at the first use of Gardener, once.
using GardenerOpener =
    std::function<std::shared_ptr<gardener::GardenerClient>(RequestObserver on_request)>;

/// What the assembly is built from besides the configuration.
struct AssemblyInputs {
    RunMode mode = RunMode::Command;
    /// The command's logger: the engine's log (through net::to_log_sink) and that of every
    /// adapter built here (their options' `log`). Null: nothing is logged.
    std::shared_ptr<spdlog::logger> log;
    GardenerOpener open_gardener;
    /// Whether a Gardener kubeconfig was set at all: without one there is no landscape port, and
    /// requests that write are refused naming the setting (engine::require_landscape).
    bool gardener_configured = false;
};

/// The KCP's client (KPROV_KYMA_INSTALLER=lifecycle-manager), from KPROV_KCP_KUBECONFIG_PATH:
/// the user's own file, so file references in it are read. Throws ConfigError naming the
/// setting when it is unset or cannot be used.
/// The client logs to `log` (null: nowhere).
std::unique_ptr<engine::KymaLifecycleManager>
open_kcp(const config::Settings& settings,
         std::chrono::milliseconds request_timeout = std::chrono::seconds(60),
         std::shared_ptr<spdlog::logger> log = {});

/// The engine's ports and the engine over them, built from `config` around `store` (opened by
/// the caller: how a store may be opened is a front's choice). Director and the Kyma backends
/// are built at construction as the settings say (ConfigError when they cannot be), and
/// engine::check_ports holds; Gardener is opened at its first use, so that a command that
/// makes no Gardener call works with only a store. Thread-safe as the engine's ports are.
class EngineAssembly {
public:
    EngineAssembly(const config::Effective& config, engine::Store& store, AssemblyInputs inputs);
    ~EngineAssembly();
    EngineAssembly(const EngineAssembly&) = delete;
    EngineAssembly& operator=(const EngineAssembly&) = delete;

    const engine::EnginePorts& ports() const { return m_ports; }
    const engine::EngineOptions& options() const { return m_options; }
    engine::EngineService& service() { return *m_service; }
    /// The executor over the store, built at the first call.
    engine::Executor& executor();
    /// Another executor over the same ports but `store` (serve and watch count what their
    /// workers write through a wrapper of the store).
    std::unique_ptr<engine::Executor> executor_over(engine::Store& store) const;

    /// The Gardener client, opened on first call.
    gardener::GardenerClient& gardener();
    /// Tells `observer` about every request of this engine's Gardener client from now on (the
    /// metrics of watch and serve); an empty one tells nobody. Not process-global: other
    /// clients and other assemblies are not observed. Thread-safe.
    void observe_gardener_requests(RequestObserver observer);
    engine::ShootClient& shoots() { return *m_ports.shoots; }
    engine::RuntimeClusterClient& clusters() { return *m_ports.clusters; }
    /// The landscape over the same Gardener client (the port whether or not Gardener is
    /// configured; EnginePorts::landscape only when it is).
    engine::Landscape& landscape();
    const Clock& clock() const { return m_clock; }
    /// The Installation CR watches (null without a Kyma installer); a daemon or a --wait tells
    /// them whom to wake (set_on_change).
    engine::InstallationWatches* installation_watches() { return m_watches.get(); }
    /// The KCP (KPROV_KYMA_INSTALLER=lifecycle-manager with a KCP); null otherwise.
    engine::KymaLifecycleManager* kcp() { return m_kcp.get(); }
    /// The shoots as this process's watch delivered them (EngineDaemon fills it); shoots()
    /// answers ShootClient::watched from it.
    engine::WatchedShoots& watched_shoots() { return m_watched; }

private:
    class LazyShoots;

    SystemClock m_clock;
    engine::WatchedShoots m_watched;
    engine::EngineOptions m_options;
    engine::EnginePorts m_ports; ///< over the members below
    std::unique_ptr<LazyShoots> m_shoots;
    std::unique_ptr<gardener::GardenerLandscape> m_landscape_port;
    std::unique_ptr<engine::CachedLandscape> m_landscape;
    std::unique_ptr<gardener::ClusterBindings> m_clusters;
    std::unique_ptr<engine::KymaInstaller> m_installer;  ///< null unless installation-cr
    std::unique_ptr<engine::KymaLifecycleManager> m_kcp; ///< null unless lifecycle-manager
    std::unique_ptr<engine::ReleaseSource> m_releases;
    std::unique_ptr<engine::InstallationWatches> m_watches; ///< null without an installer
    std::unique_ptr<engine::Director> m_director;           ///< null when Director is off
    std::unique_ptr<engine::EngineService> m_service;
    std::once_flag m_executor_built;
    std::unique_ptr<engine::Executor> m_executor; ///< null until executor()
};

} // namespace kprov::app
