#include "app/engine_assembly.hpp"

#include "config/engine_options.hpp"
#include "director/open_director.hpp"
#include "engine/run/installation_watches.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/landscape_port.hpp"
#include "gardener/operator_bindings.hpp"
#include "gardener/shoot_port.hpp"
#include "kyma/kcp_client.hpp"
#include "kyma/kyma_installer.hpp"
#include "kyma/kyma_releases.hpp"
#include "net/logger.hpp"

#include <algorithm>
#include <atomic>

namespace kprov::app {

// The ShootClient port over a Gardener client opened at the first call.
class EngineAssembly::LazyShoots final : public engine::ShootClient {
public:
    LazyShoots(GardenerOpener open, const engine::WatchedShoots& watched)
        : m_open(std::move(open))
        , m_watched(watched) {}

    gardener::GardenerClient& client() { return *port().second; }

    void observe(RequestObserver observer) {
        std::atomic_store(&m_observer,
                          observer ? std::make_shared<const RequestObserver>(std::move(observer))
                                   : std::shared_ptr<const RequestObserver>());
    }

    std::optional<engine::ShootState> get(const std::string& name) override {
        return port().first->get(name);
    }
    std::optional<engine::ShootState> watched(const std::string& name) override {
        return m_watched.find(name);
    }
    std::vector<engine::ShootState> list(const std::string& label_selector) override {
        return port().first->list(label_selector);
    }
    engine::ShootState create(const std::string& shoot_json) override {
        return port().first->create(shoot_json);
    }
    engine::ShootState update(const std::string& shoot_json) override {
        return port().first->update(shoot_json);
    }
    engine::ShootState patch(const std::string& name, const std::string& merge_patch) override {
        return port().first->patch(name, merge_patch);
    }
    bool remove(const std::string& name) override { return port().first->remove(name); }
    std::string admin_kubeconfig(const std::string& name,
                                 std::chrono::seconds expiration) override {
        return port().first->admin_kubeconfig(name, expiration);
    }
    void put_config_map(const std::string& config_map_json) override {
        port().first->put_config_map(config_map_json);
    }
    void delete_config_map(const std::string& name) override {
        port().first->delete_config_map(name);
    }

private:
    std::pair<engine::ShootClient*, gardener::GardenerClient*> port() {
        std::lock_guard lock(m_mutex);
        if (!m_port) {
            // The client option forwards to whoever observes now (metrics come and go with
            // the daemon, the client stays).
            m_client =
                m_open([this](const std::string& label, const std::string& method, int status) {
                    if (const auto observer = std::atomic_load(&m_observer))
                        (*observer)(label, method, status);
                });
            m_port = std::make_unique<gardener::GardenerShootClient>(m_client);
        }
        return {m_port.get(), m_client.get()};
    }

