// The pure builders of the installation-cr backend: reading the release's documents, kind table,
// Installation CR edit, override objects and the probe mapping (kyma-installation.md §2.4, §2.5,
// §7.4).

#include "engine/error.hpp"
#include "kyma/kyma_objects.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string installer_yaml_error(const std::string& yaml) {
    try {
        parse_installer_yaml(yaml);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(KymaManifest, ReadsEveryDocumentOfTheStreamAndSkipsEmptyOnes) {
    // Documents end where YAML's parser says ("--- " with a space included), empty ones and
    // those of comments only are skipped, and "---" inside a block scalar is text.
    const auto manifest = parse_installer_yaml(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\n  \n---\n# a comment\n"
        "--- \napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  text: |\n"
        "    x\n    ---\n    y\n---\n");
    ASSERT_EQ(manifest.resources.size(), 2u);
    EXPECT_EQ(manifest.resources[0]["kind"], "Namespace");
    EXPECT_EQ(manifest.resources[1]["data"]["text"], "x\n---\ny\n");
    EXPECT_TRUE(parse_installer_yaml("").resources.empty());
}

TEST(KymaManifest, ARepeatedKeyKeepsItsLastValueAsKubernetesReadsIt) {
    EXPECT_EQ(yaml_document_to_json("a: 1\na: 2\n"), json::parse(R"({"a":2})"));
}

TEST(KymaManifest, ABrokenBoundIsNamed) {
    std::string deep;
    for (int i = 0; i < 70; ++i)
        deep += "- ";
    deep += "x\n";
    EXPECT_THAT(installer_yaml_error(deep), HasSubstr("breaks the YAML bound max_depth"));
    EXPECT_THAT(installer_yaml_error("a: &x [1]\nb: *y\n"), HasSubstr("*y names no anchor"));
}

TEST(KymaManifest, ConvertsYamlScalarsByTheCoreSchema) {
    const json object = yaml_document_to_json(
        "s: \"true\"\nb: true\ni: 42\nf: 1.5\nn: ~\nt: hello\nq: '7'\nlist: [1, x]\n");
    EXPECT_EQ(object, json::parse(R"({"s":"true","b":true,"i":42,"f":1.5,"n":null,"t":"hello",
                                       "q":"7","list":[1,"x"]})"));
}

TEST(KymaManifest, RefusesDeepNestingAndBadYaml) {
    std::string deep;
    for (int i = 0; i < 70; ++i)
        deep += "[";
    EXPECT_THROW(yaml_document_to_json(deep), Error);
    EXPECT_THROW(yaml_document_to_json("a: [unclosed"), Error);
}

TEST(KymaManifest, TakesOutTheFirstInstallationAndDefaultsNamespaces) {
    const auto manifest = parse_installer_yaml(R"(---
apiVersion: v1
kind: Namespace
metadata: {name: kyma-installer, namespace: ignored}
---
apiVersion: installer.kyma-project.io/v1alpha1
kind: Installation
metadata: {name: kyma-installation, labels: {action: install}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kyma-installer, namespace: kyma-installer}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
---
apiVersion: installer.kyma-project.io/v1alpha1
kind: Installation
metadata: {name: second}
)");
    ASSERT_EQ(manifest.installation.size(), 1u);
    EXPECT_EQ(manifest.installation[0]["metadata"]["name"], "kyma-installation");
    ASSERT_EQ(manifest.resources.size(), 4u);
    EXPECT_EQ(collection_path(manifest.resources[0]), "/api/v1/namespaces");
    EXPECT_FALSE(manifest.resources[0]["metadata"].contains("namespace"));
    EXPECT_EQ(object_path(manifest.resources[1]),
              "/apis/apps/v1/namespaces/kyma-installer/deployments/kyma-installer");
    EXPECT_EQ(object_path(manifest.resources[2]), "/api/v1/namespaces/default/serviceaccounts/sa");
    EXPECT_EQ(manifest.resources[2]["metadata"]["namespace"], "default");
    EXPECT_EQ(manifest.resources[3]["metadata"]["name"], "second");
}

TEST(KymaManifest, KindTableCoversTheInstallerKinds) {
    for (const auto& [api_version, kind] : std::vector<std::pair<std::string, std::string>>{
             {"v1", "LimitRange"},
             {"scheduling.k8s.io/v1beta1", "PriorityClass"},
             {"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"},
             {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
             {"batch/v1", "Job"},
             {"rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding"},
             {"policy/v1beta1", "PodSecurityPolicy"},
             {"release.kyma-project.io/v1alpha1", "Release"}})
        EXPECT_NE(find_kind(api_version, kind), nullptr) << api_version << " " << kind;
    const KindInfo* crd = find_kind("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition");
    EXPECT_EQ(crd->plural, "customresourcedefinitions");
    EXPECT_FALSE(crd->namespaced);
    EXPECT_EQ(find_kind("apps/v1beta1", "Deployment"), nullptr);
}

TEST(KymaManifest, NamesTheDocumentOfAnUnknownKindOrABadObject) {
    EXPECT_EQ(installer_yaml_error("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
                                   "apiVersion: apps/v2\nkind: Deployment\nmetadata: {name: d}\n"),
              "unknown kind apps/v2 Deployment in document 2");
    EXPECT_EQ(installer_yaml_error("- a\n- b\n"), "not a mapping in document 1");
    EXPECT_EQ(installer_yaml_error("kind: Namespace\n"), "no apiVersion in document 1");
    EXPECT_EQ(installer_yaml_error("apiVersion: v1\n"), "no kind in document 1");
    EXPECT_THAT(installer_yaml_error("apiVersion: v1\nkind: Namespace\nmetadata: {name: ../x}\n"),
                HasSubstr("metadata.name"));
}

engine::KymaConfig sample_config() {
    engine::KymaConfig config;
    config.profile = engine::KymaProfile::Production;
    config.global = {{{"global.domain", "example.org", false}, {"global.password", "pw", true}},
                     "Replace"};
    engine::KymaComponent essentials;
    essentials.name = "cluster-essentials";
    essentials.namespace_ = "kyma-system";
    engine::KymaComponent agent;
    agent.name = "compass-runtime-agent";
    agent.namespace_ = "compass-system";
    agent.source_url = "https://example.org/agent.tgz";
    agent.configuration = {{{"a.b", "1", false}, {"token", "s3cret", true}}, "Merge"};
    config.components = {essentials, agent};
    return config;
}

TEST(KymaObjects, InstallationCrGetsProfileComponentsAndLosesTheActionLabel) {
    const json template_cr = json::parse(R"({
        "apiVersion": "installer.kyma-project.io/v1alpha1", "kind": "Installation",
        "metadata": {"name": "kyma-installation",
                     "labels": {"action": "install", "kyma-project.io/installation": ""}},
        "spec": {"version": "0.0.1", "url": "", "components": [{"name": "old"}]}})");
    const json cr = installation_cr(template_cr, sample_config());
    EXPECT_EQ(cr["metadata"]["labels"], json({{"kyma-project.io/installation", ""}}));
    EXPECT_EQ(cr["metadata"]["namespace"], "default");
    EXPECT_EQ(cr["spec"]["version"], "0.0.1");
    EXPECT_EQ(cr["spec"]["profile"], "production");
    EXPECT_EQ(cr["spec"]["components"], json::parse(R"([
        {"name": "cluster-essentials", "namespace": "kyma-system", "release": ""},
        {"name": "compass-runtime-agent", "namespace": "compass-system", "release": "",
         "source": {"url": "https://example.org/agent.tgz"}}])"));

    engine::KymaConfig no_profile;
    const json bare = installation_cr(template_cr, no_profile);
    EXPECT_FALSE(bare["spec"].contains("profile"));
    EXPECT_EQ(bare["spec"]["components"], json::array());
}

TEST(KymaObjects, OverrideObjectsHaveTheExactNamesLabelsAndData) {
    const OverrideObjects objects = override_objects(sample_config());
    ASSERT_EQ(objects.config_maps.size(), 3u);
    ASSERT_EQ(objects.secrets.size(), 3u);
    EXPECT_EQ(objects.config_maps[0], json::parse(R"({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "global-installer-config", "namespace": "kyma-installer",
                     "labels": {"installer": "overrides", "conflict-strategy": "Replace"}},
        "data": {"global.domain": "example.org"}})"));
    // The deliberate fix of §7.4: no `component` label on the global Secret.
    EXPECT_EQ(objects.secrets[0], json::parse(R"({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "global-installer-config", "namespace": "kyma-installer",
                     "labels": {"installer": "overrides", "conflict-strategy": "Replace"}},
        "data": {"global.password": "cHc="}})"));
    // Written even when empty.
    EXPECT_EQ(objects.config_maps[1]["metadata"]["name"], "cluster-essentials-installer-config");
    EXPECT_EQ(objects.config_maps[1]["metadata"]["labels"],
              json({{"installer", "overrides"},
                    {"component", "cluster-essentials"},
                    {"conflict-strategy", ""}}));
    EXPECT_EQ(objects.config_maps[1]["data"], json::object());
    EXPECT_EQ(objects.secrets[1]["data"], json::object());
    EXPECT_EQ(objects.secrets[2]["metadata"]["name"], "compass-runtime-agent-installer-config");
    EXPECT_EQ(objects.secrets[2]["metadata"]["labels"]["component"], "compass-runtime-agent");
    EXPECT_EQ(objects.secrets[2]["metadata"]["labels"]["conflict-strategy"], "Merge");
    EXPECT_EQ(objects.secrets[2]["data"], json({{"token", "czNjcmV0"}}));
    EXPECT_EQ(objects.config_maps[2]["data"], json({{"a.b", "1"}}));
}

