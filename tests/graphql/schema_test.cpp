// schemas/provisioner.graphql against the contract (tests/graphql/contract.txt), and load_schema's
// handling of broken SDL.

#include "api/graphql/schema.hpp"
#include "graphql_testing.hpp"

#include <gtest/gtest.h>
#include <set>
#include <sstream>

namespace kprov::api::graphql {
namespace {

std::string signature(const FieldDef& f) {
    std::string s = f.name;
    if (!f.arguments.empty()) {
        s += "(";
        for (std::size_t i = 0; i < f.arguments.size(); ++i)
            s +=
                (i ? ", " : "") + f.arguments[i].name + ": " + ast::print_type(f.arguments[i].type);
        s += ")";
    }
    return s + ": " + ast::print_type(f.type);
}

/// The provisioner schema described in contract.txt's notation.
std::set<std::string> describe(const Schema& schema) {
    std::set<std::string> out;
    for (const auto& t : schema.types()) {
        const bool builtin_scalar = t->kind == TypeKind::Scalar && t->scalar != ScalarKind::Custom;
        if (t->name.rfind("__", 0) == 0 || builtin_scalar)
            continue;
        switch (t->kind) {
        case TypeKind::Object:
            for (const auto& f : t->fields)
                out.insert("type " + t->name + "." + signature(f));
            break;
        case TypeKind::InputObject:
            for (const auto& f : t->input_fields)
                out.insert("input " + t->name + "." + f.name + ": " + ast::print_type(f.type));
            break;
        case TypeKind::Enum: {
            std::string line = "enum " + t->name;
            for (const auto& v : t->enum_values)
                line += " " + v.name;
            out.insert(line);
            break;
        }
        case TypeKind::Union: {
            std::string line = "union " + t->name;
            for (const auto& m : t->possible_types)
                line += " " + m;
            out.insert(line);
            break;
        }
        case TypeKind::Scalar:
            out.insert("scalar " + t->name);
            break;
        case TypeKind::Interface:
            out.insert("interface " + t->name);
            break;
        }
    }
    return out;
}

TEST(ProvisionerSchema, DeclaresExactlyTheContract) {
    std::set<std::string> expected;
    std::istringstream in(
        testing::read_text_file(std::string(KPROV_SOURCE_DIR) + "/tests/graphql/contract.txt"));
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#')
            expected.insert(line);
    ASSERT_GT(expected.size(), 200u);
    const std::set<std::string> actual = describe(testing::provisioner_schema());
    for (const auto& e : expected)
        EXPECT_TRUE(actual.count(e)) << "missing from the schema: " << e;
    for (const auto& a : actual)
        EXPECT_TRUE(expected.count(a)) << "not in the contract: " << a;
}

TEST(ProvisionerSchema, DeprecatesWithTheOriginalsReasons) {
    const Schema& s = testing::provisioner_schema();
    const std::pair<const char*, const char*> deprecated[] = {
        {"RuntimeConfig", "kymaConfig"},
        {"Mutation", "upgradeRuntime"},
        {"Mutation", "rollBackUpgradeOperation"},
        {"Mutation", "hibernateRuntime"},
        {"RuntimeStatus", "hibernationStatus"}};
    for (const auto& [type, field] : deprecated) {
        const FieldDef* f = s.type(type)->field(field);
        ASSERT_NE(f, nullptr) << type << "." << field;
        EXPECT_TRUE(f->deprecated) << type << "." << field;
        const bool kyma =
            std::string(field) != "hibernateRuntime" && std::string(field) != "hibernationStatus";
        EXPECT_NE(f->deprecation_reason.find(kyma ? "Kyma 1.x" : "Kyma Environment Broker"),
                  std::string::npos)
            << f->deprecation_reason;
    }
    std::size_t count = 0;
    for (const auto& t : s.types())
        for (const auto& f : t->fields)
            count += f.deprecated ? 1 : 0;
    EXPECT_EQ(count, std::size(deprecated));
}

TEST(ProvisionerSchema, DescribesEveryTypeAndField) {
    for (const auto& t : testing::provisioner_schema().types()) {
        EXPECT_FALSE(t->description.empty()) << t->name;
        if (t->name.rfind("__", 0) == 0)
            continue; // the prelude's, described where the spec describes them
        for (const auto& f : t->fields)
            EXPECT_FALSE(f.description.empty()) << t->name << "." << f.name;
        for (const auto& f : t->input_fields)
            EXPECT_FALSE(f.description.empty()) << t->name << "." << f.name;
    }
}

SourceLocation schema_error_at(const std::string& sdl, std::string& message) {
    try {
        load_schema(sdl);
    } catch (const SchemaError& e) {
        message = e.what();
        return e.where;
    }
    message = "no SchemaError";
    return {};
}

TEST(LoadSchema, NamesTheLineAndColumnOfBrokenSdl) {
    std::string message;
    SourceLocation at = schema_error_at("type Query {\n  a: Strin\n}", message);
    EXPECT_EQ(message, "Unknown type \"Strin\" in field \"Query.a\".");
    EXPECT_EQ(at.line, 2);
    EXPECT_EQ(at.column, 6);

    at = schema_error_at("type Query {\n  a: String\n", message);
    EXPECT_EQ(message, "Syntax Error: Expected Name, found <EOF>.");
    EXPECT_EQ(at.line, 3);

    schema_error_at("type Query { a: Int }\ntype Query { b: Int }", message);
    EXPECT_EQ(message, "There can be only one type named \"Query\".");
    schema_error_at("type Query { a(x: Query): Int }", message);
    EXPECT_NE(message.find("must be an input type"), std::string::npos) << message;
    schema_error_at("input I { a: Int }\ntype Query { a: I }", message);
    EXPECT_NE(message.find("must be an output type"), std::string::npos) << message;
    schema_error_at("type Mutation { a: Int }", message);
    EXPECT_EQ(message, "The schema has no query root type.");
    schema_error_at("type Query { a(x: Int = \"s\"): Int }", message);
    EXPECT_EQ(message, "The default of \"Query.a.x\" is not a Int.");
    schema_error_at("union U = Int\ntype Query { a: U }", message);
    EXPECT_NE(message.find("can only include Object types"), std::string::npos) << message;
}

TEST(LoadSchema, ReadsExtensionsInterfacesAndCustomRoots) {
    const auto s = load_schema(R"(
        schema { query: Root }
        interface Node { id: ID! }
        type Thing implements Node { id: ID! size: Float @deprecated }
        type Root { node: Node }
        extend type Root { things: [Thing!]! }
        enum Color { RED GREEN @deprecated(reason: "use RED") }
        extend enum Color { BLUE }
        scalar Date @specifiedBy(url: "https://tools.ietf.org/html/rfc3339")
        input Filter { color: Color = RED, after: Date }
        extend type Root { filtered(filter: Filter): [Thing] }
    )");
    EXPECT_EQ(s->query_type()->name, "Root");
    EXPECT_EQ(s->mutation_type(), nullptr);
    EXPECT_NE(s->type("Root")->field("things"), nullptr);
    EXPECT_EQ(s->type("Node")->possible_types, std::vector<std::string>{"Thing"});
    EXPECT_TRUE(s->type("Thing")->field("size")->deprecated);
    EXPECT_EQ(s->type("Thing")->field("size")->deprecation_reason, "No longer supported");
    EXPECT_EQ(s->type("Color")->enum_values.size(), 3u);
    EXPECT_EQ(s->type("Color")->enum_value("GREEN")->deprecation_reason, "use RED");
    EXPECT_EQ(s->type("Date")->specified_by_url, "https://tools.ietf.org/html/rfc3339");
    EXPECT_EQ(s->type("Filter")->input_field("color")->default_value, "RED");
    // Built-in scalars nothing uses are left out, as graphql-js does.
    EXPECT_NE(s->type("Float"), nullptr);
    EXPECT_EQ(s->type("Int"), nullptr);
    EXPECT_NE(s->type("String"), nullptr); // introspection uses it
}

} // namespace
} // namespace kprov::api::graphql
