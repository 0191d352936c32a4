// The landscape resources: the default landscape, the verbs and watches of CloudProfiles,
// NamespacedCloudProfiles, CredentialsBindings and SecretBindings, the NamespacedCloudProfile
// merge, and --landscape files.

#include "landscape.hpp"
#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

const std::string k_profiles = "/apis/core.gardener.cloud/v1beta1/cloudprofiles";
const std::string k_bindings =
    "/apis/security.gardener.cloud/v1alpha1/namespaces/garden-dev/credentialsbindings";
const std::string k_secret_bindings =
    "/apis/core.gardener.cloud/v1beta1/namespaces/garden-dev/secretbindings";
const std::string k_ncps =
    "/apis/core.gardener.cloud/v1beta1/namespaces/garden-dev/namespacedcloudprofiles";

std::vector<std::string> names(const Json& list) {
    std::vector<std::string> out;
    for (const auto& i : list["items"])
        out.push_back(i["metadata"]["name"]);
    return out;
}

const Json* version_of(const Json& profile, const std::string& v) {
    for (const auto& e : profile["spec"]["kubernetes"]["versions"])
        if (e["version"] == v)
            return &e;
    return nullptr;
}

} // namespace

TEST(Landscape, TheDefaultLandscapeHasAProfilePerProviderAndTheProjectsBindings) {
    SimFixture f;
    Resp profiles = f.http->get(k_profiles);
    ASSERT_EQ(profiles.status, 200) << profiles.body;
    EXPECT_EQ(profiles.json["kind"], "CloudProfileList");
    EXPECT_EQ(names(profiles.json),
              (std::vector<std::string>{"aws", "az", "converged-cloud-kyma", "gcp"}));
    EXPECT_EQ(f.http->get(k_profiles + "/az").json["spec"]["type"], "azure");
    EXPECT_EQ(f.http->get(k_profiles + "/converged-cloud-kyma").json["spec"]["type"], "openstack");
    Resp bindings = f.http->get(k_bindings);
    ASSERT_EQ(bindings.status, 200) << bindings.body;
    EXPECT_EQ(names(bindings.json),
              (std::vector<std::string>{"aws-kyma-dev", "azure-kyma-dev", "gcp-kyma-dev",
                                        "openstack-kyma-dev"}));
    Json gcp = f.http->get(k_bindings + "/gcp-kyma-dev").json;
    EXPECT_EQ(gcp["provider"]["type"], "gcp");
    EXPECT_EQ(gcp["credentialsRef"]["name"], "gcp-kyma-dev");
    EXPECT_EQ(gcp["credentialsRef"]["namespace"], "garden-dev");
    EXPECT_EQ(f.http->get("/api/v1/namespaces/garden-dev/secrets/gcp-kyma-dev").status, 200)
        << "the bindings' Secrets exist";
}

TEST(Landscape, VersionsAreClassifiedRelativeToTheStart) {
    SimFixture f;
    Json aws = f.http->get(k_profiles + "/aws").json;
    TimePoint now = Clock::now();
    std::map<std::string, std::string> want = {{"1.36.1", "preview"},     {"1.35.4", "supported"},
                                               {"1.35.2", "deprecated"},  {"1.34.6", "supported"},
                                               {"1.34.3", "deprecated"},  {"1.33.9", "deprecated"},
                                               {"1.32.12", "deprecated"}, {"1.32.8", "expired"}};
    for (const auto& [v, classification] : want) {
        const Json* e = version_of(aws, v);
        ASSERT_NE(e, nullptr) << v;
        EXPECT_EQ(effective_classification(*e, now), classification) << v;
    }
    auto expiry = parse_rfc3339((*version_of(aws, "1.35.2"))["expirationDate"]);
    ASSERT_TRUE(expiry);
    auto days = std::chrono::duration_cast<std::chrono::hours>(*expiry - now).count() / 24;
    EXPECT_TRUE(days == 59 || days == 60) << days;
    EXPECT_FALSE(version_of(aws, "1.36.1")->contains("expirationDate"))
        << "the highest version has no expiration date";
}

