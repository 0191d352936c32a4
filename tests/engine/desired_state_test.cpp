// kprov apply's comparison of a stored runtime with its runtime file, for kprov's own field
// outside the GraphQL config: the hibernation schedules (the rest is tested through
// tests/cli/apply_test.cpp against kprov-sim).

#include "engine/rules/desired_state.hpp"

#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

Runtime with_schedules(std::vector<HibernationSchedule> schedules) {
    Runtime r;
    r.name = "rt";
    r.gardener.name = "shoot";
    r.gardener.kubernetes_version = "1.31.2";
    r.gardener.hibernation_schedules = std::move(schedules);
    return r;
}

TEST(DesiredSchedules, AreComparedOnlyWhenTheFileGivesThem) {
    const Runtime stored = with_schedules({{"0 20 * * *", std::nullopt, std::nullopt}});
    const Runtime planned = with_schedules({{"0 21 * * *", "0 7 * * MON-FRI", "Europe/Berlin"}});
    EXPECT_FALSE(config_changes(stored, stored, false, true).needs_upgrade());
    EXPECT_FALSE(config_changes(stored, planned, false, false).needs_upgrade())
        << "a lifecycle field the file leaves out is left as it is";

    const ConfigChanges changes = config_changes(stored, planned, false, true);
    ASSERT_TRUE(changes.needs_upgrade());
    ASSERT_EQ(changes.upgraded.size(), 1U);
    EXPECT_EQ(changes.upgraded[0].field, "lifecycle.hibernationSchedules");
    EXPECT_EQ(changes.upgraded[0].from, R"([{"start":"0 20 * * *"}])");
    EXPECT_EQ(changes.upgrade.gardener.hibernation_schedules,
              std::optional(planned.gardener.hibernation_schedules));
    EXPECT_TRUE(changes.refused.empty());
}

// An upgrade of a runtime without schedules leaves the shoot's alone (stored_upgrade_input),
// so removing them all is a change no operation makes: refused, naming the field.
TEST(DesiredSchedules, RemovingThemAllIsRefused) {
    const Runtime stored = with_schedules({{"0 20 * * *", std::nullopt, std::nullopt}});
    const ConfigChanges changes = config_changes(stored, with_schedules({}), false, true);
    EXPECT_FALSE(changes.needs_upgrade());
    ASSERT_EQ(changes.refused.size(), 1U);
    EXPECT_EQ(changes.refused[0].field, "lifecycle.hibernationSchedules");
    EXPECT_EQ(changes.refused[0].note, "an upgrade can change them but not remove them all");
}

} // namespace
} // namespace kprov::engine
