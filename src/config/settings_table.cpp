// The table of settings: the one place that says which settings exist, how each is spelt in
// the config file, the environment and on the command line, its default and what it means.
// load(), `kprov config`, the README and the man page all read it.
//
// Defaults are the original's (original-provisioner.md §7.5 and §2.7), written as the text a
// user would type, and go through the same parser as user input; a test checks that the
// in-class defaults of Settings agree with them.

#include "config/settings.hpp"
#include "config/settings_groups.hpp"

#include <iterator>

namespace kprov::config {

std::vector<SettingSpec> service_settings() {
    return {
        // --- kprov's own ------------------------------------------------------------------
        {.key = "store",
         .env = "KPROV_STORE",
         .kind = Kind::StoreUrl,
         .description = "state store URL: sqlite:///abs/path.db or postgres://user:pw@host:port/db "
                        "(default: built from database.* when database.host is set, else "
                        "SQLite at $XDG_STATE_HOME/kprov/kprov.db)",
         .flag = "--store",
         .field =
             [](Settings& s) {
                 return Field{&s.store_url};
             }},
        {.key = "log_level",
         .env = "KPROV_LOG_LEVEL",
         .aliases = {"APP_LOG_LEVEL"},
         .kind = Kind::LogLevel,
         .default_value = "info",
         .description = "log level: trace, debug, info, warn, error, fatal or panic",
         .flag = "--log-level",
         .field =
             [](Settings& s) {
                 return Field{&s.log_level};
             }},
        {.key = "log.format",
         .env = "KPROV_LOG_FORMAT",
         .kind = Kind::LogFormat,
         .default_value = "text",
         .description = "log lines of watch and serve: text (RFC 3339 UTC time stamp, level, "
                        "message) or json (one object per line: ts, level, msg and fields)",
         .flag = "--log-format",
         .field =
             [](Settings& s) {
                 return Field{&s.log_format};
             }},
        {.key = "tenant",
         .env = "KPROV_TENANT",
         .description = "tenant (global account) for commands that create runtimes",
         .flag = "--tenant",
         .field =
             [](Settings& s) {
                 return Field{&s.tenant};
             }},
        {.key = "sub_account",
         .env = "KPROV_SUB_ACCOUNT",
         .description = "sub-account for commands that create runtimes",
         .flag = "--sub-account",
         .field =
             [](Settings& s) {
                 return Field{&s.sub_account};
             }},
        {.key = "workers",
         .env = "KPROV_WORKERS",
         .kind = Kind::Int,
         .default_value = "4",
         .description = "operations driven in parallel by watch and serve",
         .flag = "--workers",
         .min = 1,
         .max = 1024,
         .field =
             [](Settings& s) {
                 return Field{&s.workers};
             }},
        {.key = "lease_duration",
         .env = "KPROV_LEASE_DURATION",
         .kind = Kind::Duration,
         .default_value = "30s",
         .description = "how long a worker owns an operation before another may take it over",
         .field =
             [](Settings& s) {
                 return Field{&s.lease_duration};
             }},
        {.key = "api_token",
         .env = "KPROV_API_TOKEN",
         .secret = true,
         .description = "bearer token the API requires from clients (serve); unset: no auth",
         .field =
             [](Settings& s) {
                 return Field{&s.api_token};
             }},
        {.key = "tls.cert_file",
         .env = "KPROV_TLS_CERT",
         .kind = Kind::Path,
         .description = "PEM certificate for serving the API over HTTPS (with tls.key_file)",
         .field =
             [](Settings& s) {
                 return Field{&s.tls_cert_file};
             }},
        {.key = "insecure_no_auth",
         .env = "KPROV_INSECURE_NO_AUTH",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "let serve listen without api_token on an address other hosts can reach "
                        "(anyone who reaches it can read admin kubeconfigs)",
         .flag = "--insecure-no-auth",
         .field =
             [](Settings& s) {
                 return Field{&s.insecure_no_auth};
             }},
        {.key = "tls.key_file",
         .env = "KPROV_TLS_KEY",
         .kind = Kind::Path,
         .description = "PEM private key for serving the API over HTTPS (with tls.cert_file)",
         .field =
             [](Settings& s) {
                 return Field{&s.tls_key_file};
             }},
        {.key = "answer_cache_mb",
         .env = "KPROV_ANSWER_CACHE_MB",
         .kind = Kind::Int,
         .default_value = "64",
         .description = "MiB serve keeps answers of status queries in, reused until their "
                        "runtime changes (SQLite stores); 0: none",
         .min = 0,
         .max = 65536,
         .field =
             [](Settings& s) {
                 return Field{&s.answer_cache_mb};
             }},
        {.key = "tenant_strict",
         .env = "APP_TENANT_STRICT",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "refuse (403) a request whose tenant differs from the runtime's",
         .field =
             [](Settings& s) {
                 return Field{&s.tenant_strict};
             }},

        // --- API and metrics (serve) ----------------------------------------------------------
        {.key = "address",
         .env = "APP_ADDRESS",
         .kind = Kind::Address,
         .default_value = "127.0.0.1:3000",
         .description = "API listen address",
         .field =
             [](Settings& s) {
                 return Field{&s.address};
             }},
        {.key = "api_endpoint",
         .env = "APP_API_ENDPOINT",
         .kind = Kind::UrlPath,
         .default_value = "/graphql",
         .description = "GraphQL path",
         .field =
             [](Settings& s) {
                 return Field{&s.api_endpoint};
             }},
        {.key = "playground_api_endpoint",
         .env = "APP_PLAYGROUND_API_ENDPOINT",
         .default_value = "/graphql",
         .description = "endpoint the playground page calls",
         .field =
             [](Settings& s) {
                 return Field{&s.playground_api_endpoint};
             }},
        {.key = "playground",
         .env = "KPROV_PLAYGROUND",
         .kind = Kind::Bool,
         .default_value = "true",
         .description = "serve the GraphQL playground page on / (false: / answers 404)",
         .field =
             [](Settings& s) {
                 return Field{&s.playground};
             }},
        {.key = "metrics_address",
         .env = "APP_METRICS_ADDRESS",
         .kind = Kind::Address,
         .default_value = "127.0.0.1:9000",
         .description =
             "metrics listen address of watch and serve (GET /metrics, /healthz, /readyz)",
         .field =
             [](Settings& s) {
                 return Field{&s.metrics_address};
             }},

        // --- Director (Compass) ---------------------------------------------------------------
        {.key = "director.url",
         .env = "APP_DIRECTOR_URL",
         .kind = Kind::Url,
         .default_value = "http://compass-director.compass-system.svc.cluster.local:3000/graphql",
         .description = "Director GraphQL URL",
         .field =
             [](Settings& s) {
                 return Field{&s.director_url};
             }},
        {.key = "director.skip_cert_verification",
         .env = "APP_SKIP_DIRECTOR_CERT_VERIFICATION",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "skip TLS verification towards Director and its OAuth server",
         .field =
             [](Settings& s) {
                 return Field{&s.skip_director_cert_verification};
             }},
        {.key = "director.oauth_path",
         .env = "APP_DIRECTOR_OAUTH_PATH",
         .kind = Kind::Path,
         .default_value = "./dev/director.yaml",
         .description = "Director OAuth client credentials file (needed only with registration)",
         .field =
             [](Settings& s) {
                 return Field{&s.director_oauth_path};
             }},
        {.key = "runtime_registration_enabled",
         .env = "APP_RUNTIME_REGISTRATION_ENABLED",
         .kind = Kind::Bool,
         .default_value = "true",
         .description = "register new runtimes in Director",
         .field =
             [](Settings& s) {
                 return Field{&s.runtime_registration_enabled};
             }},
        {.key = "runtime_deregistration_enabled",
         .env = "APP_RUNTIME_DEREGISTRATION_ENABLED",
         .kind = Kind::Bool,
         .default_value = "true",
         .description = "unregister deprovisioned runtimes from Director",
         .field =
             [](Settings& s) {
                 return Field{&s.runtime_deregistration_enabled};
             }},

        // --- Database (the original's PostgreSQL) ---------------------------------------------
        {.key = "database.user",
         .env = "APP_DATABASE_USER",
         .default_value = "postgres",
         .description = "PostgreSQL user",
         .field =
             [](Settings& s) {
                 return Field{&s.database.user};
             }},
        {.key = "database.password",
         .env = "APP_DATABASE_PASSWORD",
         .default_value = "password",
         .secret = true,
         .description = "PostgreSQL password",
         .field =
             [](Settings& s) {
                 return Field{&s.database.password};
             }},
        {.key = "database.host",
         .env = "APP_DATABASE_HOST",
         .aliases = {"APP_DATABSE_HOST"},
         .default_value = "localhost",
         .description = "PostgreSQL host; setting it selects PostgreSQL as the store",
         .field =
             [](Settings& s) {
                 return Field{&s.database.host};
             }},
        {.key = "database.port",
         .env = "APP_DATABASE_PORT",
         .kind = Kind::Port,
         .default_value = "5432",
         .description = "PostgreSQL port",
         .field =
             [](Settings& s) {
                 return Field{&s.database.port};
             }},
        {.key = "database.name",
         .env = "APP_DATABASE_NAME",
         .default_value = "provisioner",
         .description = "PostgreSQL database name",
         .field =
             [](Settings& s) {
                 return Field{&s.database.name};
             }},
        {.key = "database.ssl_mode",
         .env = "APP_DATABASE_SSL_MODE",
         .aliases = {"APP_DATABASE_SSLMODE"},
         .kind = Kind::SslMode,
         .default_value = "disable",
         .description = "libpq sslmode",
         .field =
             [](Settings& s) {
                 return Field{&s.database.ssl_mode};
             }},
        {.key = "database.ssl_root_cert",
         .env = "APP_DATABASE_SSL_ROOT_CERT",
         .aliases = {"APP_DATABASE_SSLROOTCERT"},
         .kind = Kind::Path,
         .description = "libpq sslrootcert: CA certificate of the PostgreSQL server",
         .field =
             [](Settings& s) {
                 return Field{&s.database.ssl_root_cert};
             }},
        {.key = "database.secret_key",
         .env = "APP_DATABASE_SECRET_KEY",
         .kind = Kind::AesKey,
         .secret = true,
         .description = "AES key encrypting kubeconfigs and administrators at rest",
         .field =
             [](Settings& s) {
                 return Field{&s.database.secret_key};
             }},
        {.key = "database.refuse_legacy_secrets",
         .env = "KPROV_REFUSE_LEGACY_SECRETS",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "fail reading a secret in the original's AES-CFB format or in plaintext "
                        "(after `kprov migrate --re-encrypt`)",
         .field =
             [](Settings& s) {
                 return Field{&s.database.refuse_legacy_secrets};
             }},
    };
}

const std::vector<SettingSpec>& setting_specs() {
    // Grouped as `kprov config` shows them: kprov's own settings first, then the original's in
    // the order of its README. Keys group with dots the way the config file nests them.
    static const std::vector<SettingSpec> specs = [] {
        std::vector<SettingSpec> all = service_settings();
        std::vector<SettingSpec> engine = engine_settings();
        all.insert(all.end(), std::make_move_iterator(engine.begin()),
                   std::make_move_iterator(engine.end()));
        return all;
    }();
    return specs;
}

const SettingSpec* find_setting(std::string_view key) {
    for (const auto& spec : setting_specs())
        if (spec.key == key)
            return &spec;
    return nullptr;
}

std::string flag_name(const SettingSpec& spec) {
    if (!spec.flag.empty())
        return std::string(spec.flag);
    std::string name = "--" + std::string(spec.key);
    for (auto& c : name)
        if (c == '.' || c == '_')
            c = '-';
    return name;
}

} // namespace kprov::config
