// Introspection: __schema, __type and __typename as playgrounds and code generators use them,
// and graphql-core's build_client_schema rebuilding the provisioner schema from kprov's answer.

#include "graphql_testing.hpp"
#include "python_graphql_core.hpp"
#include "support/skip.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;

json run_query(const std::string& query) {
    const Response r = testing::run(testing::provisioner_schema(), Resolvers{}, query);
    EXPECT_EQ(r.outcome, Response::Outcome::Executed) << r.body().dump();
    EXPECT_FALSE(r.body().contains("errors")) << r.body().dump();
    return r.body().value("data", json());
}

json full_introspection() {
    return run_query(testing::read_text_file(std::string(KPROV_SOURCE_DIR) +
                                             "/tests/graphql/introspection_query.graphql"));
}

const json* find_named(const json& list, const std::string& name) {
    for (const auto& item : list)
        if (item["name"] == name)
            return &item;
    return nullptr;
}

std::string type_string(const json& ref) {
    if (ref["kind"] == "NON_NULL")
        return type_string(ref["ofType"]) + "!";
    if (ref["kind"] == "LIST")
        return "[" + type_string(ref["ofType"]) + "]";
    return ref["name"];
}

TEST(Introspection, AnswersTheStandardIntrospectionQuery) {
    const json schema = full_introspection()["__schema"];
    EXPECT_EQ(schema["queryType"]["name"], "Query");
    EXPECT_EQ(schema["mutationType"]["name"], "Mutation");
    EXPECT_TRUE(schema["subscriptionType"].is_null());
    EXPECT_NE(schema["description"].get<std::string>().find("Runtime Provisioner"),
              std::string::npos);

    const json& types = schema["types"];
    const json* labels = find_named(types, "Labels");
    ASSERT_NE(labels, nullptr);
    EXPECT_EQ((*labels)["kind"], "SCALAR");
    EXPECT_TRUE((*labels)["fields"].is_null());
    for (const char* name :
         {"__Schema", "__Type", "__Field", "__InputValue", "__EnumValue", "__Directive",
          "__TypeKind", "__DirectiveLocation", "String", "Boolean", "Int"})
        EXPECT_NE(find_named(types, name), nullptr) << name;
    EXPECT_EQ(find_named(types, "Float"), nullptr); // unused built-ins are not in the schema

    const json* dns = find_named(types, "DNSProvider");
    ASSERT_NE(dns, nullptr);
    EXPECT_EQ(type_string((*find_named((*dns)["fields"], "domainsInclude"))["type"]), "[String!]!");
    const json* mutation = find_named(types, "Mutation");
    const json* upgrade = find_named((*mutation)["fields"], "upgradeShoot");
    ASSERT_NE(upgrade, nullptr);
    EXPECT_EQ(type_string((*find_named((*upgrade)["args"], "config"))["type"]),
              "UpgradeShootInput!");
    const json* hibernate = find_named((*mutation)["fields"], "hibernateRuntime");
    EXPECT_EQ((*hibernate)["isDeprecated"], true);
    EXPECT_EQ((*hibernate)["deprecationReason"],
              "Hibernation is not used by the Kyma Environment Broker");

    const json* provider = find_named(types, "ProviderSpecificConfig");
    EXPECT_EQ((*provider)["kind"], "UNION");
    EXPECT_EQ((*provider)["possibleTypes"].size(), 4u);
    const json* input = find_named(types, "GardenerConfigInput");
    EXPECT_EQ((*input)["kind"], "INPUT_OBJECT");
    EXPECT_EQ((*input)["inputFields"].size(), 29u);
    const json* op_type = find_named(types, "OperationType");
    EXPECT_NE(find_named((*op_type)["enumValues"], "WakeUp"), nullptr);

    const json* deprecated = find_named(schema["directives"], "deprecated");
    ASSERT_NE(deprecated, nullptr);
    EXPECT_EQ((*deprecated)["args"][0]["defaultValue"], "\"No longer supported\"");
    EXPECT_EQ((*deprecated)["isRepeatable"], false);
    EXPECT_EQ((*find_named(schema["directives"], "skip"))["locations"],
              json::parse(R"(["FIELD","FRAGMENT_SPREAD","INLINE_FRAGMENT"])"));
}

TEST(Introspection, HidesDeprecatedMembersUnlessAskedFor) {
    const json data = run_query(R"({
        m: __type(name: "Mutation") { fields { name } }
        all: __type(name: "Mutation") { fields(includeDeprecated: true) { name } } })");
    EXPECT_EQ(data["m"]["fields"].size(), 5u);
    EXPECT_EQ(data["all"]["fields"].size(), 8u);
    EXPECT_EQ(find_named(data["m"]["fields"], "upgradeRuntime"), nullptr);
}

TEST(Introspection, AnswersTypeQueriesAndTypename) {
    const json data = run_query(R"({
        __typename
        t: __type(name: "AWSZoneInput") { name kind description inputFields { name type { kind ofType { name } } } }
        none: __type(name: "Nope") { name }
        s: __schema { __typename queryType { __typename fields { name } } } })");
    EXPECT_EQ(data["__typename"], "Query");
    EXPECT_EQ(data["t"]["kind"], "INPUT_OBJECT");
    EXPECT_EQ(data["t"]["description"], "One AWS zone and its subnets.");
    EXPECT_EQ(
        data["t"]["inputFields"][0],
        json::parse(R"({"name":"name","type":{"kind":"NON_NULL","ofType":{"name":"String"}}})"));
    EXPECT_TRUE(data["none"].is_null());
    EXPECT_EQ(data["s"]["__typename"], "__Schema");
    EXPECT_EQ(data["s"]["queryType"]["__typename"], "__Type");
    // __schema and __type are not fields of Query as introspection lists them.
    EXPECT_EQ(data["s"]["queryType"]["fields"].size(), 2u);
}

TEST(Introspection, GraphqlCoreRebuildsTheSchemaFromIt) {
    if (!testing::python_graphql_core_available())
        KPROV_SKIP_UNLESS_CI("python3-graphql-core is not installed (scripts/install-deps)");
    int status = -1;
    const std::string out = testing::run_python_check(
        "client_schema.py", json{{"data", full_introspection()}}.dump(), status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_EQ(out, "same\n");
}

} // namespace
} // namespace kprov::api::graphql
