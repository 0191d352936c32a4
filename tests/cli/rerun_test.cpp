// A CI job (apply --wait, kubeconfig, deprovision --wait) run as the built binary against
// kprov-sim, killed with SIGKILL during a provisioning and during a deprovisioning, then run
// again: the re-run ends as an uninterrupted job would (issue 33). On SQLite and PostgreSQL.
//
// The kill points come from a seeded RNG; the seed is printed, and KPROV_RERUN_SEED=<seed>
// replays it.

#include "cli/operations_fixture.hpp"
#include "support/child_process.hpp"

#include <csignal>
#include <iostream>
#include <random>
#include <thread>

extern char** environ;

namespace kprov::cli {
namespace {

using namespace optest;
using Steady = std::chrono::steady_clock;
using ::testing::Not;

class Rerun : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(KPROV_BINARY))
            KPROV_SKIP_UNLESS_CI("kprov is not built");
        open(GetParam());
        if (IsSkipped() || HasFatalFailure())
            return;
        // Long enough that a kill within k_max_kill_ms of the operation's start always lands
        // while Gardener is still at it.
        sim_post("/sim/settings", {{"createSeconds", 4}, {"deleteSeconds", 4}});
        const char* given = std::getenv("KPROV_RERUN_SEED");
        const unsigned seed = given ? static_cast<unsigned>(std::stoul(given))
                                    : static_cast<unsigned>(std::random_device{}());
        std::cout << "rerun test seed " << seed << " (KPROV_RERUN_SEED=" << seed
                  << " replays the kill points)" << std::endl;
        RecordProperty("seed", std::to_string(seed));
        m_rng.seed(seed);
    }

    std::vector<std::string> child_env() const {
        auto env = kprov::testing::environment_without_settings();
        env.insert(env.end(), {"HOME=" + m_dir.path(), "XDG_CONFIG_HOME=" + m_dir.file("config"),
                               "XDG_STATE_HOME=" + m_dir.file("state"),
                               "APP_DATABASE_SECRET_KEY=" + k_secret_key, "KPROV_TENANT=ga-1",
                               // a killed process's lease is free again soon
                               "KPROV_LEASE_DURATION=2s"});
        return env;
    }
    std::vector<std::string> argv(std::vector<std::string> args) const {
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", m_store_url, "--gardener-kubeconfig",
                                 m_sim->kubeconfig.string(), "--gardener-project", k_project});
        return args;
    }
    kprov::testing::ProcessResult job(const std::vector<std::string>& args) {
        return kprov::testing::run_process(argv(args), child_env(), m_dir.path(), 120s);
    }

    // The live runtime of the shoot, if any.
    std::optional<engine::Runtime> live_runtime(const std::string& shoot) {
        for (const auto& summary : all_runtimes())
            if (summary.shoot_name == shoot)
                if (auto runtime = m_store->find_runtime(summary.id); runtime && !runtime->deleted)
                    return runtime;
        return std::nullopt;
    }

    // The operation in progress of the shoot's live runtime, of `type`, if any.
    std::optional<engine::Operation> running(const std::string& shoot,
                                             bool (*type)(OperationType)) {
        const auto runtime = live_runtime(shoot);
        auto last = runtime ? m_store->last_operation(runtime->id) : std::nullopt;
        if (last && last->state == OperationState::InProgress && type(last->type))
            return last;
        return std::nullopt;
    }

    // Runs `args` and kills it with SIGKILL at a seeded moment once it has an operation of
    // `type` in progress (0 to k_max_kill_ms later). Returns the operation it was killed in.
    engine::Operation kill_during(const std::vector<std::string>& args, const std::string& shoot,
                                  bool (*type)(OperationType), const char* what) {
        const int delay = std::uniform_int_distribution<int>(0, k_max_kill_ms)(m_rng);
        kprov::testing::ChildProcess child(argv(args), child_env(), m_dir.file("killed.out"),
                                           m_dir.file("killed.err"));
        std::optional<engine::Operation> op;
        const auto until = Steady::now() + 60s;
        while (!(op = running(shoot, type)) && Steady::now() < until &&
               !child.wait_for(std::chrono::milliseconds(0)))
            std::this_thread::sleep_for(10ms);
        if (!op) {
            ADD_FAILURE() << what << ": no operation started; stderr: "
                          << kprov::testing::read_text(m_dir.file("killed.err"));
            return {};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        child.signal(SIGKILL);
        EXPECT_EQ(child.wait(), 128 + SIGKILL) << what << " ended before the kill";
        const auto stored = stored_operation(op->id);
        std::cout << what << ": killed " << delay << " ms into " << engine::to_api(op->type)
                  << " operation " << op->id << ", left at stage " << stored.stage << std::endl;
        // The premise: the kill came while the operation was in progress.
        EXPECT_EQ(stored.state, OperationState::InProgress) << what;
        return stored;
    }

    // One apply result of -o json: the runtime's entry.
    static json applied(const kprov::testing::ProcessResult& r) {
        const json list = json::parse(r.out, nullptr, false);
        return list.is_array() && list.size() == 1 ? list[0] : json();
    }

    // The job's second step: the runtime's kubeconfig, as a test step would use it.
    void expect_kubeconfig(const std::string& runtime_id) {
        const auto r = job({"kubeconfig", runtime_id});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_THAT(r.out, HasSubstr("kind: Config"));
    }

    static bool provisioning(OperationType t) {
        return t == OperationType::Provision || t == OperationType::ProvisionNoInstall;
    }
    static bool deprovisioning(OperationType t) { return engine::is_deprovisioning(t); }

    static constexpr int k_max_kill_ms = 1500;
    std::mt19937 m_rng;
};

