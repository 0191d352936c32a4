// A runtime's lifecycle (issue 21): protect and unprotect (a protected runtime's deprovisioning is
// refused until it is unprotected, both are in the runtime's events, Gardener is not touched),
// and the runtime file's `lifecycle:` block (protected, lifetime), with `kprov watch`
// deprovisioning a runtime whose lifetime passed. Against kprov-sim, on SQLite and PostgreSQL.

#include "cli/operations_fixture.hpp"
#include "support/child_process.hpp"

#include <csignal>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;

class Protection : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }

    std::string provisioned(const std::string& example) {
        const auto [file, name] = runtime_file(example);
        const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
        EXPECT_EQ(r.code, 0) << r.err;
        m_shoot = name;
        return json::parse(r.out).value("runtimeID", "");
    }

    std::string m_shoot;
};

TEST_P(Protection, AProtectedRuntimeIsNotDeprovisionedUntilUnprotected) {
    const std::string id = provisioned("gcp");
    ASSERT_FALSE(id.empty());

    auto r = kprov({"protect", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "runtime " + id + " protected\n");
    r = kprov({"protect", id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out),
              (json{{"runtimeID", id}, {"protected", true}, {"changed", false}}));

    r = kprov({"deprovision", id, "--yes", "--wait"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("runtime " + id + " is protected against deprovisioning"));
    EXPECT_THAT(r.err, HasSubstr("kprov unprotect " + id));
    EXPECT_EQ(m_store->operations_of(id).size(), 1U) << "no operation was started";
    EXPECT_TRUE(shoot(m_shoot).has_value());
    EXPECT_TRUE(m_store->lifecycle_of(id).is_protected);

    r = kprov({"status", id});
    EXPECT_THAT(r.out, HasSubstr("protected"));
    r = kprov({"status", id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json lifecycle = json::parse(r.out)["lifecycle"];
    EXPECT_EQ(lifecycle["protected"], true);
    ASSERT_EQ(lifecycle["events"].size(), 1U);
    EXPECT_EQ(lifecycle["events"][0]["kind"], "Protect");
    EXPECT_THAT(lifecycle["events"][0]["message"].get<std::string>(),
                HasSubstr("protected against deprovisioning by "));

    r = kprov({"unprotect", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "runtime " + id + " unprotected\n");
    r = kprov({"history", id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Events of runtime " + id));
    EXPECT_THAT(r.out, HasSubstr("Protect"));
    EXPECT_THAT(r.out, HasSubstr("Unprotect"));

    r = kprov({"deprovision", id, "--yes", "--wait", "-q"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(shoot(m_shoot).has_value());
    r = kprov({"protect", id});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("is deprovisioned"));
}

TEST_P(Protection, UnknownRuntimesAreNotFound) {
    const auto r = kprov({"protect", "0d2f4b37-1111-4222-8333-944455556666"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("not found"));
    EXPECT_EQ(kprov({"unprotect"}).code, 2) << "RUNTIME_ID is required";
}

// The runtime file with a lifecycle block of `lifecycle`.
std::string with_lifecycle(const std::string& file, const json& lifecycle) {
    json document = read_runtime_file(file);
    document["lifecycle"] = lifecycle;
    std::ofstream(file) << document.dump();
    return file;
}

TEST_P(Protection, TheRuntimeFilesLifecycleProtectsAndAnExpiredLifetimeDeprovisions) {
    auto [guarded_file, guarded_shoot] = runtime_file("aws");
    auto [brief_file, brief_shoot] = runtime_file("gcp");
    with_lifecycle(guarded_file, {{"protected", true}, {"lifetime", "1s"}});
    with_lifecycle(brief_file, {{"lifetime", "5s"}});
    auto r = kprov({"provision", "-f", guarded_file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string guarded = json::parse(r.out)["runtimeID"];
    r = kprov({"provision", "-f", brief_file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string brief = json::parse(r.out)["runtimeID"];
    const auto created = m_store->find_runtime(brief)->creation_timestamp;
    EXPECT_EQ(m_store->lifecycle_of(brief).expires_at, created + std::chrono::seconds(5));
    EXPECT_TRUE(m_store->lifecycle_of(guarded).is_protected);

    std::vector<std::string> env = kprov::testing::environment_without_settings();
    for (const char* name :
         {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "APP_DATABASE_SECRET_KEY", "KPROV_TENANT"})
        if (const char* value = getenv(name))
            env.push_back(std::string(name) + "=" + value);
    kprov::testing::ChildProcess watch({KPROV_BINARY, "watch", "--store", m_store_url,
                                        "--gardener-kubeconfig", m_sim->kubeconfig.string(),
                                        "--gardener-project", k_project},
                                       env, m_dir.file("watch.out"), m_dir.file("watch.err"));
    // Deprovisioned within a few seconds of the expiry, by the watch's workers.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline && !m_store->find_runtime(brief)->deleted)
        std::this_thread::sleep_for(100ms);
    const auto seen = std::chrono::system_clock::now();
    std::this_thread::sleep_for(2s); // the protected one, expired since seconds, is still there
    watch.signal(SIGTERM);
    EXPECT_EQ(watch.wait_for(20s), std::optional<int>(0))
        << kprov::testing::read_text(m_dir.file("watch.err"));

    ASSERT_TRUE(m_store->find_runtime(brief)->deleted)
        << kprov::testing::read_text(m_dir.file("watch.err"));
    EXPECT_LT(seen - created, std::chrono::seconds(5) + 20s) << "deprovisioned soon after expiry";
    EXPECT_FALSE(shoot(brief_shoot).has_value());
    const auto events = m_store->events_of(brief);
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].kind, "Lifetime");
    EXPECT_THAT(events[0].message, HasSubstr("lifetime 5s set by"));
    EXPECT_EQ(events[1].kind, "Lifetime");
    EXPECT_THAT(events[1].message, HasSubstr("lifetime ended at"));
    EXPECT_THAT(events[1].message, HasSubstr("deprovisioning operation"));
    EXPECT_FALSE(m_store->lifecycle_of(brief).expires_at) << "cleared when it was acted on";

    EXPECT_FALSE(m_store->find_runtime(guarded)->deleted) << "protected: never by its lifetime";
    EXPECT_TRUE(shoot(guarded_shoot).has_value());
    EXPECT_EQ(m_store->operations_of(guarded).size(), 1U);
}

TEST_P(Protection, ALifecycleProvisionCannotHonourIsRefusedBeforeAnythingIsWritten) {
    auto [file, name] = runtime_file("azure");
    with_lifecycle(file, {{"hibernated", true}, {"lifetime", "soon"}});
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("lifecycle.hibernated: true cannot be honoured by provision"));
    EXPECT_THAT(r.err, HasSubstr("lifecycle.lifetime: must be a Go duration"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_EQ(kprov({"plan", "-f", file}).code, 2) << "plan checks the block too";
}

// The lifecycle's hibernation schedules reach the shoot Gardener has (and plan shows them),
// are kept with the runtime, shown by status, and are no drift.
TEST_P(Protection, HibernationSchedulesAreWrittenToTheShoot) {
    auto [file, name] = runtime_file("gcp");
    const json schedules = json::parse(R"([{"start": "0 20 * * MON-FRI", "end": "0 7 * * MON-FRI",
                                            "location": "Europe/Berlin"},
                                           {"end": "@daily"}])");
    with_lifecycle(file, {{"hibernationSchedules", schedules}});
    auto r = kprov({"plan", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("0 20 * * MON-FRI"));

    r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = json::parse(r.out)["runtimeID"];
    const auto live = shoot(name);
    ASSERT_TRUE(live);
    EXPECT_EQ((*live)["spec"]["hibernation"]["schedules"], schedules);
    EXPECT_EQ(m_store->find_runtime(id)->gardener.hibernation_schedules.size(), 2U);

    r = kprov({"status", id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["lifecycle"]["hibernationSchedules"], schedules);
    r = kprov({"status", id});
    EXPECT_THAT(r.out, HasSubstr("hibernate 0 20 * * MON-FRI, wake up 0 7 * * MON-FRI "
                                 "(Europe/Berlin)"));
    EXPECT_THAT(r.out, HasSubstr("wake up @daily (UTC)"));
    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 0) << r.out << r.err;

    // Edited behind kprov's back: drift, named.
    m_gardener->patch_shoot(
        name,
        {{"spec", {{"hibernation", {{"schedules", json::array({{{"start", "0 1 * * *"}}})}}}}}});
    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("spec.hibernation.schedules"));
}

TEST_P(Protection, BadHibernationSchedulesAreRefusedNamingEachOne) {
    auto [file, name] = runtime_file("aws");
    with_lifecycle(file, {{"hibernationSchedules", json::parse(R"([{"start": "0 20 * * FRI-MON"},
                                           {"end": "7 * *", "location": "Europe/Berlin"}])")}});
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("lifecycle.hibernationSchedules[0].start: \"0 20 * * FRI-MON\": "
                                 "the range \"FRI-MON\" ends before it begins"));
    EXPECT_THAT(r.err, HasSubstr("lifecycle.hibernationSchedules[1].end: \"7 * *\" has 3 fields"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(shoot(name).has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, Protection,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

} // namespace
} // namespace kprov::cli
