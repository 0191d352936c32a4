// Director: the OAuth2 token endpoint, the five GraphQL operations and Director error codes,
// and the GraphQL matcher itself.

#include "graphql_matcher.hpp"
#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class DirectorApi : public ::testing::Test {
protected:
    SimFixture f;
    std::string access_token;

    Resp token(const std::string& id, const std::string& secret, const std::string& form) {
        Http anon(f.sim->url(), "");
        return anon.post("/oauth2/token", form, "application/x-www-form-urlencoded",
                         {{"Authorization", "Basic " + base64_encode(id + ":" + secret)}});
    }
    void SetUp() override {
        Resp r = token("kprov-sim-client", "kprov-sim-secret",
                       "grant_type=client_credentials&scope=runtime:read+runtime:write");
        ASSERT_EQ(r.status, 200) << r.body;
        access_token = r.json["access_token"];
    }
    Resp gql(const std::string& query, const Json& variables = Json::object(),
             const std::string& tenant = "tenant-a") {
        Http h(f.sim->url(), access_token);
        httplib::Headers extra;
        if (!tenant.empty())
            extra.emplace("Tenant", tenant);
        return h.post("/director/graphql", Json{{"query", query}, {"variables", variables}}.dump(),
                      "application/json", extra);
    }
};

} // namespace

TEST_F(DirectorApi, OAuthClientCredentials) {
    Resp ok = token("kprov-sim-client", "kprov-sim-secret", "grant_type=client_credentials");
    ASSERT_EQ(ok.status, 200);
    EXPECT_EQ(ok.json["token_type"], "bearer");
    EXPECT_EQ(ok.json["expires_in"], 3600);
    EXPECT_FALSE(ok.json["access_token"].get<std::string>().empty());
    EXPECT_EQ(token("kprov-sim-client", "wrong", "grant_type=client_credentials").status, 401);
    EXPECT_EQ(token("kprov-sim-client", "kprov-sim-secret", "grant_type=password").status, 400);
}

TEST_F(DirectorApi, GraphqlNeedsAnIssuedToken) {
    Http h(f.sim->url(), "made-up");
    Resp r = h.post("/director/graphql", R"({"query":"{ result: runtime(id: \"x\") { id } }"})",
                    "application/json", {{"Tenant", "t"}});
    EXPECT_EQ(r.status, 401);
}

TEST_F(DirectorApi, TheFiveOperationsWithInlineLiterals) {
    Resp reg = gql(
        R"(mutation { result: registerRuntime(in: {name: "rt-1", description: "a \"quoted\" runtime",
                     labels: {global_subaccount_id: "sa-1", "gardenerClusterName": "c1", list: ["a", "b"]}}) { id } })");
    ASSERT_EQ(reg.status, 200) << reg.body;
    ASSERT_FALSE(reg.json.contains("errors")) << reg.body;
    std::string id = reg.json["data"]["result"]["id"];
    EXPECT_EQ(reg.json["data"]["result"].size(), 1u) << "only the selected fields";

    Resp get = gql("query { result: runtime(id: \"" + id + "\") { id name description labels } }");
    const Json& rt = get.json["data"]["result"];
    EXPECT_EQ(rt["name"], "rt-1");
    EXPECT_EQ(rt["description"], "a \"quoted\" runtime");
    EXPECT_EQ(rt["labels"]["gardenerClusterName"], "c1");
    EXPECT_EQ(rt["labels"]["list"][1], "b");

    Resp upd = gql(
        "mutation { result: updateRuntime(id: \"" + id +
        R"(" in: {name: "rt-1", description: "d", labels: {x: "y"}, statusCondition: PROVISIONING}) { id } })");
    EXPECT_EQ(upd.json["data"]["result"]["id"], id) << upd.body;
    EXPECT_EQ(f.http->get("/sim/director").json["runtimes"][0]["statusCondition"], "PROVISIONING");

    Resp ott = gql("mutation { result: requestOneTimeTokenForRuntime(id: \"" + id +
                   "\") { token connectorURL } }");
    EXPECT_FALSE(ott.json["data"]["result"]["token"].get<std::string>().empty()) << ott.body;
    EXPECT_TRUE(ott.json["data"]["result"]["connectorURL"].is_string());

    Resp other_tenant =
        gql("query { result: runtime(id: \"" + id + "\") { id } }", Json::object(), "tenant-b");
    EXPECT_TRUE(other_tenant.json["data"]["result"].is_null());

    Resp un = gql("mutation { result: unregisterRuntime(id: \"" + id + "\") { id } }");
    EXPECT_EQ(un.json["data"]["result"]["id"], id);
    Resp gone = gql("query { result: runtime(id: \"" + id + "\") { id } }");
    EXPECT_TRUE(gone.json["data"]["result"].is_null());
    EXPECT_FALSE(gone.json.contains("errors"));
}

