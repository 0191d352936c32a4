// The wiring of Director into the kprov commands (cli/engine_access.cpp): `kprov provision
// --wait` and `kprov deprovision --wait` with APP_RUNTIME_REGISTRATION_ENABLED, APP_DIRECTOR_URL
// and APP_DIRECTOR_OAUTH_PATH pointing at kprov-sim, run in-process.

#include "cli/app.hpp"
#include "director_testing.hpp"
#include "support/test_databases.hpp"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace kprov::director::test {
namespace {

using nlohmann::json;

struct Result {
    int code = 0;
    std::string out;
    std::string err;
};

class CliRegistrationTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        m_sim = start_sim({"--project", "kprov", "--create-seconds", "0.3", "--delete-seconds",
                           "0.2", "--reconcile-seconds", "0.2"},
                          why);
        if (!m_sim)
            KPROV_SKIP_UNLESS_CI(why);
        for (const char* name : {"KPROV_STORE", "APP_DATABASE_HOST", "APP_DATABSE_HOST",
                                 "APP_LOG_LEVEL", "KPROV_LOG_LEVEL", "KPROV_SUB_ACCOUNT"})
            unsetenv(name);
        setenv("HOME", m_dir.path().c_str(), 1);
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        setenv("APP_DATABASE_SECRET_KEY", "0123456789abcdef0123456789abcdef", 1);
        setenv("KPROV_TENANT", "ga-1", 1);
        setenv("APP_DIRECTOR_URL", (m_sim->url + "/director/graphql").c_str(), 1);
        setenv("APP_DIRECTOR_OAUTH_PATH", write_director_yaml(m_dir.path(), m_sim->url).c_str(), 1);
        setenv("APP_RUNTIME_REGISTRATION_ENABLED", "true", 1);
        setenv("APP_RUNTIME_DEREGISTRATION_ENABLED", "true", 1);
    }
    void TearDown() override {
        for (const char* name : {"KPROV_TENANT", "APP_DATABASE_SECRET_KEY", "APP_DIRECTOR_URL",
                                 "APP_DIRECTOR_OAUTH_PATH", "APP_RUNTIME_REGISTRATION_ENABLED",
                                 "APP_RUNTIME_DEREGISTRATION_ENABLED"})
            unsetenv(name);
    }

    Result kprov(std::vector<std::string> args) {
        args.insert(args.end(),
                    {"--store", "sqlite://" + m_dir.file("kprov.db"), "--gardener-kubeconfig",
                     m_sim->kubeconfig.string(), "--gardener-project", "kprov"});
        std::ostringstream out, err;
        Result r;
        r.code = cli::run(args, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }

    std::string runtime_file() {
        const json doc = json::parse(R"({
          "runtimeInput": {"name": "cli-registered", "labels": {"origin": "cli"}},
          "clusterConfig": {"gardenerConfig": {
            "name": "cli-reg", "kubernetesVersion": "1.34.6", "provider": "gcp",
            "targetSecret": "gcp-kyma-dev", "region": "europe-west3", "machineType": "e2-medium",
            "diskType": "pd-balanced", "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16",
            "autoScalerMin": 1, "autoScalerMax": 2, "maxSurge": 1, "maxUnavailable": 0,
            "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}}}})");
        const std::string path = m_dir.file("runtime.json");
        std::ofstream(path) << doc.dump();
        return path;
    }

    testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::SimProcess> m_sim;
};

TEST_F(CliRegistrationTest, ProvisionAndDeprovisionRegisterAndUnregister) {
    SimControl control(m_sim->url);
    const auto provisioned = kprov({"provision", "-f", runtime_file(), "--wait", "-o", "json"});
    ASSERT_EQ(provisioned.code, 0) << provisioned.err;
    const json status = json::parse(provisioned.out);
    const std::string id = status["runtimeID"];
    EXPECT_EQ(status["state"], "Succeeded");
    const json registered = control.director_runtime(id);
    ASSERT_FALSE(registered.is_null()) << "the runtime id is not Director's";
    EXPECT_EQ(registered["tenant"], "ga-1");
    EXPECT_EQ(registered["statusCondition"], "PROVISIONING");
    EXPECT_EQ(registered["labels"]["origin"], "cli");
    EXPECT_EQ(registered["labels"]["gardenerClusterName"], "cli-reg");
    EXPECT_EQ(control.director_calls("requestOneTimeTokenForRuntime").size(), 1u);

    // Every answer names the runtime's Director id, as the API does.
    EXPECT_EQ(status["compassRuntimeID"], id);
    const auto shown = kprov({"status", id, "-o", "json"});
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(json::parse(shown.out)["lastOperationStatus"]["compassRuntimeID"], id);
    const auto listed = kprov({"list", "-o", "json"});
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_EQ(json::parse(listed.out)[0]["lastOperationStatus"]["compassRuntimeID"], id);
    const auto history = kprov({"history", id, "-o", "json"});
    ASSERT_EQ(history.code, 0) << history.err;
    EXPECT_EQ(json::parse(history.out)[0]["compassRuntimeID"], id);
    const auto op = kprov({"operation", status["id"], "-o", "json"});
    ASSERT_EQ(op.code, 0) << op.err;
    EXPECT_EQ(json::parse(op.out)["compassRuntimeID"], id);

    const auto deprovisioned = kprov({"deprovision", id, "--wait", "--yes"});
    ASSERT_EQ(deprovisioned.code, 0) << deprovisioned.err;
    EXPECT_TRUE(control.director_runtime(id).is_null());
}

// A runtime with Kyma: the installer runs its compass-runtime-agent component, the sim's agent
// reads the Secret ConnectRuntimeAgent wrote and connects, and WaitForAgentToConnect marks the
// runtime CONNECTED in Director (the engine's tests cover ConnectionFailed).
TEST_F(CliRegistrationTest, ARuntimeWithKymaWaitsForItsAgentToConnect) {
    setenv("KPROV_KYMA_RELEASES_URL", (m_sim->url + "/sim/kyma-releases").c_str(), 1);
    SimControl control(m_sim->url);
    control.post("/sim/settings", {{"kymaComponentSeconds", 0.05}});
    std::ifstream in(runtime_file());
    json doc = json::parse(in);
    doc["clusterConfig"]["gardenerConfig"]["name"] = "cli-kyma";
    doc["kymaConfig"] = {
        {"version", "1.24.11"},
        {"components",
         {{{"component", "cluster-essentials"}, {"namespace", "kyma-system"}},
          {{"component", "compass-runtime-agent"}, {"namespace", "compass-system"}}}}};
    const std::string file = m_dir.file("kyma.json");
    std::ofstream(file) << doc.dump();
    const auto provisioned = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    unsetenv("KPROV_KYMA_RELEASES_URL");
    ASSERT_EQ(provisioned.code, 0) << provisioned.err;
    const json status = json::parse(provisioned.out);
    EXPECT_EQ(status["state"], "Succeeded");
    const std::string id = status["runtimeID"];
    EXPECT_EQ(control.director_runtime(id)["statusCondition"], "CONNECTED");
    const json agent = control.get("/sim/clusters/shoot--kprov--cli-kyma/kyma")["agent"];
    EXPECT_EQ(agent["connected"], true) << agent;
    const auto history = kprov({"history", id, "-o", "json"});
    ASSERT_EQ(history.code, 0) << history.err;
    EXPECT_NE(history.out.find("WaitForAgentToConnect"), std::string::npos);
}

TEST_F(CliRegistrationTest, AnExplicitlyNamedDirectorFileMustExist) {
    setenv("APP_DIRECTOR_OAUTH_PATH", m_dir.file("missing.yaml").c_str(), 1);
    const auto r = kprov({"provision", "-f", runtime_file()});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("missing.yaml"), std::string::npos) << r.err;
}

} // namespace
} // namespace kprov::director::test
