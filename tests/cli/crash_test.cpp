// `kprov watch` as a black box against kprov-sim: worker processes killed with SIGKILL at random
// moments and restarted, on SQLite and PostgreSQL (every operation still ends Succeeded, one
// shoot per runtime, nothing left leased or in progress); and two watch processes on one
// PostgreSQL database (each stage runs once).
//
// The kill schedule comes from a seeded RNG; the seed is printed, and KPROV_CRASH_SEED=<seed>
// replays it.

#include "cli_testing.hpp"
#include "engine/store.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/test_databases.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

extern char** environ;

namespace kprov::cli {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string k_project = "kyma-dev";
const std::string k_shoots_key =
    "POST /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots";
const std::string k_admin_kubeconfig_key =
    "POST /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}/adminkubeconfig";
const std::string k_delete_key =
    "DELETE /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}";

std::string runtime_file(const std::string& shoot) {
    return "runtimeInput:\n  name: " + shoot +
           "\n"
           "clusterConfig:\n"
           "  administrators: [admin@example.com]\n"
           "  gardenerConfig:\n"
           "    name: " +
           shoot +
           "\n"
           "    kubernetesVersion: \"1.34.6\"\n"
           "    provider: gcp\n"
           "    targetSecret: gcp-kyma-dev\n"
           "    region: europe-west3\n"
           "    machineType: e2-medium\n"
           "    diskType: pd-balanced\n"
           "    volumeSizeGB: 32\n"
           "    workerCidr: 10.250.0.0/16\n"
           "    autoScalerMin: 2\n"
           "    autoScalerMax: 4\n"
           "    maxSurge: 4\n"
           "    maxUnavailable: 1\n"
           "    providerSpecificConfig:\n"
           "      gcpConfig:\n"
           "        zones: [europe-west3-b]\n";
}

struct Started {
    std::string runtime_id;
    std::string operation_id;
};

class WorkerProcesses : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(KPROV_BINARY))
            KPROV_SKIP_UNLESS_CI("kprov is not built");
        const std::string sim_binary = kprov::testing::find_sim_binary();
        if (sim_binary.empty())
            KPROV_SKIP_UNLESS_CI("kprov-sim is not built (target kprov-sim)");
        sim = std::make_unique<kprov::testing::SimProcess>(
            sim_binary,
            std::vector<std::string>{"--create-seconds", "0.5", "--reconcile-seconds", "0.3",
                                     "--delete-seconds", "0.3", "--project", k_project,
                                     // Passes that take a while, so that kills land in them.
                                     "--latency-ms", "40"});
        gardener = std::make_unique<gardener::GardenerClient>(
            gardener::load_kubeconfig(sim->kubeconfig), k_project);
    }

    // Creates and deletes answer slowly, so that some kills come after Gardener acted but
    // before kprov could record it: the next process's create must then adopt the shoot
    // (AlreadyExists), its delete find it being deleted.
    void slow_writes() {
        for (const char* method : {"POST", "DELETE"})
            gardener->kube().create("/sim/faults", {{"method", method},
                                                    {"pathPrefix", gardener->shoots_path()},
                                                    {"latencyMs", 300},
                                                    {"count", -1}});
    }
    void TearDown() override {
        if (HasFailure()) {
            const std::string log = testing::read_text(dir.file("watch.log"));
            std::cerr << "--- last lines of the watch processes' stderr ---\n"
                      << log.substr(log.size() > 6000 ? log.size() - 6000 : 0) << '\n';
        }
    }

    void use_sqlite() { store_url = "sqlite://" + dir.file("kprov.db"); }
    void use_postgres(const std::string& url) {
        store_url = url;
        secret_key = k_secret_key;
        const auto r = kprov({"migrate"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }

    // The whole environment of a child: this one's, without kprov's and the original's
    // settings, plus the test's.
    std::vector<std::string> child_env() const {
        std::vector<std::string> env = kprov::testing::environment_without_settings();
        env.push_back("XDG_CONFIG_HOME=" + dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + dir.file("state"));
        env.push_back("KPROV_LEASE_DURATION=" + lease);
        if (!secret_key.empty())
            env.push_back("APP_DATABASE_SECRET_KEY=" + secret_key);
        return env;
    }
    std::vector<std::string> argv(std::vector<std::string> args) const {
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", store_url, "--gardener-kubeconfig",
                                 sim->kubeconfig.string(), "--gardener-project", k_project});
        return args;
    }
    kprov::testing::ProcessResult kprov(const std::vector<std::string>& args) {
        return kprov::testing::run_process(argv(args), child_env(), dir.path());
    }
    std::unique_ptr<kprov::testing::ChildProcess> start_watch(int workers) {
        return std::make_unique<kprov::testing::ChildProcess>(
            argv({"watch", "--workers", std::to_string(workers)}), child_env(),
            dir.file("watch.out"), dir.file("watch.log"));
    }

    engine::Store& store() {
        if (!m_store) {
            stores::OpenOptions options;
            options.schema = stores::SchemaCheck::None;
            if (!secret_key.empty())
                options.secret_key = secret_key;
            m_store = stores::open_store(store_url, options);
        }
        return *m_store;
    }

    Started started(const kprov::testing::ProcessResult& r) {
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const json status = json::parse(r.out, nullptr, false);
        if (!status.is_object())
            return {};
        return {status.value("runtimeID", ""), status.value("id", "")};
    }
    std::vector<Started> provision(const std::string& prefix, int n) {
        std::vector<Started> out;
        for (int i = 0; i < n; ++i) {
            const std::string shoot = prefix + std::to_string(i);
            const std::string file = dir.file(shoot + ".yaml");
            std::ofstream(file) << runtime_file(shoot);
            out.push_back(started(kprov({"provision", "-f", file, "--tenant", "t", "-o", "json"})));
        }
        return out;
    }
    std::vector<Started> deprovision(const std::vector<Started>& runtimes) {
        std::vector<Started> out;
        for (const auto& r : runtimes)
            out.push_back(started(kprov({"deprovision", r.runtime_id, "--yes", "-o", "json"})));
        return out;
    }

    int ended(const std::vector<Started>& ops) {
        int n = 0;
        for (const auto& op : ops) {
            const auto stored = store().find_operation(op.operation_id);
            n += stored && stored->state != engine::OperationState::InProgress;
        }
        return n;
    }

    // How many of `ops` a lease of the process `pid` still holds (owners name the pid).
    int leased_by(pid_t pid, const std::vector<Started>& ops) {
        const std::string mark = "-" + std::to_string(pid) + "-";
        int n = 0;
        for (const auto& op : ops) {
            const auto stored = store().find_operation(op.operation_id);
            n += stored && stored->lease && stored->lease->owner.find(mark) != std::string::npos;
        }
        return n;
    }

    // Waits until the watch process has started its workers (and so handles SIGTERM).
    bool wait_until_running(const kprov::testing::ChildProcess& watch) {
        const std::string pid = "-" + std::to_string(watch.pid()) + "-";
        const auto until = Clock::now() + 20s;
        while (Clock::now() < until) {
            std::istringstream log(testing::read_text(dir.file("watch.log")));
            for (std::string line; std::getline(log, line);)
                if (line.find("workers started") != std::string::npos &&
                    line.find(pid) != std::string::npos)
                    return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }

    // 15 to 20 times: a watch process runs for 50-700 ms and is killed with SIGKILL.
    void kill_loop(std::mt19937& rng, const std::vector<Started>& ops, const char* phase) {
        std::uniform_int_distribution<int> count(15, 20), pause(50, 700);
        const int kills = count(rng);
        const auto began = Clock::now();
        int mid_pass = 0, orphaned = 0;
        for (int k = 0; k < kills; ++k) {
            auto watch = start_watch(3);
            std::this_thread::sleep_for(std::chrono::milliseconds(pause(rng)));
            watch->signal(SIGKILL);
            EXPECT_EQ(watch->wait(), 128 + SIGKILL);
            const int left = leased_by(watch->pid(), ops);
            mid_pass += left > 0;
            orphaned += left;
        }
        std::cout
            << phase << ": " << kills << " SIGKILLs in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()
            << " ms, " << mid_pass << " of them mid-pass (" << orphaned << " leases left behind); "
            << ended(ops) << " of " << ops.size() << " operations ended meanwhile" << std::endl;
    }

    // Runs watch processes (`processes` at once) until every operation ended, then stops
    // them with SIGTERM: each must exit 0.
    void run_to_end(const std::vector<Started>& ops, int processes, const char* phase) {
        const auto began = Clock::now();
        std::vector<std::unique_ptr<kprov::testing::ChildProcess>> watches;
        for (int i = 0; i < processes; ++i) {
            watches.push_back(start_watch(3));
            ASSERT_TRUE(wait_until_running(*watches.back()));
        }
        while (ended(ops) < static_cast<int>(ops.size()) && Clock::now() - began < 60s)
            std::this_thread::sleep_for(50ms);
        for (auto& w : watches)
            w->signal(SIGTERM);
        for (auto& w : watches) {
            const auto code = w->wait_for(20s);
            EXPECT_EQ(code, std::optional<int>(0)) << "watch did not stop gracefully";
        }
        std::cout
            << phase << ": every operation ended "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()
            << " ms later" << std::endl;
        ASSERT_EQ(ended(ops), static_cast<int>(ops.size())) << "operations still in progress";
    }

    // Every operation Succeeded, holds no lease, and entered each stage once.
    void expect_succeeded_cleanly(const std::vector<Started>& ops) {
        for (const auto& op : ops) {
            const auto stored = store().find_operation(op.operation_id);
            ASSERT_TRUE(stored) << op.operation_id;
            EXPECT_EQ(stored->state, engine::OperationState::Succeeded)
                << stored->message << " / " << stored->last_error.message;
            EXPECT_FALSE(stored->lease)
                << "operation " << op.operation_id << " still leased by " << stored->lease->owner;
            std::set<std::string> entered;
            for (const auto& t : store().transitions_of(op.operation_id))
                EXPECT_TRUE(entered.insert(t.to_stage + "/" + std::string(to_db(t.state))).second)
                    << "operation " << op.operation_id << " entered " << t.to_stage << " twice";
        }
        EXPECT_TRUE(store().count_in_progress().empty());
    }

    // The shoots the sim holds, by name: the runtime id annotation of each.
    std::map<std::string, std::string> sim_shoots() {
        std::map<std::string, std::string> out;
        const json list = gardener->list_shoots();
        for (const auto& item : list["items"])
            out[item["metadata"]["name"].get<std::string>()] = item["metadata"].value(
                "/annotations/kcp.provisioner.kyma-project.io~1runtime-id"_json_pointer,
                std::string());
        return out;
    }
    long long sim_requests(const std::string& key) {
        return gardener->kube().get("/sim/stats")["requests"].value(key, 0LL);
    }

    // Exactly one shoot per runtime, each carrying its runtime's id. Nothing deletes shoots
    // while provisioning, so this also means one successful create per runtime: a create after
    // a crash must have met AlreadyExists for our own annotation.
    void expect_one_shoot_per_runtime(const std::vector<Started>& runtimes,
                                      const std::string& prefix) {
        const auto shoots = sim_shoots();
        ASSERT_EQ(shoots.size(), runtimes.size());
        for (std::size_t i = 0; i < runtimes.size(); ++i) {
            const auto it = shoots.find(prefix + std::to_string(i));
            ASSERT_NE(it, shoots.end());
            EXPECT_EQ(it->second, runtimes[i].runtime_id);
        }
        EXPECT_GE(sim_requests(k_shoots_key), static_cast<long long>(runtimes.size()));
    }

    std::mt19937 seeded_rng() {
        const char* given = std::getenv("KPROV_CRASH_SEED");
        const unsigned seed = given ? static_cast<unsigned>(std::stoul(given))
                                    : static_cast<unsigned>(std::random_device{}());
        std::cout << "crash test seed " << seed << " (KPROV_CRASH_SEED=" << seed
                  << " replays the kill schedule)" << std::endl;
        RecordProperty("seed", std::to_string(seed));
        return std::mt19937(seed);
    }

    void crash_and_recover() {
        auto rng = seeded_rng();
        slow_writes();
        const auto runtimes = provision("crash-", 6);
        ASSERT_EQ(runtimes.size(), 6u);
        kill_loop(rng, runtimes, "provisioning");
        run_to_end(runtimes, 1, "provisioning");
        expect_succeeded_cleanly(runtimes);
        expect_one_shoot_per_runtime(runtimes, "crash-");
        std::cout << "provisioning: " << sim_requests(k_shoots_key)
                  << " shoot creates for 6 runtimes (those beyond 6 met AlreadyExists)"
                  << std::endl;

        const auto deprovisions = deprovision(runtimes);
        kill_loop(rng, deprovisions, "deprovisioning");
        run_to_end(deprovisions, 1, "deprovisioning");
        expect_succeeded_cleanly(deprovisions);
        EXPECT_TRUE(sim_shoots().empty());
        for (const auto& r : runtimes)
            EXPECT_TRUE(store().find_runtime(r.runtime_id)->deleted);
    }

    void slow_stage_calls_outlast_the_lease();

    testing::TempDir dir;
    std::unique_ptr<kprov::testing::SimProcess> sim;
    std::unique_ptr<gardener::GardenerClient> gardener;
    std::string store_url;
    std::string secret_key;
    /// Short, so that the operations a killed process held are taken over quickly.
    std::string lease = "2s";

private:
    std::unique_ptr<stores::StoreBackend> m_store;
};

