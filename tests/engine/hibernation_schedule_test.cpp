// Hibernation schedules: Gardener's cron expressions and time zone names, checked before they
// reach a shoot; the JSON kept in gardener_config.hibernation_schedules.

#include "engine/input/hibernation_schedule.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

TEST(CronExpression, AcceptsWhatGardenersStandardParserAccepts) {
    for (const char* expression :
         {"0 20 * * MON-FRI", "0 7 * * 1-5", "*/15 0-6,22-23 * * *", "30 8 1-15/2 JAN-jun ?",
          "0 0 ? * SUN", "@daily", "@hourly", "@weekly", "  5  4  *  *  *  ", "59 23 31 12 6"})
        EXPECT_EQ(cron_problem(expression), std::nullopt) << expression;
}

TEST(CronExpression, NamesTheFieldAndTheValueThatIsWrong) {
    EXPECT_THAT(cron_problem("60 * * * *"),
                Optional(HasSubstr("\"60\" is not a valid minute (0-59)")));
    EXPECT_THAT(cron_problem("* * 0 * *"),
                Optional(HasSubstr("\"0\" is not a valid day of month (1-31)")));
    EXPECT_THAT(cron_problem("* * * FOO *"),
                Optional(HasSubstr("\"FOO\" is not a valid month (1-12, or JAN-DEC)")));
    EXPECT_THAT(cron_problem("* * * * 7"),
                Optional(HasSubstr("\"7\" is not a valid day of week (0-6, or SUN-SAT)")));
    EXPECT_THAT(cron_problem("* 9-5 * * *"), Optional(HasSubstr("\"9-5\" ends before it begins")));
    EXPECT_THAT(cron_problem("* ? * * *"), Optional(HasSubstr("\"?\" is not a valid hour")));
    EXPECT_THAT(cron_problem("*/x * * * *"), Optional(HasSubstr("the step of \"*/x\"")));
    EXPECT_THAT(cron_problem("0 20 * *"), Optional(HasSubstr("has 4 fields")));
    EXPECT_THAT(cron_problem(""), Optional(HasSubstr("has 0 fields")));
    EXPECT_THAT(cron_problem("@every 5m"), Optional(HasSubstr("has 2 fields")));
    EXPECT_THAT(cron_problem(std::string(300, '*')), Optional(HasSubstr("at most 256")));
    EXPECT_THAT(cron_problem("1,,2 * * * *"), Optional(HasSubstr("\"\" is not a valid minute")));
}

TEST(TimeZoneName, OnlyTheShapeIsChecked) {
    for (const char* location : {"UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires",
                                 "Etc/GMT+5", "America/Port-au-Prince"})
        EXPECT_EQ(location_problem(location), std::nullopt) << location;
    for (const char* location :
         {"", "Europe/../etc/passwd", "/etc/localtime", "Europe/", "a b", "Europe//Berlin"})
        EXPECT_THAT(location_problem(location), Optional(HasSubstr("is not a time zone name")))
            << location;
}

TEST(HibernationSchedules, RoundTripThroughTheirColumn) {
    const std::vector<HibernationSchedule> schedules = {
        {"0 20 * * MON-FRI", "0 7 * * MON-FRI", "Europe/Berlin"},
        {std::nullopt, "@daily", std::nullopt}};
    const auto text = encode_hibernation_schedules(schedules);
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, R"([{"start":"0 20 * * MON-FRI","end":"0 7 * * MON-FRI",)"
                     R"("location":"Europe/Berlin"},{"end":"@daily"}])");
    EXPECT_EQ(decode_hibernation_schedules(text), schedules);
    EXPECT_EQ(encode_hibernation_schedules({}), std::nullopt);
    EXPECT_TRUE(decode_hibernation_schedules(std::nullopt).empty());
    EXPECT_THROW(decode_hibernation_schedules(std::string("{}")), Error);
    EXPECT_THROW(decode_hibernation_schedules(std::string("[1]")), Error);
}

TEST(HibernationSchedules, ProblemsAreNamedByIndex) {
    std::vector<HibernationSchedule> schedules = {{"@daily", std::nullopt, "UTC"},
                                                  {std::nullopt, std::nullopt, "UTC"},
                                                  {"61 * * * *", "0 7 * * *", "Mars/Olympus Mons"}};
    const auto problems = schedule_problems(schedules, "s");
    ASSERT_EQ(problems.size(), 3u);
    EXPECT_EQ(problems[0].path, "s[1]");
    EXPECT_EQ(problems[1].path, "s[2].start");
    EXPECT_EQ(problems[2].path, "s[2].location");
    schedules.assign(k_max_hibernation_schedules + 1, {"@daily", std::nullopt, std::nullopt});
    EXPECT_THAT(schedule_problems(schedules, "s").at(0).message, HasSubstr("at most 32"));
}

} // namespace
} // namespace kprov::engine
