// execute() against the provisioner schema with test resolvers: what gets resolved, arguments
// and variables, directives, abstract types, errors and non-null propagation, mutations,
// operation selection and the response shapes of refusals.

#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;
using Outcome = Response::Outcome;

const Schema& schema() {
    return testing::provisioner_schema();
}

json data_of(const Response& r) {
    EXPECT_EQ(r.outcome, Outcome::Executed) << r.body().dump();
    EXPECT_FALSE(r.body().contains("errors")) << r.body().dump();
    return r.body().value("data", json());
}

json status_value(const std::string& id) {
    return {{"id", id},
            {"operation", "Provision"},
            {"state", "Succeeded"},
            {"runtimeID", "rt-" + id},
            {"_secret", "never shown"}};
}

TEST(Executor, ResolvesOnlySelectedFieldsAndReadsMembersForTheRest) {
    Resolvers r;
    int status_calls = 0;
    int operation_calls = 0;
    r.add("Query.runtimeStatus", [&](const FieldContext& ctx) {
        ++status_calls;
        EXPECT_TRUE(ctx.parent.is_null());
        EXPECT_EQ(ctx.type_name, "Query");
        EXPECT_EQ(ctx.field_name, "runtimeStatus");
        return json{{"_runtimeID", ctx.arguments["id"]}};
    });
    r.add("RuntimeStatus.lastOperationStatus", [&](const FieldContext& ctx) {
        ++operation_calls;
        return status_value(*ctx.parent.member("_runtimeID").string());
    });
    r.add("Query.runtimeOperationStatus", [](const FieldContext&) -> json {
        ADD_FAILURE() << "not selected, yet resolved";
        return nullptr;
    });
    const json data = data_of(testing::run(
        schema(), r, R"({ runtimeStatus(id: "a") { lastOperationStatus { id runtimeID } } })"));
    EXPECT_EQ(data, json::parse(R"({"runtimeStatus":{"lastOperationStatus":
        {"id":"a","runtimeID":"rt-a"}}})"));
    EXPECT_EQ(status_calls, 1);
    EXPECT_EQ(operation_calls, 1);
    // Without a selection of lastOperationStatus its resolver is not called.
    data_of(testing::run(schema(), r, R"({ runtimeStatus(id: "a") { __typename } })"));
    EXPECT_EQ(operation_calls, 1);
}

TEST(Executor, AliasesFragmentsAndTypename) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus",
          [](const FieldContext& ctx) { return status_value(ctx.arguments["id"]); });
    const json data = data_of(testing::run(schema(), r, R"(
        query { a: runtimeOperationStatus(id: "1") { ...F  __typename }
                b: runtimeOperationStatus(id: "2") { ... on OperationStatus { state } id } }
        fragment F on OperationStatus { id kind: operation })"));
    EXPECT_EQ(data,
              json::parse(R"({"a":{"id":"1","kind":"Provision","__typename":"OperationStatus"},
                                    "b":{"state":"Succeeded","id":"2"}})"));
}

TEST(Executor, CoercesArgumentsAndVariables) {
    Resolvers r;
    json seen;
    r.add("Mutation.provisionRuntime", [&](const FieldContext& ctx) {
        seen = ctx.arguments;
        return status_value("p");
    });
    const char* mutation = R"(
        mutation P($name: String!, $labels: Labels, $zones: [String!]!, $min: Int = 3) {
          provisionRuntime(config: {
            runtimeInput: { name: $name, labels: $labels }
            clusterConfig: { gardenerConfig: {
              name: "s", kubernetesVersion: "1.27", provider: "openstack", targetSecret: "t",
              region: "r", machineType: "m", workerCidr: "10.0.0.0/16", autoScalerMin: $min,
              autoScalerMax: 5, maxSurge: 1, maxUnavailable: 0, volumeSizeGB: 50,
              providerSpecificConfig: { openStackConfig: { zones: $zones, loadBalancerProvider: "f5" } }
            } administrators: "admin" }
            kymaConfig: { version: "1", profile: Production, components: [] }
          }) { id }
        })";
    data_of(testing::run(schema(), r, mutation,
                         {{"name", "rt"},
                          {"labels", {{"team", "x"}, {"cost", 3}, {"tags", {"a"}}}},
                          {"zones", "z1"}}));
    const json& g = seen["config"]["clusterConfig"]["gardenerConfig"];
    EXPECT_EQ(seen["config"]["runtimeInput"],
              json::parse(R"({"name":"rt","labels":{"team":"x","cost":3,"tags":["a"]}})"));
    EXPECT_EQ(g["autoScalerMin"], 3); // the variable's default
    EXPECT_EQ(g["volumeSizeGB"], 50);
    EXPECT_EQ(g["providerSpecificConfig"]["openStackConfig"]["zones"], json::array({"z1"}));
    EXPECT_EQ(seen["config"]["clusterConfig"]["administrators"], json::array({"admin"}));
    EXPECT_EQ(seen["config"]["kymaConfig"]["profile"], "Production");
    // Absent optional fields stay absent: resolvers can tell them from an explicit null.
    EXPECT_FALSE(g.contains("diskType"));
    EXPECT_FALSE(seen["config"]["runtimeInput"].contains("description"));

    // Labels written inline as an object literal, with a variable inside.
    data_of(testing::run(schema(), r, R"(
        mutation ($v: String) { provisionRuntime(config: {
          runtimeInput: { name: "n", labels: { a: 1, b: [true, "x"], c: { d: $v }, e: 1.5 } }
          clusterConfig: { gardenerConfig: { name: "s", kubernetesVersion: "1", provider: "gcp",
            targetSecret: "t", region: "r", machineType: "m", workerCidr: "w", autoScalerMin: 1,
            autoScalerMax: 2, maxSurge: 1, maxUnavailable: 0,
            providerSpecificConfig: { gcpConfig: { zones: ["a"] } } } } }) { id } })",
                         {{"v", "val"}}));
    EXPECT_EQ(seen["config"]["runtimeInput"]["labels"],
              json::parse(R"({"a":1,"b":[true,"x"],"c":{"d":"val"},"e":1.5})"));
}

