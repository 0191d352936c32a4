// The validator, rule by rule: each broken document with the message (graphql-js's wording) and
// the locations it gets; valid documents that look suspicious but are not.

#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;

struct Case {
    const char* document;
    const char* message;
    std::vector<std::pair<int, int>> locations = {}; // empty: not checked
};

json errors_of(const std::string& document) {
    const Response r = check_document(testing::provisioner_schema(), document);
    if (r.outcome == Response::Outcome::Executed)
        return json::array();
    EXPECT_EQ(r.outcome, Response::Outcome::ValidationFailed) << document << "\n" << r.body();
    return r.body()["errors"];
}

void expect_error(const Case& c) {
    const json errors = errors_of(c.document);
    for (const auto& e : errors) {
        if (e["message"] != c.message)
            continue;
        if (!c.locations.empty()) {
            json locs = json::array();
            for (const auto& [line, column] : c.locations)
                locs.push_back({{"line", line}, {"column", column}});
            EXPECT_EQ(e["locations"], locs) << c.document;
        }
        return;
    }
    ADD_FAILURE() << c.document << "\nexpected: " << c.message << "\ngot: " << errors.dump(1);
}

TEST(Validation, ReportsUnknownFieldsArgumentsTypesFragmentsAndDirectives) {
    const Case cases[] = {
        {R"({ runtimeStatus(id: "x") { lastOperationStatu { id } } })",
         "Cannot query field \"lastOperationStatu\" on type \"RuntimeStatus\". Did you mean "
         "\"lastOperationStatus\" or \"hibernationStatus\"?",
         {{1, 28}}},
        {R"({ runtimeStatuz(id: "x") { __typename } })",
         "Cannot query field \"runtimeStatuz\" on type \"Query\". Did you mean \"runtimeStatus\"?"},
        {R"({ runtimeStatus(id: "x", tenant: "t") { __typename } })",
         "Unknown argument \"tenant\" on field \"Query.runtimeStatus\".",
         {{1, 26}}},
        {R"(query ($id: Strin!) { runtimeStatus(id: $id) { __typename } })",
         "Unknown type \"Strin\". Did you mean \"String\"?",
         {{1, 13}}},
        {R"({ ...Nope })", "Unknown fragment \"Nope\".", {{1, 3}}},
        {R"({ __typename @defer })", "Unknown directive \"@defer\".", {{1, 14}}},
        {R"({ runtimeStatus(id: "x") { ... on Nope { __typename } } })", "Unknown type \"Nope\"."},
        {R"(query @skip(if: true) { __typename })",
         "Directive \"@skip\" may not be used on QUERY."},
        {R"({ __typename @skip(if: true) @skip(if: false) })",
         "The directive \"@skip\" can only be used once at this location.",
         {{1, 14}, {1, 30}}},
        {R"({ __typename @skip(unless: true) })",
         "Unknown argument \"unless\" on directive \"@skip\"."},
    };
    for (const auto& c : cases)
        expect_error(c);
}

