// execute() with a DocumentCache: a repeated document is taken from the cache, with each
// request's own variables; a broken one is answered with the same errors every time; the cache
// stays within its capacity. And the response text: fields in the order they were selected.

#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;
using Outcome = Response::Outcome;

constexpr const char* k_status_query =
    "query($id: String!) { runtimeOperationStatus(id: $id) { state id } }";

Resolvers echoing_resolvers() {
    Resolvers r;
    r.add("Query.runtimeOperationStatus", [](const FieldContext& ctx) -> json {
        return {{"id", ctx.arguments.at("id")}, {"state", "Succeeded"}};
    });
    return r;
}

Response run_cached(DocumentCache& cache, const Resolvers& resolvers, const std::string& query,
                    json variables = json::object()) {
    Request request;
    request.query = query;
    request.variables = std::move(variables);
    std::any state;
    return execute(testing::provisioner_schema(), resolvers, request, state, {}, &cache);
}

TEST(DocumentCache, RunsACachedDocumentWithEachRequestsVariables) {
    DocumentCache cache;
    const auto resolvers = echoing_resolvers();
    const Response first = run_cached(cache, resolvers, k_status_query, {{"id", "op-1"}});
    const Response second = run_cached(cache, resolvers, k_status_query, {{"id", "op-2"}});
    EXPECT_EQ(cache.size(), 1U);
    EXPECT_EQ(first.body()["data"]["runtimeOperationStatus"]["id"], "op-1") << first.text;
    EXPECT_EQ(second.body()["data"]["runtimeOperationStatus"]["id"], "op-2") << second.text;
    // Variables are still checked per request, against the cached document's definitions.
    const Response missing = run_cached(cache, resolvers, k_status_query);
    EXPECT_EQ(missing.outcome, Outcome::ValidationFailed) << missing.text;
    EXPECT_EQ(missing.body()["errors"][0]["message"],
              "Variable \"$id\" of required type \"String!\" was not provided.");
}

TEST(DocumentCache, AnswersABrokenDocumentWithTheSameErrorsEveryTime) {
    DocumentCache cache;
    const auto resolvers = echoing_resolvers();
    for (const std::string query : {"{ runtimeStatus(id: \"x\") {", "{ nope }"}) {
        const Response uncached =
            testing::run(testing::provisioner_schema(), resolvers, query, json::object());
        const Response first = run_cached(cache, resolvers, query);
        const Response again = run_cached(cache, resolvers, query);
        EXPECT_NE(first.outcome, Outcome::Executed) << first.text;
        EXPECT_EQ(first.text, uncached.text);
        EXPECT_EQ(again.text, first.text);
        EXPECT_EQ(again.outcome, first.outcome);
    }
    EXPECT_EQ(cache.size(), 2U);
}

TEST(DocumentCache, KeepsAtMostItsCapacityAndDropsTheLeastRecentlyUsed) {
    DocumentCache cache(2);
    const auto resolvers = echoing_resolvers();
    run_cached(cache, resolvers, "{ a: __typename }");
    run_cached(cache, resolvers, "{ b: __typename }");
    run_cached(cache, resolvers, "{ a: __typename }"); // a is now the most recent
    run_cached(cache, resolvers, "{ c: __typename }"); // b goes
    EXPECT_EQ(cache.size(), 2U);
    // Whatever the cache holds, the answers stay right.
    const Response b = run_cached(cache, resolvers, "{ b: __typename }");
    EXPECT_EQ(b.body()["data"]["b"], "Query") << b.text;
    EXPECT_EQ(cache.size(), 2U);
}

TEST(DocumentCache, DoesNotKeepDocumentsOverTheSizeLimit) {
    DocumentCache cache;
    Limits limits;
    limits.max_document_bytes = 16;
    Request request;
    request.query = "{ __typename __typename }";
    std::any state;
    const Response r =
        execute(testing::provisioner_schema(), Resolvers{}, request, state, limits, &cache);
    EXPECT_EQ(r.outcome, Outcome::ParseFailed) << r.text;
    EXPECT_EQ(cache.size(), 0U);
}

TEST(ResponseText, WritesFieldsInSelectionOrder) {
    const auto resolvers = echoing_resolvers();
    const Response r = testing::run(testing::provisioner_schema(), resolvers,
                                    "{ runtimeOperationStatus(id: \"op\") { state id } "
                                    "__typename }");
    EXPECT_EQ(r.text, R"({"data":{"runtimeOperationStatus":{"state":"Succeeded","id":"op"},)"
                      R"("__typename":"Query"}})");
}

TEST(ResponseText, NullsTheNearestNullableFieldWhenANonNullOneFails) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus", [](const FieldContext&) -> json {
        return {{"id", "op"}, {"state", nullptr}};
    });
    const Response response = testing::run(testing::provisioner_schema(), r,
                                           "{ __typename runtimeOperationStatus(id: \"op\") { "
                                           "id state } }");
    // state is non-null: its object becomes null, what came before stays.
    EXPECT_EQ(response.body()["data"],
              json::parse(R"({"__typename":"Query","runtimeOperationStatus":null})"))
        << response.text;
    EXPECT_EQ(response.body()["errors"][0]["path"], json::parse(R"(["runtimeOperationStatus",
              "state"])"));
}

TEST(ResponseText, ReplacesInvalidUtf8AndEscapesControlCharacters) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus", [](const FieldContext&) -> json {
        return {{"id", std::string("a\xff\"\\\n\x01z")}, {"state", "Succeeded"}};
    });
    const Response response = testing::run(testing::provisioner_schema(), r,
                                           "{ runtimeOperationStatus(id: \"x\") { id } }");
    EXPECT_EQ(response.text, "{\"data\":{\"runtimeOperationStatus\":{\"id\":\"a\xEF\xBF\xBD\\\"\\\\"
                             "\\n\\u0001z\"}}}");
}

} // namespace
} // namespace kprov::api::graphql
