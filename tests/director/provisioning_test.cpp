// Provisioning and deprovisioning with Director registration, end to end: the engine's service
// and executor over a real SQLite store, the Gardener client, the runtime-cluster client and the
// Director client, all against kprov-sim over HTTP. What Director and the runtime cluster got
// is read back from the sim.

#include "director/director_client.hpp"
#include "director_testing.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/run/executor.hpp"
#include "engine/service/service.hpp"
#include "engine/stages/registration.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "gardener/landscape_port.hpp"
#include "gardener/operator_bindings.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "gardener/shoot_port.hpp"
#include "net/base64.hpp"
#include "stores/open_store.hpp"

#include <gtest/gtest.h>
#include <thread>

namespace kprov::director::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// Looks at the world again every 20 ms instead of sleeping until the stage's poll (5-20 s).
class QuickSleeper final : public engine::Sleeper {
public:
    void sleep_until(Timestamp until, std::stop_token) override {
        const auto left = until - std::chrono::time_point_cast<std::chrono::microseconds>(
                                      std::chrono::system_clock::now());
        if (left > std::chrono::microseconds(0))
            std::this_thread::sleep_for(std::min<std::chrono::microseconds>(left, 20ms));
    }
};

json provision_document(const std::string& shoot) {
    auto doc = json::parse(R"({
      "runtimeInput": {"name": "", "description": "registered by kprov",
                       "labels": {"team": "blue"}},
      "clusterConfig": {
        "administrators": ["admin@example.com"],
        "gardenerConfig": {
          "kubernetesVersion": "1.34.6", "provider": "gcp", "targetSecret": "gcp-kyma-dev",
          "region": "europe-west3", "machineType": "e2-medium", "diskType": "pd-balanced",
          "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16", "autoScalerMin": 1,
          "autoScalerMax": 2, "maxSurge": 1, "maxUnavailable": 0,
          "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}
        }
      }
    })");
    doc["runtimeInput"]["name"] = "runtime-" + shoot;
    doc["clusterConfig"]["gardenerConfig"]["name"] = shoot;
    return doc;
}

class ProvisioningWithDirectorTest : public SimSuite<ProvisioningWithDirectorTest> {
public:
    static std::vector<std::string> sim_flags() {
        return {"--project",           "kprov", "--create-seconds", "0.6",
                "--reconcile-seconds", "0.2",   "--delete-seconds", "0.3"};
    }

protected:
    void SetUp() override {
        SimSuite::SetUp();
        if (IsSkipped())
            return;

        stores::OpenOptions open;
        open.secret_key = std::string(32, 'k');
        open.schema = stores::SchemaCheck::Migrate;
        store = stores::open_store("sqlite://" + dir.file("kprov.db"), open);

        gardener = std::make_shared<gardener::GardenerClient>(
            gardener::load_kubeconfig(s_sim->kubeconfig), "kprov");
        shoots = std::make_unique<gardener::GardenerShootClient>(gardener);
        landscape = std::make_unique<gardener::GardenerLandscape>(
            [this]() -> gardener::GardenerClient& { return *gardener; });
        ports.landscape = landscape.get();
        director =
            std::make_unique<DirectorClient>(sim_credentials(s_sim->url), fast_options(s_sim->url));

        options.conversion.gardener_project = "kprov";
        options.shoot.project = "kprov";
        options.retry.first_retry = 10ms;
        options.retry.max_retry = 40ms;
        options.admin_kubeconfig_expiration = 1h;
        options.director.registration_enabled = true;
        options.director.deregistration_enabled = true;
        ports.director = director.get();
        ports.store = store.get();
        ports.shoots = shoots.get();
        ports.clusters = &clusters;
        ports.clock = &clock;
        options.director.max_failed_passes = 3;
    }

    engine::EngineService& service() {
        if (!m_service)
            m_service = std::make_unique<engine::EngineService>(ports, options);
        return *m_service;
    }
    engine::Executor& executor() {
        if (!m_executor)
            m_executor = std::make_unique<engine::Executor>(ports, options, [] { return 0.0; });
        return *m_executor;
    }

    engine::StartedOperation provision(const std::string& shoot) {
        return service().provision(engine::parse_provision_input(provision_document(shoot)),
                                   {"tenant-a", "sub-1"});
    }

