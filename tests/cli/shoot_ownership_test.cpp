// One runtime per shoot (issue 15): a runtime never writes to a shoot that is not its own, a
// live runtime owns its shoot name (the same request again is answered with its provisioning,
// any other is refused), and what `kprov plan RUNTIME_ID -f FILE` shows is what the
// UpgradingShoot stage sends. Against kprov-sim, on SQLite and on PostgreSQL.

#include "cli/operations_fixture.hpp"
#include "support/child_process.hpp"

#include <set>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;

// A second store beside the test's own, of the same kind: another kprov installation sharing
// the Gardener project.
class SecondStore {
public:
    SecondStore(StoreKind kind, const testing::TempDir& dir) {
        if (kind == StoreKind::Postgres) {
            m_db = std::make_unique<kprov::testing::PostgresDatabase>(
                *kprov::testing::postgres_server_uri());
            url = m_db->url();
        } else {
            url = "sqlite://" + dir.file("second.db");
        }
    }
    std::string url;

private:
    std::unique_ptr<kprov::testing::PostgresDatabase> m_db;
};

class ShootOwnership : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }

    // kprov against the second store.
    Result kprov_on(const std::string& store_url, std::vector<std::string> args) const {
        args.insert(args.end(), {"--store", store_url, "--gardener-kubeconfig",
                                 m_sim->kubeconfig.string(), "--gardener-project", k_project});
        return kprov_raw(args);
    }

    json sim_get(const std::string& path) { return m_gardener->kube().get(path); }

    // Requests other than GET and WATCH that reached shoots of this name since the last reset.
    std::vector<std::string> shoot_writes(const std::string& name) {
        std::vector<std::string> writes;
        for (const auto& w : sim_get("/sim/writes")) {
            const std::string path = w["path"];
            if (path.find("/shoots/" + name) != std::string::npos)
                writes.push_back(w["verb"].get<std::string>() + " " + path);
        }
        return writes;
    }
};

