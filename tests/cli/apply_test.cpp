// kprov apply -f and kprov diff -f (issue 21): runtime files as desired state, against kprov-sim
// on SQLite and PostgreSQL. A fleet is created, applied again without a Gardener write,
// edited (machine type, hibernated, protected), refused (region) and pruned.

#include "cli/operations_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using namespace optest;
using ::testing::EndsWith;
using ::testing::Not;

class Apply : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override {
        open(GetParam());
        std::filesystem::create_directories(fleet_dir());
    }

    std::string fleet_dir() { return m_dir.file("fleet"); }

    // A runtime file in the fleet directory, labelled fleet=apply; returns its shoot name.
    std::string fleet_file(const std::string& example) {
        const auto [file, shoot] = runtime_file(example);
        json document = read_runtime_file(file);
        document["runtimeInput"]["labels"] = {{"fleet", "apply"}};
        write(fleet_path(shoot), document);
        return shoot;
    }

    std::string fleet_path(const std::string& shoot) { return fleet_dir() + "/" + shoot + ".json"; }

    static void write(const std::string& path, const json& document) {
        std::ofstream(path) << document.dump(2);
    }

    // Writes to Gardener and the runtime clusters the simulator has counted (its own settings
    // endpoints aside).
    long long write_requests() {
        long long count = 0;
        const json stats = m_gardener->kube().get("/sim/stats"); // outlives the loop below
        for (const auto& [key, value] : stats["requests"].items()) {
            const bool write = key.rfind("POST ", 0) == 0 || key.rfind("PUT ", 0) == 0 ||
                               key.rfind("PATCH ", 0) == 0 || key.rfind("DELETE ", 0) == 0;
            if (write && key.find(" /sim/") == std::string::npos)
                count += value.get<long long>();
        }
        return count;
    }

    // The live runtime of `shoot` in the test's store.
    engine::Runtime runtime_of(const std::string& shoot) {
        const auto id = m_store->live_runtime_with_shoot(k_project, shoot);
        if (!id)
            throw std::runtime_error("no live runtime of shoot " + shoot);
        return *m_store->find_runtime(*id);
    }

    // stdout's line about `shoot`.
    static std::string line_of(const std::string& out, const std::string& shoot) {
        std::istringstream lines(out);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind(shoot + " (", 0) == 0)
                return line;
        return "";
    }

    static std::vector<std::string> lines(const std::string& out) {
        std::vector<std::string> all;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
            all.push_back(line);
        return all;
    }
};

