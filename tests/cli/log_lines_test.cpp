// The shapes of kprov's log lines (cli/log_lines.hpp) and the fields a thread's scopes give them
// (engine/log_fields.hpp).

#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/log_lines.hpp"
#include "engine/log_fields.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sstream>

namespace kprov::cli {
namespace {

using nlohmann::json;
using std::chrono::system_clock;

// 2026-12-07T13:42:26.123Z
const system_clock::time_point k_time{std::chrono::milliseconds(1796650946123)};

TEST(LogLines, TimeStampsAreRfc3339InUtcWithMilliseconds) {
    EXPECT_EQ(rfc3339_utc(k_time), "2026-12-07T13:42:26.123Z");
    EXPECT_EQ(rfc3339_utc(system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
    EXPECT_EQ(rfc3339_utc(system_clock::time_point{std::chrono::milliseconds(-1)}),
              "1969-12-31T23:59:59.999Z");
}

TEST(LogLines, EachFormatWritesOneLine) {
    const std::vector<engine::LogField> fields = {
        {"runtime", "r-1"}, {"stage", "a"}, {"stage", "b"}};
    EXPECT_EQ(format_log_line(LogLineFormat::Command, "info", k_time, "4 workers started", fields),
              "kprov: info: 4 workers started\n");
    EXPECT_EQ(format_log_line(LogLineFormat::Text, "warning", k_time, "two\nlines", fields),
              "2026-12-07T13:42:26.123Z kprov: warning: two lines\n");
    const std::string line =
        format_log_line(LogLineFormat::Json, "error", k_time, "bad \"x\"\n\xff", fields);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
    const json object = json::parse(line);
    EXPECT_EQ(object.begin().key(), "ts") << "ts first, for people reading the raw lines";
    EXPECT_EQ(object["ts"], "2026-12-07T13:42:26.123Z");
    EXPECT_EQ(object["level"], "error");
    EXPECT_EQ(object["msg"], "bad \"x\"\n\xef\xbf\xbd") << "invalid UTF-8 replaced";
    EXPECT_EQ(object["runtime"], "r-1");
    EXPECT_EQ(object["stage"], "b") << "the innermost value of a key";
}

TEST(LogLines, AFieldCannotReplaceTsLevelOrMsg) {
    const std::string line = format_log_line(LogLineFormat::Json, "info", k_time, "m",
                                             {{"msg", "forged"}, {"level", "x"}, {"ts", "y"}});
    const json object = json::parse(line);
    EXPECT_EQ(object["msg"], "m");
    EXPECT_EQ(object["level"], "info");
    EXPECT_EQ(object["ts"], "2026-12-07T13:42:26.123Z");
}

TEST(LogFields, ScopesNestAndEndWithTheirBlock) {
    EXPECT_TRUE(engine::log_fields().empty());
    {
        const engine::LogFieldsScope outer({{"component", "worker"}});
        {
            engine::LogFieldsScope inner({{"runtime", "r"}, {"stage", "one"}});
            inner.set("stage", "two");
            inner.set("operation", "o");
            EXPECT_EQ(engine::log_fields(), (std::vector<engine::LogField>{{"component", "worker"},
                                                                           {"runtime", "r"},
                                                                           {"stage", "two"},
                                                                           {"operation", "o"}}));
        }
        EXPECT_EQ(engine::log_fields(), (std::vector<engine::LogField>{{"component", "worker"}}));
    }
    EXPECT_TRUE(engine::log_fields().empty());
}

TEST(LogScope, ADaemonWritesJsonLinesWithTheThreadsFields) {
    std::ostringstream out, err;
    GlobalOptions global;
    global.log_format = "json";
    Context ctx(global, out, err);
    {
        LogScope scope(ctx, LogStyle::Daemon);
        const engine::LogFieldsScope fields({{"operation", "op-1"}});
        spdlog::info("stage {} done", "CreatingShoot");
        spdlog::info("stage {} done", "WaitingForClusterCreation");
    }
    std::istringstream lines(err.str());
    std::vector<json> objects;
    for (std::string line; std::getline(lines, line);)
        objects.push_back(json::parse(line));
    ASSERT_EQ(objects.size(), 2U) << err.str();
    EXPECT_EQ(objects[0]["msg"], "stage CreatingShoot done");
    EXPECT_EQ(objects[0]["operation"], "op-1");
    EXPECT_EQ(objects[1]["msg"], "stage WaitingForClusterCreation done");
}

TEST(LogScope, ADaemonInTextStampsEveryLineAndACommandDoesNot) {
    std::ostringstream out, err, command_err;
    Context ctx(GlobalOptions{}, out, err);
    {
        LogScope scope(ctx, LogStyle::Daemon);
        spdlog::warn("watch down");
    }
    const std::string line = err.str();
    ASSERT_EQ(line.size(), 24 + std::string(" kprov: warning: watch down\n").size()) << line;
    EXPECT_EQ(line.substr(0, 2), "20");
    EXPECT_EQ(line[10], 'T');
    EXPECT_EQ(line[23], 'Z');
    EXPECT_EQ(line.substr(24), " kprov: warning: watch down\n");
    Context command(GlobalOptions{}, out, command_err);
    {
        LogScope scope(command);
        spdlog::warn("watch down");
    }
    EXPECT_EQ(command_err.str(), "kprov: warning: watch down\n");
}

} // namespace
} // namespace kprov::cli
