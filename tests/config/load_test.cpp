// load(): which source wins, where the config file is found, aliases, and what `kprov config`
// shows.

#include "config_testing.hpp"

#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::config {
namespace {

using namespace std::chrono_literals;
using testing::entry_of;
using testing::Env;
using ::testing::HasSubstr;
using testing::sources_with;
using testing::TempDir;

class Load : public ::testing::Test {
protected:
    // Every test gets a HOME of its own, so the default store and config file are under it.
    Env env() const { return {{"HOME", home()}}; }
    std::string home() const { return m_dir.file("home"); }
    std::string config(const std::string& text) const { return m_dir.write("config.yaml", text); }

    TempDir m_dir;
};

TEST_F(Load, WithNothingGivenEverySettingHasItsDefault) {
    const auto effective = load(sources_with(env()));
    ASSERT_EQ(effective.entries.size(), setting_specs().size());
    for (std::size_t i = 0; i < setting_specs().size(); ++i) {
        const auto& entry = effective.entries[i];
        EXPECT_EQ(entry.key, setting_specs()[i].key); // table order
        EXPECT_EQ(entry.origin, Origin::Default) << entry.key;
        EXPECT_EQ(entry.source, "") << entry.key;
    }
    const auto& s = effective.settings;
    EXPECT_EQ(s.log_level, "info");
    EXPECT_EQ(s.timeouts.cluster_creation, 60min);
    EXPECT_EQ(s.timeouts.waiting_for_cluster_hibernation, 60min);
    EXPECT_EQ(s.database.port, 5432);
    EXPECT_FALSE(s.database.host_set);
    EXPECT_EQ(s.database.secret_key, std::nullopt);
    EXPECT_EQ(s.gardener_project, "gardenerProject");
    EXPECT_EQ(effective.config_file, std::nullopt);
}

TEST_F(Load, EachLevelWinsOverTheOnesBelow) {
    const auto file = config("gardener:\n  project: from-file\nlog_level: warn\n");
    auto with_file = sources_with(env(), {}, file);
    auto with_env = with_file;
    with_env.getenv =
        sources_with(
            {{"HOME", home()}, {"APP_GARDENER_PROJECT", "from-env"}, {"KPROV_LOG_LEVEL", "error"}})
            .getenv;
    auto with_flag = with_env;
    with_flag.flags = {{"gardener.project", "from-flag"}};

    struct Case {
        const Sources& sources;
        std::string project;
        Origin origin;
        std::string source;
    };
    const auto with_nothing = sources_with(env());
    const Case cases[] = {
        {with_nothing, "gardenerProject", Origin::Default, ""},
        {with_file, "from-file", Origin::File, "file " + file},
        {with_env, "from-env", Origin::Environment, "APP_GARDENER_PROJECT"},
        {with_flag, "from-flag", Origin::Flag, "flag --gardener-project"},
    };
    for (const auto& c : cases) {
        const auto effective = load(c.sources);
        EXPECT_EQ(effective.settings.gardener_project, c.project);
        const auto& entry = entry_of(effective, "gardener.project");
        EXPECT_EQ(entry.value, c.project);
        EXPECT_EQ(entry.origin, c.origin) << c.project;
        EXPECT_EQ(entry.source, c.source) << c.project;
    }
    // Levels are per setting: the flag for the project leaves log_level to the environment.
    const auto effective = load(with_flag);
    EXPECT_EQ(effective.settings.log_level, "error");
    EXPECT_EQ(entry_of(effective, "log_level").origin, Origin::Environment);
}

TEST_F(Load, NestedMappingsAndDottedKeysAreTheSame) {
    const auto nested = load(sources_with(env(), {}, config("timeouts:\n  shoot_upgrade: 90m\n")));
    const auto dotted = load(sources_with(env(), {}, config("timeouts.shoot_upgrade: 90m\n")));
    EXPECT_EQ(nested.settings.timeouts.shoot_upgrade, 90min);
    EXPECT_EQ(dotted.settings.timeouts.shoot_upgrade, 90min);
}

TEST_F(Load, FileScalarsAreReadAsTextLikeEnvironmentValues) {
    // YAML would read "no" as a boolean and 010 as octal; kprov reads the text.
    const auto effective = load(sources_with(env(), {},
                                             config("database:\n"
                                                    "  password: no\n"
                                                    "  port: 010\n"
                                                    "  secret_key: 1234567890123456\n"
                                                    "tenant_strict: YES\n"
                                                    "gardener.qps: 2.5\n"
                                                    "workers:\n")));
    const auto& s = effective.settings;
    EXPECT_EQ(s.database.password, "no");
    EXPECT_EQ(s.database.port, 10);
    EXPECT_EQ(s.database.secret_key, "1234567890123456");
    EXPECT_TRUE(s.tenant_strict);
    EXPECT_EQ(s.gardener_qps, 2.5);
    EXPECT_EQ(s.workers, 4); // "workers:" with no value is not given
    EXPECT_EQ(entry_of(effective, "workers").origin, Origin::Default);
}

TEST_F(Load, ReadsTheDefaultConfigFileUnderXdgConfigHome) {
    const auto file = m_dir.write("xdg/kprov/config.yaml", "tenant: acme\n");
    auto e = env();
    e["XDG_CONFIG_HOME"] = m_dir.file("xdg");
    const auto effective = load(sources_with(e));
    EXPECT_EQ(effective.settings.tenant, "acme");
    EXPECT_EQ(effective.config_file, file);
    EXPECT_EQ(entry_of(effective, "tenant").source, "file " + file);
}

TEST_F(Load, ReadsTheDefaultConfigFileUnderHomeWhenXdgConfigHomeIsUnsetOrRelative) {
    const auto file = m_dir.write("home/.config/kprov/config.yaml", "sub_account: sa-1\n");
    for (const char* xdg : {"", "relative/dir"}) {
        auto e = env();
        e["XDG_CONFIG_HOME"] = xdg;
        const auto effective = load(sources_with(e));
        EXPECT_EQ(effective.settings.sub_account, "sa-1") << xdg;
        EXPECT_EQ(effective.config_file, file);
    }
}

TEST_F(Load, AMissingDefaultConfigFileIsFine) {
    ASSERT_FALSE(std::filesystem::exists(home() + "/.config/kprov/config.yaml"));
    const auto effective = load(sources_with(env()));
    EXPECT_EQ(effective.config_file, std::nullopt);
    EXPECT_THAT(effective.warnings, ::testing::IsEmpty());
    EXPECT_EQ(effective.settings.log_level, "info");
    EXPECT_EQ(entry_of(effective, "log_level").origin, Origin::Default);
}

TEST_F(Load, AnExplicitConfigFileReplacesTheDefaultOne) {
    m_dir.write("home/.config/kprov/config.yaml", "not_a_setting: 1\n");
    const auto effective = load(sources_with(env(), {}, config("tenant: explicit\n")));
    EXPECT_EQ(effective.settings.tenant, "explicit");
}

TEST_F(Load, EveryAliasIsReadWhenThePrimaryNameIsAbsent) {
    struct Alias {
        const char* name;
        const char* value;
        const char* key;
        const char* expected;
    };
    const Alias aliases[] = {
        {"APP_DATABSE_HOST", "db.example", "database.host", "db.example"},
        {"APP_DATABASE_SSLMODE", "require", "database.ssl_mode", "require"},
        {"APP_DATABASE_SSLROOTCERT", "/ca.pem", "database.ssl_root_cert", "/ca.pem"},
        {"APP_OPERATOR_ROLE_BINDING_L2SUBJECT_NAME", "ops", "operator_role_binding.l2_subject_name",
         "ops"},
        {"APP_OPERATOR_ROLE_BINDING_L3SUBJECT_NAME", "admins",
         "operator_role_binding.l3_subject_name", "admins"},
        {"APP_LOG_LEVEL", "debug", "log_level", "debug"},
    };
    for (const auto& alias : aliases) {
        auto e = env();
        e[alias.name] = alias.value;
        const auto effective = load(sources_with(e));
        const auto& entry = entry_of(effective, alias.key);
        EXPECT_EQ(entry.value, alias.expected) << alias.name;
        EXPECT_EQ(entry.origin, Origin::Environment) << alias.name;
        EXPECT_EQ(entry.source, alias.name);
    }
}

TEST_F(Load, ThePrimaryNameWinsOverItsAliases) {
    for (const auto& spec : setting_specs()) {
        for (const auto alias : spec.aliases) {
            // Values valid for every aliased kind (text, path, sslmode, log level).
            const bool level = spec.kind == Kind::LogLevel;
            const std::string primary_value = level ? "error" : "require";
            auto e = env();
            e[std::string(spec.env)] = primary_value;
            e[std::string(alias)] = level ? "debug" : "prefer";
            const auto effective = load(sources_with(e));
            const auto& entry = entry_of(effective, std::string(spec.key));
            EXPECT_EQ(entry.source, spec.env) << alias;
            EXPECT_EQ(entry.value, primary_value) << alias;
        }
    }
}

TEST_F(Load, AnEmptyValueIsNotGiven) {
    auto e = env();
    e["APP_DATABASE_SECRET_KEY"] = "";
    e["KPROV_TENANT"] = "";
    const auto effective = load(sources_with(e, {{"tenant", ""}}, config("tenant: t-file\n")));
    EXPECT_EQ(effective.settings.database.secret_key, std::nullopt);
    EXPECT_EQ(entry_of(effective, "database.secret_key").origin, Origin::Default);
    EXPECT_EQ(effective.settings.tenant, "t-file");
    EXPECT_EQ(entry_of(effective, "tenant").origin, Origin::File);
}

TEST_F(Load, TypedValuesReachTheSettings) {
    auto e = env();
    e["APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION"] = "2h";
    e["APP_DEPROVISIONING_TIMEOUT_WAITING_FOR_CLUSTER_DELETION"] = "4h";
    e["APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION"] = "45m";
    e["KPROV_WORKERS"] = "8";
    e["KPROV_GARDENER_QPS"] = "7.5";
    e["APP_SKIP_DIRECTOR_CERT_VERIFICATION"] = "yes";
    e["APP_RUNTIME_REGISTRATION_ENABLED"] = "0";
    e["APP_ADDRESS"] = ":3001";
    e["KPROV_TLS_CERT"] = "/tls/cert.pem";
    e["KPROV_TLS_KEY"] = "/tls/key.pem";
    const auto s = load(sources_with(e)).settings;
    EXPECT_EQ(s.timeouts.cluster_creation, 2h);
    EXPECT_EQ(s.timeouts.waiting_for_cluster_deletion, 4h);
    EXPECT_EQ(s.timeouts.waiting_for_cluster_hibernation, 45min);
    EXPECT_EQ(s.workers, 8);
    EXPECT_EQ(s.gardener_qps, 7.5);
    EXPECT_TRUE(s.skip_director_cert_verification);
    EXPECT_FALSE(s.runtime_registration_enabled);
    EXPECT_EQ(s.address, ":3001");
    EXPECT_EQ(s.tls_cert_file, "/tls/cert.pem");
    EXPECT_EQ(s.tls_key_file, "/tls/key.pem");
}

TEST_F(Load, EntriesShowValuesCanonically) {
    auto e = env();
    e["APP_PROVISIONING_TIMEOUT_SHOOT_UPGRADE"] = "90m";
    e["APP_DOWNLOAD_PRE_RELEASES"] = "no";
    const auto effective = load(sources_with(e));
    EXPECT_EQ(entry_of(effective, "timeouts.shoot_upgrade").value, "1h30m");
    EXPECT_EQ(entry_of(effective, "download_pre_releases").value, "false");
    EXPECT_EQ(entry_of(effective, "gardener.qps").value, "20");
    EXPECT_EQ(entry_of(effective, "database.port").env, "APP_DATABASE_PORT");
}

TEST_F(Load, SecretsAreRedactedInEntriesButNotInSettings) {
    auto e = env();
    e["APP_DATABASE_PASSWORD"] = "hunter2";
    e["APP_DATABASE_SECRET_KEY"] = "0123456789abcdef";
    e["KPROV_API_TOKEN"] = "tok-123";
    e["KPROV_STORE"] = "postgres://kprov:s3cret@db:5432/kprov";
    const auto effective = load(sources_with(e));
    for (const char* key : {"database.password", "database.secret_key", "api_token"}) {
        EXPECT_EQ(entry_of(effective, key).value, "***") << key;
        EXPECT_TRUE(entry_of(effective, key).secret) << key;
    }
    EXPECT_EQ(entry_of(effective, "store").value, "postgres://kprov:***@db:5432/kprov");
    for (const auto& entry : effective.entries) {
        EXPECT_THAT(entry.value, ::testing::Not(HasSubstr("hunter2")));
        EXPECT_THAT(entry.value, ::testing::Not(HasSubstr("s3cret")));
        EXPECT_THAT(entry.value, ::testing::Not(HasSubstr("0123456789abcdef")));
        EXPECT_THAT(entry.value, ::testing::Not(HasSubstr("tok-123")));
    }
    EXPECT_EQ(effective.settings.database.password, "hunter2");
    EXPECT_EQ(effective.settings.database.secret_key, "0123456789abcdef");
    EXPECT_EQ(effective.settings.api_token, "tok-123");
    EXPECT_EQ(effective.settings.store_url, "postgres://kprov:s3cret@db:5432/kprov");
}

// Issue 18, point 5: a password with characters nobody percent-encoded is still hidden, and
// one given on the command line is warned about (ps shows it).
TEST_F(Load, UrlPasswordsAreRedactedWhateverTheyHoldAndAFlagOneIsWarnedAbout) {
    auto e = env();
    e["KPROV_STORE"] = "postgres://u:PG#PA/SS?x@db:5432/kprov";
    auto effective = load(sources_with(e));
    EXPECT_EQ(entry_of(effective, "store").value, "postgres://u:***@db:5432/kprov");
    EXPECT_TRUE(effective.warnings.empty());
    auto sources = sources_with(env());
    sources.flags["store"] = "postgres://u:s3cret@db/kprov";
    effective = load(sources);
    ASSERT_EQ(effective.warnings.size(), 1u);
    EXPECT_THAT(effective.warnings[0], HasSubstr("--store URL carries a password"));
    EXPECT_THAT(effective.warnings[0], ::testing::Not(HasSubstr("s3cret")));
}

TEST_F(Load, AnUnsetSecretShowsEmptyAndTheDefaultPasswordShowsStars) {
    const auto effective = load(sources_with(env()));
    EXPECT_EQ(entry_of(effective, "database.secret_key").value, "");
    EXPECT_EQ(entry_of(effective, "api_token").value, "");
    EXPECT_EQ(entry_of(effective, "database.password").value, "***");
}

TEST_F(Load, AFlagOverridesABadEnvironmentValue) {
    auto e = env();
    e["KPROV_LOG_LEVEL"] = "loud";
    const auto effective = load(sources_with(e, {{"log_level", "debug"}}));
    EXPECT_EQ(effective.settings.log_level, "debug");
    EXPECT_EQ(entry_of(effective, "log_level").source, "flag --log-level");
}

} // namespace
} // namespace kprov::config
