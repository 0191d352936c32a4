// What every Kubernetes client expects of the API server: boolean query parameters as
// apimachinery parses them, sendInitialEvents, Tables in watches, and OpenAPI v2/v3 documents
// generated from the same field table that decoding checks.

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

TEST(QueryBool, ParsedAsApimachineryDoes) {
    struct Case {
        std::vector<std::string> values; // the parameter's values, in order; none = absent
        bool want;
    };
    const std::vector<Case> cases = {
        {{}, false},        {{"0"}, false},     {{"false"}, false},  {{"FALSE"}, false},
        {{"False"}, false}, {{"fAlSe"}, false}, {{"1"}, true},       {{"true"}, true},
        {{"True"}, true},   {{"TRUE"}, true},   {{"yes"}, true},     {{"no"}, true},
        {{""}, true},       {{"2"}, true},      {{"0", "1"}, false}, {{"1", "0"}, true},
    };
    for (const auto& c : cases) {
        ApiRequest req;
        for (const auto& v : c.values)
            req.query.emplace("watch", v);
        std::string shown = c.values.empty() ? "<absent>" : "\"" + c.values[0] + "\"";
        EXPECT_EQ(req.query_bool("watch"), c.want) << shown;
    }
}

namespace {

class ClientConformance : public ::testing::Test {
protected:
    SimFixture f;
    static bool added(const Json& e, const std::string& name) {
        return e["type"] == "ADDED" && e["object"]["metadata"].value("name", "") == name;
    }
};

} // namespace

TEST_F(ClientConformance, WatchTrueAsThePythonClientSendsItStartsAWatch) {
    ASSERT_EQ(f.http->post(f.shoots(), shoot_body("a").dump()).status, 201);
    for (const char* value : {"True", "yes", ""}) {
        WatchCollector w(f.sim->url(), f.sim->token(),
                         f.shoots() + "?watch=" + value + "&timeoutSeconds=1");
        EXPECT_TRUE(w.wait_for([](const Json& e) { return added(e, "a"); })) << value;
    }
    for (const char* value : {"False", "0"}) {
        Resp list = f.http->get(f.shoots() + "?watch=" + value);
        ASSERT_EQ(list.status, 200) << value;
        EXPECT_EQ(list.json["kind"], "ShootList") << value;
    }
}

TEST_F(ClientConformance, SendInitialEventsEndsTheInitialStateWithAnAnnotatedBookmark) {
    ASSERT_EQ(f.http->post(f.shoots(), shoot_body("a").dump()).status, 201);
    Resp refused = f.http->get(f.shoots() + "?watch=1&sendInitialEvents=true");
    ASSERT_EQ(refused.status, 422) << refused.body;
    EXPECT_EQ(refused.json["details"]["causes"].size(), 2u);
    WatchCollector w(f.sim->url(), f.sim->token(),
                     f.shoots() + "?watch=1&sendInitialEvents=True&allowWatchBookmarks=1"
                                  "&resourceVersionMatch=NotOlderThan&resourceVersion=1"
                                  "&timeoutSeconds=1");
    ASSERT_TRUE(w.wait_for([](const Json& e) { return e["type"] == "BOOKMARK"; }));
    auto events = w.events();
    ASSERT_GE(events.size(), 2u);
    EXPECT_TRUE(added(events[0], "a"));
    EXPECT_EQ(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
}

TEST_F(ClientConformance, WatchesAnswerUncompressedTablesWhenKubectlAsksForThem) {
    ASSERT_EQ(f.http->post(f.shoots(), shoot_body("a").dump()).status, 201);
    std::string rv = f.http->get(f.shoots()).json["metadata"]["resourceVersion"];
    httplib::Client c(f.sim->url());
    c.set_read_timeout(5, 0);
    httplib::Headers h = {{"Authorization", "Bearer " + f.sim->token()},
                          {"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"},
                          {"Accept-Encoding", "gzip, br"}}; // what kubectl's transport sends
    ASSERT_EQ(f.http->post(f.shoots(), shoot_body("b").dump()).status, 201);
    auto r = c.Get(f.shoots() + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv, h);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->get_header_value("Content-Encoding"), "") << "a compressed stream stalls";
    Json first = Json::parse(r->body.substr(0, r->body.find('\n')));
    EXPECT_EQ(first["type"], "ADDED");
    EXPECT_EQ(first["object"]["kind"], "Table");
    EXPECT_EQ(first["object"]["rows"][0]["cells"][0], "b");
}

