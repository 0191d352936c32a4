// The table of settings: complete against the original's variables, consistent with Settings,
// and every row usable.

#include "config/settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>

namespace kprov::config {
namespace {

using ::testing::ElementsAre;

const SettingSpec* spec_by_env(std::string_view env) {
    for (const auto& spec : setting_specs())
        if (spec.env == env)
            return &spec;
    return nullptr;
}

// original-provisioner.md §7.5 and §2.7, default as written there.
struct OriginalVariable {
    const char* env;
    const char* default_value;
};
constexpr OriginalVariable k_original_variables[] = {
    {"APP_ADDRESS", "127.0.0.1:3000"},
    {"APP_API_ENDPOINT", "/graphql"},
    {"APP_PLAYGROUND_API_ENDPOINT", "/graphql"},
    {"APP_DIRECTOR_URL", "http://compass-director.compass-system.svc.cluster.local:3000/graphql"},
    {"APP_SKIP_DIRECTOR_CERT_VERIFICATION", "false"},
    {"APP_DIRECTOR_OAUTH_PATH", "./dev/director.yaml"},
    {"APP_RUNTIME_REGISTRATION_ENABLED", "true"},
    {"APP_RUNTIME_DEREGISTRATION_ENABLED", "true"},
    {"APP_DATABASE_USER", "postgres"},
    {"APP_DATABASE_PASSWORD", "password"},
    {"APP_DATABASE_HOST", "localhost"},
    {"APP_DATABASE_PORT", "5432"},
    {"APP_DATABASE_NAME", "provisioner"},
    {"APP_DATABASE_SSL_MODE", "disable"},
    {"APP_DATABASE_SSL_ROOT_CERT", ""},
    {"APP_DATABASE_SECRET_KEY", ""},
    {"APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION", "60m"},
    {"APP_PROVISIONING_TIMEOUT_CLUSTER_DOMAINS", "10m"},
    {"APP_PROVISIONING_TIMEOUT_BINDINGS_CREATION", "5m"},
    {"APP_PROVISIONING_TIMEOUT_AGENT_CONFIGURATION", "15m"},
    {"APP_PROVISIONING_TIMEOUT_SHOOT_UPGRADE", "30m"},
    {"APP_PROVISIONING_TIMEOUT_SHOOT_REFRESH", "5m"},
    {"APP_PROVISIONING_TIMEOUT_INSTALLATION_TRIGGERING", "20m"},
    {"APP_PROVISIONING_TIMEOUT_INSTALLATION", "60m"},
    {"APP_PROVISIONING_TIMEOUT_UPGRADE", "60m"},
    {"APP_PROVISIONING_TIMEOUT_UPGRADE_TRIGGERING", "20m"},
    {"APP_PROVISIONING_TIMEOUT_AGENT_CONNECTION", "15m"},
    {"APP_DEPROVISIONING_TIMEOUT_CLUSTER_DELETION", "30m"},
    {"APP_DEPROVISIONING_TIMEOUT_WAITING_FOR_CLUSTER_DELETION", "60m"},
    {"APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION", "60m"},
    {"APP_OPERATOR_ROLE_BINDING_L2_SUBJECT_NAME", "runtimeOperator"},
    {"APP_OPERATOR_ROLE_BINDING_L3_SUBJECT_NAME", "runtimeAdmin"},
    {"APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN", "false"},
    {"APP_GARDENER_PROJECT", "gardenerProject"},
    {"APP_GARDENER_KUBECONFIG_PATH", "./dev/kubeconfig.yaml"},
    {"APP_GARDENER_AUDIT_LOGS_POLICY_CONFIG_MAP", ""},
    {"APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH", ""},
    {"APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH", ""},
    {"APP_GARDENER_CLUSTER_CLEANUP_RESOURCE_SELECTOR", "https://service-manager."},
    {"APP_GARDENER_DEFAULT_ENABLE_KUBERNETES_VERSION_AUTO_UPDATE", "false"},
    {"APP_GARDENER_DEFAULT_ENABLE_MACHINE_IMAGE_VERSION_AUTO_UPDATE", "false"},
    {"APP_LATEST_DOWNLOADED_RELEASES", "5"},
    {"APP_DOWNLOAD_PRE_RELEASES", "true"},
    {"APP_ENQUEUE_IN_PROGRESS_OPERATIONS", "true"},
    {"APP_METRICS_ADDRESS", "127.0.0.1:9000"},
};

TEST(SettingsTable, HasEveryVariableOfTheOriginalWithItsDefault) {
    for (const auto& variable : k_original_variables) {
        const auto* spec = spec_by_env(variable.env);
        ASSERT_NE(spec, nullptr) << variable.env << " is missing";
        EXPECT_EQ(spec->default_value, variable.default_value) << variable.env;
    }
    // APP_LOG_LEVEL is kept as an alias of KPROV_LOG_LEVEL.
    const auto* log_level = find_setting("log_level");
    ASSERT_NE(log_level, nullptr);
    EXPECT_EQ(log_level->default_value, "info");
    EXPECT_THAT(log_level->aliases, ElementsAre("APP_LOG_LEVEL"));
}

TEST(SettingsTable, HasKprovsOwnVariables) {
    for (const char* env :
         {"KPROV_STORE", "KPROV_LOG_LEVEL", "KPROV_TENANT", "KPROV_SUB_ACCOUNT", "KPROV_WORKERS",
          "KPROV_LEASE_DURATION", "KPROV_GARDENER_QPS", "KPROV_GARDENER_BURST", "KPROV_API_TOKEN",
          "KPROV_TLS_CERT", "KPROV_TLS_KEY", "APP_GARDENER_LEGACY_API", "APP_TENANT_STRICT"})
        EXPECT_NE(spec_by_env(env), nullptr) << env << " is missing";
}

TEST(SettingsTable, AcceptsTheAliasSpellings) {
    auto aliases_of = [](std::string_view key) {
        return find_setting(key)->aliases;
    };
    EXPECT_THAT(aliases_of("database.host"), ElementsAre("APP_DATABSE_HOST"));
    EXPECT_THAT(aliases_of("database.ssl_mode"), ElementsAre("APP_DATABASE_SSLMODE"));
    EXPECT_THAT(aliases_of("database.ssl_root_cert"), ElementsAre("APP_DATABASE_SSLROOTCERT"));
    EXPECT_THAT(aliases_of("operator_role_binding.l2_subject_name"),
                ElementsAre("APP_OPERATOR_ROLE_BINDING_L2SUBJECT_NAME"));
    EXPECT_THAT(aliases_of("operator_role_binding.l3_subject_name"),
                ElementsAre("APP_OPERATOR_ROLE_BINDING_L3SUBJECT_NAME"));
}

TEST(SettingsTable, KeysAndVariableNamesAreUniqueAndDescribed) {
    std::set<std::string_view> keys, names;
    for (const auto& spec : setting_specs()) {
        EXPECT_TRUE(keys.insert(spec.key).second) << "key " << spec.key << " twice";
        EXPECT_TRUE(names.insert(spec.env).second) << "variable " << spec.env << " twice";
        for (auto alias : spec.aliases)
            EXPECT_TRUE(names.insert(alias).second) << "variable " << alias << " twice";
        EXPECT_FALSE(spec.description.empty()) << spec.key;
        EXPECT_NE(spec.field, nullptr) << spec.key;
    }
}

TEST(SettingsTable, SecretsAreThePasswordTheKeyAndTheToken) {
    std::vector<std::string_view> secrets;
    for (const auto& spec : setting_specs())
        if (spec.secret)
            secrets.push_back(spec.key);
    EXPECT_THAT(secrets, ElementsAre("api_token", "database.password", "database.secret_key"));
}

// Settings' in-class defaults are what code gets without load(); they must not drift from the
// table, which is what load() and the docs use.
TEST(SettingsTable, DefaultsAgreeWithSettingsInClassDefaults) {
    const Settings in_class;
    for (const auto& spec : setting_specs()) {
        Settings from_table;
        EXPECT_EQ(apply_setting(spec, spec.default_value, from_table), std::nullopt) << spec.key;
        EXPECT_EQ(format_setting(spec, from_table), format_setting(spec, in_class)) << spec.key;
    }
}

// Proves each row's kind suits its field: a mismatch throws std::logic_error.
TEST(SettingsTable, EveryRowAcceptsAValidValueOfItsKind) {
    auto sample = [](const SettingSpec& spec) -> std::string {
        switch (spec.kind) {
        case Kind::Bool:
            return "yes";
        case Kind::Int:
            return std::to_string(spec.min);
        case Kind::Port:
            return "65535";
        case Kind::Double:
            return "0.5";
        case Kind::Duration:
            return "1h30m";
        case Kind::Address:
            return "[::1]:0";
        case Kind::AesKey:
            return std::string(24, 'k');
        case Kind::LogLevel:
            return "WARNING";
        case Kind::LogFormat:
            return "JSON";
        case Kind::SslMode:
            return "verify-full";
        case Kind::Url:
            return "https://director.example/graphql";
        case Kind::UrlPath:
            return "/api";
        case Kind::StoreUrl:
            return "postgres://u:p@db:5432/kprov";
        case Kind::KymaInstaller:
            return "None";
        case Kind::ArtifactUrl:
            return "file:///srv/kyma-artifacts/";
        case Kind::String:
        case Kind::Path:
            return "some text";
        }
        return "";
    };
    for (const auto& spec : setting_specs()) {
        Settings settings;
        const auto text = sample(spec);
        EXPECT_NO_THROW(EXPECT_EQ(apply_setting(spec, text, settings), std::nullopt) << spec.key)
            << spec.key;
        EXPECT_FALSE(format_setting(spec, settings).empty()) << spec.key;
    }
}

TEST(SettingsTable, FlagNamesFollowTheCliOrTheKey) {
    EXPECT_EQ(flag_name(*find_setting("store")), "--store");
    EXPECT_EQ(flag_name(*find_setting("gardener.kubeconfig_path")), "--gardener-kubeconfig");
    EXPECT_EQ(flag_name(*find_setting("sub_account")), "--sub-account");
    EXPECT_EQ(flag_name(*find_setting("timeouts.cluster_creation")), "--timeouts-cluster-creation");
}

TEST(SettingsTable, FindSettingReturnsNullForAnUnknownKey) {
    EXPECT_EQ(find_setting("nope"), nullptr);
    ASSERT_NE(find_setting("database.secret_key"), nullptr);
    EXPECT_EQ(find_setting("database.secret_key")->env, "APP_DATABASE_SECRET_KEY");
}

TEST(SettingsTable, OriginNames) {
    EXPECT_EQ(to_string(Origin::Default), "default");
    EXPECT_EQ(to_string(Origin::File), "file");
    EXPECT_EQ(to_string(Origin::Environment), "environment");
    EXPECT_EQ(to_string(Origin::Flag), "flag");
}

} // namespace
} // namespace kprov::config
