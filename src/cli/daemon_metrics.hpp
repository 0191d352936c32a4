#pragma once
// What watch and serve share to be observed: the /readyz check, the Gardener request counter,
// the metrics listener, and the workers gauge.

#include "api/metrics.hpp"
#include "api/server.hpp"
#include "cli/context.hpp"
#include "stores/open_store.hpp"

#include <memory>
#include <optional>
#include <string>

namespace kprov::cli {

/// /readyz: the store answers and its schema is the one this build writes.
api::ReadinessCheck store_readiness(stores::StoreBackend& store);

/// Counts the Gardener client's requests in `metrics` while it lives.
class GardenerRequestMetrics {
public:
    explicit GardenerRequestMetrics(api::Metrics& metrics);
    ~GardenerRequestMetrics();
    GardenerRequestMetrics(const GardenerRequestMetrics&) = delete;
    GardenerRequestMetrics& operator=(const GardenerRequestMetrics&) = delete;
};

/// watch's listener of /metrics, /healthz and /readyz, bound on `flag` (--metrics-address),
/// else APP_METRICS_ADDRESS; null for "". An address the user gave that cannot be bound is a
/// ConfigError; the default one (127.0.0.1:9000, which serve may hold on the same machine) is
/// a warning, and the watch runs without metrics.
std::unique_ptr<api::MetricsServer> bind_metrics_server(Context& ctx, api::Metrics& metrics,
                                                        api::ReadinessCheck readiness,
                                                        const std::optional<std::string>& flag);

/// The workers gauge: the pool's size while it lives (after the workers started), 0 after.
class WorkersGauge {
public:
    WorkersGauge(api::Metrics& metrics, int workers)
        : m_metrics(metrics) {
        m_metrics.workers(workers);
    }
    ~WorkersGauge() { m_metrics.workers(0); }
    WorkersGauge(const WorkersGauge&) = delete;
    WorkersGauge& operator=(const WorkersGauge&) = delete;

private:
    api::Metrics& m_metrics;
};

} // namespace kprov::cli
