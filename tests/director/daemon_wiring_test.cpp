// `kprov watch` as a process against kprov-sim: its shoot watch drives both the engine and the
// audit-log reconciler (APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH), so a runtime provisioned
// with the binary ends up with the audit-log extension of its seed's provider and region.

#include "cli/app.hpp"
#include "cli/child_process.hpp"
#include "director_testing.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "support/test_databases.hpp"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

extern char** environ;

namespace kprov::director::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST(DaemonWiring, TheWatchAddsTheAuditLogExtensionToOurShoots) {
    std::string why;
    auto sim = start_sim({"--project", "kprov", "--create-seconds", "0.3", "--seed-provider", "gcp",
                          "--seed-region", "europe-west3"},
                         why);
    if (!sim)
        KPROV_SKIP_UNLESS_CI(why);
    testing::TempDir dir;
    const std::string tenants = dir.file("tenants.json");
    std::ofstream(tenants) << R"({"gcp": {"europe-west3": {"tenantID": "t-gcp",
        "serviceURL": "https://audit.example/gcp", "secretName": "auditlog-gcp"}}})";
    const std::string runtime = dir.file("runtime.json");
    std::ofstream(runtime) << R"({
      "runtimeInput": {"name": "audited"},
      "clusterConfig": {"gardenerConfig": {
        "name": "audited", "kubernetesVersion": "1.34.6", "provider": "gcp",
        "targetSecret": "gcp-kyma-dev", "region": "europe-west3", "machineType": "e2-medium",
        "diskType": "pd-balanced", "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16",
        "autoScalerMin": 1, "autoScalerMax": 2, "maxSurge": 1, "maxUnavailable": 0,
        "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}}}})";

    const std::vector<std::pair<std::string, std::string>> settings = {
        {"HOME", dir.path()},
        {"XDG_CONFIG_HOME", dir.file("config")},
        {"XDG_STATE_HOME", dir.file("state")},
        {"KPROV_STORE", "sqlite://" + dir.file("kprov.db")},
        {"APP_DATABASE_SECRET_KEY", "0123456789abcdef0123456789abcdef"},
        {"KPROV_TENANT", "ga-1"},
        {"APP_GARDENER_KUBECONFIG_PATH", sim->kubeconfig.string()},
        {"APP_GARDENER_PROJECT", "kprov"},
        {"APP_RUNTIME_REGISTRATION_ENABLED", "false"},
        {"APP_RUNTIME_DEREGISTRATION_ENABLED", "false"},
        {"APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH", tenants},
    };
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool overridden = name == "APP_DATABASE_HOST" || name == "APP_DATABSE_HOST";
        for (const auto& [key, value] : settings)
            overridden = overridden || key == name;
        if (!overridden)
            env.push_back(entry);
    }
    for (const auto& [key, value] : settings)
        env.push_back(key + "=" + value);

    kprov::testing::ChildProcess started({KPROV_BINARY, "provision", "-f", runtime}, env,
                                         dir.file("provision.out"), dir.file("provision.err"));
    ASSERT_EQ(started.wait(), 0) << "kprov provision failed; see " << dir.file("provision.err");

    kprov::testing::ChildProcess watch({KPROV_BINARY, "watch", "--workers", "2"}, env,
                                       dir.file("watch.out"), dir.file("watch.err"));
    gardener::GardenerClient garden(gardener::load_kubeconfig(sim->kubeconfig), "kprov");
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
        << "no audit-log extension after 30 s; see " << dir.file("watch.err");
    EXPECT_EQ(extension["providerConfig"]["tenantID"], "t-gcp");
    const auto shoot = garden.get_shoot("audited").value();
    EXPECT_EQ(shoot["spec"]["resources"][0]["resourceRef"]["name"], "auditlog-gcp");
}

} // namespace
} // namespace kprov::director::test
