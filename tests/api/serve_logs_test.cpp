// What `kprov serve` writes to its log, for a log collector: an RFC 3339 UTC time stamp on every
// line, JSON lines with --log-format json, one access line per request (at info in JSON, at
// debug in text) that never carries the token; and the playground switched off.

#include "serve_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::api::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string k_token = "the-api-token-3f9a1c";

using kprov::testing::lines_of;

// "2026-12-07T13:42:26.123Z": digits where digits belong, UTC.
bool is_rfc3339_utc(const std::string& ts) {
    if (ts.size() != 24)
        return false;
    const std::string shape = "dddd-dd-ddTdd:dd:dd.dddZ";
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(ts[i])) == 0
                            : ts[i] != shape[i])
            return false;
    return true;
}

ServeOptions with_env(std::vector<std::string> env, std::string token = {}) {
    ServeOptions options;
    options.extra_env = std::move(env);
    options.token = std::move(token);
    return options;
}

class ServeLogs : public ServeTest<> {};

TEST_F(ServeLogs, JsonLinesCarryTsLevelMsgAndOneAccessLinePerRequestWithoutTheToken) {
    start(with_env({"KPROV_LOG_FORMAT=json", "KPROV_LOG_LEVEL=trace"}, k_token));
    const httplib::Headers authorized = {{"Authorization", "Bearer " + k_token}, {"Tenant", "t"}};
    for (int i = 0; i < 2; ++i) // two lines, not one and a count of repeats
        EXPECT_EQ(process->graphql("{ __typename }", nullptr, authorized).status, 200);
    EXPECT_EQ(
        process->graphql("{ __typename }", nullptr, {{"Authorization", "Bearer wrong"}}).status,
        401);
    EXPECT_EQ(process->get("/no/such/path?token=" + k_token).status, 404);
    ASSERT_EQ(process->stop(), 0);

    const auto lines = lines_of(process->log());
    ASSERT_GT(lines.size(), 3U) << process->log();
    std::map<std::string, json> access; // "POST /graphql 200" -> the line
    std::map<std::string, int> count;
    for (const auto& line : lines) {
        const json object = json::parse(line, nullptr, false);
        ASSERT_TRUE(object.is_object()) << "not a JSON object: " << line;
        ASSERT_TRUE(object.contains("ts") && object["ts"].is_string()) << line;
        EXPECT_TRUE(is_rfc3339_utc(object["ts"])) << line;
        EXPECT_TRUE(object.contains("level") && object["level"].is_string()) << line;
        EXPECT_TRUE(object.contains("msg") && object["msg"].is_string()) << line;
        EXPECT_THAT(line, Not(HasSubstr(k_token)));
        if (object.value("component", "") == "api") {
            const std::string key = object.value("method", "") + " " + object.value("route", "") +
                                    " " + object.value("status", "");
            access[key] = object;
            ++count[key];
        }
    }
    ASSERT_TRUE(access.count("POST /graphql 200")) << process->log();
    EXPECT_EQ(count["POST /graphql 200"], 2) << process->log();
    const json& ok = access["POST /graphql 200"];
    EXPECT_EQ(ok["level"], "info");
    EXPECT_EQ(ok["client"], "127.0.0.1");
    EXPECT_TRUE(ok.contains("duration_ms"));
    EXPECT_TRUE(access.count("POST /graphql 401")) << process->log();
    EXPECT_TRUE(access.count("GET unmatched 404"))
        << "a client's path is not written as given: " << process->log();
}

TEST_F(ServeLogs, TextLinesStartWithATimeStampAndShowRequestsOnlyAtDebug) {
    start(with_env({"KPROV_LOG_LEVEL=info"}));
    EXPECT_EQ(process->graphql("{ __typename }").status, 200);
    ASSERT_EQ(process->stop(), 0);
    auto lines = lines_of(process->log());
    ASSERT_FALSE(lines.empty());
    for (const auto& line : lines) {
        EXPECT_TRUE(is_rfc3339_utc(line.substr(0, 24))) << line;
        EXPECT_EQ(line.substr(24, 8), " kprov: ") << line;
    }
    EXPECT_THAT(process->log(), Not(HasSubstr("POST /graphql 200")));

    start(with_env({"KPROV_LOG_LEVEL=debug"}));
    EXPECT_EQ(process->graphql("{ __typename }").status, 200);
    ASSERT_EQ(process->stop(), 0);
    EXPECT_THAT(process->log(), HasSubstr("kprov: debug: POST /graphql 200 "));
}

TEST_F(ServeLogs, ThePlaygroundCanBeSwitchedOff) {
    start();
    EXPECT_EQ(process->get("/").status, 200);
    ASSERT_EQ(process->stop(), 0);
    start(with_env({"KPROV_PLAYGROUND=false"}));
    EXPECT_EQ(process->get("/").status, 404);
    EXPECT_EQ(process->graphql("{ __typename }").data()["__typename"], "Query");
}

} // namespace
} // namespace kprov::api::testing