    GardenerOpener m_open;
    const engine::WatchedShoots& m_watched;
    std::mutex m_mutex;
    std::shared_ptr<gardener::GardenerClient> m_client;
    std::unique_ptr<gardener::GardenerShootClient> m_port;
    std::shared_ptr<const RequestObserver> m_observer;
};

std::unique_ptr<engine::KymaLifecycleManager> open_kcp(const config::Settings& settings,
                                                       std::chrono::milliseconds request_timeout,
                                                       std::shared_ptr<spdlog::logger> log) {
    gardener::ClientOptions options;
    options.log = std::move(log);
    options.qps = settings.gardener_qps;
    options.burst = settings.gardener_burst;
    options.request_timeout = request_timeout;
    options.connect_timeout = std::min(options.connect_timeout, request_timeout);
    options.retry.max_total = std::min(options.retry.max_total, request_timeout);
    if (settings.kcp_kubeconfig_path.empty())
        throw ConfigError(
            "KPROV_KYMA_INSTALLER=lifecycle-manager needs the kubeconfig of the Kyma Control "
            "Plane where Kyma Lifecycle Manager runs: set KPROV_KCP_KUBECONFIG_PATH (config key "
            "kcp.kubeconfig_path)");
    gardener::Kubeconfig kcp;
    try {
        kcp = gardener::load_kubeconfig(settings.kcp_kubeconfig_path);
    } catch (const ConfigError& e) {
        throw ConfigError(std::string(e.what()) +
                          " (KPROV_KCP_KUBECONFIG_PATH, config key kcp.kubeconfig_path)");
    }
    options.label = "kcp";
    options.component = "k8s client - kcp";
    return std::make_unique<gardener::KcpClient>(std::move(kcp), settings.kcp_namespace,
                                                 std::move(options));
}

EngineAssembly::EngineAssembly(const config::Effective& config, engine::Store& store,
                               AssemblyInputs inputs)
    : m_options(config::engine_options(config.settings)) {
    const auto& settings = config.settings;
    const bool daemon = inputs.mode == RunMode::Daemon;
    m_ports.store = &store;
    m_ports.clock = &m_clock;
    m_ports.log = net::to_log_sink(inputs.log);

    std::string director_warning;
    m_director = director::open_director(config, director_warning, inputs.log);
    // A one-shot command would repeat it at every call; daemons say it once, loudly.
    if (!director_warning.empty())
        m_ports.write_log(daemon ? engine::LogLevel::Warning : engine::LogLevel::Debug,
                          director_warning);
    m_options.director = director::director_options(settings, m_director.get());
    m_ports.director = m_director.get();

    m_shoots = std::make_unique<LazyShoots>(std::move(inputs.open_gardener), m_watched);
    m_ports.shoots = m_shoots.get();
    m_landscape_port = std::make_unique<gardener::GardenerLandscape>(
        [shoots = m_shoots.get()]() -> gardener::GardenerClient& { return shoots->client(); });
    // A one-shot command is one request: it reads the landscape once.
    m_landscape = std::make_unique<engine::CachedLandscape>(
        *m_landscape_port, m_clock,
        std::chrono::seconds(daemon ? settings.landscape_cache_seconds : 0));
    // Without a Gardener, plans and dry runs say that they did not check the landscape, and
    // requests that write are refused (engine::require_landscape names the setting).
    if (inputs.gardener_configured)
        m_ports.landscape = m_landscape.get();

    gardener::ClientOptions cluster_options;
    cluster_options.qps = settings.gardener_qps;
    cluster_options.burst = settings.gardener_burst;
    cluster_options.log = inputs.log;
    m_clusters = std::make_unique<gardener::ClusterBindings>(cluster_options);
    m_ports.clusters = m_clusters.get();

    // The original's GitHub release downloader is gone (kyma-installation.md §7.3): its two
    // settings are accepted and do nothing, which a daemon says once.
    for (const auto& entry : config.entries)
        if ((entry.key == "latest_downloaded_releases" || entry.key == "download_pre_releases") &&
            entry.origin != config::Origin::Default && daemon)
            m_ports.write_log(engine::LogLevel::Warning,
                              entry.source + " (" + entry.key +
                                  ") has no effect: releases are downloaded when a request names "
                                  "them, from KPROV_KYMA_RELEASES_URL");
    if (settings.kyma_installer == "installation-cr") {
        m_installer =
            std::make_unique<gardener::InstallationCrInstaller>(cluster_options, m_ports.log);
        gardener::ReleaseSourceOptions releases;
        releases.releases_url = settings.kyma_releases_url;
        releases.on_demand_url = settings.kyma_dev_releases_url;
        m_releases = std::make_unique<gardener::HttpReleaseSource>(std::move(releases));
        m_watches = std::make_unique<engine::InstallationWatches>(*m_installer, store, m_clock);
        m_ports.kyma_installer = m_installer.get();
        m_ports.releases = m_releases.get();
        m_ports.installation_watches = m_watches.get();
    } else if (settings.kyma_installer == "lifecycle-manager" &&
               !settings.kcp_kubeconfig_path.empty()) {
        // Without a KCP (the default setting, nothing configured) kprov still provisions
        // runtimes without Kyma; a kymaConfig is refused (KymaOptions::kcp_missing).
        m_kcp = open_kcp(settings, std::chrono::seconds(60), inputs.log);
        m_watches = std::make_unique<engine::InstallationWatches>(
            [kcp = m_kcp.get()](const std::string& name, const std::string& resource_version,
                                std::chrono::milliseconds max_wait, std::stop_token stop) {
                return kcp->await_change(name, resource_version, max_wait, std::move(stop));
            },
            store, m_clock);
        m_ports.lifecycle_manager = m_kcp.get();
        m_ports.installation_watches = m_watches.get();
    }
    // Refuses a setting without its port before anything runs.
    engine::check_ports(m_ports, m_options, engine::PortsFor::Executor);
    m_service = std::make_unique<engine::EngineService>(m_ports, m_options);
}

EngineAssembly::~EngineAssembly() = default;

engine::Executor& EngineAssembly::executor() {
    std::call_once(m_executor_built,
                   [this] { m_executor = std::make_unique<engine::Executor>(m_ports, m_options); });
    return *m_executor;
}

std::unique_ptr<engine::Executor> EngineAssembly::executor_over(engine::Store& store) const {
    engine::EnginePorts ports = m_ports;
    ports.store = &store;
    return std::make_unique<engine::Executor>(ports, m_options);
}

gardener::GardenerClient& EngineAssembly::gardener() {
    return m_shoots->client();
}

void EngineAssembly::observe_gardener_requests(RequestObserver observer) {
    m_shoots->observe(std::move(observer));
}

engine::Landscape& EngineAssembly::landscape() {
    return *m_landscape;
}

} // namespace kprov::app
