// kprov diff against kprov-sim: a shoot edited behind kprov's back names the field with both
// values and exits 6; an untouched one (with what the sim's Gardener defaults) exits 0; status
// --live reports the same drift.

#include "cli/operations_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;

class Diff : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }
};

TEST_P(Diff, AnEditedShootIsDriftAndAnUntouchedOneIsNot) {
    const auto [file, name] = runtime_file("aws");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = json::parse(r.out)["runtimeID"];

    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "runtime " + id + " (shoot " + name + "): no differences\n");

    const int maximum = (*shoot(name))["spec"]["provider"]["workers"][0]["maximum"];
    json workers = (*shoot(name))["spec"]["provider"]["workers"];
    workers[0]["maximum"] = maximum + 7;
    m_gardener->patch_shoot(name, {{"spec", {{"provider", {{"workers", workers}}}}}});
    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("1 difference"));
    EXPECT_THAT(r.out, HasSubstr("~ spec.provider.workers[0].maximum: " + std::to_string(maximum) +
                                 " -> " + std::to_string(maximum + 7)));
    r = kprov({"diff", "--all", "-o", "json"});
    EXPECT_EQ(r.code, 6) << r.err;
    const json all = json::parse(r.out);
    ASSERT_EQ(all.size(), 1U);
    EXPECT_EQ(all[0]["runtimeID"], id);
    EXPECT_EQ(all[0]["differences"].size(), 1U);

    EXPECT_EQ(kprov({"diff"}).code, 2) << "a RUNTIME_ID or --all";
    EXPECT_EQ(kprov({"diff", "0d2f4b37-1111-4222-8333-944455556666"}).code, 1);
}

// One drift (issue 33): `status --live` and `diff` report the same differences, state and spec
// alike, as both come from engine::runtime_drift.
TEST_P(Diff, StatusLiveAndDiffReportTheSameDriftOfStateAndSpec) {
    const auto [file, name] = runtime_file("aws");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = json::parse(r.out)["runtimeID"];
    ASSERT_EQ(kprov({"hibernate", id, "--wait"}).code, 0);

    // Behind kprov's back: the cluster woken up, the workers' minimum and maximum changed.
    json workers = (*shoot(name))["spec"]["provider"]["workers"];
    const int minimum = workers[0]["minimum"];
    const int maximum = workers[0]["maximum"];
    workers[0]["minimum"] = minimum + 1;
    workers[0]["maximum"] = maximum + 7;
    m_gardener->patch_shoot(
        name,
        {{"spec", {{"hibernation", {{"enabled", false}}}, {"provider", {{"workers", workers}}}}}});
    // Until Gardener has done it all, so that both commands see one state.
    for (int i = 0; i < 300; ++i) {
        const auto live = shoot(name);
        if (live && (*live)["metadata"]["generation"] == (*live)["status"]["observedGeneration"] &&
            !live->value("/status/hibernated"_json_pointer, true) &&
            live->value("/status/lastOperation/state"_json_pointer, "") == "Succeeded")
            break;
        std::this_thread::sleep_for(100ms);
    }

    r = kprov({"diff", id, "-o", "json"});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    const json differences = json::parse(r.out).at(0).at("differences");
    r = kprov({"status", id, "--live", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["gardener"]["drift"], differences);
    const std::vector<std::string> lines = differences;
    const std::vector<std::string> expected = {
        "the cluster is awake in Gardener, but kprov's last hibernation operation hibernated it",
        "~ spec.provider.workers[0].minimum: " + std::to_string(minimum) + " -> " +
            std::to_string(minimum + 1),
        "~ spec.provider.workers[0].maximum: " + std::to_string(maximum) + " -> " +
            std::to_string(maximum + 7)};
    EXPECT_THAT(lines, ::testing::IsSupersetOf(expected));
    // The table shows the same lines, one drift row each.
    r = kprov({"status", id, "--live"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& line : lines)
        EXPECT_THAT(r.out, HasSubstr("drift       " + line + "\n"));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("drift       none")));
}

INSTANTIATE_TEST_SUITE_P(Stores, Diff, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

} // namespace
} // namespace kprov::cli
