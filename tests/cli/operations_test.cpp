// The operation commands (provision, upgrade-shoot, hibernate, wake-up, deprovision, wait)
// driven in-process through kprov::cli::run against kprov-sim, on SQLite and on PostgreSQL:
// what the sim's Gardener holds after each step, and what the store recorded.

#include "cli/app.hpp"
#include "cli/operations_fixture.hpp"
#include "cli/runtime_file.hpp"
#include "engine/error.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/test_databases.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;

// --- The whole life of a runtime, per provider and store ---------------------------------------

class Lifecycle : public OperationsBase,
                  public ::testing::WithParamInterface<std::tuple<StoreKind, std::string>> {
protected:
    void SetUp() override { open(std::get<0>(GetParam())); }
};

TEST_P(Lifecycle, ProvisionUpgradeHibernateWakeUpDeprovision) {
    const std::string provider = std::get<1>(GetParam());
    const auto [file, name] = runtime_file(provider);
    if (provider == "azure") // its DNS provider's Secret, named by credentialsRef from 1.35
        sim_secret("azure-dns-billing");

    // provision --wait
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json status = json::parse(r.out);
    const std::string runtime_id = status["runtimeID"];
    EXPECT_EQ(status["operation"], "Provision");
    EXPECT_EQ(status["state"], "Succeeded");
    auto live = shoot(name);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ((*live)["spec"]["provider"]["type"], provider);
    const json& annotations = (*live)["metadata"]["annotations"];
    EXPECT_EQ(annotations["kcp.provisioner.kyma-project.io/runtime-id"], runtime_id);
    EXPECT_EQ(annotations["kcp.provisioner.kyma-project.io/operation-id"], status["id"]);
    EXPECT_EQ((*live)["metadata"]["labels"]["account"], "ga-1");
    EXPECT_EQ((*live)["status"]["lastOperation"]["state"], "Succeeded");
    EXPECT_EQ((*live)["spec"]["kubernetes"]["version"], "1.34.6");
    expect_succeeded(
        runtime_id, OperationType::ProvisionNoInstall,
        {"WaitingForClusterDomain", "WaitingForClusterCreation", "CreatingBindingsForOperators"});
    const auto runtime = m_store->find_runtime(runtime_id);
    ASSERT_TRUE(runtime.has_value());
    EXPECT_EQ(runtime->gardener.seed, "sim-seed") << "the seed is learned from the shoot";
    auto cluster = gardener::RuntimeClusterClient::from_kubeconfig(
        m_gardener->admin_kubeconfig(name, std::chrono::hours(1)));
    std::vector<std::string> bindings;
    const json listed = cluster.list_cluster_role_bindings(
        "reconciler.kyma-project.io/managed-by=reconciler,app=kyma");
    for (const auto& item : listed["items"])
        bindings.push_back(item["metadata"]["name"]);
    EXPECT_THAT(bindings, UnorderedElementsAre("l2-operator", "l3-operator-admin"));

    // upgrade-shoot --wait (the example keeps the machine type: it suits every cloud)
    const std::string machine_type = m_store->find_runtime(runtime_id)->gardener.machine_type;
    r = kprov({"upgrade-shoot", runtime_id, "-f", k_examples + "upgrade.yaml", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("UpgradeShoot"));
    live = shoot(name);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ((*live)["spec"]["kubernetes"]["version"], "1.35.4") << "1.35 defaulted by Gardener";
    EXPECT_EQ((*live)["spec"]["provider"]["workers"][0]["machine"]["type"], machine_type);
    EXPECT_EQ((*live)["spec"]["provider"]["workers"][0]["maximum"], 12);
    expect_succeeded(runtime_id, OperationType::UpgradeShoot,
                     {"WaitingForShootNewVersion", "WaitingForShootUpgrade"});
    EXPECT_EQ(m_store->find_runtime(runtime_id)->gardener.machine_type, machine_type);

    // hibernate --wait
    r = kprov({"hibernate", runtime_id, "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    live = shoot(name);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ((*live)["spec"]["hibernation"]["enabled"], true);
    EXPECT_EQ((*live)["status"]["hibernated"], true);
    expect_succeeded(runtime_id, OperationType::Hibernate, {"WaitForHibernation"});

    // wake-up --wait
    r = kprov({"wake-up", runtime_id, "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    live = shoot(name);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ((*live)["spec"]["hibernation"]["enabled"], false);
    EXPECT_EQ((*live)["status"]["hibernated"], false);
    expect_succeeded(runtime_id, OperationType::WakeUp, {"WaitForWakeUp"});

    // deprovision --wait --yes
    r = kprov({"deprovision", runtime_id, "--wait", "--yes", "-o", "name"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(shoot(name).has_value());
    const auto last = expect_succeeded(runtime_id, OperationType::DeprovisionNoInstall,
                                       {"WaitForClusterDeletion"});
    EXPECT_EQ(r.out, last.id + "\n");
    EXPECT_TRUE(m_store->find_runtime(runtime_id)->deleted);

    const auto all = m_store->operations_of(runtime_id);
    ASSERT_EQ(all.size(), 5U);
    for (const auto& op : all)
        EXPECT_EQ(op.state, OperationState::Succeeded) << engine::to_api(op.type);
}

std::string
lifecycle_name(const ::testing::TestParamInfo<std::tuple<StoreKind, std::string>>& param) {
    return std::string(std::get<0>(param.param) == StoreKind::Sqlite ? "Sqlite_" : "Postgres_") +
           std::get<1>(param.param);
}

INSTANTIATE_TEST_SUITE_P(Providers, Lifecycle,
                         ::testing::Combine(::testing::Values(StoreKind::Sqlite,
                                                              StoreKind::Postgres),
                                            ::testing::Values("aws", "azure", "gcp", "openstack")),
                         lifecycle_name);

// --- Waiting, failures, refusals and output, per store -----------------------------------------

class Operations : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }
};

// Provisioning without --wait: tests/cli/one_shot_test.cpp.

TEST_P(Operations, ASecondOperationWhileOneIsInProgressIsRefused) {
    const auto [file, name] = runtime_file("azure");
    auto r = kprov({"provision", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json status = json::parse(r.out);
    const std::string runtime_id = status["runtimeID"];

    const std::string op_id = status["id"];
    // The command ran the provisioning to its first wait on Gardener; nobody drives it on.
    const std::string stage = stored_operation(op_id).stage;
    EXPECT_EQ(stage, "WaitingForClusterCreation");
    const std::string refusal = "kprov: error: another operation of runtime " + runtime_id +
                                " is in progress: the Provision operation " + op_id + " at stage " +
                                stage + "; follow it with: kprov wait " + op_id + "\n";
    r = kprov({"deprovision", runtime_id, "--yes", "--wait"});
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_THAT(r.err, HasSubstr(refusal));
    // By the shoot's name, as the built binary.
    std::vector<std::string> args = {KPROV_BINARY,
                                     "hibernate",
                                     name,
                                     "--store",
                                     m_store_url,
                                     "--gardener-kubeconfig",
                                     m_sim->kubeconfig.string(),
                                     "--gardener-project",
                                     k_project};
    std::vector<std::string> env = {"APP_DATABASE_SECRET_KEY=" + k_secret_key};
    for (auto& entry : kprov::testing::environment_without_settings())
        env.push_back(std::move(entry));
    const auto binary = kprov::testing::run_process(args, env, m_dir.path());
    EXPECT_EQ(binary.exit_code, 5) << binary.err;
    EXPECT_THAT(binary.err, HasSubstr(refusal));
    EXPECT_EQ(m_store->operations_of(runtime_id).size(), 1U);
    EXPECT_EQ(kprov({"wait", status["id"]}).code, 0);
}

TEST_P(Operations, AFailedShootFailsTheOperationWithItsLastError) {
    sim_post("/sim/shoots/fail-next", {{"codes", {"ERR_INFRA_QUOTA_EXCEEDED"}},
                                       {"type", "Create"},
                                       {"state", "Failed"},
                                       {"description", "quota of CPUs exceeded"}});
    const auto [file, name] = runtime_file("aws");
    const auto r = kprov({"provision", "-f", file, "--wait"});
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_THAT(r.err, HasSubstr("cluster provisioning failed"));
    EXPECT_THAT(r.err, HasSubstr("ERR_INFRA_QUOTA_EXCEEDED"));
    EXPECT_THAT(r.out, HasSubstr("Failed"));
    const auto runtimes = m_store->list_runtimes({});
    ASSERT_EQ(runtimes.size(), 1U);
    ASSERT_TRUE(runtimes[0].last_operation.has_value());
    const auto& op = *runtimes[0].last_operation;
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.last_error.reason, "ERR_INFRA_QUOTA_EXCEEDED");
    EXPECT_EQ(op.last_error.component, "gardener");
    EXPECT_THAT(op.last_error.message, HasSubstr("cluster provisioning failed"));
    EXPECT_FALSE(op.lease.has_value());
}

TEST_P(Operations, TimeoutLeavesTheOperationGoingAndWaitFinishesIt) {
    sim_post("/sim/settings", {{"createSeconds", 2.5}});
    const auto [file, name] = runtime_file("openstack");
    const auto started = std::chrono::steady_clock::now();
    auto r = kprov({"provision", "-f", file, "--wait", "--timeout", "1s", "-o", "name"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2400ms);
    ASSERT_EQ(r.code, 4) << r.err;
    const std::string op_id = r.out.substr(0, r.out.find('\n'));
    EXPECT_THAT(r.err, HasSubstr("Gardener goes on"));
    EXPECT_THAT(r.err, HasSubstr("`kprov wait " + op_id +
                                 "` (or a `kprov watch` or `kprov "
                                 "serve` on this store)"));
    auto op = stored_operation(op_id);
    EXPECT_EQ(op.state, OperationState::InProgress);
    EXPECT_EQ(op.stage, "WaitingForClusterCreation");
    EXPECT_FALSE(op.lease.has_value());

    r = kprov({"wait", op_id, "--timeout", "30s"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(stored_operation(op_id).state, OperationState::Succeeded);
}

// --wait runs the shoot watch of watch and serve, scoped to its shoot: the shoot's change wakes
// the driver and hands it the shoot, so WaitingForClusterCreation ends without a poll of its own.
// Its poll is 20 s; the deadline is below it: a driver that only polled could not finish in time.
TEST_P(Operations, WaitIsWokenByTheShootWatch) {
    sim_post("/sim/settings", {{"createSeconds", 2}});
    const auto [file, name] = runtime_file("gcp");
    sim_post("/sim/stats/reset", json::object());
    const auto r = kprov({"provision", "-f", file, "--wait", "--timeout", "15s", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out).value("state", ""), "Succeeded");
    const json requests = m_gardener->kube().get("/sim/stats")["requests"];
    const std::string shoots = "/apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots";
    // One watch, of this shoot alone (a field selector), for the whole wait.
    EXPECT_EQ(requests.value("WATCH " + shoots, 0LL), 1) << requests.dump();
    // The shoot was read at most by WaitingForClusterDomain and by a first look of
    // WaitingForClusterCreation that came before the watch's list; every later pass read the
    // watch's copy. A poll-driven wait reads it at every pass.
    EXPECT_LE(requests.value("GET " + shoots + "/{name}", 0LL), 2) << requests.dump();
}

TEST_P(Operations, SigintStopsWaitingAndLeavesTheOperationResumable) {
    sim_post("/sim/settings", {{"createSeconds", 30}});
    const auto [file, name] = runtime_file("gcp");
    Result r;
    std::thread command([&] { r = kprov({"provision", "-f", file, "--wait", "-o", "name"}); });
    // Once the operation waits for Gardener, --wait is driving it with its SIGINT handler on.
    std::optional<engine::Operation> op;
    for (int i = 0; i < 400 && !op; ++i) {
        for (const auto& rt : m_store->list_runtimes({}))
            if (rt.last_operation && rt.last_operation->stage == "WaitingForClusterCreation")
                op = rt.last_operation;
        if (!op)
            std::this_thread::sleep_for(10ms);
    }
    if (op)
        kill(getpid(), SIGINT);
    command.join();
    ASSERT_TRUE(op.has_value()) << r.err;
    EXPECT_EQ(r.code, 130) << r.err;
    EXPECT_EQ(r.out, op->id + "\n");
    EXPECT_THAT(r.err, HasSubstr("kprov wait " + op->id));
    const auto stored = stored_operation(op->id);
    EXPECT_EQ(stored.state, OperationState::InProgress);
    EXPECT_FALSE(stored.lease.has_value());

    // Resumable: another wait drives it on.
    r = kprov({"wait", op->id, "--timeout", "200ms"});
    EXPECT_EQ(r.code, 4) << r.err;
    EXPECT_EQ(stored_operation(op->id).state, OperationState::InProgress);
}

TEST_P(Operations, OutputShapes) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto status = nlohmann::ordered_json::parse(r.out);
    std::vector<std::string> keys;
    for (const auto& [key, value] : status.items())
        keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "operation", "state", "message", "runtimeID",
                                              "compassRuntimeID", "lastError", "stage",
                                              "startTimestamp", "endTimestamp"}));
    EXPECT_TRUE(status["compassRuntimeID"].is_null());
    EXPECT_TRUE(status["lastError"].is_null()) << "no error: null (the API keeps the object)";
    const std::string runtime_id = status["runtimeID"];

    r = kprov({"hibernate", runtime_id, "-o", "yaml"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json yaml = read_runtime_text(r.out, "output");
    EXPECT_EQ(yaml["operation"], "Hibernate");
    EXPECT_EQ(yaml["state"], "InProgress");
    EXPECT_EQ(yaml["runtimeID"], runtime_id);
    EXPECT_TRUE(yaml["compassRuntimeID"].is_null());
    const std::string op_id = yaml["id"];

    r = kprov({"wait", op_id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("runtime    " + runtime_id + "\n"));
    EXPECT_THAT(r.out, HasSubstr("operation  " + op_id + "\n"));
    EXPECT_THAT(r.out, HasSubstr("state      Succeeded\n"));
}

TEST_P(Operations, DeprovisionWithoutATerminalNeedsYes) {
    const auto [file, name] = runtime_file("aws");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string runtime_id = json::parse(r.out)["runtimeID"];
    r = kprov({"deprovision", runtime_id, "--wait"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("no terminal to ask on; add --yes"));
    EXPECT_EQ(m_store->operations_of(runtime_id).size(), 1U);
    EXPECT_TRUE(shoot(name).has_value());
}

TEST_P(Operations, ProvisionNeedsATenant) {
    unsetenv("KPROV_TENANT");
    const auto [file, name] = runtime_file("aws");
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--tenant"));
    EXPECT_THAT(r.err, HasSubstr("KPROV_TENANT"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_EQ(kprov({"provision", "-f", file, "--tenant", "ga-2", "-o", "name"}).code, 0);
}

TEST_P(Operations, DryRunsChangeNothing) {
    const auto [file, name] = runtime_file("azure");
    auto r = kprov({"provision", "-f", file, "--dry-run"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("billing-azure"));
    EXPECT_THAT(r.out, HasSubstr(name + " in garden-kyma-dev"));
    EXPECT_THAT(r.out, HasSubstr("azure"));
    EXPECT_THAT(r.err, HasSubstr("nothing was written"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(shoot(name).has_value());

    r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string runtime_id = json::parse(r.out)["runtimeID"];
    r = kprov({"upgrade-shoot", runtime_id, "-f", k_examples + "upgrade.yaml", "--dry-run"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("~ spec.kubernetes.version: \"1.34.6\" -> \"1.35.4\""));
    EXPECT_EQ(m_store->operations_of(runtime_id).size(), 1U);
    EXPECT_EQ((*shoot(name))["spec"]["kubernetes"]["version"], "1.34.6");
}

TEST_P(Operations, UsageErrorsAndUnknownIds) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--timeout", "1m"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--timeout applies to --wait"));
    r = kprov({"provision", "-f", file, "--wait", "--timeout", "soon"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("\"soon\" is not a duration"));
    EXPECT_TRUE(all_runtimes().empty());
    r = kprov({"wait", "no-such-operation"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("operation \"no-such-operation\" not found"));
    r = kprov({"hibernate", "no-such-runtime", "--wait"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("no-such-runtime"));
}

TEST_P(Operations, KubeconfigComesFromGardenerForALiveRuntimeOnly) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string runtime_id = json::parse(r.out)["runtimeID"];

    r = kprov({"kubeconfig", runtime_id, "--expiration", "1h"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("kind: Config"));
    EXPECT_THAT(r.out, HasSubstr("server: "));
    EXPECT_EQ(without_store_warning(r.err), "");
    // What kubectl would do with it: the runtime cluster answers.
    auto cluster = gardener::RuntimeClusterClient::from_kubeconfig(r.out);
    EXPECT_NO_THROW(cluster.get_namespace("kube-system"));

    r = kprov({"kubeconfig", runtime_id, "--expiration", "soon"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--expiration \"soon\""));
    r = kprov({"kubeconfig", "no-such-runtime"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("runtime \"no-such-runtime\" not found"));

    r = kprov({"deprovision", runtime_id, "--wait", "--yes", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    r = kprov({"kubeconfig", runtime_id});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("is deprovisioned"));
    EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(Stores, Operations,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

// --- The built binary -------------------------------------------------------------------------

class OperationsBinary : public OperationsBase {
protected:
    void SetUp() override { open(StoreKind::Sqlite); }
};

TEST_F(OperationsBinary, ProvisionWaitPrintsTheOperationStatusAsJson) {
    const auto [file, name] = runtime_file("aws");
    const std::string err_file = m_dir.file("stderr.txt");
    const std::string command = std::string(KPROV_BINARY) + " provision -f " + file +
                                " --wait -o json --store " + m_store_url +
                                " --gardener-kubeconfig " + m_sim->kubeconfig.string() +
                                " --gardener-project " + k_project + " 2>" + err_file;
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
        out.append(buffer, n);
    const int status = pclose(pipe);
    std::stringstream err;
    err << std::ifstream(err_file).rdbuf();
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << err.str();
    const json parsed = json::parse(out);
    EXPECT_EQ(parsed["state"], "Succeeded");
    EXPECT_EQ(parsed["operation"], "Provision");
    EXPECT_THAT(err.str(), HasSubstr("Finished (Succeeded)"));
    const auto live = shoot(name);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ((*live)["metadata"]["annotations"]["kcp.provisioner.kyma-project.io/runtime-id"],
              parsed["runtimeID"]);
}

} // namespace
} // namespace kprov::cli
