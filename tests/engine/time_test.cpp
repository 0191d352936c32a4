#include "engine/util/duration.hpp"
#include "engine/util/time.hpp"

#include <ctime>
#include <gtest/gtest.h>

namespace kprov {
namespace {

using namespace std::chrono_literals;

TEST(DbTime, RoundTripsWithMicroseconds) {
    const auto t = parse_db_time("2026-11-30 05:27:40.123456");
    ASSERT_TRUE(t);
    EXPECT_EQ(format_db_time(*t), "2026-11-30 05:27:40.123456");
    EXPECT_EQ(format_rfc3339(*t), "2026-11-30T05:27:40Z");
}

TEST(DbTime, ReadsWhatPostgresPrints) {
    EXPECT_EQ(format_db_time(*parse_db_time("2026-01-02 03:04:05")), "2026-01-02 03:04:05.000000");
    EXPECT_EQ(format_db_time(*parse_db_time("2026-01-02 03:04:05.5")),
              "2026-01-02 03:04:05.500000");
    EXPECT_EQ(format_db_time(*parse_db_time("2026-01-02T03:04:05.25Z")),
              "2026-01-02 03:04:05.250000");
    EXPECT_EQ(format_db_time(*parse_db_time("2026-01-02 03:04:05+00")),
              "2026-01-02 03:04:05.000000");
}

TEST(DbTime, RefusesMalformedText) {
    for (const char* bad : {"", "2026-11-30", "2026-13-01 00:00:00", "2026-02-29 00:00:00",
                            "2026-04-31 00:00:00", "2026-11-30 24:00:00", "2026-11-30 10:00:00.",
                            "2026-11-30 10:00:00+02", "yesterday", "2026-11-30 10:00:00 trailing"})
        EXPECT_FALSE(parse_db_time(bad)) << bad;
}

TEST(DbTime, AgreesWithTheCalendarAcrossYearsMonthsAndLeapDays) {
    // Day by day over four years with a leap day (and 1970, 2000), against timegm.
    for (const int start_year : {1970, 2000, 2026}) {
        for (int d = 0; d < 4 * 366; d += 1) {
            std::tm tm{};
            tm.tm_year = start_year - 1900;
            tm.tm_mday = 1 + d;
            tm.tm_hour = 23;
            tm.tm_min = 59;
            tm.tm_sec = 58;
            const std::time_t secs = timegm(&tm); // normalizes the day into month and year
            char text[40];
            std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S.000007", &tm);
            const auto parsed = parse_db_time(text);
            ASSERT_TRUE(parsed) << text;
            EXPECT_EQ(*parsed, Timestamp(std::chrono::seconds(secs)) + 7us) << text;
        }
    }
    EXPECT_EQ(format_db_time(*parse_db_time("2024-02-29 12:00:00")), "2024-02-29 12:00:00.000000");
    EXPECT_EQ(format_db_time(*parse_db_time("2026-12-31 23:59:60")), "2027-01-01 00:00:00.000000");
}

TEST(DbTime, FormatIsFixedWidthSoItSorts) {
    const auto a = *parse_db_time("2026-11-30 09:59:59.999999");
    const auto b = a + 1us;
    EXPECT_LT(format_db_time(a), format_db_time(b));
    EXPECT_EQ(format_db_time(a).size(), format_db_time(b).size());
}

TEST(Duration, ParsesGoSyntax) {
    EXPECT_EQ(parse_duration("90s"), Duration(90s));
    EXPECT_EQ(parse_duration("5m"), Duration(5min));
    EXPECT_EQ(parse_duration("1h30m"), Duration(90min));
    EXPECT_EQ(parse_duration("250ms"), Duration(250ms));
    EXPECT_EQ(parse_duration("1.5h"), Duration(90min));
    EXPECT_EQ(parse_duration("0"), Duration::zero());
    EXPECT_EQ(parse_duration("2h45m30.5s"), Duration(2h + 45min + 30500ms));
    EXPECT_EQ(parse_duration("1500us"), Duration(1ms));
}

TEST(Duration, RefusesEverythingElse) {
    for (const char* bad : {"", "10", "ten minutes", "5 m", "-5m", "+5m", "5x", "m", ".s", "1h 2m",
                            "99999999999999999999h"})
        EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(Duration, FormatsShortest) {
    EXPECT_EQ(format_duration(0ms), "0s");
    EXPECT_EQ(format_duration(90min), "1h30m");
    EXPECT_EQ(format_duration(90s), "1m30s");
    EXPECT_EQ(format_duration(250ms), "250ms");
    EXPECT_EQ(format_duration(1500ms), "1.5s");
    EXPECT_EQ(format_duration(60min), "1h");
    for (const char* text : {"1h30m", "45s", "2h", "1.25s", "3m20s"})
        EXPECT_EQ(format_duration(*parse_duration(text)), text);
}

} // namespace
} // namespace kprov