TEST(Executor, RefusesVariablesThatDoNotFit) {
    Resolvers r;
    const char* query = "query ($id: String!) { runtimeStatus(id: $id) { __typename } }";
    auto message = [&](json variables) {
        const Response resp = testing::run(schema(), r, query, std::move(variables));
        EXPECT_EQ(resp.outcome, Outcome::ValidationFailed);
        EXPECT_FALSE(resp.body().contains("data"));
        EXPECT_EQ(resp.body()["errors"][0]["extensions"]["code"], "GRAPHQL_VALIDATION_FAILED");
        return resp.body()["errors"][0]["message"].get<std::string>();
    };
    EXPECT_EQ(message(json::object()),
              "Variable \"$id\" of required type \"String!\" was not provided.");
    EXPECT_EQ(message({{"id", nullptr}}),
              "Variable \"$id\" of non-null type \"String!\" must not be null.");
    EXPECT_EQ(message({{"id", 5}}), "Variable \"$id\" got invalid value 5; String cannot "
                                    "represent a non string value: 5");

    const char* mutation = "mutation ($c: UpgradeShootInput!) { upgradeShoot(id: \"x\", "
                           "config: $c) { id } }";
    auto mutation_message = [&](json c) {
        const Response resp = testing::run(schema(), r, mutation, {{"c", std::move(c)}});
        EXPECT_EQ(resp.outcome, Outcome::ValidationFailed);
        return resp.body()["errors"][0]["message"].get<std::string>();
    };
    EXPECT_EQ(mutation_message({{"gardenerConfig", {{"volumeSizeGB", 3000000000LL}}}}),
              "Variable \"$c\" got invalid value {\"gardenerConfig\":{\"volumeSizeGB\":3000000000}}"
              " at \"c.gardenerConfig.volumeSizeGB\"; Int cannot represent non 32-bit signed "
              "integer value: 3000000000");
    EXPECT_EQ(mutation_message({{"gardenerConfig", {{"machineTyp", "m"}}}}),
              "Variable \"$c\" got invalid value {\"gardenerConfig\":{\"machineTyp\":\"m\"}} at "
              "\"c.gardenerConfig\"; Field \"machineTyp\" is not defined by type "
              "\"GardenerUpgradeInput\".");
    EXPECT_EQ(mutation_message(json::object()),
              "Variable \"$c\" got invalid value {}; Field \"gardenerConfig\" of required type "
              "\"GardenerUpgradeInput!\" was not provided.");
    EXPECT_EQ(mutation_message("x"),
              "Variable \"$c\" got invalid value \"x\"; Expected type \"UpgradeShootInput\" to "
              "be an object.");

    // A nullable variable with a default may stand for a non-null argument; null it may not be.
    const Response null_id = testing::run(
        schema(), r, "query ($id: String = \"x\") { runtimeStatus(id: $id) { __typename } }",
        {{"id", nullptr}});
    EXPECT_EQ(null_id.outcome, Outcome::Executed);
    EXPECT_EQ(null_id.body()["data"], json::parse(R"({"runtimeStatus":null})"));
    EXPECT_EQ(null_id.body()["errors"][0]["message"],
              "Argument \"id\" of non-null type \"String!\" must not be null.");

    const Response bad = testing::run(schema(), r, query, json::array());
    EXPECT_EQ(bad.outcome, Outcome::ValidationFailed);
}