TEST(KymaObjects, MergeKeepsOldKeysUnlessReplace) {
    const json live = json::parse(R"({"metadata": {"name": "x", "resourceVersion": "9"},
                                      "data": {"a": "old", "b": "old"}})");
    json desired = json::parse(R"({"metadata": {"name": "x",
                                   "labels": {"conflict-strategy": "Merge"}},
                                   "data": {"b": "new"}})");
    const json merged = merged_override(live, desired);
    EXPECT_EQ(merged["data"], json({{"a", "old"}, {"b", "new"}}));
    EXPECT_EQ(merged["metadata"]["resourceVersion"], "9");
    desired["metadata"]["labels"]["conflict-strategy"] = "Replace";
    EXPECT_EQ(merged_override(live, desired)["data"], json({{"b", "new"}}));
    desired["metadata"]["labels"]["conflict-strategy"] = "replace"; // exactly "Replace" only
    EXPECT_EQ(merged_override(live, desired)["data"], json({{"a", "old"}, {"b", "new"}}));
}

TEST(KymaObjects, ReplacementCarriesTheLiveVersionAndAServicesClusterIp) {
    const json live = json::parse(R"({"metadata": {"resourceVersion": "3"},
                                      "spec": {"clusterIP": "10.0.0.1", "ports": [1]}})");
    const json service = json::parse(R"({"apiVersion": "v1", "kind": "Service",
                                         "metadata": {"name": "s"}, "spec": {"ports": [2]}})");
    const json out = replacement_for(live, service);
    EXPECT_EQ(out["metadata"]["resourceVersion"], "3");
    EXPECT_EQ(out["spec"], json::parse(R"({"clusterIP": "10.0.0.1", "ports": [2]})"));
    json config_map = service;
    config_map["kind"] = "ConfigMap";
    EXPECT_FALSE(replacement_for(live, config_map)["spec"].contains("clusterIP"));
}