TEST_F(DirectorApi, VariablesWork) {
    Resp reg = gql(
        "mutation Register($in: RuntimeInput!) { result: registerRuntime(in: $in) { id name } }",
        {{"in", {{"name", "rt-v"}, {"labels", {{"a", "b"}}}}}});
    ASSERT_FALSE(reg.json.contains("errors")) << reg.body;
    EXPECT_EQ(reg.json["data"]["result"]["name"], "rt-v");
}

TEST_F(DirectorApi, ErrorsCarryDirectorErrorCodes) {
    Resp missing = gql("mutation { result: unregisterRuntime(id: \"nope\") { id } }");
    ASSERT_EQ(missing.status, 200);
    EXPECT_TRUE(missing.json["data"]["result"].is_null());
    EXPECT_EQ(missing.json["errors"][0]["extensions"]["error_code"], 20);
    EXPECT_EQ(missing.json["errors"][0]["path"][0], "result");

    Resp no_tenant = gql("query { result: runtime(id: \"x\") { id } }", Json::object(), "");
    EXPECT_EQ(no_tenant.json["errors"][0]["extensions"]["error_code"], 24);

    Resp blank = gql(R"(mutation { result: registerRuntime(in: {name: ""}) { id } })");
    EXPECT_EQ(blank.json["errors"][0]["extensions"]["error_code"], 22);

    gql(R"(mutation { result: registerRuntime(in: {name: "dup"}) { id } })");
    Resp dup = gql(R"(mutation { result: registerRuntime(in: {name: "dup"}) { id } })");
    EXPECT_EQ(dup.json["errors"][0]["extensions"]["error_code"], 21);

    ASSERT_EQ(
        f.http
            ->post("/sim/director/errors", R"({"operation":"registerRuntime","code":23,"count":1})")
            .status,
        200);
    Resp injected = gql(R"(mutation { result: registerRuntime(in: {name: "x1"}) { id } })");
    EXPECT_EQ(injected.json["errors"][0]["extensions"]["error_code"], 23);
    Resp after = gql(R"(mutation { result: registerRuntime(in: {name: "x1"}) { id } })");
    EXPECT_FALSE(after.json.contains("errors")) << "the injected error was used up";

    Resp syntax = gql("mutation { result: registerRuntime(in: {name: }) { id } }");
    EXPECT_EQ(syntax.status, 422);
}

TEST_F(DirectorApi, EveryCallIsRecordedUntilReset) {
    gql(R"(mutation { result: registerRuntime(in: {name: "rec", labels: {k: "v"}}) { id } })");
    gql("query { result: runtime(id: \"nope\") { id } }", Json::object(), "tenant-b");
    gql("mutation { result: unregisterRuntime(id: \"nope\") { id } }");
    Resp calls = f.http->get("/sim/director/calls");
    ASSERT_EQ(calls.status, 200) << calls.body;
    const Json& list = calls.json["calls"];
    ASSERT_EQ(list.size(), 4u) << calls.body; // the fixture's token request, then three fields
    EXPECT_EQ(list[0]["kind"], "token");
    EXPECT_EQ(list[0]["clientId"], "kprov-sim-client");
    EXPECT_EQ(list[0]["status"], 200);
    EXPECT_EQ(list[1]["operation"], "registerRuntime");
    EXPECT_EQ(list[1]["tenant"], "tenant-a");
    EXPECT_EQ(list[1]["args"]["in"]["labels"]["k"], "v");
    EXPECT_EQ(list[1]["errorCode"], 0);
    EXPECT_EQ(list[2]["operation"], "runtime");
    EXPECT_EQ(list[2]["tenant"], "tenant-b");
    EXPECT_EQ(list[3]["errorCode"], 20);
    ASSERT_EQ(f.http->post("/sim/director/reset", "").status, 200);
    EXPECT_TRUE(f.http->get("/sim/director/calls").json["calls"].empty());
}

TEST(GraphqlMatcher, ReadsAliasesArgumentsAndNestedSelections) {
    GqlOperation op = parse_graphql(R"(
        # comment
        mutation Up($id: ID!, $cond: RuntimeStatusCondition = FAILED) @dir(a: 1) {
          result: updateRuntime(id: $id, in: {name: "n", description: """block
            text""", labels: {n: 1, f: 1.5e2, b: true, z: null}, statusCondition: $cond}) {
            id, status { condition }
          }
        })",
                                    {{"id", "abc"}}, "");
    ASSERT_EQ(op.type, "mutation");
    ASSERT_EQ(op.fields.size(), 1u);
    const GqlField& f = op.fields[0];
    EXPECT_EQ(f.response_key, "result");
    EXPECT_EQ(f.name, "updateRuntime");
    EXPECT_EQ(f.args["id"], "abc");
    EXPECT_EQ(f.args["in"]["statusCondition"], "FAILED");
    EXPECT_EQ(f.args["in"]["description"], "block\n            text");
    EXPECT_EQ(f.args["in"]["labels"]["n"], 1);
    EXPECT_EQ(f.args["in"]["labels"]["f"], 150.0);
    EXPECT_EQ(f.args["in"]["labels"]["b"], true);
    EXPECT_TRUE(f.args["in"]["labels"]["z"].is_null());
    EXPECT_EQ(f.selection, (std::vector<std::string>{"id", "status"}));
}

