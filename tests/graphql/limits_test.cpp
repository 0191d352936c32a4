// Hostile documents cost about what normal ones do (issue 17): validation reports at most 100
// errors, however many a document has, and does work linear in the document (counted with
// ValidationStats, never timed); an answer beyond Limits::max_response_bytes is refused.

#include "api/graphql/parser.hpp"
#include "api/graphql/validation.hpp"
#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;
using Outcome = Response::Outcome;

constexpr const char* k_too_many =
    "Too many validation errors, error limit reached. Validation aborted.";

/// Limits that let a large document through to validation.
Limits roomy() {
    Limits limits;
    limits.max_document_bytes = 4 * 1024 * 1024;
    limits.max_tokens = 1'000'000;
    limits.max_aliases = 1'000'000;
    return limits;
}

/// `piece(i)` for i in [0, n), joined by spaces.
template <typename F> std::string repeat(int n, F piece) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += piece(i) + " ";
    return out;
}

std::string conflicting_statuses(int n, bool aliased = false) {
    return "{ " +
           repeat(n,
                  [&](int i) {
                      return std::string(aliased ? "a: " : "") + "runtimeOperationStatus(id: \"" +
                             std::to_string(i) + "\") { id }";
                  }) +
           "}";
}

Response check(const std::string& document, const Limits& limits = roomy()) {
    return check_document(testing::provisioner_schema(), document, limits);
}

void expect_capped(const std::string& document) {
    const Response r = check(document);
    ASSERT_EQ(r.outcome, Outcome::ValidationFailed) << r.text.substr(0, 500);
    const json errors = r.body()["errors"];
    ASSERT_EQ(errors.size(), 101u) << errors[0];
    EXPECT_EQ(errors[100]["message"], k_too_many);
    EXPECT_NE(errors[99]["message"], k_too_many);
}

ValidationStats work_of(const std::string& document, std::size_t expected_errors = 0) {
    const ast::Document doc = parse_document(document, roomy());
    ValidationStats stats;
    const json errors = validate(testing::provisioner_schema(), doc, &stats);
    EXPECT_EQ(errors.size(), expected_errors) << errors.dump().substr(0, 500);
    return stats;
}

/// Twice the document does at most about twice the work.
template <typename F> void expect_linear(F document_of, int n, std::size_t expected_errors = 0) {
    const ValidationStats once = work_of(document_of(n), expected_errors);
    const ValidationStats twice = work_of(document_of(2 * n), expected_errors);
    EXPECT_LE(twice.fields_collected, 2 * once.fields_collected + 8);
    EXPECT_LE(twice.field_comparisons, 2 * once.field_comparisons + 8)
        << once.field_comparisons << " then " << twice.field_comparisons;
}

// Issue 17's request: 1000 fields with one response key and different arguments, 37 KB within
// the default limits, got 499,500 errors (143 MB).
TEST(ValidationLimits, TheConflictingFieldsAttackGetsAHundredErrors) {
    const std::string document = conflicting_statuses(1000);
    ASSERT_LT(document.size(), Limits{}.max_document_bytes);
    const Response r = testing::run(testing::provisioner_schema(), Resolvers{}, document);
    ASSERT_EQ(r.outcome, Outcome::ValidationFailed) << r.text.substr(0, 500);
    EXPECT_EQ(r.body()["errors"].size(), 101u);
    EXPECT_LT(r.text.size(), 64u * 1024);
    EXPECT_EQ(r.body()["errors"][0]["message"],
              "Fields \"runtimeOperationStatus\" conflict because they have differing arguments. "
              "Use different aliases on the fields to fetch both if this was intentional.");
}

