#pragma once
// What the Director suites share: kprov-sim started once per suite, a director.yaml for it, a
// DirectorClient over it, and the sim's /sim control endpoints.

#include "director/director_client.hpp"
#include "net/curl_transport.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::director::test {

/// The sim's control endpoints over plain HTTP.
class SimControl {
public:
    explicit SimControl(std::string url)
        : m_url(std::move(url))
        , m_transport(std::make_shared<net::CurlTransport>(net::TlsOptions{})) {}

    nlohmann::json get(const std::string& path) { return call("GET", path, ""); }
    nlohmann::json post(const std::string& path, const nlohmann::json& body = nlohmann::json()) {
        return call("POST", path, body.is_null() ? "" : body.dump());
    }
    void del(const std::string& path) { call("DELETE", path, ""); }

    /// The GraphQL calls Director got (GET /sim/director/calls), optionally of one operation.
    std::vector<nlohmann::json> director_calls(const std::string& operation = {}) {
        std::vector<nlohmann::json> out;
        const auto answer = get("/sim/director/calls");
        for (const auto& c : answer["calls"])
            if (c["kind"] == "graphql" && (operation.empty() || c["operation"] == operation))
                out.push_back(c);
        return out;
    }
    /// Token requests the OAuth endpoint answered.
    int token_requests() {
        int n = 0;
        const auto answer = get("/sim/director/calls");
        for (const auto& c : answer["calls"])
            n += c["kind"] == "token" ? 1 : 0;
        return n;
    }
    /// Director's runtime `id` as GET /sim/director lists it; null when absent.
    nlohmann::json director_runtime(const std::string& id) {
        const auto answer = get("/sim/director");
        for (const auto& rt : answer["runtimes"])
            if (rt["id"] == id)
                return rt;
        return nullptr;
    }

private:
    nlohmann::json call(const std::string& method, const std::string& path,
                        const std::string& body) {
        net::HttpRequest r;
        r.method = method;
        r.url = m_url + path;
        r.body = body;
        if (!body.empty())
            r.headers.emplace_back("Content-Type", "application/json");
        const auto response = m_transport->perform(r);
        if (response.status >= 300)
            throw std::runtime_error(method + " " + path + ": " + std::to_string(response.status) +
                                     " " + response.body);
        return nlohmann::json::parse(response.body, nullptr, false);
    }

    std::string m_url;
    std::shared_ptr<net::HttpTransport> m_transport;
};

/// A director.yaml for the sim's default client, written into `dir`.
inline std::string write_director_yaml(const std::string& dir, const std::string& sim_url,
                                       const std::string& secret = "kprov-sim-secret") {
    const std::string path = dir + "/director.yaml";
    std::ofstream(path) << "data:\n  client_id: kprov-sim-client\n  client_secret: " << secret
                        << "\n  tokens_endpoint: " << sim_url << "/oauth2/token\n";
    return path;
}

/// Fast retries, so that outage tests take no long.
inline DirectorClientOptions fast_options(const std::string& sim_url) {
    DirectorClientOptions o;
    o.url = sim_url + "/director/graphql";
    o.retry = {3, std::chrono::milliseconds(5), std::chrono::milliseconds(20),
               std::chrono::seconds(10)};
    return o;
}

inline OAuthCredentials sim_credentials(const std::string& sim_url) {
    return {"kprov-sim-client", "kprov-sim-secret", sim_url + "/oauth2/token"};
}

/// Starts kprov-sim with `flags` for a suite; skips (fails in CI) when it is not built.
inline std::unique_ptr<kprov::testing::SimProcess> start_sim(std::vector<std::string> flags,
                                                             std::string& why_not) {
    const std::string binary = kprov::testing::find_sim_binary();
    if (binary.empty()) {
        why_not = "kprov-sim is not built (target kprov-sim)";
        return nullptr;
    }
    return std::make_unique<kprov::testing::SimProcess>(binary, std::move(flags));
}

/// A suite sharing one kprov-sim, started with `Suite::sim_flags()`; every test starts with
/// Director's state and the sim's faults reset. A derived SetUp calls this one first and
/// returns when IsSkipped().
template <class Suite> class SimSuite : public ::testing::Test {
protected:
    static void SetUpTestSuite() { s_sim = start_sim(Suite::sim_flags(), s_why).release(); }
    static void TearDownTestSuite() {
        delete s_sim;
        s_sim = nullptr;
    }
    void SetUp() override {
        if (!s_sim)
            KPROV_SKIP_UNLESS_CI(s_why);
        control = std::make_unique<SimControl>(s_sim->url);
        control->post("/sim/director/reset");
        control->del("/sim/faults");
    }

    static inline kprov::testing::SimProcess* s_sim = nullptr;
    static inline std::string s_why;
    std::unique_ptr<SimControl> control;
};

} // namespace kprov::director::test
