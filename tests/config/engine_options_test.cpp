#include "config/engine_options.hpp"
#include "config_testing.hpp"
#include "engine/error.hpp"

#include <gtest/gtest.h>

namespace kprov::config {
namespace {

using namespace std::chrono_literals;

TEST(EngineOptions, CarrySettingsIntoTheEngine) {
    Settings s;
    s.gardener_project = "kyma-dev";
    s.gardener_legacy_api = true;
    s.audit_logs_policy_config_map = "audit-policy";
    s.default_enable_kubernetes_version_auto_update = true;
    s.timeouts.cluster_creation = 2h;
    s.timeouts.waiting_for_cluster_deletion = 4h;
    s.timeouts.waiting_for_cluster_hibernation = 90min;
    s.operator_l2_subject_name = "l2";
    s.operator_l3_subject_name = "l3";
    s.operator_creating_for_admin = true;
    s.lease_duration = 45s;
    s.tenant_strict = true;
    const auto o = engine_options(s);
    EXPECT_EQ(o.conversion.gardener_project, "kyma-dev");
    EXPECT_TRUE(o.conversion.default_enable_kubernetes_version_auto_update);
    EXPECT_EQ(o.shoot.project, "kyma-dev");
    EXPECT_TRUE(o.shoot.legacy_api);
    EXPECT_EQ(o.shoot.audit_policy_config_map, "audit-policy");
    EXPECT_FALSE(o.shoot.maintenance_windows);
    EXPECT_EQ(o.timeouts.cluster_creation, Duration(2h));
    EXPECT_EQ(o.timeouts.waiting_for_cluster_deletion, Duration(4h));
    EXPECT_EQ(o.timeouts.waiting_for_cluster_hibernation, Duration(90min));
    EXPECT_EQ(o.operator_bindings.l2_subject_name, "l2");
    EXPECT_EQ(o.operator_bindings.l3_subject_name, "l3");
    EXPECT_TRUE(o.operator_bindings.create_for_administrators);
    EXPECT_EQ(o.lease_ttl, 45s);
    EXPECT_TRUE(o.tenant_strict);
}

TEST(EngineOptions, ReadTheMaintenanceWindowFileAndRefuseABrokenOne) {
    testing::TempDir dir;
    Settings s;
    s.maintenance_window_config_path = dir.write(
        "windows.json", R"({"WestEurope": {"begin": "170000+0000", "end": "180000+0000"}})");
    const auto o = shoot_options(s);
    ASSERT_TRUE(o.maintenance_windows);
    EXPECT_EQ(o.maintenance_windows->at("westeurope").begin, "170000+0000");

    s.maintenance_window_config_path = dir.write("broken.json", "{not json");
    EXPECT_THROW(shoot_options(s), ConfigError);
    s.maintenance_window_config_path = dir.file("missing.json");
    EXPECT_THROW(shoot_options(s), ConfigError);
}

} // namespace
} // namespace kprov::config