    engine::Operation drive(const std::string& operation_id) {
        QuickSleeper sleeper;
        engine::DriveOptions o;
        o.deadline = clock.now() + 60s;
        const auto result = executor().drive(operation_id, "test-worker", sleeper, o);
        EXPECT_EQ(result.end, engine::DriveEnd::Ended) << "the operation did not end in 60 s";
        return result.operation;
    }

    gardener::RuntimeClusterClient cluster_of(const std::string& shoot) {
        return gardener::RuntimeClusterClient::from_kubeconfig(
            gardener->admin_kubeconfig(shoot, 1h));
    }

    testing::TempDir dir;
    SystemClock clock;
    std::unique_ptr<stores::StoreBackend> store;
    std::shared_ptr<gardener::GardenerClient> gardener;
    std::unique_ptr<gardener::GardenerShootClient> shoots;
    gardener::ClusterBindings clusters;
    std::unique_ptr<DirectorClient> director;
    std::unique_ptr<gardener::GardenerLandscape> landscape;
    engine::EngineOptions options;
    engine::EnginePorts ports;

private:
    std::unique_ptr<engine::EngineService> m_service;
    std::unique_ptr<engine::Executor> m_executor;
};

TEST_F(ProvisioningWithDirectorTest, RegistersLabelsConfiguresTheAgentAndUnregisters) {
    const auto started = provision("dir-reg");
    const std::string id = started.runtime_id;
    EXPECT_EQ(started.compass_runtime_id, id);
    json registered = control->director_runtime(id);
    ASSERT_FALSE(registered.is_null()) << "the runtime id is not Director's";
    EXPECT_EQ(registered["name"], "runtime-dir-reg");
    EXPECT_EQ(registered["tenant"], "tenant-a");
    EXPECT_EQ(registered["labels"]["team"], "blue");

    const auto done = drive(started.operation.id);
    ASSERT_EQ(done.state, engine::OperationState::Succeeded) << done.message;

    // Director: the labels of the domain on top of the runtime's own, and PROVISIONING.
    registered = control->director_runtime(id);
    EXPECT_EQ(registered["statusCondition"], "PROVISIONING");
    EXPECT_EQ(registered["labels"]["team"], "blue");
    EXPECT_EQ(registered["labels"]["gardenerClusterName"], "dir-reg");
    const auto shoot = gardener->get_shoot("dir-reg");
    ASSERT_TRUE(shoot);
    EXPECT_EQ(registered["labels"]["gardenerClusterDomain"], (*shoot)["spec"]["dns"]["domain"]);
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 1u);
    EXPECT_EQ(control->director_calls("requestOneTimeTokenForRuntime").size(), 1u);

    // The runtime cluster: the agent's secret, and the operator bindings.
    auto cluster = cluster_of("dir-reg");
    const auto secret = cluster.get_secret("kyma-system", "compass-agent-configuration");
    ASSERT_TRUE(secret);
    const auto data = (*secret)["data"];
    EXPECT_EQ(net::base64_decode(data["RUNTIME_ID"].get<std::string>()), id);
    EXPECT_EQ(net::base64_decode(data["TENANT"].get<std::string>()), "tenant-a");
    EXPECT_FALSE(net::base64_decode(data["TOKEN"].get<std::string>())->empty());
    EXPECT_FALSE(net::base64_decode(data["CONNECTOR_URL"].get<std::string>())->empty());
    EXPECT_TRUE(cluster.get_namespace("istio-system"));
    EXPECT_TRUE(cluster.get_namespace("kyma-system"));
    const auto bindings = cluster.list_cluster_role_bindings(gardener::k_managed_bindings_selector);
    std::vector<std::string> names;
    for (const auto& b : bindings["items"])
        names.push_back(b["metadata"]["name"]);
    EXPECT_EQ(names, (std::vector<std::string>{"l2-operator", "l3-operator-admin"}));
    EXPECT_TRUE(cluster.kube().get_if_exists(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/l2-operator-rules"));

    // Deprovisioning unregisters it.
    const auto deprovision = service().deprovision(id, {"tenant-a", ""});
    const auto gone = drive(deprovision.operation.id);
    ASSERT_EQ(gone.state, engine::OperationState::Succeeded) << gone.message;
    EXPECT_TRUE(control->director_runtime(id).is_null());
    EXPECT_EQ(control->director_calls("unregisterRuntime").size(), 1u);
}

TEST_F(ProvisioningWithDirectorTest, WithRegistrationOffDirectorIsNeverCalled) {
    options.director.registration_enabled = false;
    options.director.deregistration_enabled = false;
    const auto started = provision("dir-off");
    EXPECT_FALSE(started.compass_runtime_id);
    const auto done = drive(started.operation.id);
    ASSERT_EQ(done.state, engine::OperationState::Succeeded) << done.message;
    EXPECT_FALSE(cluster_of("dir-off").get_secret("kyma-system", "compass-agent-configuration"));

    const auto deprovision = service().deprovision(started.runtime_id, {"tenant-a", ""});
    EXPECT_EQ(drive(deprovision.operation.id).state, engine::OperationState::Succeeded);
    EXPECT_TRUE(control->director_calls().empty());
    EXPECT_EQ(control->token_requests(), 0);
}

TEST_F(ProvisioningWithDirectorTest, ADirectorOutageIsRetriedThenFailsTheOperation) {
    const auto started = provision("dir-down");
    control->post("/sim/faults", {{"pathPrefix", "/director/"}, {"status", 503}, {"count", -1}});
    const auto failed = drive(started.operation.id);
    ASSERT_EQ(failed.state, engine::OperationState::Failed);
    EXPECT_EQ(failed.stage, "WaitingForClusterDomain");
    EXPECT_EQ(failed.last_error.component, "compass director");
    EXPECT_NE(failed.message.find("503"), std::string::npos) << failed.message;
    // Three passes (max_failed_passes) of three tries each (the client's retries), and the
    // look-up for the FAILED status that found Director still down.
    const auto stats = control->get("/sim/stats")["requests"];
    EXPECT_GE(stats.value("POST /director/graphql", 0), 9);
}

TEST_F(ProvisioningWithDirectorTest, AShortDirectorOutageIsRiddenOut) {
    const auto started = provision("dir-blip");
    // Four failures: the first pass's three tries and one try of the second pass.
    control->post("/sim/faults", {{"pathPrefix", "/director/"}, {"status", 503}, {"count", 4}});
    const auto done = drive(started.operation.id);
    ASSERT_EQ(done.state, engine::OperationState::Succeeded) << done.message;
    EXPECT_EQ(control->director_runtime(started.runtime_id)["statusCondition"], "PROVISIONING");
}

TEST_F(ProvisioningWithDirectorTest, AFailedProvisioningSetsFailedInDirector) {
    control->post(
        "/sim/shoots/fail-next",
        {{"codes", {"ERR_INFRA_QUOTA_EXCEEDED"}}, {"type", "Create"}, {"state", "Failed"}});
    const auto started = provision("dir-fail");
    const auto failed = drive(started.operation.id);
    ASSERT_EQ(failed.state, engine::OperationState::Failed);
    EXPECT_EQ(failed.last_error.component, "gardener");
    EXPECT_EQ(control->director_runtime(started.runtime_id)["statusCondition"], "FAILED");
}

TEST_F(ProvisioningWithDirectorTest, ALostRegistrationAnswerRegistersOneRuntimeWithKprovsId) {
    // Director registers the runtime, but its answer is lost (502) once.
    control->post("/sim/director/errors",
                  {{"operation", "registerRuntime"}, {"httpStatus", 502}, {"count", 1}});
    const auto started = provision("dir-lost");
    const auto runtimes = control->get("/sim/director")["runtimes"];
    ASSERT_EQ(runtimes.size(), 1u) << runtimes.dump();
    EXPECT_EQ(runtimes[0]["id"], started.runtime_id) << "kprov's runtime id is Director's";
    EXPECT_TRUE(runtimes[0]["labels"].contains("kprov-request-id"));
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 1u);
    const auto done = drive(started.operation.id);
    ASSERT_EQ(done.state, engine::OperationState::Succeeded) << done.message;
}

TEST_F(ProvisioningWithDirectorTest, ARefusedRegistrationStoresNothing) {
    control->post("/sim/director/errors", {{"operation", "registerRuntime"}, {"code", 22}});
    try {
        provision("dir-refused");
        FAIL() << "provisioning started although Director refused the runtime";
    } catch (const engine::DirectorError& e) {
        EXPECT_NE(std::string(e.what()).find("Failed to register Runtime, "), std::string::npos);
        EXPECT_EQ(e.reason(), "InvalidData");
    }
    EXPECT_TRUE(store->list_runtimes({}).empty());
    EXPECT_FALSE(gardener->get_shoot("dir-refused"));
}

} // namespace
} // namespace kprov::director::test
