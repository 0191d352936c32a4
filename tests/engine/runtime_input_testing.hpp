#pragma once
// Shared by the runtime_input_*_test.cpp files: a complete, valid request and ways to look at
// the problems a call reports.

#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"

#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::engine::testing {

using nlohmann::json;

// A complete, valid GCP request; tests change what they are about.
inline json provision_document() {
    return json::parse(R"({
      "runtimeInput": {"name": "my-runtime", "description": "test", "labels": {"team": "a", "n": 1}},
      "clusterConfig": {
        "administrators": ["admin@example.com"],
        "gardenerConfig": {
          "name": "shoot1",
          "kubernetesVersion": "1.29.2",
          "provider": "gcp",
          "targetSecret": "gcp-secret",
          "region": "europe-west3",
          "machineType": "e2-medium",
          "diskType": "pd-balanced",
          "volumeSizeGB": 32,
          "workerCidr": "10.250.0.0/16",
          "autoScalerMin": 2,
          "autoScalerMax": 4,
          "maxSurge": 4,
          "maxUnavailable": 1,
          "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}
        }
      }
    })");
}

inline json& gardener(json& document) {
    return document["clusterConfig"]["gardenerConfig"];
}

inline json openstack_document() {
    json doc = provision_document();
    gardener(doc)["provider"] = "OpenStack";
    gardener(doc)["providerSpecificConfig"] = json::parse(
        R"({"openStackConfig": {"zones": ["eu-de-1a"], "loadBalancerProvider": "f5"}})");
    gardener(doc).erase("diskType");
    gardener(doc).erase("volumeSizeGB");
    return doc;
}

inline std::vector<FieldProblem> problems_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const ValidationError& e) {
        return e.problems();
    }
    ADD_FAILURE() << "no ValidationError";
    return {};
}

inline std::vector<FieldProblem> parse_problems(const json& document) {
    return problems_of([&] { (void)parse_provision_input(document); });
}

inline std::vector<std::string> paths(const std::vector<FieldProblem>& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems)
        out.push_back(p.path);
    return out;
}

// "path: message" lines, for readable failures.
inline std::vector<std::string> lines(const std::vector<FieldProblem>& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems)
        out.push_back(p.path + ": " + p.message);
    return out;
}

inline const ConversionOptions k_options{"kyma-dev", false, false, true, false, {}};

} // namespace kprov::engine::testing
