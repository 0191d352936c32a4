// `kprov watch` as a process against kprov-sim: its shoot watch drives both the engine and the
// audit-log reconciler (APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH), so a runtime provisioned
// with the binary ends up with the audit-log extension of its seed's provider and region.

#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "watch_fixture.hpp"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

namespace kprov::director::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class DaemonWiring : public WatchProcessTest {};

TEST_F(DaemonWiring, TheWatchAddsTheAuditLogExtensionToOurShoots) {
    const std::string tenants = m_dir.file("tenants.json");
    std::ofstream(tenants) << R"({"gcp": {"europe-west3": {"tenantID": "t-gcp",
        "serviceURL": "https://audit.example/gcp", "secretName": "auditlog-gcp"}}})";
    start({"--project", "kprov", "--create-seconds", "0.3", "--seed-provider", "gcp",
           "--seed-region", "europe-west3"},
          {{"APP_RUNTIME_REGISTRATION_ENABLED", "false"},
           {"APP_RUNTIME_DEREGISTRATION_ENABLED", "false"},
           {"APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH", tenants}});
    if (!m_sim)
        return;
    const std::string runtime = write_runtime("audited");

    const auto provision = kprov({"provision", "-f", runtime});
    ASSERT_EQ(provision.exit_code, 0) << provision.err;

    kprov::testing::ChildProcess watch({KPROV_BINARY, "watch", "--workers", "2"}, m_env,
                                       m_dir.file("watch.out"), m_dir.file("watch.err"));
    gardener::GardenerClient garden(gardener::load_kubeconfig(m_sim->kubeconfig), "kprov");
    json extension;
    for (int i = 0; i < 600 && extension.is_null(); ++i) {
        if (const auto shoot = garden.get_shoot("audited"))
            for (const auto& e : (*shoot)["spec"].value("extensions", json::array()))
                if (e["type"] == "shoot-auditlog-service")
                    extension = e;
        if (extension.is_null())
            std::this_thread::sleep_for(50ms);
    }
    watch.signal(SIGTERM);
    EXPECT_EQ(watch.wait_for(30s), 0) << "kprov watch did not stop cleanly";
    ASSERT_FALSE(extension.is_null())
        << "no audit-log extension after 30 s; see " << m_dir.file("watch.err");
    EXPECT_EQ(extension["providerConfig"]["tenantID"], "t-gcp");
    const auto shoot = garden.get_shoot("audited").value();
    EXPECT_EQ(shoot["spec"]["resources"][0]["resourceRef"]["name"], "auditlog-gcp");
}

} // namespace
} // namespace kprov::director::test
