// kprov plan: the Shoot for each example file, and every problem of a bad file.

#include "cli/app.hpp"
#include "cli/runtime_file.hpp"
#include "cli/yaml_output.hpp"
#include "cli_testing.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class Plan : public ::testing::Test {
protected:
    void SetUp() override {
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        unsetenv("APP_GARDENER_LEGACY_API");
    }

    Result kprov(std::vector<std::string> args) {
        std::ostringstream out, err;
        Result r;
        r.code = run(args, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }

    // The Shoot of a plan's JSON output (a Shoot, or a List holding one).
    static json shoot_of(const json& document) {
        if (document.value("kind", "") == "Shoot")
            return document;
        for (const auto& item : document.at("items"))
            if (item.value("kind", "") == "Shoot")
                return item;
        return nullptr;
    }

    // examples/<example>.yaml with `edit` applied, as a file of this test.
    std::string edited_example(const std::string& example,
                               const std::function<void(json& gardener_config)>& edit) {
        json document = read_runtime_file(k_examples + example + ".yaml");
        edit(document["clusterConfig"]["gardenerConfig"]);
        const std::string file = m_dir.file(example + "-edited.json");
        std::ofstream(file) << document.dump();
        return file;
    }

    testing::TempDir m_dir;
};

TEST_F(Plan, PrintsAShootForEveryExample) {
    const std::map<std::string, std::string> provider_of = {
        {"aws", "aws"}, {"azure", "azure"}, {"gcp", "gcp"}, {"openstack", "openstack"}};
    for (const auto& [example, provider] : provider_of) {
        SCOPED_TRACE(example);
        const auto r = kprov({"plan", "-f", k_examples + example + ".yaml", "-o", "json",
                              "--gardener-project", "kyma-dev", "--tenant", "ga-1"});
        ASSERT_EQ(r.code, 0) << r.err;
        const json shoot = shoot_of(json::parse(r.out));
        ASSERT_TRUE(shoot.is_object()) << r.out;
        EXPECT_EQ(shoot["apiVersion"], "core.gardener.cloud/v1beta1");
        EXPECT_EQ(shoot["metadata"]["namespace"], "garden-kyma-dev");
        EXPECT_EQ(shoot["metadata"]["labels"]["account"], "ga-1");
        EXPECT_EQ(shoot["metadata"]["annotations"]["kcp.provisioner.kyma-project.io/runtime-id"],
                  "<runtime-id>");
        EXPECT_EQ(shoot["spec"]["provider"]["type"], provider);
        EXPECT_TRUE(shoot["spec"].contains("cloudProfile")) << "current Gardener API by default";
    }
}

TEST_F(Plan, LegacyApiModeSendsTheOriginalsFields) {
    setenv("APP_GARDENER_LEGACY_API", "true", 1);
    // Below 1.34: no Gardener admits cloudProfileName and secretBindingName from there on.
    const std::string file =
        edited_example("gcp", [](json& g) { g["kubernetesVersion"] = "1.33.8"; });
    const auto r = kprov({"plan", "-f", file, "-o", "json", "--gardener-project", "kyma-dev"});
    unsetenv("APP_GARDENER_LEGACY_API");
    ASSERT_EQ(r.code, 0) << r.err;
    const json shoot = shoot_of(json::parse(r.out));
    EXPECT_TRUE(shoot["spec"].contains("cloudProfileName"));
    EXPECT_TRUE(shoot["spec"].contains("secretBindingName"));
    EXPECT_FALSE(shoot["spec"].contains("cloudProfile"));
}

// Refused at request time (exit 2), each naming the field, the value and what to use instead.
TEST_F(Plan, LegacyApiRefusesFieldsGardenerRefusesForTheVersion) {
    setenv("APP_GARDENER_LEGACY_API", "true", 1);
    auto r = kprov({"plan", "-f",
                    edited_example("gcp", [](json& g) { g["kubernetesVersion"] = "1.34.6"; }),
                    "--gardener-project", "kyma-dev"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.kubernetesVersion: legacy mode "
                                 "(APP_GARDENER_LEGACY_API=true) sends spec.cloudProfileName and "
                                 "spec.secretBindingName"));
    EXPECT_THAT(r.err, HasSubstr("got \"1.34.6\""));
    EXPECT_THAT(r.err, HasSubstr("spec.cloudProfile and spec.credentialsBindingName"));
    EXPECT_EQ(r.out, "");
    // aws.yaml has OIDC, which legacy mode sends as oidcConfig.
    r = kprov({"plan", "-f",
               edited_example("aws", [](json& g) { g["kubernetesVersion"] = "1.32.5"; }),
               "--gardener-project", "kyma-dev"});
    unsetenv("APP_GARDENER_LEGACY_API");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.oidcConfig: legacy mode"));
    EXPECT_THAT(r.err, HasSubstr("kubernetesVersion \"1.32.5\""));
    EXPECT_THAT(r.err, HasSubstr("use structured authentication"));
    EXPECT_THAT(r.err, Not(HasSubstr("cloudProfileName")));
}

