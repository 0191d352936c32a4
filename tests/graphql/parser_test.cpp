#include "api/graphql/parser.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

std::string parse_error(std::string_view source, const Limits& limits = {},
                        SourceLocation* where = nullptr) {
    try {
        parse_document(source, limits);
    } catch (const SyntaxError& e) {
        if (where)
            *where = e.where;
        return e.what();
    }
    return "no error";
}

TEST(Parser, ReadsOperationsWithEverything) {
    const ast::Document doc = parse_document(R"(
        query Q($id: String! = "x", $list: [[Int!]]!, $o: In = {a: [1, 2.5], b: ENUM, c: null})
          @dir(a: 1) {
          alias: field(a: $id, b: true, c: "s", d: ENUM, e: [1, {x: $list}]) @skip(if: false) {
            sub
            ... on T @include(if: true) { x }
            ... { y }
            ...Frag @d
          }
        }
        mutation { m }
        fragment Frag on T { z }
        { shorthand }
    )",
                                             {});
    ASSERT_EQ(doc.operations.size(), 3u);
    const ast::Operation& q = doc.operations[0];
    EXPECT_EQ(q.kind, ast::OperationKind::Query);
    EXPECT_EQ(q.name, "Q");
    ASSERT_EQ(q.variables.size(), 3u);
    EXPECT_EQ(q.variables[0].type.name, "String");
    EXPECT_EQ(q.variables[0].type.mods, "N");
    EXPECT_EQ(q.variables[0].default_value->text, "x");
    EXPECT_EQ(q.variables[1].type.mods, "NLLN");
    EXPECT_EQ(ast::print_type(q.variables[1].type), "[[Int!]]!");
    EXPECT_EQ(ast::print_value(*q.variables[2].default_value), "{a: [1, 2.5], b: ENUM, c: null}");
    EXPECT_EQ(q.directives[0].name, "dir");
    const ast::Selection& f = q.selections[0];
    EXPECT_EQ(f.alias, "alias");
    EXPECT_EQ(f.name, "field");
    EXPECT_EQ(f.response_key(), "alias");
    ASSERT_EQ(f.arguments.size(), 5u);
    EXPECT_EQ(f.arguments[0].value.kind, ast::ValueKind::Variable);
    EXPECT_EQ(f.arguments[1].value.kind, ast::ValueKind::Boolean);
    EXPECT_EQ(f.arguments[3].value.kind, ast::ValueKind::Enum);
    EXPECT_EQ(ast::print_value(f.arguments[4].value), "[1, {x: $list}]");
    EXPECT_EQ(f.directives[0].name, "skip");
    ASSERT_EQ(f.selections.size(), 4u);
    EXPECT_EQ(f.selections[1].kind, ast::Selection::Kind::InlineFragment);
    EXPECT_EQ(f.selections[1].type_condition, "T");
    EXPECT_EQ(f.selections[2].type_condition, "");
    EXPECT_EQ(f.selections[3].kind, ast::Selection::Kind::FragmentSpread);
    EXPECT_EQ(f.selections[3].name, "Frag");
    EXPECT_EQ(doc.operations[1].kind, ast::OperationKind::Mutation);
    EXPECT_EQ(doc.operations[2].name, "");
    ASSERT_EQ(doc.fragments.size(), 1u);
    EXPECT_EQ(doc.fragments[0].type_condition, "T");
    EXPECT_EQ(doc.alias_count, 1u);
    EXPECT_EQ(f.loc.line, 4);
    EXPECT_EQ(f.loc.column, 11);
}