TEST_P(Apply, AFleetIsCreatedThenLeftAloneThenChangedAsEditedAndPruned) {
    const std::vector<std::string> examples = {"aws", "gcp", "azure", "openstack"};
    std::vector<std::string> shoots;
    for (int i = 0; i < 10; ++i)
        shoots.push_back(fleet_file(examples[i % examples.size()]));

    // Created: ten runtimes, one line each.
    auto r = kprov({"apply", "-f", fleet_dir(), "--wait"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(lines(r.out).size(), 10U) << r.out;
    for (const auto& name : shoots) {
        EXPECT_THAT(line_of(r.out, name), EndsWith(": created")) << r.out;
        const auto runtime = runtime_of(name);
        expect_succeeded(runtime.id, OperationType::ProvisionNoInstall,
                         {"WaitingForClusterCreation"});
        EXPECT_TRUE(shoot(runtime.gardener.name).has_value());
    }
    EXPECT_EQ(all_runtimes().size(), 10U);

    // Applied again: nothing changes, and Gardener gets no write.
    const long long writes = write_requests();
    r = kprov({"apply", "-f", fleet_dir(), "--wait"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    ASSERT_EQ(lines(r.out).size(), 10U) << r.out;
    for (const auto& line : lines(r.out))
        EXPECT_THAT(line, EndsWith(": unchanged"));
    EXPECT_EQ(write_requests(), writes) << "an unchanged apply sends Gardener nothing";
    r = kprov({"diff", "-f", fleet_dir()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;

    // Three edits: a machine type, hibernated, protected.
    json edited = read_runtime_file(fleet_path(shoots[0]));
    edited["clusterConfig"]["gardenerConfig"]["machineType"] = "m5.2xlarge";
    write(fleet_path(shoots[0]), edited);
    edited = read_runtime_file(fleet_path(shoots[1]));
    edited["lifecycle"] = {{"hibernated", true}};
    write(fleet_path(shoots[1]), edited);
    edited = read_runtime_file(fleet_path(shoots[2]));
    edited["lifecycle"] = {{"protected", true}};
    write(fleet_path(shoots[2]), edited);

    r = kprov({"diff", "-f", fleet_dir()});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    EXPECT_THAT(line_of(r.out, shoots[0]), EndsWith(": would be updated: machineType"));
    EXPECT_THAT(r.out, HasSubstr("~ machineType: "));
    EXPECT_THAT(r.out, HasSubstr(" -> \"m5.2xlarge\""));
    EXPECT_THAT(line_of(r.out, shoots[1]), EndsWith(": would be hibernated"));
    EXPECT_THAT(line_of(r.out, shoots[2]), EndsWith(": would be protected"));
    EXPECT_EQ(write_requests(), writes) << "diff -f changes nothing";

    r = kprov({"apply", "-f", fleet_dir(), "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const json results = json::parse(r.out);
    ASSERT_EQ(results.size(), 10U);
    std::map<std::string, json> by_shoot;
    for (const auto& result : results)
        by_shoot[result["shoot"].get<std::string>()] = result;
    EXPECT_EQ(by_shoot[shoots[0]]["action"], "updated");
    EXPECT_EQ(by_shoot[shoots[0]]["fields"][0]["field"], "machineType");
    EXPECT_EQ(by_shoot[shoots[0]]["operations"][0]["step"], "upgrade-shoot");
    EXPECT_EQ(by_shoot[shoots[0]]["operations"][0]["state"], "Succeeded");
    EXPECT_EQ(by_shoot[shoots[1]]["action"], "updated");
    EXPECT_EQ(by_shoot[shoots[1]]["operations"][0]["step"], "hibernate");
    EXPECT_EQ(by_shoot[shoots[2]]["operations"][0]["step"], "protect");
    for (std::size_t i = 3; i < shoots.size(); ++i) {
        EXPECT_EQ(by_shoot[shoots[i]]["action"], "unchanged") << shoots[i];
        EXPECT_EQ(by_shoot[shoots[i]]["error"], nullptr);
    }

    const auto upgraded = runtime_of(shoots[0]);
    EXPECT_EQ(upgraded.gardener.machine_type, "m5.2xlarge");
    expect_succeeded(upgraded.id, OperationType::UpgradeShoot, {"WaitingForShootUpgrade"});
    EXPECT_EQ(shoot(shoots[0]).value()["spec"]["provider"]["workers"][0]["machine"]["type"],
              "m5.2xlarge");
    const auto hibernated = runtime_of(shoots[1]);
    expect_succeeded(hibernated.id, OperationType::Hibernate, {});
    EXPECT_EQ(shoot(shoots[1]).value()["spec"]["hibernation"]["enabled"], true);
    const auto protected_runtime = runtime_of(shoots[2]);
    EXPECT_TRUE(m_store->lifecycle_of(protected_runtime.id).is_protected);
    EXPECT_EQ(m_store->operations_of(protected_runtime.id).size(), 1U);
    for (std::size_t i = 3; i < shoots.size(); ++i)
        EXPECT_EQ(m_store->operations_of(runtime_of(shoots[i]).id).size(), 1U) << shoots[i];

    // Exactly those: applying again changes nothing.
    r = kprov({"apply", "-f", fleet_dir(), "--wait"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    for (const auto& line : lines(r.out))
        EXPECT_THAT(line, EndsWith(": unchanged"));

    // A region no operation can change (one the landscape has): refused, naming it, and nothing
    // is started.
    json moved = read_runtime_file(fleet_path(shoots[3]));
    moved["clusterConfig"]["gardenerConfig"]["region"] = "eu-de-2";
    moved["clusterConfig"]["gardenerConfig"]["providerSpecificConfig"] = {
        {"openStackConfig", {{"zones", {"eu-de-2a"}}, {"loadBalancerProvider", "f5"}}}};
    const std::string moved_file = m_dir.file("moved.json");
    write(moved_file, moved);
    r = kprov({"apply", "-f", moved_file, "--wait"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("refused: region differs"));
    EXPECT_THAT(r.out, HasSubstr("\"eu-de-2\""));
    EXPECT_THAT(r.out, HasSubstr("the runtime must be replaced"));
    EXPECT_EQ(m_store->operations_of(runtime_of(shoots[3]).id).size(), 1U);
    EXPECT_EQ(kprov({"diff", "-f", moved_file}).code, 1);

    // Pruned: the runtime whose file is gone, but never the protected one.
    const auto gone = runtime_of(shoots[4]);
    std::filesystem::remove(fleet_path(shoots[4]));
    std::filesystem::remove(fleet_path(shoots[2]));
    r = kprov({"apply", "-f", fleet_dir(), "--prune", "-l", "fleet=apply", "--wait"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(shoots[4] + " (runtime " + gone.id + "): pruned"));
    EXPECT_THAT(r.out,
                HasSubstr(shoots[2] + " (runtime " + protected_runtime.id + "): kept: protected"));
    EXPECT_TRUE(m_store->find_runtime(gone.id)->deleted);
    EXPECT_FALSE(shoot(shoots[4]).has_value());
    EXPECT_FALSE(m_store->find_runtime(protected_runtime.id)->deleted);
    EXPECT_TRUE(shoot(shoots[2]).has_value());
}

TEST_P(Apply, WithoutWaitALaterOperationWaitsForTheNextApply) {
    const std::string name = fleet_file("gcp");
    json document = read_runtime_file(fleet_path(name));
    document["lifecycle"] = {{"hibernated", true}, {"protected", true}, {"lifetime", "720h"}};
    write(fleet_path(name), document);

    auto r = kprov({"apply", "-f", fleet_path(name), "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(": would be created; would be hibernated; would be protected; "
                                 "lifetime would be set"));
    EXPECT_TRUE(all_runtimes().empty()) << "a dry run writes nothing";
    EXPECT_EQ(kprov({"diff", "-f", fleet_path(name)}).code, 6);

    r = kprov({"apply", "-f", fleet_path(name)});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(": created (in progress: operation "));
    EXPECT_THAT(r.out, HasSubstr("hibernate pending: apply again once operation "));
    const auto runtime = runtime_of(name);
    EXPECT_TRUE(m_store->lifecycle_of(runtime.id).is_protected) << "store steps do not wait";
    EXPECT_TRUE(m_store->lifecycle_of(runtime.id).expires_at.has_value());

    // --wait follows the provisioning to its end, then hibernates.
    r = kprov({"apply", "-f", fleet_path(name), "--wait"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(": created (followed operation "));
    EXPECT_THAT(r.out, EndsWith("; hibernated\n"));
    expect_succeeded(runtime.id, OperationType::Hibernate, {});
    r = kprov({"diff", "-f", fleet_path(name)});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, EndsWith(": unchanged\n"));
}

TEST_P(Apply, AFailedOperationExitsThreeAndStopsThatRuntimesSteps) {
    sim_post("/sim/shoots/fail-next", {{"codes", {"ERR_INFRA_QUOTA_EXCEEDED"}},
                                       {"type", "Create"},
                                       {"state", "Failed"},
                                       {"description", "quota of CPUs exceeded"}});
    const std::string name = fleet_file("aws");
    json document = read_runtime_file(fleet_path(name));
    document["lifecycle"] = {{"hibernated", true}, {"protected", true}};
    write(fleet_path(name), document);
    const auto r = kprov({"apply", "-f", fleet_dir(), "--wait", "-o", "json"});
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    const json results = json::parse(r.out);
    ASSERT_EQ(results.size(), 1U);
    EXPECT_EQ(results[0]["action"], "failed");
    EXPECT_THAT(results[0]["error"].get<std::string>(), HasSubstr("ERR_INFRA_QUOTA_EXCEEDED"));
    ASSERT_EQ(results[0]["operations"].size(), 1U) << "nothing after the failed provisioning";
    EXPECT_EQ(results[0]["operations"][0]["state"], "Failed");
    const auto runtimes = all_runtimes();
    ASSERT_EQ(runtimes.size(), 1U);
    EXPECT_FALSE(m_store->lifecycle_of(runtimes[0].id).is_protected);
}

TEST_P(Apply, WrongFilesAndFlagsAreUsageErrorsNamingWhatIsWrong) {
    auto r = kprov({"apply", "-f", m_dir.file("nowhere")});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("-f \"" + m_dir.file("nowhere") + "\" does not exist"));

    r = kprov({"apply", "-f", fleet_dir()});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("is a directory without runtime files"));
    EXPECT_EQ(kprov({"diff", "-f", fleet_dir()}).code, 2);

    const std::string name = fleet_file("aws");
    const std::string twin = fleet_dir() + "/twin.yaml";
    std::filesystem::copy_file(fleet_path(name), twin);
    r = kprov({"apply", "-f", fleet_dir()});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("runtime files \"" + fleet_path(name) + "\" and \"" + twin +
                                 "\" both name shoot \"" + name + "\""));
    std::filesystem::remove(twin);

    r = kprov({"apply", "-f", fleet_dir(), "--prune"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--prune needs -l SELECTOR"));
    r = kprov({"apply", "-f", fleet_dir(), "-l", "team=ci"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("add --prune"));
    r = kprov({"apply", "-f", fleet_dir(), "--prune", "-l", "team in (ci"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("-l \"team in (ci\": "));
    r = kprov({"apply", "-f", fleet_dir(), "--timeout", "5m"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--timeout applies to --wait"));

    json broken = read_runtime_file(fleet_path(name));
    broken["clusterConfig"]["gardenerConfig"]["regoin"] = "eu-west-1";
    broken["lifecycle"] = {{"hibernated", "yes"}};
    write(fleet_path(name), broken);
    r = kprov({"apply", "-f", fleet_dir()});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr(fleet_path(name) + " is invalid"));
    EXPECT_THAT(r.err, HasSubstr("regoin"));
    EXPECT_THAT(r.err, HasSubstr("lifecycle.hibernated: must be true or false"));
    EXPECT_TRUE(all_runtimes().empty());
}

INSTANTIATE_TEST_SUITE_P(Stores, Apply, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

} // namespace
} // namespace kprov::cli
