// execute() with a DocumentCache: a repeated document is taken from the cache, with each
// request's own variables; a broken one is answered with the same errors every time; the cache
// stays within its bytes, rejected documents within their smaller budget. And the response
// text: fields in the order they were selected.

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

TEST(DocumentCache, KeepsAtMostItsBytesAndDropsTheLeastRecentlyUsed) {
    DocumentCache cache(16 * 1024, 1024);
    const auto resolvers = echoing_resolvers();
    auto doc = [](int i) {
        return "{ a" + std::to_string(i) + ": __typename }";
    };
    run_cached(cache, resolvers, doc(0));
    const std::size_t one = cache.bytes();
    EXPECT_GT(one, doc(0).size());
    const int fit = static_cast<int>((16 * 1024 - 1024) / one); // about as many as fit
    for (int i = 1; i < 3 * fit; ++i) {
        run_cached(cache, resolvers, doc(i));
        run_cached(cache, resolvers, doc(0)); // kept the most recently used
        EXPECT_LE(cache.bytes(), 16u * 1024 - 1024);
    }
    EXPECT_LT(cache.size(), static_cast<std::size_t>(fit) + 2);
    EXPECT_GT(cache.size(), static_cast<std::size_t>(fit) / 2);
    // doc(0) stayed; doc(1) was the least recently used long ago and went.
    const std::size_t hits = cache.hits();
    const std::size_t misses = cache.misses();
    run_cached(cache, resolvers, doc(0));
    EXPECT_EQ(cache.hits(), hits + 1);
    const Response b = run_cached(cache, resolvers, doc(1));
    EXPECT_EQ(cache.misses(), misses + 1);
    // Whatever the cache holds, the answers stay right.
    EXPECT_EQ(b.body()["data"]["a1"], "Query") << b.text;
}

/// A document of about `bytes` that fails validation: `runtimeOperationStatus` with different
/// arguments, issue 17's request; `salt` makes it distinct.
std::string rejected_document(std::size_t bytes, int salt) {
    std::string doc = "{ s" + std::to_string(salt) + ": __typename ";
    for (int i = 0; doc.size() < bytes; ++i)
        doc += "runtimeOperationStatus(id: \"" + std::to_string(i) + "\") { id } ";
    return doc + "}";
}

TEST(DocumentCache, KeepsRejectedDocumentsWithinTheirBudget) {
    const auto resolvers = echoing_resolvers();
    for (const int count : {6, 600}) {
        DocumentCache cache; // 32 MiB, of which 1 MiB for rejected documents
        for (int i = 0; i < count; ++i) {
            const std::string doc = rejected_document(19 * 1024, i);
            const Response r = run_cached(cache, resolvers, doc);
            ASSERT_EQ(r.outcome, Outcome::ValidationFailed);
            if (i == 0) {
                EXPECT_EQ(r.body()["errors"].size(), 101u);
            }
            EXPECT_LE(cache.rejected_bytes(), DocumentCache::k_default_max_rejected_bytes);
        }
        EXPECT_EQ(cache.bytes(), cache.rejected_bytes()); // nothing else was asked
        if (count == 6)
            EXPECT_EQ(cache.size(), 6u); // the six fit, and are answered from the cache
        else
            EXPECT_LT(cache.size(), 600u / 10);
        const std::size_t hits = cache.hits();
        run_cached(cache, resolvers, rejected_document(19 * 1024, count - 1));
        EXPECT_EQ(cache.hits(), hits + 1);
    }
}

TEST(DocumentCache, RejectedDocumentsDoNotPushOutAcceptedOnes) {
    DocumentCache cache(256 * 1024, 64 * 1024);
    const auto resolvers = echoing_resolvers();
    run_cached(cache, resolvers, k_status_query, {{"id", "op"}});
    for (int i = 0; i < 100; ++i)
        run_cached(cache, resolvers, rejected_document(19 * 1024, i));
    EXPECT_LE(cache.rejected_bytes(), 64u * 1024);
    EXPECT_LE(cache.bytes(), 256u * 1024);
    const std::size_t hits = cache.hits();
    run_cached(cache, resolvers, k_status_query, {{"id", "op"}});
    EXPECT_EQ(cache.hits(), hits + 1);
}

TEST(DocumentCache, AcceptedDocumentsStayWithinMaxBytes) {
    DocumentCache cache(256 * 1024, 16 * 1024);
    const auto resolvers = echoing_resolvers();
    std::size_t largest = 0;
    for (int i = 0; i < 200; ++i) {
        std::string doc = "{ __typename" + std::to_string(i) + ": __typename ";
        while (doc.size() < 8 * 1024)
            doc += "runtimeOperationStatus(id: \"1\") { id state } ";
        run_cached(cache, resolvers, doc + "}");
        largest = std::max(largest, cache.bytes());
        EXPECT_LE(cache.bytes(), 256u * 1024);
    }
    // The tree is counted, not only the text: each costs well over its 8 KiB.
    EXPECT_LT(cache.size() * 16 * 1024, 256u * 1024);
    EXPECT_GT(largest, 128u * 1024);
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
