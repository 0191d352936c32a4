// `kprov watch` as an operator runs it: JSON log lines (--log-format json) that a collector can
// parse, about the runtime, operation and stage they concern, with no secret even at trace
// level, while it provisions a runtime registered in Director; and /metrics, /healthz and
// /readyz on its metrics address.

#include "cli/child_process.hpp"
#include "director_testing.hpp"
#include "support/test_databases.hpp"

#include <csignal>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sstream>
#include <thread>

extern char** environ;

namespace kprov::director::test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

const std::string k_secret_key = "0123456789abcdef0123456789abcdef";
const std::string k_director_secret = "kprov-sim-secret";

// The values of every "token:" line of a kubeconfig (quotes dropped).
std::vector<std::string> tokens_of(const std::string& kubeconfig) {
    std::vector<std::string> tokens;
    std::istringstream in(kubeconfig);
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find("token:");
        if (at == std::string::npos)
            continue;
        std::string value = line.substr(at + 6);
        value.erase(0, value.find_first_not_of(" \"'"));
        value.erase(value.find_last_not_of(" \"'") + 1);
        if (value.size() >= 8)
            tokens.push_back(value);
    }
    return tokens;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

class WatchDaemon : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        m_sim = start_sim({"--project", "kprov", "--create-seconds", "0.3"}, why);
        if (!m_sim)
            KPROV_SKIP_UNLESS_CI(why);
        const std::vector<std::pair<std::string, std::string>> settings = {
            {"HOME", m_dir.path()},
            {"XDG_CONFIG_HOME", m_dir.file("config")},
            {"XDG_STATE_HOME", m_dir.file("state")},
            {"KPROV_STORE", "sqlite://" + m_dir.file("kprov.db")},
            {"APP_DATABASE_SECRET_KEY", k_secret_key},
            {"KPROV_TENANT", "ga-1"},
            {"APP_GARDENER_KUBECONFIG_PATH", m_sim->kubeconfig.string()},
            {"APP_GARDENER_PROJECT", "kprov"},
            {"APP_DIRECTOR_URL", m_sim->url + "/director/graphql"},
            {"APP_DIRECTOR_OAUTH_PATH", write_director_yaml(m_dir.path(), m_sim->url)},
            {"APP_RUNTIME_REGISTRATION_ENABLED", "true"},
            {"APP_RUNTIME_DEREGISTRATION_ENABLED", "true"},
            {"KPROV_LOG_LEVEL", "trace"},
        };
        for (char** e = environ; *e; ++e) {
            const std::string entry = *e;
            if (entry.rfind("KPROV_", 0) != 0 && entry.rfind("APP_", 0) != 0 &&
                entry.rfind("XDG_", 0) != 0 && entry.rfind("HOME=", 0) != 0)
                m_env.push_back(entry);
        }
        for (const auto& [key, value] : settings)
            m_env.push_back(key + "=" + value);
    }

    kprov::testing::ProcessResult kprov(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {KPROV_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        return kprov::testing::run_process(argv, m_env, m_dir.path(), 120s);
    }

    // The URL watch prints on stdout once its metrics listener is up; "" when it does not.
    std::string metrics_url(kprov::testing::ChildProcess& watch, const std::string& out) {
        for (int i = 0; i < 600; ++i) {
            std::istringstream text(kprov::testing::read_text(out));
            for (std::string line; std::getline(text, line);)
                if (line.rfind("metrics ", 0) == 0)
                    return line.substr(8);
            if (watch.wait_for(50ms))
                break;
        }
        return {};
    }

    kprov::testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::SimProcess> m_sim;
    std::vector<std::string> m_env;
};

std::pair<int, std::string> http_get(const std::string& url) {
    const auto slash = url.find('/', url.find("://") + 3);
    httplib::Client client(url.substr(0, slash));
    client.set_read_timeout(30, 0);
    const auto r = client.Get(url.substr(slash).c_str());
    return r ? std::make_pair(r->status, r->body) : std::make_pair(0, std::string());
}

