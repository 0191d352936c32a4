// Refusals: every bad value is named with its place and value (never a secret's value), and
// all of them are reported together in one ConfigError.

#include "config_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::config {
namespace {

using ::testing::ElementsAre;
using testing::Env;
using ::testing::HasSubstr;
using testing::load_error;
using ::testing::Not;
using testing::sources_with;
using testing::TempDir;

std::string env_error(const std::string& name, const std::string& value) {
    return load_error(sources_with({{"HOME", "/home/u"}, {name, value}}));
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    out.push_back(text.substr(start));
    return out;
}

TEST(Validation, BadDuration) {
    EXPECT_EQ(env_error("APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION", "ten minutes"),
              "APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION=\"ten minutes\" is not a duration "
              "(expected e.g. 90s, 5m, 1h30m)");
    EXPECT_EQ(env_error("APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION", "1d"),
              "APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION=\"1d\" is not a duration "
              "(expected e.g. 90s, 5m, 1h30m)");
}

TEST(Validation, PortOutOfRange) {
    EXPECT_EQ(env_error("APP_DATABASE_PORT", "70000"),
              "APP_DATABASE_PORT=\"70000\" is out of range (expected 1-65535)");
}

TEST(Validation, BadBoolean) {
    EXPECT_EQ(env_error("APP_ENQUEUE_IN_PROGRESS_OPERATIONS", "maybe"),
              "APP_ENQUEUE_IN_PROGRESS_OPERATIONS=\"maybe\" is not a boolean (expected true, "
              "false, 1, 0, yes or no)");
}

TEST(Validation, BadInteger) {
    EXPECT_EQ(env_error("KPROV_WORKERS", "many"),
              "KPROV_WORKERS=\"many\" is not a whole number (expected 1-1024)");
    EXPECT_EQ(env_error("APP_LATEST_DOWNLOADED_RELEASES", "5.5"),
              "APP_LATEST_DOWNLOADED_RELEASES=\"5.5\" is not a whole number (expected 0 or more)");
}

TEST(Validation, BadListenAddress) {
    EXPECT_EQ(env_error("APP_METRICS_ADDRESS", "127.0.0.1:99999"),
              "APP_METRICS_ADDRESS=\"127.0.0.1:99999\" is not a listen address (expected "
              "host:port with a port 0-65535, e.g. 127.0.0.1:3000)");
}

TEST(Validation, SecretKeyOfTheWrongLengthIsRefusedWithoutShowingIt) {
    EXPECT_EQ(env_error("APP_DATABASE_SECRET_KEY", "0123456789"),
              "APP_DATABASE_SECRET_KEY has 10 bytes (expected 16, 24 or 32)");
}

TEST(Validation, UnknownLogLevelIsRefusedNotDefaulted) {
    EXPECT_EQ(env_error("KPROV_LOG_LEVEL", "verbose"),
              "KPROV_LOG_LEVEL=\"verbose\" is not a log level (expected trace, debug, info, warn, "
              "warning, error, fatal or panic)");
    EXPECT_THAT(env_error("APP_LOG_LEVEL", "verbose"), ::testing::StartsWith("APP_LOG_LEVEL="));
}

TEST(Validation, BadValuesInTheFileAndFlagsNameTheirPlace) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "database:\n  ssl_mode: on\n");
    EXPECT_EQ(load_error(sources_with({{"HOME", "/h"}}, {}, file)),
              "config file " + file +
                  " key database.ssl_mode=\"on\" is not a libpq sslmode (expected disable, allow, "
                  "prefer, require, verify-ca or verify-full)");
    EXPECT_EQ(load_error(sources_with({{"HOME", "/h"}}, {{"log_level", "loud"}})),
              "flag --log-level=\"loud\" is not a log level (expected trace, debug, info, warn, "
              "warning, error, fatal or panic)");
}

TEST(Validation, ValuesWithControlCharactersAreQuotedVisibly) {
    EXPECT_EQ(env_error("APP_DATABASE_PORT", "54\"32\n"),
              "APP_DATABASE_PORT=\"54\\\"32\\x0A\" is not a port number (expected 1-65535)");
}