json cr_with(const std::string& status_json, const std::string& labels = "{}") {
    return json::parse(R"({"metadata": {"name": "kyma-installation", "resourceVersion": "12",
                           "labels": )" +
                       labels + R"(}, "status": )" + status_json + "}");
}

TEST(KymaProbe, MapsTheStatesOfTheTable) {
    using Kind = engine::InstallationProbe::Kind;
    const auto none = no_installation_probe();
    EXPECT_EQ(none.kind, Kind::NoInstallation);
    EXPECT_EQ(none.description, "Kyma Installation CR not found on the cluster");

    for (const std::string state : {"", "InProgress", "Installed"}) {
        const auto p = probe_of(cr_with(R"({"state": ")" + state + R"(", "description": "d"})"));
        EXPECT_EQ(p.kind, Kind::State);
        EXPECT_EQ(p.state, state);
        EXPECT_EQ(p.description, "d");
        EXPECT_EQ(p.resource_version, "12");
    }
    EXPECT_EQ(probe_of(json::parse(R"({"metadata": {}})")).kind, Kind::State); // no status
    EXPECT_TRUE(probe_of(cr_with(R"({"state": "Installed"})")).installed());

    const auto error = probe_of(cr_with(
        R"({"state": "Error", "description": "install component istio",
            "errorLog": [{"component": "istio", "log": "boom", "occurrences": 2}]})",
        R"({"action": "install"})"));
    EXPECT_EQ(error.kind, Kind::InstallerError);
    EXPECT_EQ(error.error_message, "installation error occurred: install component istio");
    EXPECT_TRUE(error.recoverable);
    EXPECT_THAT(error.error_log, ElementsAre(engine::InstallationErrorEntry{"istio", "boom", 2}));
    EXPECT_FALSE(
        probe_of(cr_with(R"({"state": "Error"})", R"({"action": "uninstall"})")).recoverable);
    EXPECT_FALSE(probe_of(cr_with(R"({"state": "Error"})")).recoverable);

    try {
        probe_of(cr_with(R"({"state": "Uninstalled"})"));
        FAIL() << "no exception";
    } catch (const engine::InvalidInstallationState& e) {
        EXPECT_STREQ(e.what(), "invalid installation state: Uninstalled");
    }
}

TEST(KymaProbe, BoundsWhatAHostileServerSends) {
    json log = json::array();
    for (int i = 0; i < 1000; ++i)
        log.push_back({{"component", "c"}, {"log", std::string(100'000, 'x')}, {"occurrences", 1}});
    json cr = cr_with(R"({"state": "Error"})");
    cr["status"]["errorLog"] = log;
    cr["status"]["description"] = std::string(1'000'000, 'd');
    const auto p = probe_of(cr);
    EXPECT_LE(p.error_log.size(), 100u);
    EXPECT_LE(p.error_log[0].log.size(), 16'384u);
    EXPECT_LE(p.description.size(), 16'384u);
}

TEST(KymaObjects, Sha224IsLowerCaseHex) {
    EXPECT_EQ(sha224_hex("abc"), "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7");
}

} // namespace
} // namespace kprov::gardener