TEST_F(WatchDaemon, ServesProbesAndMetricsAndLogsJsonWithoutSecretsAtTrace) {
    const std::string runtime = m_dir.file("runtime.json");
    std::ofstream(runtime) << R"({
      "runtimeInput": {"name": "logged"},
      "clusterConfig": {"gardenerConfig": {
        "name": "logged", "kubernetesVersion": "1.34.6", "provider": "gcp",
        "targetSecret": "gcp-kyma-dev", "region": "europe-west3", "machineType": "e2-medium",
        "diskType": "pd-balanced", "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16",
        "autoScalerMin": 1, "autoScalerMax": 2, "maxSurge": 1, "maxUnavailable": 0,
        "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}}}})";

    kprov::testing::ChildProcess watch({KPROV_BINARY, "watch", "--workers", "2", "--log-format",
                                        "json", "--metrics-address", "127.0.0.1:0"},
                                       m_env, m_dir.file("watch.out"), m_dir.file("watch.err"));
    const std::string url = metrics_url(watch, m_dir.file("watch.out"));
    ASSERT_FALSE(url.empty()) << kprov::testing::read_text(m_dir.file("watch.err"));
    const std::string base = url.substr(0, url.rfind("/metrics"));
    EXPECT_EQ(http_get(base + "/healthz"), std::make_pair(200, std::string("ok")));
    EXPECT_EQ(http_get(base + "/readyz"), std::make_pair(200, std::string("ok")));

    // A one-shot command keeps its short human lines, whatever the daemons' format.
    const auto provision =
        kprov({"provision", "-f", runtime, "-o", "json", "--log-format", "json"});
    ASSERT_EQ(provision.exit_code, 0) << provision.err;
    for (const auto& line : lines_of(provision.err))
        EXPECT_TRUE(line.rfind("kprov: ", 0) == 0 || line.rfind("  ", 0) == 0) << line;
    const std::string operation = json::parse(provision.out)["id"];
    std::string state;
    for (int i = 0; i < 1200 && state != "Succeeded" && state != "Failed"; ++i) {
        const auto r = kprov({"operation", operation, "-o", "json"});
        state = json::parse(r.out, nullptr, false).value("state", "");
        if (state != "Succeeded" && state != "Failed")
            std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(state, "Succeeded") << kprov::testing::read_text(m_dir.file("watch.err"));
    const auto admin = kprov({"kubeconfig", "logged"});
    ASSERT_EQ(admin.exit_code, 0) << admin.err;

    const auto [status, metrics] = http_get(url);
    EXPECT_EQ(status, 200);
    EXPECT_THAT(metrics, HasSubstr("kprov_workers 2"));
    EXPECT_THAT(metrics, HasSubstr("kprov_stage_transitions_total{"));
    EXPECT_THAT(metrics, HasSubstr("kprov_gardener_requests_total{"));
    watch.signal(SIGTERM);
    EXPECT_EQ(watch.wait_for(60s), 0);

    std::vector<std::string> secrets = {k_secret_key, k_director_secret};
    for (const auto& t : tokens_of(kprov::testing::read_text(m_sim->kubeconfig.string())))
        secrets.push_back(t);
    for (const auto& t : tokens_of(admin.out))
        secrets.push_back(t);
    ASSERT_GE(secrets.size(), 4U) << "the Gardener and admin kubeconfigs carry tokens";

    const std::string log = kprov::testing::read_text(m_dir.file("watch.err"));
    bool about_the_operation = false, debug = false;
    for (const auto& line : lines_of(log)) {
        const json object = json::parse(line, nullptr, false);
        ASSERT_TRUE(object.is_object()) << "not a JSON object: " << line;
        EXPECT_TRUE(object.contains("ts") && object["ts"].is_string()) << line;
        EXPECT_TRUE(object.contains("level") && object["level"].is_string()) << line;
        EXPECT_TRUE(object.contains("msg") && object["msg"].is_string()) << line;
        for (const auto& secret : secrets)
            EXPECT_THAT(line, Not(HasSubstr(secret))) << "a secret in the log";
        about_the_operation =
            about_the_operation ||
            (object.value("operation", "") == operation && object.contains("runtime") &&
             object.contains("stage") && object.value("component", "") == "worker");
        debug = debug || object.value("level", "") == "debug";
    }
    EXPECT_TRUE(about_the_operation) << "no line names the operation, runtime and stage:\n" << log;
    EXPECT_TRUE(debug) << "trace shows debug lines:\n" << log;
    for (const auto& secret : secrets)
        EXPECT_THAT(provision.err, Not(HasSubstr(secret)));
}

TEST_F(WatchDaemon, AnAddressInUseThatTheUserChoseIsRefused) {
    httplib::Server blocker;
    const int port = blocker.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    const auto r = kprov({"watch", "--metrics-address", "127.0.0.1:" + std::to_string(port)});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot listen on \"127.0.0.1:" + std::to_string(port)));
}

} // namespace
} // namespace kprov::director::test
