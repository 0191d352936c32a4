#pragma once
// The cluster the store benchmarks write (kprov-bench-seed, kprov-bench-save-claim): GCP in
// europe-west3, as examples/gcp.yaml asks for, under the shoot name each benchmark gives.

#include "engine/model.hpp"

#include <string>

namespace kprov::bench {

inline engine::GardenerConfig gcp_cluster(std::string shoot_name) {
    engine::GardenerConfig g;
    g.id = engine::new_uuid();
    g.name = std::move(shoot_name);
    g.project_name = "bench";
    g.kubernetes_version = "1.34.6";
    g.machine_type = "n2-standard-4";
    g.region = "europe-west3";
    g.provider = "gcp";
    g.target_secret = "gcp-kyma-dev";
    g.worker_cidr = "10.250.0.0/16";
    g.auto_scaler_min = 3;
    g.auto_scaler_max = 10;
    g.provider_config = engine::GcpConfig{{"europe-west3-a"}};
    return g;
}

} // namespace kprov::bench
