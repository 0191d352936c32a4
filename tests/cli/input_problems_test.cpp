// Black-box: the built kprov reports every problem of a runtime file at once, an unknown field
// among them, and says which provider members it ignores.

#include "support/child_process.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class InputProblems : public ::testing::Test {
protected:
    kprov::testing::ProcessResult kprov(std::vector<std::string> args) {
        args.insert(args.begin(), KPROV_BINARY);
        auto env = kprov::testing::environment_without_settings();
        env.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        return kprov::testing::run_process(args, env, m_dir.path());
    }

    std::string write(const std::string& name, const std::string& text) {
        const auto path = m_dir.file(name);
        std::ofstream(path) << text;
        return path;
    }

    kprov::testing::TempDir m_dir;
};

// The example GCP runtime with an unknown field and four other problems.
const char* const k_bad_runtime = R"(runtimeInput:
  name: bad-runtime
clusterConfig:
  gardenerConfig:
    name: Bad_Shoot
    colour: blue
    provider: gcp
    targetSecret: gcp-kyma-dev
    region: europe-west3
    kubernetesVersion: "1.34.6"
    machineType: e2-medium
    machineImageVersion: "1.0"
    autoScalerMin: 5
    autoScalerMax: 3
    maxSurge: 4
    maxUnavailable: 1
    workerCidr: 10.250.0.0/16
    providerSpecificConfig:
      gcpConfig:
        zones: []
)";

void expect_all_five(const kprov::testing::ProcessResult& r) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("is invalid (5 problems):\n"));
    EXPECT_THAT(r.err, HasSubstr("  clusterConfig.gardenerConfig: unknown field \"colour\""));
    EXPECT_THAT(r.err, HasSubstr("  clusterConfig.gardenerConfig.machineImageVersion: Cluster "
                                 "config validation error"));
    EXPECT_THAT(r.err, HasSubstr("  clusterConfig.gardenerConfig.providerSpecificConfig.gcpConfig."
                                 "zones: must list at least one zone\n"));
    EXPECT_THAT(r.err, HasSubstr("  clusterConfig.gardenerConfig.name: must be a DNS label"));
    EXPECT_THAT(r.err, HasSubstr("  clusterConfig.gardenerConfig.autoScalerMax: must be at least "
                                 "autoScalerMin (5), got 3\n"));
    EXPECT_EQ(r.out, "");
}

TEST_F(InputProblems, PlanAndProvisionListEveryProblemOfTheFile) {
    const auto file = write("bad.yaml", k_bad_runtime);
    SCOPED_TRACE("plan");
    expect_all_five(kprov({"plan", "-f", file, "--gardener-project", "kyma-dev"}));
    SCOPED_TRACE("provision");
    expect_all_five(kprov({"provision", "-f", file, "--gardener-project", "kyma-dev", "--tenant",
                           "ga-1", "--store", "sqlite://" + m_dir.file("kprov.db")}));
}

TEST_F(InputProblems, PlanAndDryRunNameTheIgnoredProviderMembers) {
    std::ifstream example(KPROV_SOURCE_DIR "/examples/gcp.yaml");
    std::string text((std::istreambuf_iterator<char>(example)), std::istreambuf_iterator<char>());
    text += "      azureConfig:\n        vnetCidr: 10.250.0.0/16\n";
    const auto file = write("two-members.yaml", text);
    const std::string warning =
        "kprov: warning: clusterConfig.gardenerConfig.providerSpecificConfig.azureConfig is "
        "ignored: provider \"gcp\" uses gcpConfig\n";

    auto r = kprov({"plan", "-f", file, "--gardener-project", "kyma-dev", "-o", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr(warning));
    EXPECT_THAT(r.out, HasSubstr("\"type\": \"gcp\""));
    EXPECT_THAT(r.out, Not(HasSubstr("azure")));

    r = kprov({"provision", "-f", file, "--dry-run", "--gardener-project", "kyma-dev", "--tenant",
               "ga-1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr(warning));

    r = kprov({"plan", "-f", write("one-member.yaml", text.substr(0, text.find("      azure"))),
               "--gardener-project", "kyma-dev"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("is ignored")));
}

} // namespace
} // namespace kprov::cli