TEST(Executor, SkipAndIncludeFollowTheirArguments) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus", [](const FieldContext&) { return status_value("1"); });
    const char* query = R"(query ($skip: Boolean!, $include: Boolean = true) {
        runtimeOperationStatus(id: "1") {
          id @skip(if: $skip)
          state @include(if: $include)
          ... @include(if: false) { message }
          ...F @skip(if: true)
          runtimeID @skip(if: false) @include(if: true)
        } }
        fragment F on OperationStatus { operation })";
    EXPECT_EQ(
        data_of(testing::run(schema(), r, query, {{"skip", true}})),
        json::parse(R"({"runtimeOperationStatus":{"state":"Succeeded","runtimeID":"rt-1"}})"));
    EXPECT_EQ(data_of(testing::run(schema(), r, query, {{"skip", false}, {"include", false}})),
              json::parse(R"({"runtimeOperationStatus":{"id":"1","runtimeID":"rt-1"}})"));
}

TEST(Executor, ResolvesUnionMembersByTypename) {
    Resolvers r;
    json provider;
    r.add("Query.runtimeStatus", [&](const FieldContext&) {
        return json{
            {"runtimeConfiguration", {{"clusterConfig", {{"providerSpecificConfig", provider}}}}}};
    });
    const char* query = R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig {
        providerSpecificConfig { __typename ... on GCPProviderConfig { zones }
          ... on AWSProviderConfig { vpcCidr awsZones { name } } } } } } })";
    provider = {{"__typename", "AWSProviderConfig"},
                {"vpcCidr", "10.0.0.0/16"},
                {"awsZones", {{{"name", "a"}}}},
                {"zones", {"not", "selected"}}};
    EXPECT_EQ(data_of(testing::run(schema(), r, query))["runtimeStatus"]["runtimeConfiguration"]
                                                       ["clusterConfig"]["providerSpecificConfig"],
              json::parse(R"({"__typename":"AWSProviderConfig","vpcCidr":"10.0.0.0/16",
                              "awsZones":[{"name":"a"}]})"));

    provider = {{"zones", {"a"}}}; // no __typename: the executor cannot tell the member
    Response resp = testing::run(schema(), r, query);
    EXPECT_TRUE(resp.body()["data"]["runtimeStatus"]["runtimeConfiguration"]["clusterConfig"]
                           ["providerSpecificConfig"]
                               .is_null());
    EXPECT_EQ(resp.body()["errors"][0]["path"],
              json::parse(R"(["runtimeStatus","runtimeConfiguration","clusterConfig",
                              "providerSpecificConfig"])"));
    provider = {{"__typename", "DNSConfig"}};
    resp = testing::run(schema(), r, query);
    EXPECT_NE(resp.body()["errors"][0]["message"].get<std::string>().find("\"DNSConfig\""),
              std::string::npos);
}

TEST(Executor, ReportsResolverErrorsWithPathLocationsAndExtensions) {
    Resolvers r;
    r.add("Mutation.deprovisionRuntime", [](const FieldContext&) -> json {
        throw FieldError("tenant header is empty",
                         {{"error_code", 400}, {"error_reason", "Err-Provisioner-0400"}});
    });
    r.add("Mutation.upgradeRuntime",
          [](const FieldContext&) -> json { throw std::runtime_error("managed by Reconciler"); });
    r.add("Mutation.reconnectRuntimeAgent", [](const FieldContext&) { return json(""); });
    const Response resp = testing::run(schema(), r, R"(mutation {
  r: reconnectRuntimeAgent(id: "x")
  u: upgradeRuntime(id: "x", config: {kymaConfig: {version: "1", components: []}}) { id }
})");
    EXPECT_EQ(resp.outcome, Outcome::Executed);
    EXPECT_EQ(resp.body()["data"], json::parse(R"({"r":"","u":null})"));
    EXPECT_EQ(resp.body()["errors"], json::parse(R"([{"message":"managed by Reconciler",
        "locations":[{"line":3,"column":3}],"path":["u"]}])"));

    // A non-null root field that fails takes the whole data with it.
    const Response d = testing::run(schema(), r, "mutation { deprovisionRuntime(id: \"x\") }");
    EXPECT_TRUE(d.body()["data"].is_null());
    EXPECT_EQ(d.body()["errors"], json::parse(R"([{"message":"tenant header is empty",
        "locations":[{"line":1,"column":12}],"path":["deprovisionRuntime"],
        "extensions":{"error_code":400,"error_reason":"Err-Provisioner-0400"}}])"));
}

