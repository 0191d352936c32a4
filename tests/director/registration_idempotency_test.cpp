// registerRuntime is idempotent through the kprov-request-id label: against kprov-sim over real
// HTTP, an answer lost after Director did the work registers exactly one runtime, and kprov gets
// that runtime's id. Also: Director's error texts are capped and cleaned, and a huge OAuth
// expires_in or Retry-After does not overflow.

#include "director/director_client.hpp"
#include "director/oauth.hpp"
#include "director_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::director::test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* k_request_id = "6f1c2b1e-2d7a-4c55-9a43-0f6a3c9e8d21";

class RegistrationIdempotencyTest : public SimSuite<RegistrationIdempotencyTest> {
public:
    static std::vector<std::string> sim_flags() { return {}; }

protected:
    void SetUp() override {
        SimSuite::SetUp();
        if (IsSkipped())
            return;
        director =
            std::make_unique<DirectorClient>(sim_credentials(s_sim->url), fast_options(s_sim->url));
    }

    static engine::DirectorRuntimeInput input(const std::string& name, std::string request_id) {
        engine::DirectorRuntimeInput in;
        in.name = name;
        in.labels_json = R"({"team":"blue"})";
        in.request_id = std::move(request_id);
        return in;
    }
    json registered() { return control->get("/sim/director")["runtimes"]; }
    void drop_next_answer(const std::string& operation, int status) {
        control->post("/sim/director/errors",
                      {{"operation", operation}, {"httpStatus", status}, {"count", 1}});
    }

    std::unique_ptr<DirectorClient> director;
};

TEST_F(RegistrationIdempotencyTest, ALostAnswerRegistersExactlyOneRuntimeAndKprovGetsItsId) {
    drop_next_answer("registerRuntime", 502);
    const std::string id = director->register_runtime(input("rt-lost", k_request_id), "t");

    const json runtimes = registered();
    ASSERT_EQ(runtimes.size(), 1u) << runtimes.dump();
    EXPECT_EQ(runtimes[0]["id"], id);
    EXPECT_EQ(runtimes[0]["labels"][k_request_id_label], k_request_id);
    EXPECT_EQ(runtimes[0]["labels"]["team"], "blue") << "the runtime's own labels stay";
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 1u) << "not sent again";
    const auto lookups = control->director_calls("runtimes");
    ASSERT_EQ(lookups.size(), 1u);
    EXPECT_EQ(lookups[0]["args"]["filter"][0]["key"], k_request_id_label);
    EXPECT_EQ(lookups[0]["args"]["filter"][0]["query"], std::string("\"") + k_request_id + "\"");
}

TEST_F(RegistrationIdempotencyTest, AnAnswerRefusedBeforeTheWorkLooksUpThenRegistersOnce) {
    control->post("/sim/faults", {{"pathPrefix", "/director/"}, {"status", 503}, {"count", 1}});
    const std::string id = director->register_runtime(input("rt-refused", k_request_id), "t");
    const json runtimes = registered();
    ASSERT_EQ(runtimes.size(), 1u);
    EXPECT_EQ(runtimes[0]["id"], id);
    EXPECT_EQ(control->director_calls("runtimes").size(), 1u) << "looked up, found nothing";
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 1u);
}

TEST_F(RegistrationIdempotencyTest, WithoutARequestIdALostAnswerIsNotSentAgain) {
    drop_next_answer("registerRuntime", 502);
    try {
        director->register_runtime(input("rt-no-id", ""), "t");
        FAIL() << "a lost answer was not reported";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.http_status(), 502);
    }
    EXPECT_EQ(registered().size(), 1u) << "Director did the work once";
    EXPECT_EQ(control->director_calls("registerRuntime").size(), 1u);
    EXPECT_TRUE(control->director_calls("runtimes").empty());
}

TEST_F(RegistrationIdempotencyTest, ALookupFindsOnlyItsOwnTenantsRuntime) {
    director->register_runtime(input("rt-other-tenant", k_request_id), "other");
    drop_next_answer("registerRuntime", 502);
    const std::string id = director->register_runtime(input("rt-mine", k_request_id), "t");
    for (const auto& rt : registered()) {
        if (rt["tenant"] == "t") {
            EXPECT_EQ(rt["id"], id);
        }
    }
    EXPECT_EQ(registered().size(), 2u);
}

TEST_F(RegistrationIdempotencyTest, DirectorErrorTextsAreCappedAndStrippedOfControlCharacters) {
    const std::string message = "\x1b[2J\x1b]0;owned\x07" + std::string(5000, 'm') + "\nend";
    control->post("/sim/director/errors",
                  {{"operation", "runtime"}, {"code", 22}, {"message", message}, {"count", 1}});
    try {
        director->runtime("00000000-0000-4000-8000-000000000001", "t");
        FAIL() << "no error";
    } catch (const engine::DirectorError& e) {
        const std::string what = e.what();
        EXPECT_THAT(what, Not(HasSubstr("\x1b")));
        EXPECT_THAT(what, Not(HasSubstr("\x07")));
        EXPECT_THAT(what, HasSubstr("\xE2\x80\xA6 (truncated)"));
        EXPECT_THAT(what, HasSubstr("mmmm"));
        EXPECT_LT(what.size(), 1300u);
    }
}

TEST_F(RegistrationIdempotencyTest, AHugeRetryAfterIsBoundedByTheTimeBudget) {
    control->post("/sim/faults", {{"pathPrefix", "/director/"},
                                  {"status", 503},
                                  {"retryAfterSeconds", 2147483647},
                                  {"count", 1}});
    // The wait the sim asks for is cut to max_total (10 s), which is over the budget: the
    // client gives up at once instead of sleeping for 68 years or overflowing.
    try {
        director->runtime("00000000-0000-4000-8000-000000000001", "t");
        FAIL() << "no error";
    } catch (const engine::DirectorError& e) {
        EXPECT_EQ(e.http_status(), 503);
    }
}

/// Answers every token request with `body`.
class TokenEndpoint final : public net::HttpTransport {
public:
    explicit TokenEndpoint(std::string body)
        : m_body(std::move(body)) {}
    net::HttpResponse perform(const net::HttpRequest&) override {
        net::HttpResponse r;
        r.status = 200;
        r.body = m_body;
        return r;
    }

private:
    std::string m_body;
};

TEST(TokenLifetimeTest, AHugeExpiresInSaturatesInsteadOfOverflowing) {
    for (const std::string expires : {"1e300", "1.8e19", "9223372036854775807"}) {
        TokenSource tokens({"id", "secret", "http://127.0.0.1:9/token"},
                           std::make_shared<TokenEndpoint>(
                               R"({"access_token":"tok","expires_in":)" + expires + "}"),
                           nullptr);
        EXPECT_EQ(tokens.token(), "tok");
        EXPECT_EQ(tokens.token(), "tok");
        EXPECT_EQ(tokens.fetches(), 1) << expires << ": the token is cached, not expired";
    }
    TokenSource negative(
        {"id", "secret", "http://127.0.0.1:9/token"},
        std::make_shared<TokenEndpoint>(R"({"access_token":"tok","expires_in":-1e300})"), nullptr);
    negative.token();
    negative.token();
    EXPECT_EQ(negative.fetches(), 2) << "a token that expired already is used once";
}

} // namespace
} // namespace kprov::director::test
