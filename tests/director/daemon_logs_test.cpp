// `kprov watch` as an operator runs it: JSON log lines (--log-format json) that a collector can
// parse, about the runtime, operation and stage they concern, with no secret even at trace
// level, while it provisions a runtime registered in Director; and /metrics, /healthz and
// /readyz on its metrics address.

#include "watch_fixture.hpp"

#include <csignal>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sstream>
#include <thread>

namespace kprov::director::test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

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

using kprov::testing::lines_of;

class WatchDaemon : public WatchProcessTest {
protected:
    void SetUp() override {
        start({"--project", "kprov", "--create-seconds", "0.3"},
              {{"APP_RUNTIME_REGISTRATION_ENABLED", "true"},
               {"APP_RUNTIME_DEREGISTRATION_ENABLED", "true"},
               {"KPROV_LOG_LEVEL", "trace"}});
        if (!m_sim)
            return;
        m_env.push_back("APP_DIRECTOR_URL=" + m_sim->url + "/director/graphql");
        m_env.push_back("APP_DIRECTOR_OAUTH_PATH=" + write_director_yaml(m_dir.path(), m_sim->url));
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
};

std::pair<int, std::string> http_get(const std::string& url) {
    const auto slash = url.find('/', url.find("://") + 3);
    httplib::Client client(url.substr(0, slash));
    client.set_read_timeout(30, 0);
    const auto r = client.Get(url.substr(slash).c_str());
    return r ? std::make_pair(r->status, r->body) : std::make_pair(0, std::string());
}

TEST_F(WatchDaemon, ServesProbesAndMetricsAndLogsJsonWithoutSecretsAtTrace) {
    const std::string runtime = write_runtime("logged");

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

    std::vector<std::string> secrets = {k_watch_secret_key, k_director_secret};
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
