// The audit-log reconciler: the tenant config file, the extension and resource it adds, and
// against kprov-sim that it updates a shoot kprov owns once, leaves it alone the second time,
// and only warns about what it cannot do.

#include "gardener/audit_log.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "sim_shoots.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* k_config = R"({
  "aws": {"eu-central-1": {"tenantID": "t-aws", "serviceURL": "https://audit.example/aws",
                           "secretName": "auditlog-secret-aws"}},
  "azure": {"westeurope": {"tenantID": "t-az", "serviceURL": "https://audit.example/az",
                           "secretName": "auditlog-secret-az"}}
})";

TEST(AuditLogConfig, ReadsTenantsByProviderAndRegion) {
    const auto config = parse_audit_log_config(k_config, "tenants.json");
    EXPECT_EQ(config.at("aws").at("eu-central-1"),
              (AuditLogTenant{"t-aws", "https://audit.example/aws", "auditlog-secret-aws"}));
    EXPECT_EQ(config.at("azure").size(), 1u);
}

TEST(AuditLogConfig, TheExampleIsValid) {
    const auto config = read_audit_log_config(KPROV_SOURCE_DIR "/examples/audit-log-tenants.json");
    EXPECT_EQ(config.at("aws").at("eu-central-1").secret_name, "auditlog-credentials-aws");
}

TEST(AuditLogConfig, NamesTheFileAndTheBadEntry) {
    try {
        parse_audit_log_config(R"({"aws": {"eu-central-1": {"tenantID": "t"}}})", "tenants.json");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tenants.json"));
        EXPECT_THAT(e.what(), HasSubstr("aws.eu-central-1"));
        EXPECT_THAT(e.what(), HasSubstr("secretName"));
    }
    EXPECT_THROW(parse_audit_log_config("[1]", "f"), ConfigError);
    EXPECT_THROW(parse_audit_log_config(R"({"aws": 1})", "f"), ConfigError);
    EXPECT_THROW(read_audit_log_config("/nonexistent/tenants.json"), ConfigError);
}

TEST(AuditLogApply, AddsExtensionAndResourceOnceAndCorrectsThem) {
    const AuditLogTenant tenant{"t-1", "https://audit", "secret-1"};
    json shoot = {{"spec", {{"extensions", json::array({{{"type", "shoot-dns-service"}}})}}}};
    ASSERT_TRUE(apply_audit_log(shoot, tenant));
    const json& spec = shoot["spec"];
    ASSERT_EQ(spec["extensions"].size(), 2u);
    EXPECT_EQ(spec["extensions"][1],
              json::parse(R"({"type": "shoot-auditlog-service", "providerConfig": {
                "kind": "AuditlogConfig",
                "apiVersion": "service.auditlog.extensions.gardener.cloud/v1alpha1",
                "type": "standard", "tenantID": "t-1", "serviceURL": "https://audit",
                "secretReferenceName": "auditlog-credentials"}})"));
    EXPECT_EQ(spec["resources"], json::parse(R"([{"name": "auditlog-credentials",
                "resourceRef": {"apiVersion": "v1", "kind": "Secret", "name": "secret-1"}}])"));
    EXPECT_FALSE(apply_audit_log(shoot, tenant)) << "a second pass changed something";

    ASSERT_TRUE(apply_audit_log(shoot, {"t-2", "https://audit", "secret-2"}));
    EXPECT_EQ(shoot["spec"]["extensions"].size(), 2u);
    EXPECT_EQ(shoot["spec"]["extensions"][1]["providerConfig"]["tenantID"], "t-2");
    EXPECT_EQ(shoot["spec"]["resources"][0]["resourceRef"]["name"], "secret-2");
}

json shoot(const std::string& name, const std::string& runtime_id, const std::string& region) {
    json s = kprov::testing::minimal_aws_shoot(name);
    s["metadata"]["annotations"] = {{"kcp.provisioner.kyma-project.io/runtime-id", runtime_id}};
    s["spec"]["region"] = region;
    s["spec"]["provider"]["workers"][0]["zones"] = {region + "a"};
    return s;
}

class AuditLogSimTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            return;
        s_sim = new kprov::testing::SimProcess(binary, {"--project", "audit", "--seed-provider",
                                                        "aws", "--seed-region", "eu-central-1"});
    }
    static void TearDownTestSuite() {
        delete s_sim;
        s_sim = nullptr;
    }
    void SetUp() override {
        if (!s_sim)
            KPROV_SKIP_UNLESS_CI("kprov-sim is not built (target kprov-sim)");
        client = std::make_unique<GardenerClient>(load_kubeconfig(s_sim->kubeconfig), "audit");
    }

    AuditLogReconciler reconciler() {
        return AuditLogReconciler(*client, parse_audit_log_config(k_config, "tenants.json"),
                                  [](const std::string& id) { return id.rfind("ours-", 0) == 0; });
    }

    std::string resource_version(const std::string& name) {
        return client->get_shoot(name).value()["metadata"]["resourceVersion"];
    }

    static inline kprov::testing::SimProcess* s_sim = nullptr;
    std::unique_ptr<GardenerClient> client;
};

TEST_F(AuditLogSimTest, AddsTheExtensionForTheSeedAndRegionOnceOnly) {
    client->create_shoot(shoot("al-1", "ours-1", "eu-central-1"));
    auto r = reconciler();
    ASSERT_EQ(r.reconcile("al-1"), AuditLogOutcome::Updated);
    const json stored = client->get_shoot("al-1").value();
    bool found = false;
    for (const auto& e : stored["spec"]["extensions"])
        if (e["type"] == "shoot-auditlog-service") {
            found = true;
            EXPECT_EQ(e["providerConfig"]["tenantID"], "t-aws");
            EXPECT_EQ(e["providerConfig"]["serviceURL"], "https://audit.example/aws");
        }
    EXPECT_TRUE(found) << stored["spec"].dump();
    EXPECT_EQ(stored["spec"]["resources"][0]["resourceRef"]["name"], "auditlog-secret-aws");

    const std::string before = resource_version("al-1");
    EXPECT_EQ(r.reconcile("al-1"), AuditLogOutcome::Unchanged);
    EXPECT_EQ(resource_version("al-1"), before) << "the second pass wrote the shoot";
}

TEST_F(AuditLogSimTest, LeavesOtherShootsAndUnknownRegionsAlone) {
    client->create_shoot(shoot("al-foreign", "theirs-1", "eu-central-1"));
    client->create_shoot(shoot("al-region", "ours-2", "us-east-1"));
    const std::string foreign = resource_version("al-foreign");
    const std::string region = resource_version("al-region");
    auto r = reconciler();
    EXPECT_EQ(r.reconcile("al-foreign"), AuditLogOutcome::Skipped);
    EXPECT_EQ(r.reconcile("al-region"), AuditLogOutcome::Skipped);
    EXPECT_EQ(r.reconcile("al-missing"), AuditLogOutcome::Skipped);
    EXPECT_EQ(resource_version("al-foreign"), foreign);
    EXPECT_EQ(resource_version("al-region"), region);
}

TEST_F(AuditLogSimTest, TheWorkerReconcilesTheShootsOfWatchEvents) {
    client->create_shoot(shoot("al-event", "ours-3", "eu-central-1"));
    AuditLogWorker worker(std::make_shared<AuditLogReconciler>(reconciler()));
    worker.start();
    worker.on_shoot_events({{"al-event", std::string("ours-3"), false, {}}});
    bool updated = false;
    for (int i = 0; i < 500 && !updated; ++i) {
        const json s = client->get_shoot("al-event").value();
        updated = s["spec"].contains("resources");
        if (!updated)
            std::this_thread::sleep_for(20ms);
    }
    worker.stop();
    EXPECT_TRUE(updated) << "the worker did not reconcile the shoot within 10 s";
}

TEST(AuditLogWorkerFactory, NoPathNoWorkerAndABadFileOnlyWarns) {
    Kubeconfig kc;
    kc.server = "http://127.0.0.1:1";
    GardenerClient client(kc, "p");
    EXPECT_EQ(make_audit_log_worker(client, "", nullptr), nullptr);
    EXPECT_EQ(make_audit_log_worker(client, "/nonexistent/tenants.json", nullptr), nullptr);
}

} // namespace
} // namespace kprov::gardener
