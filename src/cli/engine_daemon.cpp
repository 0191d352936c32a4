#include "cli/engine_daemon.hpp"

#include "engine/run/installation_watches.hpp"
#include "gardener/audit_log.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/shoot_watch.hpp"
#include "stores/migrations.hpp"

#include <ctime>
#include <pthread.h>
#include <spdlog/logger.h>

namespace kprov::cli {
namespace {

engine::WorkerPoolOptions pool_options(EngineAccess& access, Context& ctx,
                                       std::optional<int> workers) {
    const auto& settings = ctx.config().settings;
    engine::WorkerPoolOptions options;
    options.workers = workers.value_or(settings.workers);
    options.owner_prefix = access.owner();
    options.catch_up_on_start = settings.enqueue_in_progress_operations;
    return options;
}

} // namespace

BlockedStopSignals::BlockedStopSignals() {
    sigemptyset(&m_set);
    sigaddset(&m_set, SIGINT);
    sigaddset(&m_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
}

BlockedStopSignals::~BlockedStopSignals() {
    const timespec none{0, 0};
    while (sigtimedwait(&m_set, nullptr, &none) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
}

int BlockedStopSignals::wait(std::chrono::seconds timeout) const {
    const timespec t{static_cast<std::time_t>(timeout.count()), 0};
    const int signal = sigtimedwait(&m_set, nullptr, &t);
    return signal > 0 ? signal : 0;
}

EngineDaemon::EngineDaemon(Context& ctx, EngineAccess& access, std::optional<int> workers)
    : EngineDaemon(ctx, access, access.executor(), access.store(), workers) {}

EngineDaemon::EngineDaemon(Context& ctx, EngineAccess& access, engine::Executor& executor,
                           engine::Store& store, std::optional<int> workers)
    : m_log(access.logger())
    , m_pool(executor, store, access.clock(), pool_options(access, ctx, workers))
    , m_watched(access.watched_shoots()) {
    m_audit = gardener::make_audit_log_worker(
        access.gardener(), ctx.config().settings.audit_logs_tenant_config_path,
        [&access](const std::string& id) { return access.store().find_runtime(id).has_value(); },
        m_log);
    gardener::ShootWatchOptions watch_options;
    watch_options.log = m_log;
    m_watch = std::make_unique<gardener::ShootWatch>(
        access.gardener(),
        [this](const std::vector<engine::ShootEvent>& events) {
            m_watched.on_events(events);
            m_pool.on_shoot_events(events);
            if (m_audit)
                m_audit->on_shoot_events(events);
        },
        std::move(watch_options));
    m_installations = access.installation_watches();
    if (m_installations)
        m_installations->set_on_change([this] { m_pool.notify_due(); });
    m_reaper = std::make_unique<engine::LifetimeReaper>(store, access.service(), access.clock(),
                                                        access.owner(), std::chrono::seconds(1),
                                                        access.log());
    m_reaper->set_on_started([this] { m_pool.notify_due(); });
    if (auto* kcp = access.kcp())
        m_secrets = std::make_unique<engine::KymaSecretRefresher>(
            *kcp, store, access.shoots(), access.clock(), access.options().kyma.klm, access.log());
}

EngineDaemon::~EngineDaemon() {
    stop();
}

void EngineDaemon::start() {
    m_pool.start();
    if (m_audit)
        m_audit->start();
    if (m_secrets)
        m_secrets->start();
    m_reaper->start();
    m_watched.follow([watch = m_watch.get()] { return watch->is_up(); });
    m_watch->start();
}

void EngineDaemon::stop() {
    if (m_installations)
        m_installations->set_on_change({});
    m_watched.follow({});
    m_watch->stop();
    if (m_audit)
        m_audit->stop();
    if (m_secrets)
        m_secrets->stop();
    m_reaper->stop();
    m_pool.stop();
}

void EngineDaemon::log_stats() const {
    const auto s = m_pool.stats();
    m_log->debug("{} passes ({} succeeded, {} failed, {} leases lost, {} store errors), {} shoot "
                 "events; shoot watch {}",
                 s.passes, s.succeeded, s.failed, s.lease_lost, s.store_errors, s.events,
                 m_watch->is_up() ? "up" : "down");
}

const char* EngineDaemon::wait_for_stop(const BlockedStopSignals& signals) const {
    int signal = 0;
    while ((signal = signals.wait(std::chrono::seconds(60))) == 0)
        log_stats();
    return signal == SIGINT ? "SIGINT" : "SIGTERM";
}

api::ReadinessCheck store_readiness(stores::StoreBackend& store) {
    return [&store]() -> std::string {
        try {
            const int version = store.schema_version();
            const int latest = stores::latest_version(store.dialect());
            if (version != latest)
                return "store schema is at version " + std::to_string(version) + ", expected " +
                       std::to_string(latest) + " (run kprov migrate)";
            return {};
        } catch (const std::exception& e) {
            return std::string("store not reachable: ") + e.what();
        }
    };
}

GardenerRequestMetrics::GardenerRequestMetrics(EngineAccess& access, api::Metrics& metrics)
    : m_access(access) {
    m_access.engine().observe_gardener_requests(
        [&metrics](const std::string& label, const std::string& method, int status) {
            if (label == "gardener")
                metrics.gardener_request(method, status);
        });
}

GardenerRequestMetrics::~GardenerRequestMetrics() {
    m_access.engine().observe_gardener_requests({});
}

std::unique_ptr<api::MetricsServer> bind_metrics_server(Context& ctx, api::Metrics& metrics,
                                                        api::ReadinessCheck readiness,
                                                        const std::optional<std::string>& flag,
                                                        spdlog::logger& log) {
    const auto& effective = ctx.config();
    const std::string address = flag.value_or(effective.settings.metrics_address);
    if (address.empty())
        return nullptr;
    bool chosen = flag.has_value();
    for (const auto& entry : effective.entries)
        if (entry.key == "metrics_address" && entry.origin != config::Origin::Default)
            chosen = true;
    auto server = std::make_unique<api::MetricsServer>(metrics, std::move(readiness), address);
    try {
        server->bind();
    } catch (const ConfigError& e) {
        if (chosen)
            throw;
        log.warn("{}; running without /metrics, /healthz and /readyz (set "
                 "APP_METRICS_ADDRESS or --metrics-address to serve them elsewhere)",
                 e.what());
        return nullptr;
    }
    return server;
}

} // namespace kprov::cli
