// Inputs the fuzzer (tests/fuzz/) found to break kprov, each kept as a test.

#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;

// Every response must serialize as strict UTF-8 JSON, whatever bytes the client sent.
void expect_serializable(const Response& r) {
    EXPECT_NO_THROW((void)r.body().dump())
        << r.body().dump(-1, ' ', false, json::error_handler_t::replace);
}

// crash-e6d03a3e: an operation name with invalid UTF-8 was echoed in "Unknown operation named".
TEST(GraphQLRegression, OperationNameWithInvalidUtf8) {
    const Response r = testing::run(
        testing::provisioner_schema(), Resolvers{},
        R"(fragment F on Query { runtimeStatus(id: "1") { __typename } } { ...F })", json::object(),
        std::string("{\"id\": \"r1\", \"withKyma\xd5\xc5\xdf\x8b\x8d\x8a\x9a\xd3"));
    EXPECT_EQ(r.outcome, Response::Outcome::ValidationFailed);
    expect_serializable(r);
    const std::string message = r.body()["errors"][0]["message"];
    EXPECT_EQ(message.rfind(
                  "Unknown operation named \"{\\\"id\\\": \\\"r1\\\", \\\"withKyma\xEF\xBF\xBD", 0),
              0u)
        << message;
}

// crash-06bff2e5: "\u" followed by non-UTF-8 bytes was quoted raw in the syntax error.
TEST(GraphQLRegression, UnicodeEscapeFollowedByInvalidUtf8) {
    const std::string query =
        "{ runtimeOperationStatus(id: \"\\u" + std::string(20, '\x83') + "00e9\") { id } }";
    const Response r = testing::run(testing::provisioner_schema(), Resolvers{}, query);
    EXPECT_EQ(r.outcome, Response::Outcome::ParseFailed);
    expect_serializable(r);
    EXPECT_EQ(r.body()["errors"][0]["message"],
              "Syntax Error: Invalid Unicode escape sequence: \"\\u\".");
}

// Found while fixing the above: a number followed by a byte that is not UTF-8.
TEST(GraphQLRegression, NumberFollowedByInvalidUtf8) {
    const Response r = testing::run(testing::provisioner_schema(), Resolvers{}, "{ a(x: -\xFF) }");
    EXPECT_EQ(r.outcome, Response::Outcome::ParseFailed);
    expect_serializable(r);
    EXPECT_EQ(r.body()["errors"][0]["message"],
              "Syntax Error: Invalid number, expected digit but got: U+00FF.");
}

// Resolvers may fail with messages that are not UTF-8 (bytes from a remote system).
TEST(GraphQLRegression, ResolverMessageWithInvalidUtf8) {
    Resolvers resolvers;
    resolvers.add("Query.runtimeOperationStatus",
                  [](const FieldContext&) -> json { throw FieldError("bad \xC3 byte"); });
    const Response r = testing::run(testing::provisioner_schema(), resolvers,
                                    "{ runtimeOperationStatus(id: \"x\") { id } }");
    expect_serializable(r);
    EXPECT_EQ(r.body()["errors"][0]["message"], "bad \xEF\xBF\xBD byte");
}

// Deeply nested variables are refused before anything walks them recursively.
TEST(GraphQLRegression, DeeplyNestedVariables) {
    json deep = "x";
    for (int i = 0; i < 100000; ++i)
        deep = json::array({std::move(deep)});
    const Response r = testing::run(
        testing::provisioner_schema(), Resolvers{},
        "mutation ($l: Labels) { provisionRuntime(config: { runtimeInput: { name: \"n\", labels: "
        "$l }, clusterConfig: { gardenerConfig: { name: \"s\", kubernetesVersion: \"1\", "
        "provider: \"gcp\", targetSecret: \"t\", region: \"r\", machineType: \"m\", "
        "workerCidr: \"w\", autoScalerMin: 1, autoScalerMax: 2, maxSurge: 1, maxUnavailable: 0, "
        "providerSpecificConfig: {} } } }) { id } }",
        {{"l", std::move(deep)}});
    EXPECT_EQ(r.outcome, Response::Outcome::ValidationFailed);
    EXPECT_EQ(r.body()["errors"][0]["message"], "Variables nest deeper than 64 levels.");
}

TEST(GraphQLRegression, JsonNestingIsMeasuredWithoutRecursion) {
    EXPECT_EQ(json_nesting(json("x"), 64), 0u);
    EXPECT_EQ(json_nesting(json::parse(R"({"a":[1,{"b":[]}],"c":{}})"), 64), 4u);
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const json parsed = json::parse(deep); // nlohmann parses and destroys without recursion
    EXPECT_EQ(json_nesting(parsed, 64), 65u);
}

// Messages show a bounded excerpt of a bad value, however large it is.
TEST(GraphQLRegression, HugeInvalidVariableValue) {
    json big = json::array();
    for (int i = 0; i < 10000; ++i)
        big.push_back({{"k", i}});
    const Response r = testing::run(
        testing::provisioner_schema(), Resolvers{},
        "query ($id: String!) { runtimeStatus(id: $id) { __typename } }", {{"id", big}});
    EXPECT_EQ(r.outcome, Response::Outcome::ValidationFailed);
    EXPECT_LT(r.body()["errors"][0]["message"].get<std::string>().size(), 600u);
}

} // namespace
} // namespace kprov::api::graphql
