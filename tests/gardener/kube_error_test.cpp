// Mapping of Kubernetes Status answers to KubeError, through the client.

#include "fakes.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing;

const std::string k_path = "/apis/core.gardener.cloud/v1beta1/namespaces/garden-p/shoots";

class KubeErrorTest : public ::testing::Test {
protected:
    KubeErrorTest() {
        options.transport = transport;
        options.clock = clock;
        options.label = "gardener";
        options.component = "k8s client - gardener";
        options.retry.max_attempts = 1;
    }
    // The error of a POST answered with `status` and `body`.
    KubeError post_error(int status, const std::string& body) {
        transport->reply(status, body);
        KubeClient client(test_kubeconfig(), options);
        try {
            client.create(k_path, nlohmann::json{{"kind", "Shoot"}});
        } catch (const KubeError& e) {
            return e;
        }
        ADD_FAILURE() << "no KubeError";
        return KubeError("", 0, false, "", {}, "", "");
    }

    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    ClientOptions options;
};

TEST_F(KubeErrorTest, InvalidListsEveryCauseWithItsField) {
    const std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
        "message":"Shoot.core.gardener.cloud \"c-1\" is invalid: [spec.region: Required value, spec.x: Invalid value]",
        "reason":"Invalid","code":422,"details":{"name":"c-1","kind":"Shoot","causes":[
        {"reason":"FieldValueRequired","message":"Required value","field":"spec.region"},
        {"reason":"FieldValueInvalid","message":"Invalid value: \"a\"","field":"spec.x"}]}})";
    const KubeError e = post_error(422, body);
    EXPECT_STREQ(e.what(),
                 ("gardener: POST " + k_path +
                  ": 422 Invalid: spec.region: Required value; spec.x: Invalid value: \"a\"")
                     .c_str());
    EXPECT_EQ(e.http_status(), 422);
    EXPECT_TRUE(e.is_invalid());
    EXPECT_FALSE(e.retryable());
    EXPECT_EQ(e.reason(), "Invalid");
    ASSERT_EQ(e.causes().size(), 2U);
    EXPECT_EQ(e.causes()[0].field, "spec.region");
    EXPECT_EQ(e.causes()[0].reason, "FieldValueRequired");
    EXPECT_EQ(e.request(), "POST " + k_path);
    EXPECT_EQ(e.component(), "k8s client - gardener");
    EXPECT_THAT(e.what(), Not(HasSubstr(k_secret_token)));
}

TEST_F(KubeErrorTest, NotFound) {
    const KubeError e =
        post_error(404, status_body(404, "NotFound", "namespaces \\\"garden-p\\\" not found"));
    EXPECT_TRUE(e.is_not_found());
    EXPECT_FALSE(e.retryable());
    EXPECT_THAT(e.what(), HasSubstr(": 404 NotFound: namespaces \"garden-p\" not found"));
}

TEST_F(KubeErrorTest, AlreadyExistsAndConflictAreTold409sApart) {
    const KubeError exists = post_error(409, status_body(409, "AlreadyExists", "exists"));
    EXPECT_TRUE(exists.is_already_exists());
    EXPECT_FALSE(exists.is_conflict());
    EXPECT_FALSE(exists.retryable());
    const KubeError conflict =
        post_error(409, status_body(409, "Conflict", "the object has been modified"));
    EXPECT_TRUE(conflict.is_conflict());
    EXPECT_FALSE(conflict.is_already_exists());
    EXPECT_TRUE(conflict.retryable());
}

TEST_F(KubeErrorTest, ForbiddenAndUnauthorizedAreFinal) {
    const KubeError forbidden = post_error(403, status_body(403, "Forbidden", "no confirmation"));
    EXPECT_TRUE(forbidden.is_forbidden());
    EXPECT_FALSE(forbidden.retryable());
    EXPECT_THAT(forbidden.what(), HasSubstr("403 Forbidden: no confirmation"));
    const KubeError unauthorized =
        post_error(401, status_body(401, "Unauthorized", "Unauthorized"));
    EXPECT_TRUE(unauthorized.is_unauthorized());
    EXPECT_FALSE(unauthorized.retryable());
}

