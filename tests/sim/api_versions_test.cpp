// A runtime cluster serves the group/versions of its shoot's Kubernetes version
// (sim/api_versions.hpp): the removal table, discovery, and the 404 a real API server gives for
// a removed group/version (plain text) and for an unknown resource of a served one (a Status).

#include "api_versions.hpp"
#include "kyma_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

std::vector<std::string> versions_of(const Json& group) {
    std::vector<std::string> out;
    for (const auto& v : group["versions"])
        out.push_back(v["version"]);
    return out;
}

// The entry of `group` in an APIGroupList.
Json group_in(const Json& list, const std::string& group) {
    for (const auto& g : list["groups"])
        if (g["name"] == group)
            return g;
    return nullptr;
}

void expect_not_found(const Resp& r, const std::string& what) {
    EXPECT_EQ(r.status, 404) << what << ": " << r.body;
    EXPECT_EQ(r.json["kind"], "Status") << what;
    EXPECT_EQ(r.json["status"], "Failure") << what;
    EXPECT_EQ(r.json["reason"], "NotFound") << what;
    EXPECT_EQ(r.json["code"], 404) << what;
    EXPECT_EQ(r.json["message"], "the server could not find the requested resource") << what;
}

// What kube-apiserver answers for a group/version it serves nothing of: no web service matches,
// and the last handler writes net/http's plain text (clients turn it into the message above).
void expect_page_not_found(const Resp& r, const std::string& what) {
    EXPECT_EQ(r.status, 404) << what << ": " << r.body;
    EXPECT_EQ(r.body, "404 page not found\n") << what;
    EXPECT_EQ(r.header("Content-Type").rfind("text/plain", 0), 0u) << what;
}

} // namespace

TEST(ApiVersions, RemovedVersionsAreServedUpToTheMinorBeforeTheirRemoval) {
    EXPECT_TRUE(api_version_served("apiextensions.k8s.io", "v1beta1", "1.21.14"));
    EXPECT_FALSE(api_version_served("apiextensions.k8s.io", "v1beta1", "1.22.0"));
    EXPECT_FALSE(api_version_served("apiextensions.k8s.io", "v1beta1", "1.34"));
    EXPECT_TRUE(api_version_served("policy", "v1beta1", "1.24.17"));
    EXPECT_FALSE(api_version_served("policy", "v1beta1", "1.25.0"));
    EXPECT_FALSE(api_version_served("policy", "v1beta1", "1.36.1"));
    // What was never removed is served by every version.
    EXPECT_TRUE(api_version_served("apiextensions.k8s.io", "v1", "1.36.1"));
    EXPECT_TRUE(api_version_served("policy", "v1", "1.33.9"));
    EXPECT_TRUE(api_version_served("", "v1", "1.32.8"));
    // No parsable version: what Kubernetes removed is not served.
    for (const char* bad : {"", "2.1", "1.", "1.x", "v1.21.0", "1.21x"})
        EXPECT_FALSE(api_version_served("policy", "v1beta1", bad)) << bad;
}

TEST(ApiVersions, DiscoveryOfA134ClusterListsOnlyServedVersions) {
    KymaCluster kc; // shoot c1 on Kubernetes 1.34.6
    const Resp apis = kc.get("/apis");
    ASSERT_EQ(apis.status, 200) << apis.body;
    EXPECT_EQ(versions_of(group_in(apis.json, "apiextensions.k8s.io")),
              std::vector<std::string>{"v1"});
    EXPECT_EQ(versions_of(group_in(apis.json, "policy")), std::vector<std::string>{"v1"});
    const Resp crd_group = kc.get("/apis/apiextensions.k8s.io");
    ASSERT_EQ(crd_group.status, 200);
    EXPECT_EQ(versions_of(crd_group.json), std::vector<std::string>{"v1"});
    EXPECT_EQ(crd_group.json["preferredVersion"]["version"], "v1");
    const Resp policy = kc.get("/apis/policy");
    ASSERT_EQ(policy.status, 200);
    EXPECT_EQ(versions_of(policy.json), std::vector<std::string>{"v1"});
    const Resp policy_v1 = kc.get("/apis/policy/v1");
    ASSERT_EQ(policy_v1.status, 200);
    ASSERT_EQ(policy_v1.json["resources"].size(), 1u);
    EXPECT_EQ(policy_v1.json["resources"][0]["name"], "poddisruptionbudgets");
    expect_page_not_found(kc.get("/apis/apiextensions.k8s.io/v1beta1"), "CRD v1beta1 discovery");
    expect_page_not_found(kc.get("/apis/policy/v1beta1"), "policy v1beta1 discovery");
    const Resp version = kc.get("/version");
    ASSERT_EQ(version.status, 200);
    EXPECT_EQ(version.json["gitVersion"], "v1.34.6-kprov-sim");
    EXPECT_EQ(version.json["minor"], "34");
}

TEST(ApiVersions, RemovedGroupVersionsArePlain404sForEveryVerb) {
    KymaCluster kc;
    const Json crd = {{"apiVersion", "apiextensions.k8s.io/v1beta1"},
                      {"kind", "CustomResourceDefinition"},
                      {"metadata", {{"name", "releases.release.kyma-project.io"}}},
                      {"spec",
                       {{"group", "release.kyma-project.io"},
                        {"version", "v1alpha1"},
                        {"scope", "Namespaced"},
                        {"names", {{"kind", "Release"}, {"plural", "releases"}}}}}};
    const std::string crds = "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions";
    expect_page_not_found(kc.post(crds, crd), "POST v1beta1 CRD");
    expect_page_not_found(kc.get(crds), "list v1beta1 CRDs");
    expect_page_not_found(kc.get(crds + "/releases.release.kyma-project.io"), "get v1beta1 CRD");
    const std::string psps = "/apis/policy/v1beta1/podsecuritypolicies";
    const Json psp = {{"apiVersion", "policy/v1beta1"},
                      {"kind", "PodSecurityPolicy"},
                      {"metadata", {{"name", "kyma-installer"}}}};
    expect_page_not_found(kc.post(psps, psp), "POST PSP");
    expect_page_not_found(kc.get(psps), "list PSPs");
    expect_page_not_found(kc.put(psps + "/kyma-installer", psp), "PUT PSP");
    // Nothing was stored through the refused versions.
    const Resp v1 = kc.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
    ASSERT_EQ(v1.status, 200);
    EXPECT_TRUE(v1.json["items"].empty());
    // An unknown resource of a served group/version is go-restful's 404, made a Status.
    expect_not_found(kc.get("/apis/apiextensions.k8s.io/v1/nosuchresources"),
                     "unknown resource of a served version");
}

TEST(ApiVersions, AClusterServesWhatItsUpgradedVersionServes) {
    KymaCluster kc;
    const Resp patched =
        kc.f.http->patch(kc.f.shoot("c1"), R"({"spec":{"kubernetes":{"version":"1.35.4"}}})",
                         "application/merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_TRUE(eventually([&] { return kc.get("/version").json["minor"] == "35"; }, 10));
    EXPECT_EQ(kc.get("/version").json["gitVersion"], "v1.35.4-kprov-sim");
    expect_page_not_found(kc.get("/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions"),
                          "v1beta1 CRDs after the upgrade");
}