TEST(Validation, ReportsMissingAndDuplicateArgumentsAndWrongLiterals) {
    const Case cases[] = {
        {R"({ runtimeStatus { __typename } })",
         "Field \"runtimeStatus\" argument \"id\" of type \"String!\" is required, but it was not "
         "provided.",
         {{1, 3}}},
        {R"({ __typename @include })",
         "Directive \"@include\" argument \"if\" of type \"Boolean!\" is required, but it was not "
         "provided."},
        {R"({ runtimeStatus(id: "a", id: "b") { __typename } })",
         "There can be only one argument named \"id\".",
         {{1, 17}, {1, 26}}},
        {R"({ runtimeStatus(id: 1) { __typename } })",
         "Expected value of type \"String!\", found 1; String cannot represent a non string "
         "value: 1",
         {{1, 21}}},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { volumeSizeGB: "50" } }) { id } })",
         "Expected value of type \"Int\", found \"50\"; Int cannot represent non-integer value: "
         "\"50\""},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { volumeSizeGB: 2147483648 } }) { id } })",
         "Expected value of type \"Int\", found 2147483648; Int cannot represent non 32-bit "
         "signed integer value: 2147483648"},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { maxSurge: 1.5 } }) { id } })",
         "Expected value of type \"Int\", found 1.5; Int cannot represent non-integer value: 1.5"},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { enableKubernetesVersionAutoUpdate: "yes" } }) { id } })",
         "Expected value of type \"Boolean\", found \"yes\"; Boolean cannot represent a non "
         "boolean value: \"yes\""},
        {R"(mutation { upgradeRuntime(id: "x", config: { kymaConfig: { version: "1", components: [], profile: Productio } }) { id } })",
         "Expected value of type \"KymaProfile\", found Productio; Value \"Productio\" does not "
         "exist in \"KymaProfile\" enum. Did you mean the enum value \"Production\"?"},
        {R"(mutation { upgradeRuntime(id: "x", config: { kymaConfig: { version: "1", components: [], profile: "Production" } }) { id } })",
         "Expected value of type \"KymaProfile\", found \"Production\"; Enum \"KymaProfile\" "
         "cannot represent non-enum value: \"Production\"."},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: {}, gardenerConfig: {} }) { id } })",
         "There can be only one input field named \"gardenerConfig\"."},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfg: {} }) { id } })",
         "Field \"gardenerConfg\" is not defined by type \"UpgradeShootInput\". Did you mean "
         "\"gardenerConfig\"?"},
        {R"(mutation { upgradeShoot(id: "x", config: { administrators: [] }) { id } })",
         "Field \"UpgradeShootInput.gardenerConfig\" of required type \"GardenerUpgradeInput!\" "
         "was not provided."},
        {R"(mutation { upgradeShoot(id: "x", config: "s") { id } })",
         "Expected value of type \"UpgradeShootInput!\", found \"s\"."},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { machineType: ["a"] } }) { id } })",
         "Expected value of type \"String\", found [\"a\"]."},
        {R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { oidcConfig: { clientID: "c", groupsClaim: "g", issuerURL: "i", signingAlgs: [null], usernameClaim: "u", usernamePrefix: "p" } } }) { id } })",
         "Expected value of type \"String!\", found null."},
        {R"({ runtimeStatus(id: null) { __typename } })",
         "Expected value of type \"String!\", found null."},
    };
    for (const auto& c : cases)
        expect_error(c);
}

TEST(Validation, ChecksVariables) {
    const Case cases[] = {
        {R"(query ($id: String!) { runtimeStatus(id: $other) { __typename } })",
         "Variable \"$other\" is not defined.",
         {{1, 42}, {1, 1}}},
        {R"(query Q { runtimeStatus(id: $other) { __typename } })",
         "Variable \"$other\" is not defined by operation \"Q\"."},
        {R"(query Q($id: String!, $unused: Int) { runtimeStatus(id: $id) { __typename } })",
         "Variable \"$unused\" is never used in operation \"Q\".",
         {{1, 23}}},
        {R"(query ($id: String!, $id: String!) { runtimeStatus(id: $id) { __typename } })",
         "There can be only one variable named \"$id\"."},
        {R"(query ($id: String) { runtimeStatus(id: $id) { __typename } })",
         "Variable \"$id\" of type \"String\" used in position expecting type \"String!\".",
         {{1, 8}, {1, 41}}},
        {R"(query ($id: Int!) { runtimeStatus(id: $id) { __typename } })",
         "Variable \"$id\" of type \"Int!\" used in position expecting type \"String!\"."},
        {R"(query ($s: RuntimeStatus) { __typename })",
         "Variable \"$s\" cannot be non-input type \"RuntimeStatus\"."},
        {R"(query ($id: String! = 5) { runtimeStatus(id: $id) { __typename } })",
         "Expected value of type \"String!\", found 5; String cannot represent a non string "
         "value: 5"},
        {R"(mutation ($z: [String]) { upgradeShoot(id: "x", config: { gardenerConfig: { providerSpecificConfig: { gcpConfig: { zones: $z } } } }) { id } })",
         "Variable \"$z\" of type \"[String]\" used in position expecting type \"[String!]!\"."},
        {R"(query Q($id: String!) { ...F } fragment F on Query { runtimeStatus(id: $id) { __typename } x: runtimeOperationStatus(id: $op) { id } })",
         "Variable \"$op\" is not defined by operation \"Q\"."},
        {R"(query ($b: Boolean) { __typename @skip(if: $b) })",
         "Variable \"$b\" of type \"Boolean\" used in position expecting type \"Boolean!\"."},
    };
    for (const auto& c : cases)
        expect_error(c);
}

