#include "cli/daemon_metrics.hpp"

#include "gardener/kube_client.hpp"
#include "stores/migrations.hpp"

#include <spdlog/spdlog.h>

namespace kprov::cli {

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

GardenerRequestMetrics::GardenerRequestMetrics(api::Metrics& metrics) {
    gardener::set_request_observer(
        [&metrics](const std::string& label, const std::string& method, int status) {
            if (label == "gardener")
                metrics.gardener_request(method, status);
        });
}

GardenerRequestMetrics::~GardenerRequestMetrics() {
    gardener::set_request_observer({});
}

std::unique_ptr<api::MetricsServer> bind_metrics_server(Context& ctx, api::Metrics& metrics,
                                                        api::ReadinessCheck readiness,
                                                        const std::optional<std::string>& flag) {
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
        spdlog::warn("{}; running without /metrics, /healthz and /readyz (set "
                     "APP_METRICS_ADDRESS or --metrics-address to serve them elsewhere)",
                     e.what());
        return nullptr;
    }
    return server;
}

} // namespace kprov::cli