TEST(ValidationLimits, TenThousandConflictingFieldsStayBounded) {
    for (const bool aliased : {false, true}) {
        const Response r = check(conflicting_statuses(10'000, aliased));
        ASSERT_EQ(r.outcome, Outcome::ValidationFailed);
        EXPECT_EQ(r.body()["errors"].size(), 101u);
        EXPECT_LT(r.text.size(), 64u * 1024);
    }
}

TEST(ValidationLimits, EveryRuleThatCanRepeatStopsAtAHundredErrors) {
    const int n = 1000;
    auto num = [](int i) {
        return std::to_string(i);
    };
    const std::string documents[] = {
        // FieldsOnCorrectType
        "{ " + repeat(n, [&](int i) { return "nope" + num(i); }) + "}",
        // KnownArgumentNames
        "{ runtimeStatus(id: \"x\" " + repeat(n, [&](int i) { return "a" + num(i) + ": 1"; }) +
            ") { __typename } }",
        // UniqueArgumentNames
        "{ runtimeStatus(" + repeat(n, [](int) { return std::string("id: \"x\""); }) +
            ") { __typename } }",
        // KnownDirectives
        "{ __typename " + repeat(n, [&](int i) { return "@nope" + num(i); }) + "}",
        // ValuesOfCorrectType
        "{ " + repeat(n, [](int) { return std::string("__typename @skip(if: 1)"); }) + "}",
        // NoUndefinedVariables
        "{ " + repeat(n, [&](int i) { return "__typename @skip(if: $v" + num(i) + ")"; }) + "}",
        // NoUnusedVariables
        "query (" + repeat(n, [&](int i) { return "$v" + num(i) + ": Int"; }) + ") { __typename }",
        // UniqueVariableNames
        "query (" + repeat(n, [](int) { return std::string("$v: Boolean"); }) +
            ") { __typename @skip(if: $v) }",
        // KnownFragmentNames
        "{ " + repeat(n, [&](int i) { return "...F" + num(i); }) + "}",
        // NoUnusedFragments
        "{ __typename } " +
            repeat(n, [&](int i) { return "fragment F" + num(i) + " on Query { __typename }"; }),
        // NoFragmentCycles
        "{ ...F0 } " + repeat(n,
                              [&](int i) {
                                  return "fragment F" + num(i) + " on Query { ...F0 ...F" + num(i) +
                                         " }";
                              }),
        // UniqueOperationNames
        repeat(n, [](int) { return std::string("query Q { __typename }"); }),
        // OverlappingFieldsCanBeMerged
        conflicting_statuses(n),
    };
    for (const auto& document : documents) {
        SCOPED_TRACE(document.substr(0, 80));
        expect_capped(document);
    }
}

// The finding-4 document: one field repeated thousands of times was compared pair by pair.
TEST(ValidationWork, RepeatedIdenticalFieldsCostLinearWork) {
    expect_linear(
        [](int n) {
            return "{ " +
                   repeat(n,
                          [](int) {
                              return std::string("runtimeOperationStatus(id: \"1\") { id state }");
                          }) +
                   "}";
        },
        4000);
    expect_linear(
        [](int n) { return "{ " + repeat(n, [](int) { return std::string("__typename"); }) + "}"; },
        4000);
}

TEST(ValidationWork, ConflictingFieldsCostLinearWork) {
    // 1000 pairs of two conflicting fields: one conflict, however often it is repeated.
    expect_linear(
        [](int n) {
            return "{ " +
                   repeat(n,
                          [](int) {
                              return std::string("a: runtimeOperationStatus(id: \"1\") { id } "
                                                 "a: runtimeOperationStatus(id: \"2\") { id }");
                          }) +
                   "}";
        },
        1000, 1);
    // 1000 pairs of fields that all differ: the search ends at the cap.
    expect_linear([](int n) { return conflicting_statuses(2 * n, true); }, 1000, 101);
}

// Copies of one field that select different subfields are compared as one field: linear, and
// still a conflict between any two of them is found.
TEST(ValidationWork, ManyVariantsOfOneFieldCostLinearWorkAndStillConflict) {
    auto variants = [](int n) {
        return "{ " +
               repeat(n,
                      [](int i) {
                          return "runtimeOperationStatus(id: \"1\") { x" + std::to_string(i) +
                                 ": id }";
                      }) +
               "}";
    };
    expect_linear(variants, 4000);
    const std::string conflicting =
        "{ " +
        repeat(100,
               [](int i) {
                   return "runtimeOperationStatus(id: \"1\") { x" + std::to_string(i) + ": id }";
               }) +
        "runtimeOperationStatus(id: \"1\") { x57: state } }";
    const Response r = check(conflicting);
    ASSERT_EQ(r.outcome, Outcome::ValidationFailed) << r.text;
    EXPECT_EQ(r.body()["errors"][0]["message"],
              "Fields \"x57\" conflict because \"id\" and \"state\" are different fields. Use "
              "different aliases on the fields to fetch both if this was intentional.");
}

// --- Limits::max_response_bytes -----------------------------------------------------------------

TEST(ResponseLimits, AnAnswerOverTheLimitIsReplacedByAnError) {
    Resolvers resolvers;
    int calls = 0;
    resolvers.add("Query.runtimeOperationStatus", [&](const FieldContext& ctx) -> json {
        ++calls;
        return {{"id", std::string(200, 'x')}, {"state", ctx.arguments.at("id")}};
    });
    Limits limits;
    limits.max_response_bytes = 1000;
    std::string query = "{ ";
    for (int i = 0; i < 20; ++i)
        query += "s" + std::to_string(i) + ": runtimeOperationStatus(id: \"1\") { id } ";
    query += "}";
    Request request;
    request.query = query;
    std::any state;
    const Response r = execute(testing::provisioner_schema(), resolvers, request, state, limits);
    EXPECT_EQ(r.outcome, Outcome::Executed);
    EXPECT_TRUE(r.field_errors);
    EXPECT_EQ(r.body(), json::parse(R"({"data": null, "errors": [{"message":
              "The response exceeds the limit of 1000 bytes.",
              "extensions": {"code": "RESPONSE_TOO_LARGE"}}]})"));
    EXPECT_LT(calls, 20); // execution stopped once the answer was too large

    // The same query fits the default limit.
    calls = 0;
    const Response fits = execute(testing::provisioner_schema(), resolvers, request, state);
    EXPECT_EQ(fits.body()["data"]["s19"]["id"], std::string(200, 'x')) << fits.text;
    EXPECT_EQ(calls, 20);
}

TEST(ResponseLimits, OneLargeValueIsCaughtToo) {
    Resolvers resolvers;
    resolvers.add("Query.runtimeOperationStatus", [](const FieldContext&) -> json {
        return {{"id", std::string(5000, 'x')}};
    });
    Limits limits;
    limits.max_response_bytes = 1000;
    Request request;
    request.query = "{ runtimeOperationStatus(id: \"1\") { id } }";
    std::any state;
    const Response r = execute(testing::provisioner_schema(), resolvers, request, state, limits);
    EXPECT_EQ(r.body()["errors"][0]["extensions"]["code"], "RESPONSE_TOO_LARGE") << r.text;
    EXPECT_LT(r.text.size(), 1000u);
}

} // namespace
} // namespace kprov::api::graphql
