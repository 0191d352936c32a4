// Issue 20, part C, against the built kprov binary and kprov-sim: plans that show everything an
// upgrade writes (administrators, stored config, a kept Kubernetes version) with terraform's
// --detailed-exitcode; status with hibernation from Gardener, --live drift; the extra
// OperationStatus fields; kubeconfig of a hibernated runtime.

#include "cli/live_shoot.hpp"
#include "operations_fixture.hpp"
#include "support/child_process.hpp"

#include <chrono>
#include <regex>

extern char** environ;

namespace kprov::cli::optest {
namespace {

using ::testing::Not;

class LiveTruth : public OperationsBase {
protected:
    void SetUp() override { open(StoreKind::Sqlite); }

    // The built binary against this test's store and the simulator, with `env` added.
    Result binary(std::vector<std::string> args, const std::vector<std::string>& env = {},
                  const std::string& kubeconfig = {}) {
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", m_store_url, "--gardener-kubeconfig",
                                 kubeconfig.empty() ? m_sim->kubeconfig.string() : kubeconfig,
                                 "--gardener-project", k_project});
        std::vector<std::string> environment(env);
        for (char** e = environ; *e != nullptr; ++e)
            environment.emplace_back(*e);
        const auto r = kprov::testing::run_process(args, environment, m_dir.path());
        return {r.exit_code, r.out, r.err};
    }

    // A GCP runtime provisioned to its end, with `administrators`; returns its id and shoot.
    std::pair<std::string, std::string> provisioned(const std::vector<std::string>& admins = {}) {
        auto [file, name] = runtime_file("gcp");
        json document = read_runtime_file(file);
        document["clusterConfig"]["administrators"] = admins;
        std::ofstream(file) << document.dump();
        const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
        EXPECT_EQ(r.code, 0) << r.err;
        return {json::parse(r.out)["runtimeID"].get<std::string>(), name};
    }

    std::string upgrade_file(const json& document) {
        static int counter = 0;
        const std::string file = m_dir.file("upgrade-" + std::to_string(++counter) + ".json");
        std::ofstream(file) << document.dump();
        return file;
    }

    std::string live_version(const std::string& shoot_name) {
        return (*shoot(shoot_name))["spec"]["kubernetes"]["version"].get<std::string>();
    }
};