TEST_F(WorkerProcesses, KilledAtRandomMomentsOnSqliteEveryOperationStillSucceedsOnce) {
    use_sqlite();
    crash_and_recover();
}

TEST_F(WorkerProcesses, KilledAtRandomMomentsOnPostgresEveryOperationStillSucceedsOnce) {
    KPROV_FRESH_POSTGRES(db);
    use_postgres(db->url());
    crash_and_recover();
}

// Gardener answering creates and admin kubeconfigs 2.5 s late, against a 1 s lease: each pass
// keeps its lease through the heartbeat, so no other worker of the process takes an operation
// over mid-stage (which would create the shoot twice) and no progress is thrown away.
void WorkerProcesses::slow_stage_calls_outlast_the_lease() {
    lease = "1s";
    gardener->kube().create("/sim/faults", {{"method", "POST"},
                                            {"pathPrefix", gardener->shoots_path()},
                                            {"latencyMs", 2500},
                                            {"count", -1}});
    auto watch = start_watch(3);
    ASSERT_TRUE(wait_until_running(*watch));
    const auto runtimes = provision("slow-", 2);
    run_to_end(runtimes, 0, "slow Gardener, provisioning");
    expect_succeeded_cleanly(runtimes);
    expect_one_shoot_per_runtime(runtimes, "slow-");
    EXPECT_EQ(sim_requests(k_shoots_key), 2) << "a create ran twice: a lease was lost mid-stage";
    EXPECT_EQ(sim_requests(k_admin_kubeconfig_key), 2);
    watch->signal(SIGTERM);
    EXPECT_EQ(watch->wait_for(20s), std::optional<int>(0));
}