TEST_P(Rerun, AKilledJobRunAgainEndsAsAnUninterruptedJobWould) {
    const auto [file, shoot] = runtime_file("gcp");
    const std::vector<std::string> apply_wait = {"apply", "-f", file, "--wait", "-o", "json"};

    // 1. apply --wait killed during the provisioning.
    const auto provisioning_op = kill_during(apply_wait, shoot, provisioning, "apply --wait");
    ASSERT_FALSE(provisioning_op.id.empty());
    const std::string first_id = provisioning_op.cluster_id;

    // Without --wait the re-run starts nothing, says what runs and exits 5.
    auto r = job({"apply", "-f", file});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
    EXPECT_THAT(r.out + r.err, HasSubstr(provisioning_op.id));
    EXPECT_THAT(r.out + r.err, HasSubstr("kprov wait"));
    EXPECT_THAT(r.out, Not(HasSubstr("unchanged")));
    r = job({"provision", "-f", file});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;

    // The re-run of the job: apply --wait follows the provisioning to its end.
    r = job(apply_wait);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(applied(r).value("action", ""), "created") << r.out;
    EXPECT_EQ(applied(r).value("runtimeID", ""), first_id);
    EXPECT_EQ(stored_operation(provisioning_op.id).state, OperationState::Succeeded);
    expect_kubeconfig(first_id);

    // 2. The job's deprovision --wait killed during the deprovisioning.
    const auto deprovisioning_op = kill_during({"deprovision", first_id, "--yes", "--wait"}, shoot,
                                               deprovisioning, "deprovision --wait");
    ASSERT_FALSE(deprovisioning_op.id.empty());

    // apply without --wait never calls a runtime being deleted "unchanged": it exits 5.
    r = job({"apply", "-f", file, "-o", "json"});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
    EXPECT_EQ(applied(r).value("action", ""), "pending") << r.out;
    EXPECT_THAT(r.out + r.err, HasSubstr(deprovisioning_op.id));
    r = job({"deprovision", first_id, "--yes"});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;

    // 3. The re-run's apply --wait killed while it follows that deprovisioning, or after it, in
    // the provisioning of the new runtime.
    {
        const int delay = std::uniform_int_distribution<int>(0, k_max_kill_ms)(m_rng);
        kprov::testing::ChildProcess child(argv(apply_wait), child_env(), m_dir.file("killed.out"),
                                           m_dir.file("killed.err"));
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        child.signal(SIGKILL);
        EXPECT_EQ(child.wait(), 128 + SIGKILL);
        const auto stored = stored_operation(deprovisioning_op.id);
        std::cout << "apply --wait: killed " << delay << " ms after it started, deprovisioning "
                  << engine::to_api(stored.state) << " at stage " << stored.stage << std::endl;
    }

    // The job once more, uninterrupted: the runtime re-created, its kubeconfig there.
    r = job(apply_wait);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json entry = applied(r);
    EXPECT_THAT(entry.value("action", ""), ::testing::AnyOf("re-created", "created")) << r.out;
    const std::string second_id = entry.value("runtimeID", "");
    EXPECT_NE(second_id, first_id);
    EXPECT_EQ(stored_operation(deprovisioning_op.id).state, OperationState::Succeeded);
    EXPECT_TRUE(m_store->find_runtime(first_id)->deleted);
    ASSERT_TRUE(live_runtime(shoot));
    EXPECT_EQ(live_runtime(shoot)->id, second_id);
    expect_succeeded(second_id, OperationType::ProvisionNoInstall, {"WaitingForClusterCreation"});
    expect_kubeconfig(second_id);
    const auto live = this->shoot(shoot);
    ASSERT_TRUE(live.has_value());
    EXPECT_EQ(live->value(
                  "/metadata/annotations/kcp.provisioner.kyma-project.io~1runtime-id"_json_pointer,
                  std::string()),
              second_id)
        << "the shoot is not the new runtime's";

    // 4. The job's last step, uninterrupted: the runtime is gone.
    r = job({"deprovision", second_id, "--yes", "--wait"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(m_store->find_runtime(second_id)->deleted);
    EXPECT_FALSE(this->shoot(shoot).has_value());
    EXPECT_TRUE(m_store->count_in_progress().empty());
}

// `status` of an operation no process drives, after Gardener finished: it advances the operation
// by a pass (the chosen behaviour: see README, "Looking at runtimes"), so it shows Succeeded, not
// the stage the last process left it at; `list` says that no process holds it.
TEST_P(Rerun, StatusAdvancesAnUndrivenOperationOnceGardenerFinished) {
    // Long enough for the provisioning's first pass to end before Gardener does.
    sim_post("/sim/settings", {{"createSeconds", 1.5}});
    const auto [file, shoot] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "-o", "json"}); // one pass, then nobody drives it
    ASSERT_EQ(r.code, 0) << r.err;
    const json started = json::parse(r.out);
    const std::string runtime_id = started.value("runtimeID", "");
    const std::string operation_id = started.value("id", "");
    ASSERT_EQ(stored_operation(operation_id).state, OperationState::InProgress);
    EXPECT_FALSE(stored_operation(operation_id).lease.has_value());

    r = kprov({"list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("1 operation in progress is held by no process"));
    EXPECT_THAT(r.err, HasSubstr("kprov wait " + runtime_id));

    // Gardener finishes while nobody records it.
    const auto until = Steady::now() + 60s;
    auto created = [&] {
        const auto live = this->shoot(shoot);
        return live && live->value("/status/lastOperation/state"_json_pointer, std::string()) ==
                           "Succeeded";
    };
    while (!created() && Steady::now() < until)
        std::this_thread::sleep_for(20ms);
    ASSERT_TRUE(created()) << "the sim never finished creating shoot " << shoot;
    ASSERT_EQ(stored_operation(operation_id).state, OperationState::InProgress);

    // A status that cannot reach Gardener says what drives the operation, and changes nothing.
    r = kprov_raw({"status", runtime_id, "--store", m_store_url, "--gardener-kubeconfig",
                   m_dir.file("no-such-kubeconfig.yaml"), "--gardener-project", k_project});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("no process drives it"));
    EXPECT_THAT(r.err, HasSubstr("kprov wait " + operation_id));
    EXPECT_EQ(stored_operation(operation_id).state, OperationState::InProgress);

    // With Gardener: the status shows the operation's end, and the store has it.
    r = kprov({"status", runtime_id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json status = json::parse(r.out);
    EXPECT_EQ(status["lastOperationStatus"].value("state", ""), "Succeeded") << r.out;
    EXPECT_TRUE(status["lastOperationStatus"]["lastError"].is_null()) << r.out;
    expect_succeeded(runtime_id, OperationType::ProvisionNoInstall, {"WaitingForClusterCreation"});
}

// Hibernating a hibernated runtime, waking an awake one: "already ...", exit 0, no operation.
TEST_P(Rerun, NoOpHibernationsAnswerAlreadyAndStoreNoOperation) {
    sim_post("/sim/settings", k_fast_sim);
    const auto [file, shoot] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = json::parse(r.out).value("runtimeID", "");
    r = kprov({"wake-up", id});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("runtime " + id + " is already awake: nothing was started"));
    EXPECT_EQ(m_store->operations_of(id).size(), 1U);
    ASSERT_EQ(kprov({"hibernate", id, "--wait"}).code, 0);
    r = kprov({"hibernate", id, "--wait", "-o", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("is already hibernated"));
    EXPECT_EQ(json::parse(r.out).value("operation", ""), "Hibernate") << "its last operation";
    EXPECT_EQ(m_store->operations_of(id).size(), 2U);
}

// plan and the dry runs against the default store that is not there create nothing.
TEST_P(Rerun, DryRunsAndPlansCreateNoStoreKeyFileOrDirectory) {
    unsetenv("APP_DATABASE_SECRET_KEY"); // else no key file would be made in any case
    const auto [file, shoot] = runtime_file("gcp");
    const std::vector<std::string> where = {"--gardener-kubeconfig", m_sim->kubeconfig.string(),
                                            "--gardener-project", k_project};
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.end(), where.begin(), where.end());
        return kprov_raw(args);
    };
    EXPECT_EQ(with({"provision", "-f", file, "--dry-run"}).code, 0);
    EXPECT_EQ(with({"apply", "-f", file, "--dry-run"}).code, 0);
    EXPECT_EQ(with({"diff", "-f", file}).code, 6);
    EXPECT_EQ(with({"plan", "-f", file}).code, 0);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("state")))
        << "the default store's directory ($XDG_STATE_HOME/kprov) was created";
}

INSTANTIATE_TEST_SUITE_P(Stores, Rerun, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

} // namespace
} // namespace kprov::cli
