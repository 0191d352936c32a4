#include "gardener/json_projection.hpp"
#include "gardener/shoot_port.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

TEST(ShootState, ReadsEverythingTheEngineNeeds) {
    const json shoot = json::parse(R"({
      "metadata": {"name": "rt1", "resourceVersion": "42", "generation": 3,
                   "deletionTimestamp": "2026-11-30T10:00:00Z",
                   "annotations": {"kcp.provisioner.kyma-project.io/runtime-id": "r-1"},
                   "labels": {"account": "ga"}},
      "spec": {"dns": {"domain": "rt1.example.com"}, "seedName": "aws-eu1",
               "kubernetes": {"version": "1.30.1"}, "hibernation": {"enabled": true}},
      "status": {"observedGeneration": 2, "hibernated": true,
                 "lastOperation": {"type": "Reconcile", "state": "Failed", "progress": 40,
                                   "description": "quota"},
                 "lastErrors": [{"description": "no quota", "codes": ["ERR_INFRA_QUOTA_EXCEEDED"]},
                                {"description": "again", "codes": ["ERR_INFRA_RATE_LIMITS_EXCEEDED"]}],
                 "constraints": [{"type": "HibernationPossible", "status": "False",
                                  "message": "no way"}]}
    })");
    const auto s = shoot_state(shoot);
    EXPECT_EQ(s.name, "rt1");
    EXPECT_EQ(s.resource_version, "42");
    EXPECT_EQ(s.generation, 3);
    EXPECT_EQ(s.observed_generation, 2);
    EXPECT_EQ(s.annotations.at("kcp.provisioner.kyma-project.io/runtime-id"), "r-1");
    EXPECT_EQ(s.labels.at("account"), "ga");
    EXPECT_EQ(s.dns_domain, "rt1.example.com");
    EXPECT_EQ(s.seed_name, "aws-eu1");
    EXPECT_EQ(s.kubernetes_version, "1.30.1");
    ASSERT_TRUE(s.deletion_timestamp);
    EXPECT_EQ(format_rfc3339(*s.deletion_timestamp), "2026-11-30T10:00:00Z");
    EXPECT_TRUE(s.hibernation_enabled);
    EXPECT_TRUE(s.is_hibernated);
    ASSERT_TRUE(s.last_operation);
    EXPECT_EQ(s.last_operation->type, "Reconcile");
    EXPECT_EQ(s.last_operation->state, "Failed");
    EXPECT_EQ(s.last_operation->progress, 40);
    EXPECT_EQ(s.last_error_codes, (std::vector<std::string>{"ERR_INFRA_QUOTA_EXCEEDED",
                                                            "ERR_INFRA_RATE_LIMITS_EXCEEDED"}));
    EXPECT_EQ(s.last_errors_description, "no quota; again");
    EXPECT_EQ(s.hibernation_possible, false);
    EXPECT_EQ(s.hibernation_possible_message, "no way");
    EXPECT_EQ(json::parse(s.json), shoot);
}

// Everything shoot_state reads, as one comparable value.
std::string all_of(const engine::ShootState& s) {
    json j = {{"name", s.name},
              {"resourceVersion", s.resource_version},
              {"generation", s.generation},
              {"observedGeneration", s.observed_generation},
              {"annotations", s.annotations},
              {"labels", s.labels},
              {"domain", s.dns_domain.value_or("-")},
              {"seed", s.seed_name.value_or("-")},
              {"version", s.kubernetes_version},
              {"deleting", s.deletion_timestamp ? format_rfc3339(*s.deletion_timestamp) : "-"},
              {"hibernation", s.hibernation_enabled},
              {"hibernated", s.is_hibernated},
              {"errorCodes", s.last_error_codes},
              {"errors", s.last_errors_description},
              {"possible", s.hibernation_possible ? json(*s.hibernation_possible) : json()},
              {"possibleMessage", s.hibernation_possible_message}};
    if (s.last_operation)
        j["lastOperation"] = {s.last_operation->type, s.last_operation->state,
                              s.last_operation->description, s.last_operation->progress};
    return j.dump();
}

TEST(ShootState, TheWatchsProjectionHoldsAllThatShootStateReads) {
    // Every field shoot_state reads, among fields it does not read; then again with each
    // field shoot_state reads missing in turn.
    const json shoot = json::parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
      "metadata": {"name": "rt1", "namespace": "garden-p", "resourceVersion": "42",
                   "generation": 3, "uid": "u-1", "deletionTimestamp": "2026-11-30T10:00:00Z",
                   "annotations": {"kcp.provisioner.kyma-project.io/runtime-id": "r-1"},
                   "labels": {"account": "ga"}, "finalizers": ["gardener"]},
      "spec": {"dns": {"domain": "rt1.example.com", "providers": [{"type": "aws-route53"}]},
               "seedName": "aws-eu1", "region": "eu-central-1",
               "kubernetes": {"version": "1.30.1", "kubeAPIServer": {"oidcConfig": {}}},
               "hibernation": {"enabled": true, "schedules": []},
               "provider": {"type": "aws", "workers": [{"name": "cpu-worker", "maximum": 3}]}},
      "status": {"observedGeneration": 2, "hibernated": true, "technicalID": "shoot--p--rt1",
                 "conditions": [{"type": "APIServerAvailable", "status": "True"}],
                 "lastOperation": {"type": "Reconcile", "state": "Failed", "progress": 40,
                                   "description": "quota", "lastUpdateTime": "x"},
                 "lastErrors": [{"description": "no quota", "codes": ["ERR_INFRA_QUOTA_EXCEEDED"]}],
                 "constraints": [{"type": "HibernationPossible", "status": "False",
                                  "message": "no way"}]}
    })");
    const JsonProjection projection(shoot_state_fields());
    std::vector<json> variants{shoot};
    for (const auto& path : shoot_state_fields()) {
        json without = shoot;
        json::json_pointer pointer("/" + path);
        std::string text = pointer.to_string();
        std::replace(text.begin(), text.end(), '.', '/');
        pointer = json::json_pointer(text);
        without[pointer.parent_pointer()].erase(pointer.back());
        variants.push_back(without);
    }
    for (const auto& v : variants) {
        const auto projected = projection.parse(v.dump());
        ASSERT_TRUE(projected);
        EXPECT_EQ(all_of(shoot_state(*projected, WithJson::No)),
                  all_of(shoot_state(v, WithJson::No)));
        EXPECT_LT(projected->dump().size(), v.dump().size());
    }
}

TEST(ShootState, MissingOrMistypedFieldsReadAsDefaults) {
    for (const char* text :
         {R"({})", R"([])", R"("x")", R"({"metadata": 5, "spec": [], "status": null})",
          R"({"metadata": {"generation": "3", "annotations": {"a": 1}},
              "status": {"lastOperation": "x", "lastErrors": {"codes": 1},
                         "constraints": [{"type": 7}]}})"}) {
        SCOPED_TRACE(text);
        const auto s = shoot_state(json::parse(text));
        EXPECT_EQ(s.generation, 0);
        EXPECT_TRUE(s.annotations.empty());
        EXPECT_FALSE(s.dns_domain);
        EXPECT_FALSE(s.last_operation);
        EXPECT_TRUE(s.last_error_codes.empty());
        EXPECT_FALSE(s.hibernation_possible);
        EXPECT_FALSE(s.deletion_timestamp);
    }
}

} // namespace
} // namespace kprov::gardener