TEST(Executor, PropagatesNullsToTheNearestNullableField) {
    Resolvers r;
    json value;
    r.add("Query.runtimeStatus", [&](const FieldContext&) { return value; });
    const char* query = R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig {
        name dnsConfig { domain providers { primary domainsInclude } } } } } })";
    value = json::parse(R"({"runtimeConfiguration":{"clusterConfig":{"name":"n",
        "dnsConfig":{"domain":null,"providers":[]}}}})");
    Response resp = testing::run(schema(), r, query);
    EXPECT_EQ(resp.body()["data"], json::parse(R"({"runtimeStatus":{"runtimeConfiguration":
        {"clusterConfig":{"name":"n","dnsConfig":null}}}})"));
    EXPECT_EQ(resp.body()["errors"][0]["message"],
              "Cannot return null for non-nullable field DNSConfig.domain.");
    EXPECT_EQ(resp.body()["errors"][0]["path"],
              json::parse(R"(["runtimeStatus","runtimeConfiguration","clusterConfig","dnsConfig",
                              "domain"])"));

    // [DNSProvider] items are nullable: a broken item becomes null, its siblings stay.
    value = json::parse(R"({"runtimeConfiguration":{"clusterConfig":{"name":"n",
        "dnsConfig":{"domain":"d","providers":[{"primary":true,"domainsInclude":["a"]},
                                                {"primary":true,"domainsInclude":["a",null]}]}}}})");
    resp = testing::run(schema(), r, query);
    EXPECT_EQ(resp.body()["data"]["runtimeStatus"]["runtimeConfiguration"]["clusterConfig"]
                         ["dnsConfig"]["providers"],
              json::parse(R"([{"primary":true,"domainsInclude":["a"]},null])"));
    EXPECT_EQ(resp.body()["errors"][0]["path"],
              json::parse(R"(["runtimeStatus","runtimeConfiguration","clusterConfig","dnsConfig",
                              "providers",1,"domainsInclude",1])"));

    // Values that do not fit their type are errors, not garbage in the response.
    value = json::parse(R"({"runtimeConfiguration":{"clusterConfig":{"name":["not","a","string"],
        "dnsConfig":{"domain":"d","providers":{"not":"a list"}}}}})");
    resp = testing::run(schema(), r, query);
    ASSERT_EQ(resp.body()["errors"].size(), 2u) << resp.body().dump();
    EXPECT_EQ(resp.body()["errors"][0]["message"],
              "String cannot represent value: [\"not\",\"a\",\"string\"]");
    EXPECT_EQ(resp.body()["errors"][1]["message"],
              "Expected Iterable, but did not find one for field \"DNSConfig.providers\".");
}

TEST(Executor, SerializesLeafValuesPerTheirTypes) {
    Resolvers r;
    json value;
    r.add("Query.runtimeOperationStatus", [&](const FieldContext&) { return value; });
    const char* query = R"({ runtimeOperationStatus(id: "x") { id state operation } })";
    value = {{"id", 42}, {"state", "InProgress"}, {"operation", "WakeUp"}};
    EXPECT_EQ(data_of(testing::run(schema(), r, query))["runtimeOperationStatus"],
              json::parse(R"({"id":"42","state":"InProgress","operation":"WakeUp"})"));
    value = {{"id", "x"}, {"state", "IN_PROGRESS"}, {"operation", "Provision"}};
    const Response resp = testing::run(schema(), r, query);
    EXPECT_TRUE(resp.body()["data"]["runtimeOperationStatus"].is_null()); // state is non-null
    EXPECT_EQ(resp.body()["errors"][0]["message"],
              "Enum \"OperationState\" cannot represent value: \"IN_PROGRESS\"");
}

TEST(Executor, RunsMutationFieldsOneAfterAnotherInDocumentOrder) {
    Resolvers r;
    std::vector<std::string> order;
    for (const char* f : {"hibernateRuntime", "wakeUpRuntime", "upgradeShoot"})
        r.add(std::string("Mutation.") + f, [&order, f](const FieldContext& ctx) {
            order.push_back(std::string(f) + ":" + ctx.arguments["id"].get<std::string>());
            return status_value(ctx.arguments["id"]);
        });
    const Response resp = testing::run(schema(), r, R"(mutation {
        w: wakeUpRuntime(id: "1") { id }
        h: hibernateRuntime(id: "2") { id }
        w2: wakeUpRuntime(id: "3") { id } })");
    data_of(resp);
    EXPECT_EQ(order, (std::vector<std::string>{"wakeUpRuntime:1", "hibernateRuntime:2",
                                               "wakeUpRuntime:3"}));
}