TEST(Validation, ChecksFragmentsAndSelections) {
    const Case cases[] = {
        {R"({ runtimeStatus(id: "x") })",
         "Field \"runtimeStatus\" of type \"RuntimeStatus\" must have a selection of subfields. "
         "Did you mean \"runtimeStatus { ... }\"?"},
        {R"({ __typename { x } })",
         "Field \"__typename\" must not have a selection since type \"String!\" has no "
         "subfields."},
        {R"({ ...F } fragment F on Query { __typename } fragment F on Query { __typename })",
         "There can be only one fragment named \"F\"."},
        {R"({ __typename } fragment F on Query { __typename })",
         "Fragment \"F\" is never used.",
         {{1, 16}}},
        {R"({ ...A } fragment A on Query { ...B } fragment B on Query { ...A })",
         "Cannot spread fragment \"A\" within itself via \"B\"."},
        {R"({ ...A } fragment A on Query { ...A })", "Cannot spread fragment \"A\" within itself."},
        {R"({ runtimeStatus(id: "x") { ...F } } fragment F on OperationStatus { id })",
         "Fragment \"F\" cannot be spread here as objects of type \"RuntimeStatus\" can never be "
         "of type \"OperationStatus\"."},
        {R"({ runtimeStatus(id: "x") { ... on OperationStatus { id } } })",
         "Fragment cannot be spread here as objects of type \"RuntimeStatus\" can never be of "
         "type \"OperationStatus\"."},
        {R"({ ...F } fragment F on String { x })",
         "Fragment \"F\" cannot condition on non composite type \"String\"."},
        {R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig { providerSpecificConfig { ... on DNSConfig { domain } } } } } })",
         "Fragment cannot be spread here as objects of type \"ProviderSpecificConfig\" can never "
         "be of type \"DNSConfig\"."},
        {R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig { providerSpecificConfig { zones } } } } })",
         "Cannot query field \"zones\" on type \"ProviderSpecificConfig\"."},
        {R"(query A { __typename } query A { __typename })",
         "There can be only one operation named \"A\"."},
        {R"({ __typename } query B { __typename })",
         "This anonymous operation must be the only defined operation.",
         {{1, 1}}},
        {R"(subscription { __typename })",
         "Schema is not configured to execute subscription operation."},
        {R"({ __schema { queryType { name } } x: runtimeStatus(id: "x") { __schema { description } } })",
         "Cannot query field \"__schema\" on type \"RuntimeStatus\"."},
    };
    for (const auto& c : cases)
        expect_error(c);
}

