#pragma once
// The smallest Shoot kprov-sim admits (AWS, one worker pool), for tests that need shoots in the
// simulator without going through the shoot builder.

#include <nlohmann/json.hpp>
#include <string>

namespace kprov::testing {

/// A valid AWS Shoot named `name` in region eu-central-1 on the default landscape (Kubernetes
/// 1.34, binding aws-kyma-dev of the --project namespace), with no labels or annotations.
inline nlohmann::json minimal_aws_shoot(const std::string& name) {
    nlohmann::json s = nlohmann::json::parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
      "metadata": {"name": ""},
      "spec": {
        "cloudProfile": {"kind": "CloudProfile", "name": "aws"},
        "credentialsBindingName": "aws-kyma-dev", "region": "eu-central-1",
        "kubernetes": {"version": "1.34"},
        "networking": {"type": "calico", "nodes": "10.250.0.0/16"},
        "provider": {"type": "aws",
          "infrastructureConfig": {"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1",
                                   "kind": "InfrastructureConfig"},
          "workers": [{"name": "cpu-worker", "machine": {"type": "m5.xlarge"},
                       "minimum": 1, "maximum": 2, "zones": ["eu-central-1a"],
                       "volume": {"type": "gp3", "size": "50Gi"}}]}}})");
    s["metadata"]["name"] = name;
    return s;
}

} // namespace kprov::testing