TEST(Landscape, LifecycleStagesGiveTheClassificationOfTheirTime) {
    TimePoint now = Clock::now();
    Json entry = {{"version", "1.36.2"},
                  {"lifecycle",
                   {{{"classification", "preview"}},
                    {{"classification", "supported"},
                     {"startTime", rfc3339(now + std::chrono::hours(24))}}}}};
    EXPECT_EQ(effective_classification(entry, now), "preview");
    EXPECT_EQ(effective_classification(entry, now + std::chrono::hours(48)), "supported");
    Json future = {
        {"version", "1.37.0"},
        {"lifecycle",
         {{{"classification", "preview"}, {"startTime", rfc3339(now + std::chrono::hours(1))}}}}};
    EXPECT_EQ(effective_classification(future, now), "unavailable");
    EXPECT_EQ(effective_classification(Json{{"version", "1.2.3"}}, now), "supported");
}

TEST(Landscape, BindingsHaveTheStandardVerbs) {
    SimFixture f;
    Json binding = {{"apiVersion", "core.gardener.cloud/v1beta1"},
                    {"kind", "SecretBinding"},
                    {"metadata", {{"name", "old-gcp"}}},
                    {"provider", {{"type", "gcp"}}},
                    {"secretRef", {{"name", "gcp-kyma-dev"}, {"namespace", "garden-dev"}}}};
    Resp created = f.http->post(k_secret_bindings, binding.dump());
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(f.http->post(k_secret_bindings, binding.dump()).status, 409);
    Json stored = f.http->get(k_secret_bindings + "/old-gcp").json;
    stored["provider"]["type"] = "gcp,aws";
    Resp updated = f.http->put(k_secret_bindings + "/old-gcp", stored.dump());
    ASSERT_EQ(updated.status, 200) << updated.body;
    EXPECT_EQ(updated.json["provider"]["type"], "gcp,aws");
    Resp bad = f.http->post(k_bindings, R"({"metadata":{"name":"x"},"provider":{}})");
    EXPECT_EQ(bad.status, 422) << bad.body;
    EXPECT_EQ(f.http->del(k_secret_bindings + "/old-gcp").status, 200);
    EXPECT_EQ(f.http->get(k_secret_bindings + "/old-gcp").status, 404);
    Resp discovery = f.http->get("/apis/security.gardener.cloud/v1alpha1");
    ASSERT_EQ(discovery.status, 200);
    EXPECT_EQ(discovery.json["resources"][0]["name"], "credentialsbindings");
}

TEST(Landscape, ProfilesCanBeWatched) {
    SimFixture f;
    WatchCollector w(f.sim->url(), f.sim->token(), k_profiles + "?watch=1&timeoutSeconds=5");
    ASSERT_TRUE(w.wait_for([](const Json& e) {
        return e["type"] == "ADDED" && e["object"]["metadata"]["name"] == "gcp";
    }));
    Json gcp = f.http->get(k_profiles + "/gcp").json;
    gcp["spec"]["limits"]["maxNodesTotal"] = 400;
    ASSERT_EQ(f.http->put(k_profiles + "/gcp", gcp.dump()).status, 200);
    EXPECT_TRUE(w.wait_for([](const Json& e) {
        return e["type"] == "MODIFIED" && e["object"]["spec"]["limits"]["maxNodesTotal"] == 400;
    }));
}

TEST(Landscape, ANamespacedProfileCarriesTheMergedSpecInItsStatus) {
    SimFixture f;
    Json ncp = Json::parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1", "kind": "NamespacedCloudProfile",
      "metadata": {"name": "gcp-dev"},
      "spec": {"parent": {"kind": "CloudProfile", "name": "gcp"},
               "kubernetes": {"versions": [{"version": "1.32.8",
                                            "expirationDate": "2099-01-01T00:00:00Z"}]},
               "machineTypes": [{"name": "c3-standard-4", "cpu": "4", "gpu": "0",
                                 "memory": "16Gi", "usable": true}],
               "limits": {"maxNodesTotal": 50}}})");
    Resp created = f.http->post(k_ncps, ncp.dump());
    ASSERT_EQ(created.status, 201) << created.body;
    Json got = f.http->get(k_ncps + "/gcp-dev").json;
    const Json& spec = got["status"]["cloudProfileSpec"];
    EXPECT_EQ(spec["type"], "gcp") << "regions, type: always the parent's";
    EXPECT_EQ(spec["limits"]["maxNodesTotal"], 50);
    bool added = false;
    for (const auto& m : spec["machineTypes"])
        added = added || m["name"] == "c3-standard-4";
    EXPECT_TRUE(added);
    Json wrapped = Json::object();
    wrapped["spec"] = spec;
    const Json* v = version_of(wrapped, "1.32.8");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ((*v)["expirationDate"], "2099-01-01T00:00:00Z");
    EXPECT_EQ(effective_classification(*v, Clock::now()), "deprecated");

    // A change of the parent reaches the merged spec.
    Json gcp = f.http->get(k_profiles + "/gcp").json;
    gcp["spec"]["regions"].push_back({{"name", "asia-south1"}});
    ASSERT_EQ(f.http->put(k_profiles + "/gcp", gcp.dump()).status, 200);
    Json after = f.http->get(k_ncps + "/gcp-dev").json;
    EXPECT_EQ(after["status"]["cloudProfileSpec"]["regions"].back()["name"], "asia-south1");
}

