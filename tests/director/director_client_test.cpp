// DirectorClient and its OAuth token against kprov-sim over real HTTP: the five calls, the
// Tenant header, Director's error codes, retries through an outage, and the token cache
// (requested once for many calls, again after it expires).

#include "director/director_client.hpp"
#include "director/oauth.hpp"
#include "director_testing.hpp"
#include "support/test_databases.hpp"

#include <atomic>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thread>

namespace kprov::director::test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

/// A clock that stands still unless a test (or a retry's sleep) moves it.
class ManualClock : public net::Clock {
public:
    time_point now() override { return time_point(std::chrono::nanoseconds(m_now.load())); }
    bool sleep_for(duration d, const std::stop_token& = {}) override {
        advance(d);
        return true;
    }
    void advance(duration d) {
        m_now += std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    }

private:
    std::atomic<long long> m_now{1'000'000'000};
};

class DirectorClientTest : public SimSuite<DirectorClientTest> {
public:
    static std::vector<std::string> sim_flags() { return {"--director-token-seconds", "60"}; }

protected:
    void SetUp() override {
        SimSuite::SetUp();
        if (IsSkipped())
            return;
    }

    std::unique_ptr<DirectorClient> client(std::shared_ptr<net::Clock> clock = nullptr) {
        auto options = fast_options(s_sim->url);
        options.clock = std::move(clock);
        return std::make_unique<DirectorClient>(sim_credentials(s_sim->url), options);
    }

    static engine::DirectorRuntimeInput input(const std::string& name) {
        engine::DirectorRuntimeInput in;
        in.name = name;
        in.description = "a runtime";
        in.labels_json = R"({"team":"blue","kyma-project.io/region":"eu"})";
        return in;
    }
};

TEST_F(DirectorClientTest, RegistersReadsUpdatesAndUnregistersWithTheTenantHeader) {
    auto director = client();
    const std::string id = director->register_runtime(input("rt-1"), "tenant-a");
    ASSERT_FALSE(id.empty());

    const auto rt = director->runtime(id, "tenant-a");
    ASSERT_TRUE(rt);
    EXPECT_EQ(rt->name, "rt-1");
    EXPECT_EQ(rt->description, "a runtime");
    EXPECT_EQ(json::parse(rt->labels_json)["kyma-project.io/region"], "eu");
    EXPECT_FALSE(director->runtime(id, "tenant-b")) << "another tenant does not see it";

    auto update = input("rt-1");
    update.status_condition = engine::DirectorStatusCondition::Provisioning;
    director->update_runtime(id, update, "tenant-a");
    EXPECT_EQ(control->director_runtime(id)["statusCondition"], "PROVISIONING");

    const auto token = director->request_one_time_token(id, "tenant-a");
    EXPECT_FALSE(token.token.empty());
    EXPECT_THAT(token.connector_url, HasSubstr("connector"));

    director->unregister_runtime(id, "tenant-a");
    EXPECT_TRUE(control->director_runtime(id).is_null());
    EXPECT_FALSE(director->runtime(id, "tenant-a"));

    const auto calls = control->director_calls();
    ASSERT_EQ(calls.size(), 7u);
    for (const auto& c : calls)
        EXPECT_TRUE(c["tenant"] == "tenant-a" || c["tenant"] == "tenant-b") << c.dump();
    EXPECT_EQ(calls[0]["operation"], "registerRuntime");
    EXPECT_EQ(calls[0]["args"]["in"]["labels"]["team"], "blue");
}

TEST_F(DirectorClientTest, DirectorErrorCodesBecomeDirectorErrors) {
    auto director = client();
    director->register_runtime(input("taken"), "t");
    try {
        director->register_runtime(input("taken"), "t");
        FAIL() << "a second runtime of the same name was registered";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.director_code(), 21);
        EXPECT_EQ(e.reason(), "NotUnique");
        EXPECT_EQ(e.component(), "compass director");
        EXPECT_FALSE(e.retryable());
        EXPECT_THAT(e.what(), HasSubstr("registerRuntime"));
    }
    try {
        director->unregister_runtime("00000000-0000-4000-8000-000000000001", "t");
        FAIL() << "unregistering an unknown runtime succeeded";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.reason(), "NotFound");
    }
    // TenantNotFound on a look-up means "does not exist" (§2.4).
    control->post("/sim/director/errors", {{"operation", "runtime"}, {"code", 25}});
    EXPECT_FALSE(director->runtime("00000000-0000-4000-8000-000000000001", "t"));
}

