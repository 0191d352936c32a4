// Parsing and formatting single values, and the URL helpers.

#include "config/engine_options.hpp"
#include "config/settings.hpp"

#include <gtest/gtest.h>

namespace kprov::config {
namespace {

// Applies `text` to the setting `key` of a fresh Settings: the complaint, or the canonical text.
std::string applied(std::string_view key, std::string_view text) {
    const auto* spec = find_setting(key);
    if (!spec)
        return "no such setting";
    Settings settings;
    if (auto complaint = apply_setting(*spec, text, settings))
        return "refused: " + *complaint;
    return format_setting(*spec, settings);
}

TEST(Values, BooleansAcceptSixSpellingsInAnyCase) {
    for (const char* yes : {"true", "TRUE", "True", "1", "yes", "YES"})
        EXPECT_EQ(applied("tenant_strict", yes), "true") << yes;
    for (const char* no : {"false", "False", "0", "no", "No"})
        EXPECT_EQ(applied("runtime_registration_enabled", no), "false") << no;
    EXPECT_EQ(applied("tenant_strict", "on"),
              "refused: is not a boolean (expected true, false, 1, 0, yes or no)");
}

TEST(Values, DurationsAreGoDurationsShownCanonically) {
    EXPECT_EQ(applied("timeouts.cluster_creation", "90m"), "1h30m");
    EXPECT_EQ(applied("timeouts.cluster_creation", "2h"), "2h");
    EXPECT_EQ(applied("lease_duration", "90s"), "1m30s");
    EXPECT_EQ(applied("timeouts.shoot_refresh", "5"),
              "refused: is not a duration (expected e.g. 90s, 5m, 1h30m)");
    EXPECT_EQ(applied("timeouts.shoot_refresh", "-5m"),
              "refused: is not a duration (expected e.g. 90s, 5m, 1h30m)");
}

TEST(Values, IntegersMustBeWholeAndInRange) {
    EXPECT_EQ(applied("workers", "16"), "16");
    EXPECT_EQ(applied("workers", "0"), "refused: is out of range (expected 1-1024)");
    EXPECT_EQ(applied("workers", "-3"), "refused: is out of range (expected 1-1024)");
    EXPECT_EQ(applied("workers", "4x"), "refused: is not a whole number (expected 1-1024)");
    EXPECT_EQ(applied("workers", " 4"), "refused: is not a whole number (expected 1-1024)");
    EXPECT_EQ(applied("gardener.burst", "99999999999999999999"),
              "refused: is out of range (expected 1 or more)");
    EXPECT_EQ(applied("latest_downloaded_releases", "0"), "0");
}

TEST(Values, PortsAreOneTo65535) {
    EXPECT_EQ(applied("database.port", "1"), "1");
    EXPECT_EQ(applied("database.port", "65535"), "65535");
    EXPECT_EQ(applied("database.port", "0"), "refused: is out of range (expected 1-65535)");
    EXPECT_EQ(applied("database.port", "70000"), "refused: is out of range (expected 1-65535)");
    EXPECT_EQ(applied("database.port", "pg"), "refused: is not a port number (expected 1-65535)");
}

TEST(Values, NumbersArePositiveAndShownShortest) {
    EXPECT_EQ(applied("gardener.qps", "20"), "20");
    EXPECT_EQ(applied("gardener.qps", "2.5"), "2.5");
    EXPECT_EQ(applied("gardener.qps", "0"), "refused: is out of range (expected a number above 0)");
    EXPECT_EQ(applied("gardener.qps", "fast"),
              "refused: is not a number (expected e.g. 20 or 2.5)");
    EXPECT_EQ(applied("gardener.qps", "inf"), "refused: is not a number (expected e.g. 20 or 2.5)");
}

TEST(Values, ListenAddressesAreHostColonPort) {
    for (const char* good :
         {"127.0.0.1:3000", ":8080", "0.0.0.0:0", "localhost:65535", "[::1]:3000", "[::]:9000"})
        EXPECT_EQ(applied("address", good), good);
    const std::string refused = "refused: is not a listen address (expected host:port with a "
                                "port 0-65535, e.g. 127.0.0.1:3000)";
    for (const char* bad :
         {"3000", "localhost", "127.0.0.1:65536", "127.0.0.1:", "::1:3000", "host:http", "a b:1"})
        EXPECT_EQ(applied("metrics_address", bad), refused) << bad;
}

TEST(Values, AesKeysHave16Or24Or32Bytes) {
    for (std::size_t n : {16, 24, 32})
        EXPECT_EQ(applied("database.secret_key", std::string(n, 'k')), std::string(n, 'k'));
    EXPECT_EQ(applied("database.secret_key", std::string(10, 'k')),
              "refused: has 10 bytes (expected 16, 24 or 32)");
    EXPECT_EQ(applied("database.secret_key", ""), ""); // empty = unset
}

TEST(Values, LogLevelsAndSslModesAreChoicesStoredLowercase) {
    for (const char* level :
         {"trace", "debug", "info", "warn", "warning", "error", "fatal", "panic"})
        EXPECT_EQ(applied("log_level", level), level);
    EXPECT_EQ(applied("log_level", "DEBUG"), "debug");
    EXPECT_EQ(applied("log_level", "loud"),
              "refused: is not a log level (expected trace, debug, info, warn, warning, error, "
              "fatal or panic)");
    EXPECT_EQ(applied("database.ssl_mode", "Verify-CA"), "verify-ca");
    EXPECT_EQ(applied("database.ssl_mode", "on"),
              "refused: is not a libpq sslmode (expected disable, allow, prefer, require, "
              "verify-ca or verify-full)");
}

TEST(Values, UrlsAndPathsHaveTheirShape) {
    EXPECT_EQ(applied("director.url", "https://d.example/graphql"), "https://d.example/graphql");
    EXPECT_EQ(applied("director.url", "d.example/graphql"),
              "refused: is not an http(s) URL (expected e.g. https://host:3000/graphql)");
    EXPECT_EQ(applied("api_endpoint", "/gql"), "/gql");
    EXPECT_EQ(applied("api_endpoint", "gql"),
              "refused: is not a URL path (expected it to start with /, e.g. /graphql)");
    EXPECT_EQ(applied("store", "sqlite:///tmp/x.db"), "sqlite:///tmp/x.db");
    EXPECT_EQ(applied("store", "/tmp/x.db"),
              "refused: is not a store URL (expected sqlite:///abs/path.db or "
              "postgres://user:password@host:5432/db)");
}

TEST(Values, TheKymaInstallerIsInstallationCrLifecycleManagerOrNone) {
    EXPECT_EQ(applied("kyma.installer", "installation-cr"), "installation-cr");
    EXPECT_EQ(applied("kyma.installer", "NONE"), "none");
    EXPECT_EQ(applied("kyma.installer", "Lifecycle-Manager"), "lifecycle-manager");
    EXPECT_EQ(applied("kyma.installer", "klm"),
              "refused: is not a Kyma installer (expected lifecycle-manager, today's Kyma "
              "Lifecycle Manager in a KCP; installation-cr, Kyma 1.x's Installation CR; or none, "
              "which refuses requests with a kymaConfig)");
}

TEST(Values, TheLogFormatIsTextOrJsonAndThePlaygroundABoolean) {
    EXPECT_EQ(applied("log.format", "JSON"), "json");
    EXPECT_EQ(applied("log.format", "text"), "text");
    EXPECT_EQ(applied("log.format", "logfmt"),
              "refused: is not a log format (expected text, lines with a time stamp, or json, one "
              "JSON object per line)");
    EXPECT_EQ(applied("playground", "false"), "false");
    EXPECT_EQ(Settings{}.log_format, "text");
    EXPECT_TRUE(Settings{}.playground);
}

TEST(Values, KymaLifecycleManagerSettingsAreCheckedWithTheirNames) {
    Settings settings;
    EXPECT_EQ(klm_options(settings).default_channel, "regular");
    settings.kyma_modules = " istio, serverless ,,keda ";
    EXPECT_EQ(klm_options(settings).modules,
              (std::vector<std::string>{"istio", "serverless", "keda"}));
    settings.kyma_channel = "Fast";
    EXPECT_THROW(klm_options(settings), ConfigError);
    settings.kyma_channel = "fast";
    settings.kyma_lossy = "maybe";
    EXPECT_THROW(klm_options(settings), ConfigError);
    settings.kyma_lossy = "warn";
    EXPECT_TRUE(klm_options(settings).lossy_warn);
    settings.kyma_kubeconfig_rotation = settings.kyma_kubeconfig_expiration;
    try {
        klm_options(settings);
        ADD_FAILURE() << "accepted";
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(), "KPROV_KYMA_KUBECONFIG_ROTATION 24h is not shorter than "
                               "KPROV_KYMA_KUBECONFIG_EXPIRATION 24h: the Secret would expire "
                               "before it is re-issued");
    }
    settings.kyma_kubeconfig_expiration = std::chrono::minutes(5);
    EXPECT_THROW(klm_options(settings), ConfigError);
}

TEST(Values, ReleaseUrlsArePrefixesOfHttpOrFiles) {
    EXPECT_EQ(applied("kyma.releases_url", "https://storage.example/kyma/"),
              "https://storage.example/kyma");
    EXPECT_EQ(applied("kyma.releases_url", "file:///srv/kyma"), "file:///srv/kyma");
    for (const char* bad :
         {"/srv/kyma", "file://relative", "ftp://x/y", "https://x/y?v=1", "https://x/a b"})
        EXPECT_EQ(applied("kyma.dev_releases_url", bad),
                  "refused: is not a URL prefix (expected http://, https:// or file:///abs/path, "
                  "without query or fragment)")
            << bad;
}

TEST(Values, EmptyTextUnsetsAnOptional) {
    EXPECT_EQ(applied("tenant", "acme"), "acme");
    EXPECT_EQ(applied("tenant", ""), "");
}

TEST(PostgresUrl, EncodesEveryPart) {
    Database db;
    db.user = "kp@rov";
    db.password = "p:a/s s";
    db.host = "db.internal";
    db.port = 6543;
    db.name = "prov";
    db.ssl_mode = "verify-full";
    db.ssl_root_cert = "/etc/ssl/ca.pem";
    EXPECT_EQ(postgres_url(db), "postgresql://kp%40rov:p%3Aa%2Fs%20s@db.internal:6543/prov"
                                "?sslmode=verify-full&sslrootcert=%2Fetc%2Fssl%2Fca.pem");
}

TEST(PostgresUrl, BracketsAnIpv6HostAndOmitsAnEmptyPassword) {
    Database db;
    db.host = "::1";
    db.password = "";
    EXPECT_EQ(postgres_url(db), "postgresql://postgres@[::1]:5432/provisioner?sslmode=disable");
}

} // namespace
} // namespace kprov::config