TEST(Parser, ReportsSyntaxErrorsAsGraphqlJsDoes) {
    SourceLocation at;
    EXPECT_EQ(parse_error("{", {}, &at), "Syntax Error: Expected Name, found <EOF>.");
    EXPECT_EQ(at.column, 2);
    EXPECT_EQ(parse_error(""), "Syntax Error: Unexpected <EOF>.");
    EXPECT_EQ(parse_error("{}"), "Syntax Error: Expected Name, found \"}\".");
    EXPECT_EQ(parse_error("query Q() { a }"), "Syntax Error: Expected \"$\", found \")\".");
    EXPECT_EQ(parse_error("{ a(b: ) }"), "Syntax Error: Unexpected \")\".");
    EXPECT_EQ(parse_error("{ a(b: 1 }"), "Syntax Error: Expected Name, found \"}\".");
    EXPECT_EQ(parse_error("fragment on on T { a }"), "Syntax Error: Unexpected Name \"on\".");
    EXPECT_EQ(parse_error("fragment F T { a }"),
              "Syntax Error: Expected \"on\", found Name \"T\".");
    EXPECT_EQ(parse_error("query ($a: Int = $b) { a }"),
              "Syntax Error: Unexpected variable \"$b\" in constant value.");
    EXPECT_EQ(parse_error("type T { a: Int }"),
              "Syntax Error: The \"type\" definition is not executable.");
    EXPECT_EQ(parse_error("{ a } }"), "Syntax Error: Unexpected \"}\".");
    EXPECT_EQ(parse_error("query { a: }"), "Syntax Error: Expected Name, found \"}\".");
    EXPECT_EQ(parse_error("{ a(b: \"x\" \"y\") }"),
              "Syntax Error: Expected Name, found String \"y\".");
}

TEST(Parser, EnforcesTheLimits) {
    Limits limits;
    limits.max_aliases = 2;
    EXPECT_EQ(parse_error("{ a: x b: x }", limits), "no error");
    EXPECT_EQ(parse_error("{ a: x b: x c: x }", limits),
              "Syntax Error: Document contains more than 2 aliases.");

    limits = {};
    limits.max_depth = 3;
    EXPECT_EQ(parse_error("{ a { b { c } } }", limits), "no error");
    EXPECT_EQ(parse_error("{ a { b { c { d } } } }", limits),
              "Syntax Error: Operation nests fields deeper than 3 levels.");
    // Fragments count where they are spread; inline fragments add no level.
    EXPECT_EQ(parse_error("{ a { ...F } } fragment F on T { b { ... on T { c { d } } } }", limits),
              "Syntax Error: Operation nests fields deeper than 3 levels.");
    // A fragment cycle does not hang the depth count (validation reports the cycle).
    EXPECT_EQ(parse_error("{ ...A } fragment A on T { a { ...A } }", limits), "no error");

    limits = {};
    limits.max_tokens = 5;
    EXPECT_EQ(parse_error("{ a b c d }", limits),
              "Syntax Error: Document contains more than 5 tokens.");
    // Nesting too deep for the stack is refused however high the depth limit is.
    limits = {};
    limits.max_depth = 100000;
    EXPECT_EQ(parse_error(std::string(300, '[') + "1" + std::string(300, ']')),
              "Syntax Error: Unexpected \"[\".");
    EXPECT_NE(
        parse_error("{ a(x: " + std::string(300, '[') + "1" + std::string(300, ']') + ") }", limits)
            .find("nests deeper than 256"),
        std::string::npos);
}

TEST(Parser, ReadsTypeSystemDefinitions) {
    const ast::TypeSystemDocument doc = parse_type_system(R"(
        "schema" schema { query: Q }
        """A type""" type Q implements & A & B @d { "f" f("x" x: Int = 1 @deprecated): [String!]! }
        interface A { f: Int }
        union U = | X | Y
        enum E { A "b" B @deprecated(reason: "r") }
        input I { a: Int = 2, b: [E!] }
        scalar S @specifiedBy(url: "u")
        directive @d(a: Int) repeatable on | FIELD | OBJECT
        extend type Q { g: Int }
    )");
    ASSERT_EQ(doc.types.size(), 7u);
    EXPECT_EQ(doc.types[0].description, "A type");
    EXPECT_EQ(doc.types[0].interfaces.size(), 2u);
    EXPECT_EQ(doc.types[0].fields[0].arguments[0].description, "x");
    EXPECT_EQ(ast::print_type(doc.types[0].fields[0].type), "[String!]!");
    EXPECT_EQ(doc.types[2].members.size(), 2u);
    EXPECT_EQ(doc.types[3].enum_values[1].description, "b");
    EXPECT_TRUE(doc.types[6].extension);
    ASSERT_EQ(doc.directives.size(), 1u);
    EXPECT_TRUE(doc.directives[0].repeatable);
    EXPECT_EQ(doc.directives[0].locations, (std::vector<std::string>{"FIELD", "OBJECT"}));
    EXPECT_EQ(doc.schemas[0].description, "schema");
    EXPECT_THROW(parse_type_system("enum E { true }"), SyntaxError);
    EXPECT_THROW(parse_type_system("type T { a(): Int }"), SyntaxError);
}

} // namespace
} // namespace kprov::api::graphql
