#include "support/store_fixtures.hpp"

#include "engine/input/provider_config.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::testing {

using namespace engine;

const Timestamp k_t0 = *parse_db_time("2026-11-30 10:00:00.123456");

Runtime small_runtime(const std::string& id, Timestamp created) {
    Runtime r;
    r.id = id;
    r.tenant = "tenant";
    r.creation_timestamp = created;
    r.gardener.id = new_uuid();
    r.gardener.name = "rt-" + id.substr(0, 6);
    r.gardener.project_name = "kyma-dev";
    r.gardener.kubernetes_version = "1.30.4";
    r.gardener.machine_type = "n2-standard-4";
    r.gardener.region = "europe-west3";
    r.gardener.provider = "gcp";
    r.gardener.target_secret = "gcp-secret";
    r.gardener.worker_cidr = "10.250.0.0/16";
    r.gardener.provider_config = GcpConfig{{"europe-west3-a"}};
    return r;
}

Operation new_operation(const std::string& runtime_id, OperationType type, Timestamp start,
                        const std::string& stage) {
    Operation op;
    op.id = new_uuid();
    op.type = type;
    op.state = OperationState::InProgress;
    op.message = "Operation started";
    op.start_timestamp = start;
    op.cluster_id = runtime_id;
    op.stage = stage;
    op.last_transition = start;
    op.next_run_at = start;
    return op;
}

namespace {

void expect_same_json(const std::string& got, const std::string& want, const char* what) {
    EXPECT_EQ(nlohmann::json::parse(got), nlohmann::json::parse(want)) << what;
}

std::string text_of(const KymaOverrides& o) {
    std::string out = "conflictStrategy \"" + o.conflict_strategy + "\"";
    for (const auto& e : o.entries)
        out += ", " + e.key + "=" + e.value + (e.secret ? " (secret)" : "");
    return out;
}

} // namespace

void expect_same_kyma(const std::optional<KymaConfig>& got, const std::optional<KymaConfig>& want) {
    ASSERT_EQ(got.has_value(), want.has_value())
        << (want ? "the runtime's Kyma config " + want->id + " was not read back"
                 : "a Kyma config " + got->id + " was read for a runtime without one");
    if (!want)
        return;
    SCOPED_TRACE("Kyma config " + want->id);
    EXPECT_EQ(got->id, want->id);
    EXPECT_EQ(got->cluster_id, want->cluster_id);
    EXPECT_EQ(got->release.id, want->release.id);
    EXPECT_EQ(got->release.version, want->release.version);
    EXPECT_EQ(got->release.tiller_yaml, want->release.tiller_yaml);
    EXPECT_EQ(got->release.installer_yaml, want->release.installer_yaml);
    EXPECT_EQ(got->profile, want->profile);
    EXPECT_EQ(text_of(got->global), text_of(want->global)) << "global configuration";
    ASSERT_EQ(got->components.size(), want->components.size()) << "number of components";
    for (std::size_t i = 0; i < want->components.size(); ++i) {
        const auto &g = got->components[i], &w = want->components[i];
        SCOPED_TRACE("component " + std::to_string(i) + " (" + w.name + ")");
        EXPECT_EQ(g.id, w.id);
        EXPECT_EQ(g.name, w.name);
        EXPECT_EQ(g.namespace_, w.namespace_);
        EXPECT_EQ(g.source_url, w.source_url);
        EXPECT_EQ(g.order, w.order);
        EXPECT_EQ(text_of(g.configuration), text_of(w.configuration)) << "configuration";
    }
    EXPECT_TRUE(*got == *want);
}

void expect_same_runtime(Runtime got, const Runtime& want) {
    SCOPED_TRACE("runtime " + want.id);
    expect_same_json(got.labels_json, want.labels_json, "labels");
    got.labels_json = want.labels_json;
    expect_same_kyma(got.kyma, want.kyma);
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.tenant, want.tenant);
    EXPECT_EQ(got.sub_account_id, want.sub_account_id);
    EXPECT_EQ(format_db_time(got.creation_timestamp), format_db_time(want.creation_timestamp));
    EXPECT_EQ(got.deleted, want.deleted);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.description, want.description);
    EXPECT_EQ(got.kubeconfig, want.kubeconfig);
    EXPECT_EQ(got.administrators, want.administrators);
    const auto &g = got.gardener, &w = want.gardener;
    EXPECT_EQ(g.id, w.id);
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.project_name, w.project_name);
    EXPECT_EQ(g.kubernetes_version, w.kubernetes_version);
    EXPECT_EQ(g.volume_size_gb, w.volume_size_gb);
    EXPECT_EQ(g.machine_type, w.machine_type);
    EXPECT_EQ(g.machine_image, w.machine_image);
    EXPECT_EQ(g.machine_image_version, w.machine_image_version);
    EXPECT_EQ(g.region, w.region);
    EXPECT_EQ(g.provider, w.provider);
    EXPECT_EQ(g.purpose, w.purpose);
    EXPECT_EQ(g.licence_type, w.licence_type);
    EXPECT_EQ(g.seed, w.seed);
    EXPECT_EQ(g.target_secret, w.target_secret);
    EXPECT_EQ(g.disk_type, w.disk_type);
    EXPECT_EQ(g.worker_cidr, w.worker_cidr);
    EXPECT_EQ(g.pods_cidr, w.pods_cidr);
    EXPECT_EQ(g.services_cidr, w.services_cidr);
    EXPECT_EQ(g.auto_scaler_min, w.auto_scaler_min);
    EXPECT_EQ(g.auto_scaler_max, w.auto_scaler_max);
    EXPECT_EQ(g.max_surge, w.max_surge);
    EXPECT_EQ(g.max_unavailable, w.max_unavailable);
    EXPECT_EQ(g.enable_kubernetes_version_auto_update, w.enable_kubernetes_version_auto_update);
    EXPECT_EQ(g.enable_machine_image_version_auto_update,
              w.enable_machine_image_version_auto_update);
    EXPECT_EQ(g.exposure_class_name, w.exposure_class_name);
    EXPECT_EQ(provider_type(g.provider_config), provider_type(w.provider_config));
    EXPECT_TRUE(g.provider_config == w.provider_config);
    EXPECT_EQ(g.shoot_networking_filter_disabled, w.shoot_networking_filter_disabled);
    EXPECT_EQ(g.control_plane_failure_tolerance, w.control_plane_failure_tolerance);
    EXPECT_EQ(g.eu_access, w.eu_access);
    EXPECT_TRUE(g.hibernation_schedules == w.hibernation_schedules);
    EXPECT_TRUE(g.oidc == w.oidc);
    EXPECT_TRUE(g.dns == w.dns);
    EXPECT_TRUE(got == want);
}

} // namespace kprov::testing