TEST_F(WorkerProcesses, ASlowStageCallKeepsItsLeaseOnSqlite) {
    use_sqlite();
    slow_stage_calls_outlast_the_lease();
}

TEST_F(WorkerProcesses, ASlowStageCallKeepsItsLeaseOnPostgres) {
    KPROV_FRESH_POSTGRES(db);
    use_postgres(db->url());
    slow_stage_calls_outlast_the_lease();
}

TEST_F(WorkerProcesses, TwoProcessesOnOnePostgresDatabaseRunEachStageOnce) {
    KPROV_FRESH_POSTGRES(db);
    lease = "30s"; // no crash here: a lease never expires under a running pass
    use_postgres(db->url());
    // Both processes are up before the operations exist, so both go for every one of them.
    auto first = start_watch(3);
    auto second = start_watch(3);
    ASSERT_TRUE(wait_until_running(*first));
    ASSERT_TRUE(wait_until_running(*second));
    const auto runtimes = provision("two-", 8);
    run_to_end(runtimes, 0, "two processes, provisioning");
    expect_succeeded_cleanly(runtimes);
    expect_one_shoot_per_runtime(runtimes, "two-");
    // One create and one admin kubeconfig (CreatingBindingsForOperators) per runtime: no stage
    // with a side effect ran twice.
    EXPECT_EQ(sim_requests(k_shoots_key), 8);
    EXPECT_EQ(sim_requests(k_admin_kubeconfig_key), 8);

    const auto deprovisions = deprovision(runtimes);
    run_to_end(deprovisions, 0, "two processes, deprovisioning");
    expect_succeeded_cleanly(deprovisions);
    EXPECT_EQ(sim_requests(k_delete_key), 8);
    EXPECT_TRUE(sim_shoots().empty());

    for (auto* w : {first.get(), second.get()})
        w->signal(SIGTERM);
    EXPECT_EQ(first->wait_for(20s), std::optional<int>(0));
    EXPECT_EQ(second->wait_for(20s), std::optional<int>(0));
    // How the work was shared (not asserted: either process may win every race).
    std::istringstream log(testing::read_text(dir.file("watch.log")));
    int by_first = 0, by_second = 0;
    for (std::string line; std::getline(log, line);) {
        if (line.find(" succeeded") == std::string::npos)
            continue;
        by_first += line.find("-" + std::to_string(first->pid()) + "-") != std::string::npos;
        by_second += line.find("-" + std::to_string(second->pid()) + "-") != std::string::npos;
    }
    EXPECT_EQ(by_first + by_second, 16);
    std::cout << "operations finished by the first process: " << by_first
              << ", by the second: " << by_second << std::endl;
}

} // namespace
} // namespace kprov::cli