TEST(Landscape, AFileReplacesADefaultProfileAndAddsObjects) {
    std::string file = temp_file("landscape.yaml", R"(
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata:
  name: gcp
spec:
  type: gcp
  kubernetes:
    versions:
    - {version: 1.35.7, classification: supported}
  machineTypes: [{name: n4-standard-2, cpu: "2", gpu: "0", memory: 8Gi}]
  regions: [{name: europe-north1, zones: [{name: europe-north1-a}]}]
---
apiVersion: v1
kind: List
items:
- apiVersion: security.gardener.cloud/v1alpha1
  kind: CredentialsBinding
  metadata: {name: team-gcp, namespace: garden-team}
  provider: {type: gcp}
  credentialsRef: {apiVersion: v1, kind: Secret, name: team-gcp, namespace: garden-team}
)");
    SimOptions o = fast_options();
    o.landscape_files = {file};
    SimFixture f(o);
    Json gcp = f.http->get(k_profiles + "/gcp").json;
    ASSERT_EQ(gcp["spec"]["kubernetes"]["versions"].size(), 1u);
    EXPECT_EQ(gcp["spec"]["kubernetes"]["versions"][0]["version"], "1.35.7");
    EXPECT_EQ(f.http->get(k_profiles + "/aws").status, 200) << "the other defaults stay";
    EXPECT_EQ(f.http
                  ->get("/apis/security.gardener.cloud/v1alpha1/namespaces/garden-team/"
                        "credentialsbindings/team-gcp")
                  .status,
              200);
}

TEST(Landscape, WithoutTheDefaultLandscapeThereIsNothing) {
    SimOptions o = fast_options();
    o.default_landscape = false;
    SimFixture f(o);
    EXPECT_TRUE(f.http->get(k_profiles).json["items"].empty());
    EXPECT_TRUE(f.http->get(k_bindings).json["items"].empty());
}

TEST(Landscape, ABadFileIsRefusedAtStartNamingFileDocumentAndField) {
    std::string file = temp_file("bad.yaml", R"(
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: ok}
spec:
  type: aws
  kubernetes: {versions: [{version: 1.34.1}]}
  machineTypes: [{name: m5.large}]
  regions: [{name: eu-west-1}]
---
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: broken}
spec:
  type: aws
  kubernetes: {versions: [{version: "1.34"}]}
  machineTypes: [{name: m5.large}]
  regions: [{name: eu-west-1}]
)");
    SimOptions o = fast_options();
    o.landscape_files = {file};
    Simulator sim(o);
    try {
        sim.start();
        sim.stop();
        FAIL() << "a bad landscape file must be refused";
    } catch (const std::runtime_error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find(file), std::string::npos) << what;
        EXPECT_NE(what.find("document 2"), std::string::npos) << what;
        EXPECT_NE(what.find("spec.kubernetes.versions[0].version"), std::string::npos) << what;
    }
}

TEST(LandscapeYaml, ReadsTheCoreSchemaAndRefusesAliases) {
    auto docs = yaml_documents("a: 1\nb: \"1\"\nc: true\nd: ~\ne: 1.5\nf: [x, 'y']\n---\n- 2\n");
    ASSERT_EQ(docs.size(), 2u);
    EXPECT_EQ(docs[0], Json::parse(R"({"a":1,"b":"1","c":true,"d":null,"e":1.5,"f":["x","y"]})"));
    EXPECT_EQ(docs[1], Json::parse("[2]"));
    EXPECT_EQ(yaml_documents(R"({"json": [1, "two"]})")[0], Json::parse(R"({"json":[1,"two"]})"));
    EXPECT_THROW(yaml_documents("a: &x 1\nb: *x\n"), std::runtime_error);
    EXPECT_THROW(yaml_documents("a: [1, 2\n"), std::runtime_error);
    std::string deep(100, '[');
    EXPECT_THROW(yaml_documents(deep), std::runtime_error);
}