TEST_F(Plan, AnEmptyOidcClientIdIsRefused) {
    const auto r = kprov({"plan", "-f",
                          edited_example("aws", [](json& g) { g["oidcConfig"]["clientID"] = ""; }),
                          "--gardener-project", "kyma-dev"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.oidcConfig.clientID: must not be "
                                 "empty, got \"\""));
}

// gardener-landscape.md §4: on 1.35 the DNS Secret is a credentialsRef and EU access is an
// access restriction, in what plan prints as in what provisioning sends.
TEST_F(Plan, ShowsDnsCredentialsRefsAndEuAccessRestrictions) {
    const std::string file = edited_example("gcp", [](json& g) {
        g["kubernetesVersion"] = "1.35.4";
        g["euAccess"] = true;
        g["dnsConfig"] = json::parse(R"({"domain": "x.example.com", "providers": [{"domainsInclude":
            ["x.example.com"], "primary": true, "secretName": "route53", "type": "aws-route53"}]})");
    });
    const auto r = kprov({"plan", "-f", file, "-o", "json", "--gardener-project", "kyma-dev"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("secretName")));
    const json spec = shoot_of(json::parse(r.out))["spec"];
    EXPECT_EQ(spec["dns"]["providers"][0]["credentialsRef"],
              (json{{"apiVersion", "v1"}, {"kind", "Secret"}, {"name", "route53"}}));
    EXPECT_FALSE(spec["dns"]["providers"][0].contains("secretName"));
    EXPECT_EQ(spec["accessRestrictions"][0]["name"], "eu-access-only");
}

TEST_F(Plan, YamlOutputReadsBackAsTheSameDocument) {
    for (const char* example : {"aws", "azure", "gcp", "openstack"}) {
        SCOPED_TRACE(example);
        const std::string file = k_examples + example + ".yaml";
        const auto as_json =
            kprov({"plan", "-f", file, "-o", "json", "--gardener-project", "kyma-dev"});
        const auto as_yaml = kprov({"plan", "-f", file, "--gardener-project", "kyma-dev"});
        ASSERT_EQ(as_yaml.code, 0) << as_yaml.err;
        EXPECT_EQ(read_runtime_text(as_yaml.out, "plan output"), json::parse(as_json.out));
    }
}

TEST_F(Plan, AnInvalidFileGetsEveryProblemWithItsPathAndExit2) {
    const std::string bad = m_dir.file("bad.yaml");
    std::ofstream(bad) << "runtimeInput: {name: x}\n"
                          "clusterConfig:\n"
                          "  gardenerConfig: {name: rt, regoin: x, autoScalerMin: three}\n";
    const auto r = kprov({"plan", "-f", bad});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr(bad + " is invalid ("));
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig: unknown field \"regoin\"; did you "
                                 "mean \"region\"?"));
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.autoScalerMin: must be an integer, "
                                 "got \"three\""));
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.region: is required"));
    EXPECT_THAT(r.err,
                HasSubstr("clusterConfig.gardenerConfig.providerSpecificConfig: is required"));
}

TEST_F(Plan, ValidationRulesNameTheFieldAndValue) {
    // A shoot name too long for the project: Gardener's 21-character rule.
    const auto r = kprov(
        {"plan", "-f", k_examples + "gcp.yaml", "--gardener-project", "a-rather-long-project"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.name"));
    EXPECT_THAT(r.err, HasSubstr("a-rather-long-project"));
}

TEST_F(Plan, RefusesOutputFormatsItCannotPrintAndMissingFiles) {
    auto r = kprov({"plan", "-f", k_examples + "gcp.yaml", "-o", "table"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("plan prints yaml or json"));
    r = kprov({"plan"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--file"));
    r = kprov({"plan", "-f", m_dir.file("missing.yaml")});
    EXPECT_EQ(r.code, 2) << "a missing -f file is a usage error for every command";
    EXPECT_THAT(r.err, HasSubstr("missing.yaml"));
}

// Without a project the file's own problems come first, then "no Gardener project set" naming
// the ways to set one; never the default project name's "too long".
TEST_F(Plan, AValidFileWithoutAProjectSaysNoProjectIsSet) {
    auto r = kprov({"plan", "-f", k_examples + "gcp.yaml"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("no Gardener project set: give --gardener-project, "
                                 "APP_GARDENER_PROJECT or config key gardener.project"));
    EXPECT_THAT(r.err, Not(HasSubstr("too long")));
    EXPECT_EQ(r.out, "");
}

TEST(YamlOutput, QuotesStringsYamlWouldReadAsSomethingElse) {
    const std::string text =
        R"({"a":"true","b":"123","c":"","d":"null","e":"plain","f":1.5,"g":true,"h":null,"i":[],"j":{},"k":"x\ny"})";
    const std::string yaml = json_to_yaml(text);
    EXPECT_THAT(yaml, HasSubstr("a: \"true\""));
    EXPECT_THAT(yaml, HasSubstr("b: \"123\""));
    EXPECT_THAT(yaml, HasSubstr("e: plain"));
    EXPECT_THAT(yaml, HasSubstr("i: []"));
    EXPECT_THAT(yaml, HasSubstr("j: {}"));
    EXPECT_EQ(read_runtime_text(yaml, "yaml"), json::parse(text));
}

} // namespace
} // namespace kprov::cli