TEST_F(ClientConformance, OpenApiV2DescribesTheShootAsDecodingChecksIt) {
    Resp doc = f.http->get("/openapi/v2");
    ASSERT_EQ(doc.status, 200);
    const Json& shoot = doc.json["definitions"]["com.github.gardener.gardener.pkg.apis.core."
                                                "v1beta1.Shoot"];
    ASSERT_TRUE(shoot.is_object()) << doc.body.substr(0, 300);
    EXPECT_EQ(shoot["x-kubernetes-group-version-kind"][0]["kind"], "Shoot");
    const Json& workers =
        shoot["properties"]["spec"]["properties"]["provider"]["properties"]["workers"];
    EXPECT_FALSE(workers.value("description", "").empty());
    EXPECT_EQ(workers["x-kubernetes-list-map-keys"], Json::array({"name"}));
    EXPECT_EQ(workers["items"]["properties"]["maximum"]["type"], "integer");
    // The document and decoding read one table: a worker field the document lacks is refused.
    Json body = shoot_body("w");
    body["spec"]["provider"]["workers"][0]["maximumm"] = 3;
    Resp r = f.http->post(f.shoots(), body.dump());
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.json["details"]["causes"][0]["field"], "spec.provider.workers[0].maximumm");
    EXPECT_FALSE(workers["items"]["properties"].contains("maximumm"));
    body = shoot_body("w");
    body["spec"]["provider"]["workers"][0]["maximum"] = "3";
    r = f.http->post(f.shoots(), body.dump());
    ASSERT_EQ(r.status, 400);
    EXPECT_NE(r.json["message"].get<std::string>().find(
                  "Go struct field Worker.spec.provider.workers.maximum of type int32"),
              std::string::npos)
        << r.body;
}

TEST_F(ClientConformance, OpenApiV2InProtobufForKubectl) {
    Resp r = f.http->get(
        "/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.header("Content-Type"), "application/octet-stream");
    ASSERT_GT(r.body.size(), 4u);
    EXPECT_EQ(r.body.substr(0, 5), std::string("\x0a\x03"
                                               "2.0",
                                               5)); // field 1 (swagger), 3 bytes
    EXPECT_NE(r.body.find("x-kubernetes-group-version-kind"), std::string::npos);
    Resp json = f.http->get("/openapi/v2");
    std::string doc = json.json["definitions"]["com.github.gardener.gardener.pkg.apis.core."
                                               "v1beta1.Shoot"]["properties"]["spec"]["properties"]
                               ["provider"]["properties"]["workers"]["description"];
    EXPECT_NE(r.body.find(doc), std::string::npos);
}

TEST_F(ClientConformance, OpenApiV3IndexAndGroupVersionDocuments) {
    Resp index = f.http->get("/openapi/v3");
    ASSERT_EQ(index.status, 200);
    std::string url = index.json["paths"]["apis/core.gardener.cloud/v1beta1"]["serverRelativeURL"];
    ASSERT_EQ(url.rfind("/openapi/v3/apis/core.gardener.cloud/v1beta1?hash=", 0), 0u) << url;
    Resp gv = f.http->get(url);
    ASSERT_EQ(gv.status, 200);
    const Json& schemas = gv.json["components"]["schemas"];
    const Json& shoot = schemas["com.github.gardener.gardener.pkg.apis.core.v1beta1.Shoot"];
    EXPECT_EQ(gv.json["paths"]["/apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/"
                               "{name}"]["get"]["x-kubernetes-group-version-kind"]["kind"],
              "Shoot");
    EXPECT_EQ(shoot["properties"]["metadata"]["allOf"][0]["$ref"],
              "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    EXPECT_EQ(f.http->get("/openapi/v3/apis/nothing.example.com/v1").status, 404);
}