TEST_F(DirectorApi, RuntimesFiltersByLabelAndAnswersARuntimePage) {
    const std::string reg =
        "mutation ($in: RuntimeInput!) { result: registerRuntime(in: $in) { id } }";
    std::vector<std::string> ids;
    for (const auto& [name, labels] :
         std::vector<std::pair<std::string, Json>>{{"rt-a", {{"req", "one"}}},
                                                   {"rt-b", {{"req", "two"}}},
                                                   {"rt-c", {{"req", {"one", "three"}}}},
                                                   {"rt-d", Json::object()}}) {
        Resp r = gql(reg, {{"in", {{"name", name}, {"labels", labels}}}});
        ASSERT_FALSE(r.json.contains("errors")) << r.body;
        ids.push_back(r.json["data"]["result"]["id"]);
    }
    const std::string query = "query ($f: [LabelFilter!], $first: Int, $after: PageCursor) { "
                              "result: runtimes(filter: $f, first: $first, after: $after) { "
                              "data { id name } pageInfo { hasNextPage endCursor } totalCount } }";
    Resp one = gql(query, {{"f", Json::array({{{"key", "req"}, {"query", "\"one\""}}})}});
    ASSERT_FALSE(one.json.contains("errors")) << one.body;
    const Json& page = one.json["data"]["result"];
    EXPECT_EQ(page["totalCount"], 2) << "a string label and a list label holding the value";
    ASSERT_EQ(page["data"].size(), 2u);
    EXPECT_EQ(page["data"][0].size(), 2u) << "only the selected fields";
    EXPECT_EQ(page["pageInfo"]["hasNextPage"], false);

    Resp any = gql(query, {{"f", Json::array({{{"key", "req"}}})}, {"first", 2}});
    EXPECT_EQ(any.json["data"]["result"]["totalCount"], 3) << "key only: the label exists";
    EXPECT_EQ(any.json["data"]["result"]["data"].size(), 2u);
    EXPECT_EQ(any.json["data"]["result"]["pageInfo"]["hasNextPage"], true);
    Resp rest = gql(query, {{"f", Json::array({{{"key", "req"}}})},
                            {"after", any.json["data"]["result"]["pageInfo"]["endCursor"]}});
    EXPECT_EQ(rest.json["data"]["result"]["data"].size(), 1u);

    EXPECT_EQ(gql(query, {{"f", Json::array({{{"key", "req"}, {"query", "\"one\""}}})}}, "tenant-b")
                  .json["data"]["result"]["totalCount"],
              0)
        << "another tenant's runtimes are not listed";
    EXPECT_EQ(gql(query).json["data"]["result"]["totalCount"], 4) << "no filter: all";

    Resp path =
        gql(query, {{"f", Json::array({{{"key", "req"}, {"query", "$[*] ? (@ == \"one\")"}}})}});
    ASSERT_TRUE(path.json.contains("errors")) << path.body;
    EXPECT_EQ(path.json["errors"][0]["extensions"]["error_code"], 22);
    EXPECT_NE(path.json["errors"][0]["message"].get<std::string>().find("not supported"),
              std::string::npos);
}

TEST_F(DirectorApi, AnInjectedLostAnswerDoesTheWorkThenAnswersWithTheStatus) {
    Http control(f.sim->url(), "");
    Resp inject = control.post("/sim/director/errors",
                               Json{{"operation", "registerRuntime"}, {"httpStatus", 502}}.dump(),
                               "application/json");
    ASSERT_EQ(inject.status, 200) << inject.body;
    Resp lost = gql("mutation { result: registerRuntime(in: {name: \"rt-lost\"}) { id } }");
    EXPECT_EQ(lost.status, 502);
    Resp list = gql("{ result: runtimes { totalCount data { name } } }");
    EXPECT_EQ(list.json["data"]["result"]["totalCount"], 1) << "the work was done";
    Resp again = gql("mutation { result: registerRuntime(in: {name: \"rt-next\"}) { id } }");
    EXPECT_EQ(again.status, 200) << "once only";
}

TEST(GraphqlMatcher, AnonymousQueriesAndOperationNames) {
    EXPECT_EQ(parse_graphql("{ runtime(id: \"1\") { id } }", nullptr, "").type, "query");
    auto two = "query A { a: runtime(id: \"1\") { id } } query B { b: runtime(id: \"2\") { id } }";
    EXPECT_EQ(parse_graphql(two, nullptr, "B").fields[0].response_key, "b");
    EXPECT_THROW(parse_graphql(two, nullptr, ""), GqlSyntaxError);
    EXPECT_THROW(parse_graphql("{ runtime(id: \"1\" { id } }", nullptr, ""), GqlSyntaxError);
    EXPECT_THROW(parse_graphql("{ ...frag }", nullptr, ""), GqlSyntaxError);
    EXPECT_THROW(parse_graphql("{ runtime(id: \"unterminated) { id } }", nullptr, ""),
                 GqlSyntaxError);
}