TEST(Validation, RequiresFieldsWithOneResponseKeyToMerge) {
    const Case cases[] = {
        {R"({ a: runtimeStatus(id: "x") { __typename } a: runtimeOperationStatus(id: "x") { __typename } })",
         "Fields \"a\" conflict because \"runtimeStatus\" and \"runtimeOperationStatus\" are "
         "different fields. Use different aliases on the fields to fetch both if this was "
         "intentional.",
         {{1, 3}, {1, 44}}},
        {R"({ runtimeStatus(id: "x") { __typename } runtimeStatus(id: "y") { __typename } })",
         "Fields \"runtimeStatus\" conflict because they have differing arguments. Use different "
         "aliases on the fields to fetch both if this was intentional."},
        {R"({ runtimeStatus(id: "x") { s: lastOperationStatus { id } s: runtimeConnectionStatus { status } } })",
         "Fields \"s\" conflict because \"lastOperationStatus\" and \"runtimeConnectionStatus\" "
         "are different fields. Use different aliases on the fields to fetch both if this was "
         "intentional."},
        {R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig { providerSpecificConfig {
              ... on GCPProviderConfig { zones } ... on AzureProviderConfig { zones } } } } } })",
         "Fields \"zones\" conflict because they return conflicting types \"[String!]!\" and "
         "\"[String!]\". Use different aliases on the fields to fetch both if this was "
         "intentional."},
        {R"({ ...A ...B } fragment A on Query { x: runtimeStatus(id: "1") { __typename } }
             fragment B on Query { x: runtimeStatus(id: "2") { __typename } })",
         "Fields \"x\" conflict because they have differing arguments. Use different aliases on "
         "the fields to fetch both if this was intentional."},
        {R"({ r: runtimeStatus(id: "1") { o: lastOperationStatus { id } }
              r: runtimeStatus(id: "1") { o: lastOperationStatus { i: id i: state } } })",
         "Fields \"i\" conflict because \"id\" and \"state\" are different fields. Use different "
         "aliases on the fields to fetch both if this was intentional."},
        {R"({ r: runtimeStatus(id: "1") { o: lastOperationStatus { x: id } }
              r: runtimeStatus(id: "1") { o: lastOperationStatus { x: state } } })",
         "Fields \"r\" conflict because subfields \"o\" conflict because subfields \"x\" conflict "
         "because \"id\" and \"state\" are different fields. Use different aliases on the fields "
         "to fetch both if this was intentional."},
    };
    for (const auto& c : cases)
        expect_error(c);
}

TEST(Validation, AcceptsWhatOnlyLooksWrong) {
    const char* valid[] = {
        // The same field twice, or with its sub-selections split, merges.
        R"({ runtimeStatus(id: "x") { __typename } runtimeStatus(id: "x") { lastOperationStatus { id } } })",
        // Different object types may use one response key for different fields.
        R"({ runtimeStatus(id: "x") { runtimeConfiguration { clusterConfig { providerSpecificConfig {
              ... on AWSProviderConfig { v: vpcCidr } ... on AzureProviderConfig { v: vnetCidr } } } } } })",
        // A single value where a list is expected; Int where Float or ID is expected is fine.
        R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { providerSpecificConfig: { gcpConfig: { zones: "a" } } } }) { id } })",
        // A nullable variable with a default may stand where a non-null value is expected.
        R"(query ($id: String = "x") { runtimeStatus(id: $id) { __typename } })",
        // Non-null variables may flow into nullable positions, lists into lists.
        R"(mutation ($z: [String!]!, $v: Int!) { upgradeShoot(id: "x", config: { gardenerConfig: { volumeSizeGB: $v, providerSpecificConfig: { gcpConfig: { zones: $z } } } }) { id } })",
        // Labels takes any literal object, even one with variables in it.
        R"(mutation ($v: Int) { provisionRuntime(config: { runtimeInput: { name: "n", labels: { a: { b: [$v, "x", null] } } }, clusterConfig: { gardenerConfig: { name: "s", kubernetesVersion: "1", provider: "gcp", targetSecret: "t", region: "r", machineType: "m", workerCidr: "w", autoScalerMin: 1, autoScalerMax: 2, maxSurge: 1, maxUnavailable: 0, providerSpecificConfig: {} } } }) { id } })",
        // Introspection on the query root, __typename everywhere, a used fragment cycle-free.
        R"({ __schema { types { name } } __type(name: "Labels") { kind } ...F } fragment F on Query { __typename })",
        // Deprecated fields may still be queried.
        R"(mutation { hibernateRuntime(id: "x") { id } rollBackUpgradeOperation(id: "x") { hibernationStatus { hibernated } } })",
        // Null is a value for nullable positions.
        R"(mutation { upgradeShoot(id: "x", config: { gardenerConfig: { machineType: null }, administrators: null }) { id } })",
    };
    for (const char* doc : valid)
        EXPECT_EQ(errors_of(doc), json::array()) << doc;
}

} // namespace
} // namespace kprov::api::graphql