INSTANTIATE_TEST_SUITE_P(Stores, ShootOwnership,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

TEST_P(ShootOwnership, AnotherStoresRuntimeOfTheSameShootNameNeverTouchesTheShoot) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string owner = json::parse(r.out)["runtimeID"];

    // A colleague's kprov, with a store of its own, asks for the same shoot name.
    const SecondStore second(GetParam(), m_dir);
    if (GetParam() == StoreKind::Postgres) {
        ASSERT_EQ(kprov_on(second.url, {"migrate"}).code, 0);
    }
    r = kprov_on(second.url, {"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 3) << r.err;
    const json failed = json::parse(r.out);
    EXPECT_THAT(failed["message"].get<std::string>(), HasSubstr("belongs to runtime " + owner));
    const std::string other = failed["runtimeID"];

    m_gardener->kube().create("/sim/stats/reset", json::object());
    // Every write of the other runtime is refused, naming the shoot's owner.
    const auto upgrade_file = m_dir.file("upgrade.json");
    std::ofstream(upgrade_file) << R"({"gardenerConfig": {"autoScalerMax": 5}})";
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"upgrade-shoot", other, "-f", upgrade_file, "--wait"},
          {"hibernate", other, "--wait"},
          {"wake-up", other, "--wait"}}) {
        r = kprov_on(second.url, command);
        EXPECT_EQ(r.code, 1) << command[0] << ": " << r.err;
        EXPECT_THAT(r.err, HasSubstr("belongs to runtime " + owner)) << command[0];
    }
    // Deprovisioning it only marks it deleted, and says whose shoot it found.
    r = kprov_on(second.url, {"deprovision", other, "--yes", "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("belongs to runtime " + owner));
    r = kprov_on(second.url, {"history", other, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Gardener was left alone"));
    r = kprov_on(second.url, {"status", other, "-o", "json"});
    EXPECT_TRUE(json::parse(r.out)["runtime"]["deleted"].get<bool>());

    EXPECT_THAT(shoot_writes(name), ::testing::IsEmpty());
    const auto still = shoot(name);
    ASSERT_TRUE(still.has_value());
    EXPECT_FALSE(still->at("metadata").contains("deletionTimestamp"));
    EXPECT_EQ(still->at("metadata")["annotations"]["kcp.provisioner.kyma-project.io/runtime-id"],
              owner);
    r = kprov({"status", owner, "-o", "json"});
    EXPECT_EQ(json::parse(r.out)["lastOperationStatus"]["state"], "Succeeded");
}

TEST_P(ShootOwnership, ConcurrentIdenticalProvisioningsMakeOneRuntime) {
    const auto [file, name] = runtime_file("aws");
    std::vector<std::string> env = kprov::testing::environment_without_settings();
    env.insert(env.end(),
               {"KPROV_TENANT=ga-1", std::string("APP_DATABASE_SECRET_KEY=") + k_secret_key,
                "HOME=" + m_dir.path(), "XDG_STATE_HOME=" + m_dir.file("state"),
                "XDG_CONFIG_HOME=" + m_dir.file("config")});
    constexpr int k_callers = 8;
    std::vector<std::unique_ptr<kprov::testing::ChildProcess>> callers;
    for (int i = 0; i < k_callers; ++i)
        callers.push_back(std::make_unique<kprov::testing::ChildProcess>(
            std::vector<std::string>{KPROV_BINARY, "provision", "-f", file, "-o", "json", "--store",
                                     m_store_url, "--gardener-kubeconfig",
                                     m_sim->kubeconfig.string(), "--gardener-project", k_project},
            env, m_dir.file("caller-" + std::to_string(i) + ".out"),
            m_dir.file("caller-" + std::to_string(i) + ".err")));
    // One caller starts the provisioning; the others meet it in progress, and without --wait
    // say so and exit 5, naming it (issue 33: never "done" for an operation still running).
    std::set<std::pair<std::string, std::string>> answers;
    std::vector<std::string> refusals;
    for (int i = 0; i < k_callers; ++i) {
        const int code = callers[i]->wait();
        const std::string err =
            testing::read_text(m_dir.file("caller-" + std::to_string(i) + ".err"));
        if (code == 5) {
            refusals.push_back(err);
            continue;
        }
        ASSERT_EQ(code, 0) << err;
        const json status =
            json::parse(testing::read_text(m_dir.file("caller-" + std::to_string(i) + ".out")));
        answers.emplace(status["runtimeID"], status["id"]);
    }
    ASSERT_EQ(answers.size(), 1U) << "one caller started the one runtime";
    const auto [runtime_id, operation_id] = *answers.begin();
    EXPECT_EQ(refusals.size(), static_cast<std::size_t>(k_callers - 1));
    for (const auto& err : refusals)
        EXPECT_THAT(err, HasSubstr("operation " + operation_id + " of runtime " + runtime_id +
                                   " (at stage "));
    EXPECT_EQ(all_runtimes().size(), 1U);

    // --wait of the same request waits for that same operation.
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["id"], operation_id);
    EXPECT_EQ(json::parse(r.out)["state"], "Succeeded");
    EXPECT_TRUE(shoot(name).has_value());

    // Another request for the name is refused at once, naming the owner.
    r = kprov({"provision", "-f", file, "--tenant", "someone-else", "-o", "json"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("belongs to live runtime " + runtime_id));
    r = kprov({"provision", "-f", file, "--tenant", "someone-else", "--dry-run"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.out + r.err, HasSubstr("belongs to live runtime " + runtime_id));
    r = kprov({"provision", "-f", file, "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("already requested: runtime " + runtime_id));
    EXPECT_EQ(all_runtimes().size(), 1U);

    // Once deprovisioned, the name is free again.
    r = kprov({"deprovision", runtime_id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    r = kprov({"provision", "-f", file, "--tenant", "someone-else", "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(json::parse(r.out)["runtimeID"], runtime_id);
    EXPECT_EQ(all_runtimes().size(), 2U);
}

// For every field of UpgradeShootInput, the shoot `plan RUNTIME_ID -f FILE -o json` shows is
// the one UpgradingShoot PUTs, as kprov-sim received it (status and resourceVersion aside: the
// shoot moves on between the plan and the stage).
TEST_P(ShootOwnership, PlanShowsWhatTheUpgradeSends) {
    auto [file, name] = runtime_file("gcp");
    json document = read_runtime_file(file);
    document["clusterConfig"]["gardenerConfig"]["oidcConfig"] = {
        {"clientID", "kprov"},
        {"groupsClaim", "groups"},
        {"issuerURL", "https://issuer.example.com"},
        {"signingAlgs", {"RS256"}},
        {"usernameClaim", "sub"},
        {"usernamePrefix", "-"}};
    std::ofstream(file) << document.dump();
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string runtime_id = json::parse(r.out)["runtimeID"];

    const std::vector<json> upgrades = {
        {{"gardenerConfig", {{"kubernetesVersion", "1.35.4"}}}},
        {{"gardenerConfig", {{"machineType", "n2-standard-8"}}}},
        {{"gardenerConfig", {{"diskType", "pd-ssd"}}}},
        {{"gardenerConfig", {{"volumeSizeGB", 80}}}},
        {{"gardenerConfig", {{"autoScalerMin", 2}}}},
        {{"gardenerConfig", {{"autoScalerMax", 6}}}},
        {{"gardenerConfig",
          {{"machineImage", "gardenlinux"}, {"machineImageVersion", "1877.5.0"}}}},
        {{"gardenerConfig", {{"machineImageVersion", "1877.7.0"}}}},
        {{"gardenerConfig", {{"maxSurge", 3}}}},
        {{"gardenerConfig", {{"maxUnavailable", 1}}}},
        {{"gardenerConfig", {{"purpose", "production"}}}},
        {{"gardenerConfig", {{"enableKubernetesVersionAutoUpdate", true}}}},
        {{"gardenerConfig", {{"enableMachineImageVersionAutoUpdate", true}}}},
        {{"gardenerConfig",
          {{"providerSpecificConfig",
            {{"gcpConfig", {{"zones", {"europe-west3-a", "europe-west3-b"}}}}}}}}},
        {{"gardenerConfig",
          {{"oidcConfig",
            {{"clientID", "kprov-2"},
             {"groupsClaim", "groups"},
             {"issuerURL", "https://issuer.example.com"},
             {"signingAlgs", {"RS256", "ES256"}},
             {"usernameClaim", "email"},
             {"usernamePrefix", "oidc:"}}}}}},
        {{"gardenerConfig", {{"exposureClassName", "internet"}}}},
        {{"gardenerConfig", {{"shootNetworkingFilterDisabled", false}}}},
        {{"gardenerConfig", json::object()}, {"administrators", {"admin@example.com"}}},
    };
    const auto comparable = [](json shoot) {
        shoot.erase("status");
        shoot["metadata"].erase("resourceVersion");
        shoot["metadata"].erase("managedFields");
        return shoot;
    };
    for (std::size_t i = 0; i < upgrades.size(); ++i) {
        const std::string upgrade_file = m_dir.file("upgrade-" + std::to_string(i) + ".json");
        std::ofstream(upgrade_file) << upgrades[i].dump();
        if (i == 3) {
            // Someone changed the shoot behind kprov's back: the stage writes the stored OIDC
            // again, and so must the plan.
            m_gardener->kube().merge_patch(
                "/apis/core.gardener.cloud/v1beta1/namespaces/garden-" + std::string(k_project) +
                    "/shoots/" + name,
                {{"spec",
                  {{"kubernetes", {{"kubeAPIServer", {{"structuredAuthentication", nullptr}}}}}}}});
        }
        r = kprov({"plan", runtime_id, "-f", upgrade_file, "-o", "json"});
        ASSERT_EQ(r.code, 0) << upgrades[i].dump() << ": " << r.err;
        const json planned = json::parse(r.out);
        m_gardener->kube().create("/sim/stats/reset", json::object());
        r = kprov({"upgrade-shoot", runtime_id, "-f", upgrade_file, "--wait"});
        ASSERT_EQ(r.code, 0) << upgrades[i].dump() << ": " << r.err;
        std::optional<json> sent;
        for (const auto& w : sim_get("/sim/writes"))
            if (w["verb"] == "PUT" &&
                w["path"].get<std::string>().find("/shoots/" + name) != std::string::npos)
                sent = json::parse(w["body"].get<std::string>());
        ASSERT_TRUE(sent.has_value()) << upgrades[i].dump();
        EXPECT_EQ(comparable(planned), comparable(*sent)) << upgrades[i].dump();
    }
}

} // namespace
} // namespace kprov::cli