TEST(Executor, SelectsTheOperationByName) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus",
          [](const FieldContext& ctx) { return status_value(ctx.arguments["id"]); });
    const char* doc = R"(query A { runtimeOperationStatus(id: "a") { id } }
                         query B { runtimeOperationStatus(id: "b") { id } })";
    EXPECT_EQ(data_of(testing::run(schema(), r, doc, json::object(), "B")),
              json::parse(R"({"runtimeOperationStatus":{"id":"b"}})"));
    Response resp = testing::run(schema(), r, doc);
    EXPECT_EQ(resp.outcome, Outcome::ValidationFailed);
    EXPECT_EQ(resp.body()["errors"][0]["message"],
              "Must provide operation name if query contains multiple operations.");
    resp = testing::run(schema(), r, doc, json::object(), "C");
    EXPECT_EQ(resp.body()["errors"][0]["message"], "Unknown operation named \"C\".");
}

TEST(Executor, GetRequestsMayNotMutate) {
    Resolvers r;
    r.add("Mutation.reconnectRuntimeAgent", [](const FieldContext&) -> json {
        ADD_FAILURE() << "a GET request ran a mutation";
        return "";
    });
    r.add("Query.runtimeOperationStatus", [](const FieldContext&) { return status_value("q"); });
    const char* doc = R"(mutation M { reconnectRuntimeAgent(id: "x") }
                         query Q { runtimeOperationStatus(id: "q") { id } })";
    const Response refused = testing::run(schema(), r, doc, json::object(), "M", false);
    EXPECT_EQ(refused.outcome, Outcome::ValidationFailed);
    EXPECT_EQ(refused.body()["errors"][0]["message"],
              "Can only perform a mutation operation from a POST request.");
    data_of(testing::run(schema(), r, doc, json::object(), "Q", false));
}

TEST(Executor, AnswersParseAndValidationFailuresWithoutData) {
    Resolvers r;
    Response resp = testing::run(schema(), r, "{ runtimeStatus(id: \"x\" { id } }");
    EXPECT_EQ(resp.outcome, Outcome::ParseFailed);
    EXPECT_EQ(resp.body(),
              json::parse(R"({"errors":[{"message":"Syntax Error: Expected Name, found \"{\".",
        "locations":[{"line":1,"column":25}],"extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]})"));

    resp = testing::run(schema(), r, "{ runtimeStatus(id: \"x\") { id } }");
    EXPECT_EQ(resp.outcome, Outcome::ValidationFailed);
    EXPECT_EQ(resp.body(), json::parse(R"({"errors":[{"message":
        "Cannot query field \"id\" on type \"RuntimeStatus\".","locations":[{"line":1,"column":28}],
        "extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]})"));

    Request big;
    big.query = "{ " + std::string(70 * 1024, ' ') + "__typename }";
    std::any state;
    resp = execute(schema(), r, big, state);
    EXPECT_EQ(resp.outcome, Outcome::ParseFailed);
    EXPECT_EQ(resp.body()["errors"][0]["message"],
              "Syntax Error: Document of 71694 bytes exceeds the limit of 65536 bytes.");
}

TEST(Executor, PassesTheRequestStateToResolvers) {
    Resolvers r;
    r.add("Query.runtimeOperationStatus", [](const FieldContext& ctx) {
        auto* tenant = std::any_cast<std::string>(&ctx.request);
        return status_value(tenant ? *tenant : "none");
    });
    Request request;
    request.query = "{ runtimeOperationStatus(id: \"x\") { id } }";
    std::any state = std::string("tenant-1");
    const Response resp = execute(schema(), r, request, state);
    EXPECT_EQ(resp.body()["data"]["runtimeOperationStatus"]["id"], "tenant-1");
}

TEST(Executor, CheckDocumentValidatesWithoutRunning) {
    EXPECT_EQ(check_document(schema(), "query A { __typename } query B { __typename }").outcome,
              Outcome::Executed);
    EXPECT_EQ(check_document(schema(), "{ nope }").outcome, Outcome::ValidationFailed);
    EXPECT_EQ(check_document(schema(), "{").outcome, Outcome::ParseFailed);
}

} // namespace
} // namespace kprov::api::graphql
