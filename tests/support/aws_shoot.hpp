#pragma once
// The AWS Shoot that kprov-sim's tests and its cost benchmark create: Gardener's current API
// (cloudProfile, credentialsBindingName) on what the sim's default landscape offers in
// eu-central-1. Header-only: kprov_sim_tests does not link kprov_test_support.

#include <nlohmann/json.hpp>
#include <string>

namespace kprov::testing {

struct AwsShootOptions {
    std::string kubernetes_version = "1.34.6";
    bool auto_update_kubernetes = true; ///< spec.maintenance.autoUpdate.kubernetesVersion
    nlohmann::json annotations = nlohmann::json::object(); ///< none: no metadata.annotations
};

/// Shoot `namespace_`/`name` (labels account ga-1, subaccount sa-1) with one worker pool.
inline nlohmann::json aws_shoot(const std::string& name, const std::string& namespace_,
                                const AwsShootOptions& options = {}) {
    nlohmann::json s = nlohmann::json::parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
      "metadata": {"labels": {"account": "ga-1", "subaccount": "sa-1"}},
      "spec": {
        "cloudProfile": {"kind": "CloudProfile", "name": "aws"},
        "credentialsBindingName": "aws-kyma-dev",
        "region": "eu-central-1",
        "purpose": "production",
        "kubernetes": {"version": ""},
        "networking": {"type": "calico", "nodes": "10.250.0.0/16", "pods": "100.64.0.0/12",
                       "services": "100.104.0.0/13"},
        "maintenance": {"autoUpdate": {"kubernetesVersion": false, "machineImageVersion": false},
                        "timeWindow": {"begin": "220000+0000", "end": "230000+0000"}},
        "provider": {
          "type": "aws",
          "infrastructureConfig": {"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1",
                                   "kind": "InfrastructureConfig",
                                   "networks": {"vpc": {"cidr": "10.250.0.0/16"}}},
          "workers": [{"name": "cpu-worker-0", "machine": {"type": "m5.xlarge"},
                       "minimum": 1, "maximum": 3, "maxSurge": 1, "maxUnavailable": 0,
                       "zones": ["eu-central-1a"], "volume": {"type": "gp3", "size": "50Gi"}}]
        }
      }
    })");
    s["metadata"]["name"] = name;
    s["metadata"]["namespace"] = namespace_;
    if (!options.annotations.empty())
        s["metadata"]["annotations"] = options.annotations;
    s["spec"]["kubernetes"]["version"] = options.kubernetes_version;
    s["spec"]["maintenance"]["autoUpdate"]["kubernetesVersion"] = options.auto_update_kubernetes;
    return s;
}

} // namespace kprov::testing
