// graphql::Value and ValueRef: what resolvers build, read the same whether it was built as a
// Value or handed over as nlohmann::json; and the executor writing either kind.

#include "api/graphql/value.hpp"
#include "graphql_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;

Value zone(const char* name) {
    Value z = Value::object(2);
    z.add("name", name);
    z.add("workerCidr", "10.250.0.0/19");
    return z;
}

// The same document as a Value and as JSON.
Value built() {
    Value v = Value::object();
    v.add("text", std::string("a string longer than the small-string buffer"));
    v.add("flag", false);
    v.add("count", 3);
    v.add("ratio", 0.5);
    v.add("nothing", nullptr);
    v.add("tags", std::vector<std::string>{"a", "b"});
    Value zones = Value::array();
    zones.push_back(zone("z1"));
    zones.push_back(zone("z2"));
    v.add("zones", std::move(zones));
    v.add("raw", json{{"kept", json::array({1, "two"})}});
    return v;
}

const json k_same = json::parse(R"({"text": "a string longer than the small-string buffer",
    "flag": false, "count": 3, "ratio": 0.5, "nothing": null, "tags": ["a", "b"],
    "zones": [{"name": "z1", "workerCidr": "10.250.0.0/19"},
              {"name": "z2", "workerCidr": "10.250.0.0/19"}],
    "raw": {"kept": [1, "two"]}})");

TEST(Value, ConvertsToTheJsonItWasBuiltAs) {
    EXPECT_EQ(built().to_json(), k_same);
    EXPECT_EQ(Value().to_json(), json(nullptr));
    EXPECT_EQ(Value(k_same).to_json(), k_same);
}

TEST(Value, ReadsTheSameThroughARefWhicheverKindHoldsIt) {
    const Value value = built();
    for (const ValueRef ref : {ValueRef(value), ValueRef(k_same)}) {
        ASSERT_TRUE(ref.is_object());
        EXPECT_EQ(*ref.member("text").string(), "a string longer than the small-string buffer");
        EXPECT_FALSE(*ref.member("flag").boolean());
        EXPECT_EQ(ref.member("count").string(), nullptr);
        EXPECT_EQ(ref.member("count").to_json(), 3);
        EXPECT_TRUE(ref.member("nothing").is_null());
        EXPECT_TRUE(ref.member("absent").is_null());
        EXPECT_FALSE(ref.member("absent").is_object());
        const ValueRef zones = ref.member("zones");
        ASSERT_TRUE(zones.is_list());
        ASSERT_EQ(zones.size(), 2u);
        EXPECT_EQ(*zones.item(1).member("name").string(), "z2");
        EXPECT_EQ(ref.member("raw").member("kept").item(1).to_json(), "two");
        // Members of what is not an object, and items of what is not a list, are nothing.
        EXPECT_TRUE(ref.member("text").member("x").is_null());
        EXPECT_EQ(ref.member("text").size(), 0u);
        EXPECT_FALSE(ref.member("text").is_list());
    }
    EXPECT_TRUE(ValueRef().is_null());
    EXPECT_EQ(ValueRef().to_json(), json(nullptr));
}

TEST(Value, MemberFindsWhatWasAddedToChangeIt) {
    Value v = built();
    ASSERT_NE(v.member("zones"), nullptr);
    v.member("zones")->push_back(zone("z3"));
    EXPECT_EQ(v.to_json()["zones"].size(), 3u);
    EXPECT_EQ(v.member("absent"), nullptr);
    EXPECT_EQ(Value("text").member("text"), nullptr);
}

TEST(Value, TheExecutorWritesABuiltValueAsItWritesTheSameJson) {
    const char* query = R"({ runtimeStatus(id: "a") { runtimeConfiguration { clusterConfig {
        name autoScalerMin providerSpecificConfig { __typename
          ... on AWSProviderConfig { vpcCidr awsZones { name workerCidr } } } } } } })";
    const auto run = [&](bool as_value) {
        Resolvers r;
        r.add("Query.runtimeStatus", [as_value](const FieldContext&) -> Value {
            Value provider = Value::object();
            provider.add("__typename", "AWSProviderConfig");
            provider.add("vpcCidr", "10.0.0.0/16");
            Value zones = Value::array();
            zones.push_back(zone("z1"));
            provider.add("awsZones", std::move(zones));
            Value cluster = Value::object();
            cluster.add("name", "c1");
            cluster.add("autoScalerMin", 2);
            cluster.add("providerSpecificConfig", std::move(provider));
            Value config = Value::object();
            config.add("clusterConfig", std::move(cluster));
            Value status = Value::object();
            status.add("runtimeConfiguration", std::move(config));
            return as_value ? std::move(status) : Value(status.to_json());
        });
        return testing::run(testing::provisioner_schema(), r, query).text;
    };
    EXPECT_EQ(run(true), run(false));
    EXPECT_EQ(run(true), R"({"data":{"runtimeStatus":{"runtimeConfiguration":{"clusterConfig":)"
                         R"({"name":"c1","autoScalerMin":2,"providerSpecificConfig":)"
                         R"({"__typename":"AWSProviderConfig","vpcCidr":"10.0.0.0/16",)"
                         R"("awsZones":[{"name":"z1","workerCidr":"10.250.0.0/19"}]}}}}}})");
}

} // namespace
} // namespace kprov::api::graphql