TEST_F(LiveTruth, PlanShowsWhoBecomesClusterAdminAndTheStoredConfiguration) {
    const auto [id, name] = provisioned({"alice@example.com", "bob@example.com"});
    const auto file = upgrade_file(
        {{"gardenerConfig", {{"autoScalerMax", 7}}},
         {"administrators", {"alice@example.com", "carol@example.com", "dave@example.com"}}});
    auto r =
        binary({"plan", id, "-f", file}, {"APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN=true"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("shoot " + name + " (Gardener):\n"));
    EXPECT_THAT(r.out, HasSubstr("  ~ spec.provider.workers[0].maximum: 4 -> 7\n"));
    EXPECT_THAT(r.out, HasSubstr("cluster-admin bindings (runtime cluster"));
    EXPECT_THAT(r.out, HasSubstr("  ~ ClusterRoleBinding administrator1: cluster-admin for User "
                                 "\"bob@example.com\" -> cluster-admin for User "
                                 "\"carol@example.com\"\n"));
    EXPECT_THAT(r.out, HasSubstr("  + ClusterRoleBinding administrator2: cluster-admin for User "
                                 "\"dave@example.com\"\n"));
    EXPECT_THAT(r.out, Not(HasSubstr("administrator0")));
    EXPECT_THAT(r.out, HasSubstr("runtime configuration (kprov's store):\n"));
    EXPECT_THAT(r.out, HasSubstr("  ~ autoScalerMax: 4 -> 7\n"));

    // Fewer administrators: someone stops being cluster-admin.
    const auto fewer = upgrade_file(
        {{"gardenerConfig", json::object()}, {"administrators", {"alice@example.com"}}});
    r = binary({"plan", id, "-f", fewer}, {"APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN=true"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("  - ClusterRoleBinding administrator1: cluster-admin for User "
                                 "\"bob@example.com\" (no longer)\n"));

    // Without bindings for administrators, the stored list is what changes.
    r = binary({"plan", id, "-f", fewer});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("~ administrators: [\"alice@example.com\",\"bob@example.com\"] "
                                 "-> [\"alice@example.com\"] (stored only"));
}

TEST_F(LiveTruth, DetailedExitcodeIsZeroForNoChangeTwoForChangesOneForErrors) {
    const auto [id, name] = provisioned({"alice@example.com"});
    const auto change = upgrade_file({{"gardenerConfig", {{"autoScalerMax", 6}}}});
    auto r = binary({"plan", id, "-f", change, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("kprov: error")));
    r = binary({"upgrade-shoot", id, "-f", change, "--dry-run", "--detailed-exitcode"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.out, HasSubstr("~ spec.provider.workers[0].maximum: 4 -> 6"));

    // Only the administrators change: a change all the same.
    const auto admins =
        upgrade_file({{"gardenerConfig", json::object()}, {"administrators", {"bob@example.com"}}});
    r = binary({"plan", id, "-f", admins, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 2) << r.out << r.err;

    const auto same = upgrade_file({{"gardenerConfig", json::object()}});
    r = binary({"plan", id, "-f", same, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("no change: shoot " + name + " already matches"));
    r = binary({"plan", id, "-f", same});
    EXPECT_EQ(r.code, 0);

    // Errors, usage errors included, exit 1 with the flag; 2 without it.
    const std::string bad = m_dir.file("bad.yaml");
    std::ofstream(bad) << "gardenerConfig:\n  autoScalerMax: lots\n";
    r = binary({"plan", id, "-f", bad, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("kprov: error:"));
    r = binary({"plan", id, "-f", bad});
    EXPECT_EQ(r.code, 2);
    r = binary({"plan", id, "--detailed-exitcode", "--no-such-flag", "-f", same});
    EXPECT_EQ(r.code, 1);
    r = binary({"plan", "no-such-runtime", "-f", same, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 1);
    r = binary({"upgrade-shoot", id, "-f", same, "--detailed-exitcode"});
    EXPECT_EQ(r.code, 1) << "--detailed-exitcode needs --dry-run";
    EXPECT_THAT(r.err, HasSubstr("--detailed-exitcode applies to --dry-run"));

    // A provisioning plan always changes something.
    r = binary({"plan", "-f", k_examples + "gcp.yaml", "--detailed-exitcode"});
    EXPECT_EQ(r.code, 2) << r.err;
}

TEST_F(LiveTruth, ALowerKubernetesVersionIsAWarningInPlanAndOperation) {
    const auto [id, name] = provisioned();
    const std::string version = live_version(name);
    const auto lower =
        upgrade_file({{"gardenerConfig", {{"kubernetesVersion", "1.20.1"}, {"autoScalerMax", 5}}}});
    auto r = binary({"plan", id, "-f", lower});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string warning = "kprov: warning: kubernetesVersion \"1.20.1\" is lower than the "
                                "shoot's \"" +
                                version + "\", which stays (kprov never downgrades Kubernetes)";
    EXPECT_THAT(r.err, HasSubstr(warning));
    EXPECT_THAT(r.out, Not(HasSubstr("spec.kubernetes.version")));

    r = binary({"upgrade-shoot", id, "-f", lower, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr(warning));
    // The command ran the operation to its first wait on Gardener: what it prints is that
    // stage; the starting message with the warning is in the history (below).
    const auto op = json::parse(r.out);
    r = binary({"wait", op["id"].get<std::string>()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(live_version(name), version);
    r = binary({"history", id});
    EXPECT_THAT(r.out,
                HasSubstr("warning: kubernetesVersion \"1.20.1\" is lower than the shoot's"));
}

TEST_F(LiveTruth, StatusShowsHibernationFromGardenerAndTheExtraOperationFields) {
    const auto [id, name] = provisioned();
    auto r = binary({"status", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("hibernated  no\n"));

    ASSERT_EQ(kprov({"hibernate", id, "--wait"}).code, 0);
    r = binary({"status", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("hibernated  yes\n"));

    r = binary({"status", id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto status = json::parse(r.out);
    EXPECT_EQ(status["hibernationStatus"]["hibernated"], true);
    EXPECT_EQ(status["gardener"]["hibernated"], true);
    EXPECT_EQ(status["gardener"]["drift"], json::array());
    const auto& last = status["lastOperationStatus"];
    EXPECT_EQ(last["operation"], "Hibernate");
    EXPECT_EQ(last["stage"], "Finished");
    const std::regex rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)");
    EXPECT_TRUE(std::regex_match(last["startTimestamp"].get<std::string>(), rfc3339)) << last;
    EXPECT_TRUE(std::regex_match(last["endTimestamp"].get<std::string>(), rfc3339)) << last;

    r = binary({"operation", last["id"].get<std::string>(), "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto op = nlohmann::ordered_json::parse(r.out);
    std::vector<std::string> keys;
    for (const auto& [key, value] : op.items())
        keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "operation", "state", "message", "runtimeID",
                                              "compassRuntimeID", "lastError", "stage",
                                              "startTimestamp", "endTimestamp"}));
}

TEST_F(LiveTruth, StatusSaysWhenItCouldNotAskGardenerAndAnswersFast) {
    const auto [id, name] = provisioned();
    // A port nothing listens on.
    const std::string unreachable = m_dir.file("unreachable.yaml");
    std::ofstream(unreachable)
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
           "    server: http://127.0.0.1:9\ncontexts:\n- name: c\n  context:\n"
           "    cluster: c\n    user: u\ncurrent-context: c\nusers:\n"
           "- name: u\n  user:\n    token: t\n";
    const auto started = std::chrono::steady_clock::now();
    auto r = binary({"status", id}, {}, unreachable);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("hibernated  unknown (Gardener not reachable: "));
    r = binary({"status", id, "-o", "json"}, {}, unreachable);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto status = json::parse(r.out);
    EXPECT_TRUE(status["hibernationStatus"].is_null());
    EXPECT_THAT(status["gardener"]["error"].get<std::string>(),
                HasSubstr("Gardener not reachable"));

    r = binary({"status", id, "--live"}, {}, unreachable);
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.out, HasSubstr("runtime     " + id + "\n")) << "the store's part comes first";
    EXPECT_THAT(r.err, HasSubstr("kprov: error: status --live: Gardener not reachable"));
}

TEST_F(LiveTruth, StatusLiveReportsDriftBetweenTheStoreAndGardener) {
    const auto [id, name] = provisioned();
    auto r = binary({"status", id, "--live"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("drift       none: the store and Gardener agree\n"));
    EXPECT_THAT(r.out, HasSubstr("gardener    Create Succeeded 100%"));

    // The shoot deleted behind kprov's back.
    m_gardener->patch_shoot(
        name,
        {{"metadata", {{"annotations", {{"confirmation.gardener.cloud/deletion", "true"}}}}}});
    ASSERT_TRUE(m_gardener->delete_shoot(name));
    for (int i = 0; i < 100 && shoot(name); ++i)
        std::this_thread::sleep_for(100ms);
    ASSERT_FALSE(shoot(name).has_value());
    r = binary({"status", id, "--live"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("gardener    the shoot is not in Gardener\n"));
    EXPECT_THAT(r.out, HasSubstr("drift       shoot " + name +
                                 " is not in Gardener, but the store has the runtime as live"));
    r = binary({"status", id});
    EXPECT_THAT(r.out, HasSubstr("hibernated  unknown (the shoot is not in Gardener)\n"));
}

TEST_F(LiveTruth, StatusLiveReportsHibernationChangedBehindKprovsBack) {
    const auto [id, name] = provisioned();
    ASSERT_EQ(kprov({"hibernate", id, "--wait"}).code, 0);
    m_gardener->patch_shoot(name, {{"spec", {{"hibernation", {{"enabled", false}}}}}});
    for (int i = 0; i < 100 && (*shoot(name))["status"].value("hibernated", true); ++i)
        std::this_thread::sleep_for(100ms);
    const auto r = binary({"status", id, "--live"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("hibernated  no\n"));
    EXPECT_THAT(r.out, HasSubstr("drift       the cluster is awake in Gardener, but kprov's last "
                                 "hibernation operation hibernated it"));
}

TEST_F(LiveTruth, KubeconfigOfAHibernatedRuntimeWarnsAndStillPrintsIt) {
    const auto [id, name] = provisioned();
    auto r = binary({"kubeconfig", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("hibernated")));
    ASSERT_EQ(kprov({"hibernate", id, "--wait"}).code, 0);
    r = binary({"kubeconfig", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("kind: Config"));
    EXPECT_THAT(r.err, HasSubstr("kprov: warning: the cluster of runtime " + id +
                                 " is hibernated: this kubeconfig works only once it is awake "
                                 "(kprov wake-up " +
                                 id + " --wait)"));
    r = binary({"kubeconfig", id, "-q"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.err, "");
}

// kprov-sim's gardenlet observes a new generation at once, as Gardener's does when it is well:
// what it cannot show is checked on the drift rules themselves.
TEST(LiveShootDrift, GenerationNotObservedFailedGardenerOperationAndAnotherVersion) {
    engine::Runtime runtime;
    runtime.id = "rt-1";
    runtime.gardener.name = "gcp-1";
    runtime.gardener.kubernetes_version = "1.29.2";
    engine::Operation done;
    done.type = OperationType::UpgradeShoot;
    done.state = OperationState::Succeeded;
    LiveShoot live;
    live.asked = true;
    engine::ShootState shoot;
    shoot.name = "gcp-1";
    shoot.annotations["kcp.provisioner.kyma-project.io/runtime-id"] = "rt-1";
    shoot.generation = 4;
    shoot.observed_generation = 3;
    shoot.kubernetes_version = "1.30.1";
    shoot.last_operation = engine::ShootState::LastOperation{"Reconcile", "Failed", "quota", 40};
    live.shoot = shoot;
    auto found = drift(runtime, {done}, live, {});
    ASSERT_EQ(found.size(), 3u) << ::testing::PrintToString(found);
    EXPECT_EQ(found[0], "Gardener has not reconciled the shoot's latest spec yet (generation 4, "
                        "observed 3)");
    EXPECT_EQ(found[1], "Gardener's last operation is Reconcile Failed 40%: quota, while kprov's "
                        "last operation succeeded");
    EXPECT_THAT(found[2], HasSubstr("Kubernetes 1.30.1 in Gardener, 1.29.2 in the store"));
    const auto document = live_json(live, found);
    EXPECT_EQ(document["generation"], 4);
    EXPECT_EQ(document["observedGeneration"], 3);
    EXPECT_EQ(document["lastOperation"]["state"], "Failed");

    // An operation in progress accounts for what it changes; another runtime's shoot is said.
    engine::Operation running = done;
    running.state = OperationState::InProgress;
    found = drift(runtime, {running}, live, {});
    EXPECT_EQ(found.size(), 1u) << ::testing::PrintToString(found);
    live.shoot->annotations["kcp.provisioner.kyma-project.io/runtime-id"] = "rt-2";
    found = drift(runtime, {done}, live, {});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0], HasSubstr("is not this runtime's"));
    live.error = "Gardener not reachable: x";
    EXPECT_TRUE(drift(runtime, {done}, live, {}).empty());
    EXPECT_EQ(hibernation_text(live), "unknown (Gardener not reachable: x)");
}

} // namespace
} // namespace kprov::cli::optest