TEST_F(DirectorClientTest, InternalErrorsAndOutagesAreRetried) {
    auto director = client();
    control->post("/sim/director/errors",
                  {{"operation", "registerRuntime"}, {"code", 10}, {"count", 2}});
    EXPECT_FALSE(director->register_runtime(input("after-internal"), "t").empty());
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 3u);

    control->post("/sim/faults", {{"pathPrefix", "/director/"}, {"status", 503}, {"count", 2}});
    EXPECT_FALSE(director->runtime("00000000-0000-4000-8000-000000000001", "t"));

    control->post("/sim/faults", {{"pathPrefix", "/director/"}, {"status", 503}, {"count", -1}});
    try {
        director->runtime("00000000-0000-4000-8000-000000000001", "t");
        FAIL() << "a lasting outage was not reported";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.http_status(), 503);
        EXPECT_TRUE(e.retryable());
        EXPECT_EQ(e.component(), "compass director");
    }
}

TEST_F(DirectorClientTest, WrongClientSecretIsAnOAuthError) {
    auto credentials = sim_credentials(s_sim->url);
    credentials.client_secret = "wrong";
    DirectorClient director(credentials, fast_options(s_sim->url));
    try {
        director.runtime("x", "t");
        FAIL() << "a wrong client secret got a token";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.component(), "mps oauth2");
        EXPECT_EQ(e.http_status(), 401);
        EXPECT_THAT(e.what(), HasSubstr("invalid_client"));
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("wrong")));
    }
}

TEST_F(DirectorClientTest, OneTokenServesManyCallsFromManyThreadsUntilItExpires) {
    auto clock = std::make_shared<ManualClock>();
    auto director = client(clock);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 5; ++i)
                director->runtime("00000000-0000-4000-8000-000000000001", "t");
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(control->token_requests(), 1);
    EXPECT_EQ(director->token_fetches(), 1);

    clock->advance(40s); // the sim's tokens live 60 s
    director->runtime("00000000-0000-4000-8000-000000000001", "t");
    EXPECT_EQ(control->token_requests(), 1) << "refreshed too early";

    clock->advance(21s); // past the expiry (and the refresh margin)
    director->runtime("00000000-0000-4000-8000-000000000001", "t");
    director->runtime("00000000-0000-4000-8000-000000000001", "t");
    EXPECT_EQ(control->token_requests(), 2);
}

// The sim's tokens live one second here, and the client's clock stands still: the client
// believes its token valid, Director refuses it (401), and the client gets a new one.
TEST(DirectorTokenExpiry, ATokenDirectorRefusesIsReplaced) {
    std::string why;
    auto sim = start_sim({"--director-token-seconds", "1"}, why);
    if (!sim)
        KPROV_SKIP_UNLESS_CI(why);
    SimControl control(sim->url);
    auto options = fast_options(sim->url);
    options.clock = std::make_shared<ManualClock>();
    DirectorClient director(sim_credentials(sim->url), options);
    director.runtime("00000000-0000-4000-8000-000000000001", "t");
    EXPECT_EQ(control.token_requests(), 1);
    std::this_thread::sleep_for(1500ms); // the token is expired now, whatever the load
    director.runtime("00000000-0000-4000-8000-000000000001", "t");
    EXPECT_EQ(control.token_requests(), 2);
    EXPECT_EQ(director.token_fetches(), 2);
    EXPECT_EQ(control.get("/sim/stats")["responses"].value("401", 0), 1);
}

TEST(OAuthFile, ReadsTheDataMapAndNamesWhatIsMissing) {
    const auto c = parse_oauth_credentials(
        "data:\n  client_id: id\n  client_secret: s3cret\n  tokens_endpoint: https://o/t\n", "f");
    EXPECT_EQ(c.client_id, "id");
    EXPECT_EQ(c.client_secret, "s3cret");
    EXPECT_EQ(c.tokens_endpoint, "https://o/t");
    try {
        parse_oauth_credentials("data:\n  client_secret: s3cret\n  tokens_endpoint: ftp://x\n",
                                "dir.yaml");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("dir.yaml"));
        EXPECT_THAT(e.what(), HasSubstr("data.client_id is missing"));
        EXPECT_THAT(e.what(), HasSubstr("ftp://x"));
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("s3cret")));
    }
    EXPECT_THROW(parse_oauth_credentials("client_id: x\n", "f"), ConfigError);
    EXPECT_THROW(parse_oauth_credentials("data: [1\n", "f"), ConfigError);
    EXPECT_THROW(read_oauth_credentials("/nonexistent/director.yaml"), ConfigError);
}

TEST(OAuthFile, TheExampleIsValid) {
    const auto c = read_oauth_credentials(KPROV_SOURCE_DIR "/examples/director.yaml");
    EXPECT_EQ(c.client_id, "kprov-sim-client");
}

TEST(DirectorErrors, CodesHaveCompassNames) {
    EXPECT_EQ(director_error_name(20), "NotFound");
    EXPECT_EQ(director_error_name(25), "TenantNotFound");
    EXPECT_EQ(director_error_name(99), "");
    EXPECT_TRUE(director_code_retryable(10));
    EXPECT_FALSE(director_code_retryable(22));
}

} // namespace
} // namespace kprov::director::test