TEST_F(KubeErrorTest, ThrottlingAndServerErrorsAreRetryable) {
    for (int code : {429, 500, 502, 503, 504}) {
        const KubeError e = post_error(code, status_body(code, "", "busy"));
        EXPECT_TRUE(e.retryable()) << code;
        EXPECT_EQ(e.http_status(), code);
        EXPECT_EQ(e.reason(), default_reason(code)) << "reason defaults from the code";
    }
}

TEST_F(KubeErrorTest, NonStatusBodyIsShortenedToOneLine) {
    const KubeError e =
        post_error(502, "<html>\n<body>Bad   gateway</body>\n" + std::string(500, 'x'));
    EXPECT_THAT(e.what(), HasSubstr("502 InternalError: <html> <body>Bad gateway</body> xxx"));
    EXPECT_LT(std::string(e.what()).size(), 400U);
}

TEST(RetryAfter, HeaderSecondsThenStatusDetails) {
    EXPECT_EQ(retry_after("7", ""), std::chrono::seconds(7));
    EXPECT_EQ(retry_after(" 0", ""), std::chrono::seconds(0));
    EXPECT_EQ(retry_after("", R"({"kind":"Status","details":{"retryAfterSeconds":3}})"),
              std::chrono::seconds(3));
    EXPECT_EQ(retry_after("Wed, 21 Oct 2015 07:28:00 GMT", "{}"), std::nullopt);
    EXPECT_EQ(retry_after("", "not json"), std::nullopt);
}

TEST(RetryAfter, HugeValuesSaturate) {
    EXPECT_EQ(retry_after("99999999999999999999999", ""), std::chrono::seconds::max());
    EXPECT_EQ(retry_after(
                  "", R"({"kind":"Status","details":{"retryAfterSeconds":18446744073709551615}})"),
              std::chrono::seconds(std::numeric_limits<std::int64_t>::max()));
    EXPECT_EQ(retry_after(
                  "", R"({"kind":"Status","details":{"retryAfterSeconds":-9223372036854775808}})"),
              std::chrono::seconds(0));
}

TEST_F(KubeErrorTest, StatusTextsAreCappedAndStrippedOfControlCharacters) {
    const std::string hostile = "\x1b[31mred\x1b[0m \u00e9" + std::string(5000, 'z');
    const nlohmann::json status = {{"kind", "Status"},
                                   {"reason", "Forbidden\x1b[2J" + std::string(500, 'r')},
                                   {"message", hostile}};
    const KubeError e = post_error(403, status.dump());
    const std::string what = e.what();
    EXPECT_THAT(what, Not(HasSubstr("\x1b")));
    EXPECT_THAT(what, HasSubstr("\xEF\xBF\xBD[31mred"));
    EXPECT_THAT(what, HasSubstr("\xE2\x80\xA6 (truncated)"));
    EXPECT_LT(what.size(), 1400u);
    EXPECT_LT(e.reason().size(), 150u);

    nlohmann::json causes = nlohmann::json::array();
    for (int i = 0; i < 1000; ++i)
        causes.push_back({{"field", "spec.f" + std::to_string(i)}, {"message", hostile}});
    const KubeError invalid = post_error(
        422, nlohmann::json{{"kind", "Status"}, {"details", {{"causes", causes}}}}.dump());
    EXPECT_LT(std::string(invalid.what()).size(), 1400u);
    EXPECT_LE(invalid.causes().size(), 100u);
    EXPECT_THAT(invalid.what(), Not(HasSubstr("\x1b")));
}

TEST(TransportErrorMessage, NamesTheRequest) {
    const KubeError e = transport_error({"gardener", "k8s client - gardener", "GET /x", 3},
                                        "Couldn't connect to server", true);
    EXPECT_STREQ(e.what(), "gardener: GET /x: Couldn't connect to server (after 3 attempts)");
    EXPECT_EQ(e.http_status(), 0);
    EXPECT_TRUE(e.retryable());
    EXPECT_EQ(e.reason(), "");
}

} // namespace
} // namespace kprov::gardener