TEST(Validation, UnknownFileKeySuggestsTheClosestKnownKey) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "databse:\n  port: 5432\n"
                                          "secret_key: 0123456789abcdef\n"
                                          "APP_GARDENER_PROJECT: p\n"
                                          "colour: blue\n");
    EXPECT_THAT(lines(load_error(sources_with({{"HOME", "/h"}}, {}, file))),
                ElementsAre("config file " + file +
                                " key databse.port is not a known setting (did you mean "
                                "database.port?)",
                            "config file " + file +
                                " key secret_key is not a known setting (did you mean "
                                "database.secret_key?)",
                            "config file " + file +
                                " key APP_GARDENER_PROJECT is not a known setting (did you mean "
                                "gardener.project?)",
                            "config file " + file +
                                " key colour is not a known setting (`kprov config` lists them)"));
}

TEST(Validation, AMissingExplicitConfigFileIsRefused) {
    EXPECT_EQ(load_error(sources_with({{"HOME", "/h"}}, {}, "/nonexistent/kprov.yaml")),
              "config file /nonexistent/kprov.yaml does not exist");
}

TEST(Validation, MalformedYamlIsRefusedWithItsPosition) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "store: sqlite:///x.db\nworkers: [1, 2\n");
    const auto message = load_error(sources_with({{"HOME", "/h"}}, {}, file));
    EXPECT_THAT(message, ::testing::StartsWith("config file " + file + " is not valid YAML: "));
    EXPECT_THAT(message, HasSubstr("(line "));
}

TEST(Validation, AFileThatIsNotAMappingIsRefused) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "- store\n- workers\n");
    EXPECT_EQ(load_error(sources_with({{"HOME", "/h"}}, {}, file)),
              "config file " + file +
                  " is not a mapping of settings (expected lines such as \"log_level: debug\")");
}

TEST(Validation, ListsAndRepeatedKeysInTheFileAreRefused) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "workers: [1, 2]\n"
                                          "database.port: 1\n"
                                          "database:\n  port: 2\n");
    EXPECT_THAT(lines(load_error(sources_with({{"HOME", "/h"}}, {}, file))),
                ElementsAre("config file " + file +
                                " key workers is a list (expected a single value) (line 1)",
                            "config file " + file + " key database.port is given twice (line 4)"));
}

TEST(Validation, EveryProblemIsReportedTogetherOnePerLine) {
    TempDir dir;
    const auto file = dir.write("c.yaml", "lease_duration: forever\nworker: 3\n");
    const Env env{{"HOME", "/h"},
                  {"APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION", "ten minutes"},
                  {"APP_DATABASE_PORT", "70000"},
                  {"APP_DATABASE_SECRET_KEY", "short-secret"},
                  {"APP_TENANT_STRICT", "sometimes"},
                  {"KPROV_TLS_CERT", "/tls/cert.pem"}};
    const auto message =
        load_error(sources_with(env, {{"gardener.qps", "-1"}, {"no.such.key", "1"}}, file));
    EXPECT_THAT(
        lines(message),
        ElementsAre(
            "config file " + file + " key worker is not a known setting (did you mean workers?)",
            "flag for unknown setting no.such.key=\"1\"",
            "config file " + file +
                " key lease_duration=\"forever\" is not a duration (expected e.g. 90s, 5m, "
                "1h30m)",
            "APP_TENANT_STRICT=\"sometimes\" is not a boolean (expected true, false, 1, 0, yes "
            "or no)",
            "APP_DATABASE_PORT=\"70000\" is out of range (expected 1-65535)",
            "APP_DATABASE_SECRET_KEY has 12 bytes (expected 16, 24 or 32)",
            "APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION=\"ten minutes\" is not a duration "
            "(expected e.g. 90s, 5m, 1h30m)",
            "flag --gardener-qps=\"-1\" is out of range (expected a number above 0)",
            "tls.cert_file (KPROV_TLS_CERT) is set but tls.key_file (KPROV_TLS_KEY) is not "
            "(expected both or neither)"));
    EXPECT_THAT(message, Not(HasSubstr("short-secret")));
}

TEST(Validation, AFileProblemDoesNotHideEnvironmentProblems) {
    EXPECT_THAT(lines(load_error(sources_with({{"HOME", "/h"}, {"APP_DATABASE_PORT", "x"}}, {},
                                              "/nonexistent.yaml"))),
                ElementsAre("config file /nonexistent.yaml does not exist",
                            "APP_DATABASE_PORT=\"x\" is not a port number (expected 1-65535)"));
}

} // namespace
} // namespace kprov::config
