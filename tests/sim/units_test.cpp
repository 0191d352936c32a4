// Small pieces without a server: selectors, patches, paths, base64.

#include "admission.hpp"
#include "k8s_path.hpp"
#include "patch.hpp"
#include "selectors.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;

TEST(LabelSelector, Grammar) {
    Json labels = {{"app", "kyma"}, {"tier", "web"}};
    EXPECT_TRUE(LabelSelector::parse("").matches(labels));
    EXPECT_TRUE(LabelSelector::parse("app=kyma").matches(labels));
    EXPECT_TRUE(LabelSelector::parse("app==kyma,tier").matches(labels));
    EXPECT_FALSE(LabelSelector::parse("app!=kyma").matches(labels));
    EXPECT_TRUE(LabelSelector::parse("tier in (web, db)").matches(labels));
    EXPECT_FALSE(LabelSelector::parse("tier notin (web)").matches(labels));
    EXPECT_TRUE(LabelSelector::parse("!missing").matches(labels));
    EXPECT_FALSE(LabelSelector::parse("missing").matches(labels));
    EXPECT_TRUE(LabelSelector::parse("missing!=x").matches(labels));
    EXPECT_THROW(LabelSelector::parse("a b c"), ApiError);
    EXPECT_THROW(LabelSelector::parse(","), ApiError);
}

TEST(FieldSelector, SupportedFieldsOnly) {
    Json obj = {{"metadata", {{"name", "x"}}}};
    std::map<std::string, std::string> fields = {{"metadata.name", "/metadata/name"}};
    EXPECT_TRUE(FieldSelector::parse("metadata.name=x", fields).matches(obj));
    EXPECT_FALSE(FieldSelector::parse("metadata.name!=x", fields).matches(obj));
    try {
        FieldSelector::parse("spec.foo=1", fields);
        FAIL();
    } catch (const ApiError& e) {
        EXPECT_EQ(e.code(), 400);
        EXPECT_EQ(e.status()["message"], "field label not supported: spec.foo");
    }
}

TEST(Patch, MergeJsonAndStrategic) {
    const ResourceInfo& info = shoot_info();
    Json target = {{"a", 1},
                   {"list", {{{"name", "w1"}, {"v", 1}}}},
                   {"workers", {{{"name", "w1"}, {"v", 1}}}}};
    Json m = apply_patch(target, R"({"a":null,"b":2,"list":[{"name":"w2"}]})", PatchType::Merge,
                         info, "x");
    EXPECT_FALSE(m.contains("a"));
    EXPECT_EQ(m["b"], 2);
    EXPECT_EQ(m["list"].size(), 1u);
    Json s = apply_patch(target, R"({"workers":[{"name":"w1","v":2},{"name":"w2"}]})",
                         PatchType::Strategic, info, "x");
    EXPECT_EQ(s["workers"].size(), 2u);
    EXPECT_EQ(s["workers"][0]["v"], 2);
    Json d = apply_patch(target, R"({"workers":[{"name":"w1","$patch":"delete"}]})",
                         PatchType::Strategic, info, "x");
    EXPECT_TRUE(d["workers"].empty());
    Json j = apply_patch(target, R"([{"op":"add","path":"/c","value":3}])", PatchType::JsonPatch,
                         info, "x");
    EXPECT_EQ(j["c"], 3);
    EXPECT_THROW(apply_patch(target, R"({"op":"add"})", PatchType::JsonPatch, info, "x"), ApiError);
    EXPECT_THROW(apply_patch(target, "not json", PatchType::Merge, info, "x"), ApiError);
    EXPECT_EQ(patch_type_from("application/merge-patch+json"), PatchType::Merge);
    EXPECT_FALSE(patch_type_from("application/json"));
}

TEST(K8sPath, ParsesAndTemplates) {
    auto namespaced = [](const std::string&, const std::string& r) {
        return r != "namespaces";
    };
    auto p = parse_k8s_path(
        "/apis/core.gardener.cloud/v1beta1/namespaces/garden-x/shoots/c1/adminkubeconfig",
        namespaced);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->ns, "garden-x");
    EXPECT_EQ(p->resource, "shoots");
    EXPECT_EQ(p->name, "c1");
    EXPECT_EQ(p->subresource, "adminkubeconfig");
    EXPECT_EQ(
        p->path_template(),
        "/apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}/adminkubeconfig");
    auto ns = parse_k8s_path("/api/v1/namespaces/default", namespaced);
    ASSERT_TRUE(ns);
    EXPECT_EQ(ns->resource, "namespaces");
    EXPECT_EQ(ns->name, "default");
    EXPECT_EQ(ns->path_template(), "/api/v1/namespaces/{name}");
    EXPECT_FALSE(parse_k8s_path("/apis/core.gardener.cloud/v1beta1", namespaced));
}

TEST(Base64, RoundTrip) {
    for (std::string s : {"", "a", "ab", "abc", "abcd", "hello\nworld"})
        EXPECT_EQ(base64_decode(base64_encode(s)), s);
    EXPECT_EQ(base64_encode("admin"), "YWRtaW4=");
    EXPECT_FALSE(base64_decode("not base64!"));
}
