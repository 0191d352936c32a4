#pragma once
// kprov's configuration: one typed Settings struct filled from, in rising precedence,
// defaults < config file < environment < flags. Every APP_* variable of the original
// (original-provisioner.md §7.5) is read with its default; kprov's own settings use KPROV_*.
// The table of settings (settings_table.cpp) is the single source for loading, `kprov config`,
// the README and the man page.

#include "engine/util/duration.hpp"

#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kprov::config {

/// Where a value came from.
enum class Origin { Default, File, Environment, Flag };
std::string_view to_string(Origin origin);

/// What load() reads.
struct Sources {
    /// --config; when absent, $XDG_CONFIG_HOME/kprov/config.yaml (or ~/.config/...) is read if
    /// it exists. An explicitly named file that does not exist is an error.
    std::optional<std::string> config_file;
    /// Values from command-line flags, by setting key ("store", "gardener.project", ...).
    std::map<std::string, std::string> flags;
    /// Environment lookup, also used for XDG_CONFIG_HOME, XDG_STATE_HOME and HOME; tests pass a
    /// map. When empty, ::getenv is used.
    std::function<std::optional<std::string>(const std::string&)> getenv;
};

/// Stage timeouts (APP_*_TIMEOUT_*), Go durations.
struct Timeouts {
    Duration cluster_creation{std::chrono::minutes(60)};
    Duration cluster_domains{std::chrono::minutes(10)};
    Duration bindings_creation{std::chrono::minutes(5)};
    Duration agent_configuration{std::chrono::minutes(15)};
    Duration shoot_upgrade{std::chrono::minutes(30)};
    Duration shoot_refresh{std::chrono::minutes(5)};
    Duration installation_triggering{std::chrono::minutes(20)};
    Duration installation{std::chrono::minutes(60)};
    Duration upgrade{std::chrono::minutes(60)};
    Duration upgrade_triggering{std::chrono::minutes(20)};
    Duration agent_connection{std::chrono::minutes(15)};
    Duration cluster_deletion{std::chrono::minutes(30)};
    Duration waiting_for_cluster_deletion{std::chrono::minutes(60)};
    Duration waiting_for_cluster_hibernation{std::chrono::minutes(60)};
    Duration cluster_cleanup{std::chrono::minutes(20)};
};

struct Database {
    std::string user = "postgres";
    std::string password = "password";
    std::string host = "localhost";
    bool host_set = false; ///< APP_DATABASE_HOST (or APP_DATABSE_HOST) given: use PostgreSQL
    int port = 5432;
    std::string name = "provisioner";
    std::string ssl_mode = "disable";
    std::string ssl_root_cert;
    std::optional<std::string> secret_key; ///< 16, 24 or 32 bytes when set
    /// KPROV_REFUSE_LEGACY_SECRETS: reading a secret in the original's AES-CFB format or in
    /// plaintext is an error (once `kprov migrate --re-encrypt` has rewritten them all)
    bool refuse_legacy_secrets = false;
};

struct Settings {
    // kprov's own
    std::string store_url; ///< resolved: --store > KPROV_STORE > APP_DATABASE_* > local SQLite
    std::string log_level = "info";
    std::string log_format = "text"; ///< of watch and serve: text or json
    std::optional<std::string> tenant;
    std::optional<std::string> sub_account;
    int workers = 4;
    Duration lease_duration{std::chrono::seconds(30)};
    double gardener_qps = 20;
    int gardener_burst = 40;
    bool gardener_legacy_api = false;
    /// The CloudProfile of each provider type unless a runtime file names one
    /// (KPROV_CLOUD_PROFILE_AWS, _AZURE, _GCP, _OPENSTACK).
    std::string cloud_profile_aws = "aws";
    std::string cloud_profile_azure = "az";
    std::string cloud_profile_gcp = "gcp";
    std::string cloud_profile_openstack = "converged-cloud-kyma";
    /// How long serve and watch keep the landscape they read (KPROV_LANDSCAPE_CACHE_SECONDS).
    int landscape_cache_seconds = 30;
    bool tenant_strict = false;
    std::optional<std::string> api_token;
    /// Serve without a token on an address other hosts can reach (KPROV_INSECURE_NO_AUTH).
    bool insecure_no_auth = false;
    std::optional<std::string> tls_cert_file;
    std::optional<std::string> tls_key_file;
    int answer_cache_mb = 64;

    // the original's APP_* settings
    std::string address = "127.0.0.1:3000";
    std::string api_endpoint = "/graphql";
    std::string playground_api_endpoint = "/graphql";
    bool playground = true; ///< serve the playground page on "/"
    std::string metrics_address = "127.0.0.1:9000";
    std::string director_url =
        "http://compass-director.compass-system.svc.cluster.local:3000/graphql";
    bool skip_director_cert_verification = false;
    std::string director_oauth_path = "./dev/director.yaml";
    bool runtime_registration_enabled = true;
    bool runtime_deregistration_enabled = true;
    Database database;
    Timeouts timeouts;
    std::string operator_l2_subject_name = "runtimeOperator";
    std::string operator_l3_subject_name = "runtimeAdmin";
    bool operator_creating_for_admin = false;
    std::string gardener_project = "gardenerProject";
    std::string gardener_kubeconfig_path = "./dev/kubeconfig.yaml";
    std::string audit_logs_policy_config_map;
    std::string audit_logs_tenant_config_path;
    std::string maintenance_window_config_path;
    std::string cluster_cleanup_resource_selector = "https://service-manager.";
    bool default_enable_kubernetes_version_auto_update = false;
    bool default_enable_machine_image_version_auto_update = false;
    int latest_downloaded_releases = 5;
    bool download_pre_releases = true;
    bool enqueue_in_progress_operations = true;
    // Installing Kyma (kyma-installation.md)
    std::string kyma_installer = "lifecycle-manager";
    std::string kyma_releases_url = "https://storage.googleapis.com/kyma-prow-artifacts";
    std::string kyma_dev_releases_url = "https://storage.googleapis.com/kyma-development-artifacts";
    // Kyma Lifecycle Manager (kyma-lifecycle-manager.md)
    std::string kcp_kubeconfig_path;
    std::string kcp_namespace = "kcp-system";
    std::string kyma_channel = "regular";
    std::string kyma_modules;
    std::string kyma_lossy = "refuse";
    Duration kyma_deletion_timeout = std::chrono::minutes(30);
    Duration kyma_kubeconfig_expiration = std::chrono::hours(24);
    Duration kyma_kubeconfig_rotation = std::chrono::seconds(49'248);
};

/// One line of `kprov config`.
struct Entry {
    std::string key;   ///< "database.secret_key"
    std::string env;   ///< the primary environment variable name
    std::string value; ///< effective value; "***" for a set secret, "" for an unset one
    Origin origin = Origin::Default;
    std::string source; ///< the variable, file or flag it came from; "" for defaults
    bool secret = false;
};

/// Settings plus where each value came from.
struct Effective {
    Settings settings;
    std::vector<Entry> entries;             ///< one per setting, in table order
    std::optional<std::string> config_file; ///< the config file that was read, if any
    /// What the user should know about how the settings were given (a password on the
    /// command line); the caller prints them.
    std::vector<std::string> warnings;
};

/// Loads and validates every setting. For each setting the value of the highest source wins
/// (flag, then environment, then config file, then default); within the environment the primary
/// name wins over its aliases. An empty value counts as not given. Only the winning value is
/// validated, so a flag can override a bad environment value.
/// settings.store_url is the "store" setting when given at any level, else a PostgreSQL URL built
/// from database.* when database.host is given, else sqlite:// at $XDG_STATE_HOME/kprov/kprov.db
/// (~/.local/state/kprov/kprov.db).
/// Throws ConfigError listing every problem, one per line, each naming its variable (or file
/// key, or flag) and the value (never a secret's value): a duration that does not parse, a port
/// or address out of range, a boolean or number that is not one, an AES key that is not 16/24/32
/// bytes, an unknown log level, an unknown key in the config file (with the closest known key);
/// or naming the file when the config file is missing (if named explicitly), unreadable or not
/// YAML.
Effective load(const Sources& sources);

// --- The table of settings, and the pieces load() is built from -----------------------------

/// What a setting's text must look like; each kind has one parser and one message.
enum class Kind {
    String,        ///< any text
    Path,          ///< a file path (not checked for existence here)
    Url,           ///< an http:// or https:// URL
    UrlPath,       ///< an HTTP path starting with "/"
    StoreUrl,      ///< <scheme>://..., see stores/open_store.hpp
    Bool,          ///< true/false/1/0/yes/no, any case
    Int,           ///< a whole number within SettingSpec::min..max
    Port,          ///< 1-65535
    Double,        ///< a number above 0
    Duration,      ///< a Go duration: 90s, 5m, 1h30m
    Address,       ///< a listen address host:port, port 0-65535; host may be empty or [IPv6]
    AesKey,        ///< 16, 24 or 32 bytes
    LogLevel,      ///< trace, debug, info, warn, warning, error, fatal, panic (stored lowercased)
    LogFormat,     ///< text or json (stored lowercased)
    SslMode,       ///< a libpq sslmode: disable, allow, prefer, require, verify-ca, verify-full
    KymaInstaller, ///< installation-cr or none (stored lowercased)
    ArtifactUrl,   ///< an http://, https:// or file:// URL prefix (a trailing / is dropped)
};

/// A short noun for docs and messages: "duration", "listen address (host:port)", ...
std::string_view kind_name(Kind kind);

/// The typed field of Settings a setting is stored in. The field's type and the setting's Kind
/// must agree (a test applies a value of its kind to every setting to prove it).
using Field =
    std::variant<std::string*, std::optional<std::string>*, bool*, int*, double*, Duration*>;

/// One row of the table of settings.
struct SettingSpec {
    std::string_view key{};                  ///< config file and flag key: "database.secret_key"
    std::string_view env{};                  ///< primary environment variable
    std::vector<std::string_view> aliases{}; ///< other accepted variables, lower precedence
    Kind kind = Kind::String;
    std::string_view default_value{}; ///< as text, parsed like any other value; "" = unset
    bool secret = false;              ///< value never shown, in entries or in messages
    std::string_view description{};   ///< one line, for `kprov config`, README and man page
    std::string_view flag{};          ///< the CLI's flag for it ("--gardener-kubeconfig"), if any
    int min = 0;                      ///< Kind::Int only: smallest accepted value
    int max = INT_MAX;                ///< Kind::Int only: largest accepted value
    Field (*field)(Settings&) = nullptr;
};

/// Every setting, in the order `kprov config` and the docs list them. Keys and variable names
/// are unique.
const std::vector<SettingSpec>& setting_specs();

/// The setting with this key; nullptr when there is none.
const SettingSpec* find_setting(std::string_view key);

/// How a flag for the setting is named in messages: spec.flag, else "--" + key with "." and "_"
/// turned into "-".
std::string flag_name(const SettingSpec& spec);

/// Parses `text` as the spec's kind and stores it in its field of `settings`. Returns nullopt on
/// success, else what is wrong, phrased to follow the place and value: "is not a duration
/// (expected e.g. 90s, 5m, 1h30m)"; for an AES key "has 10 bytes (expected 16, 24 or 32)".
/// An empty text sets an optional field to nullopt. Throws std::logic_error when the spec's kind
/// does not suit its field (a bug in the table).
std::optional<std::string> apply_setting(const SettingSpec& spec, std::string_view text,
                                         Settings& settings);

/// The spec's field of `settings` as text in its canonical form ("1h30m", "true", "5432"); ""
/// for an unset optional. Secrets are not redacted here.
std::string format_setting(const SettingSpec& spec, const Settings& settings);

/// `url` with the password in its user-info replaced by "***"
/// ("postgres://user:***@host/db"); unchanged when it has none.

/// The PostgreSQL URL of the original's APP_DATABASE_* settings:
/// postgresql://user:password@host:port/name?sslmode=...[&sslrootcert=...], every part
/// percent-encoded, an IPv6 host in brackets.
std::string postgres_url(const Database& database);

/// A config file flattened to dotted keys, in file order.
struct ConfigFileValues {
    std::vector<std::pair<std::string, std::string>> values; ///< key, scalar text
    std::vector<std::string> problems; ///< per key: a list where a value belongs, a repeated key
};

/// Reads a kprov YAML config file: a mapping whose nested mappings flatten to dotted keys
/// ("database: {port: 1}" is "database.port"). Keys are not checked against the table here.
/// Throws ConfigError naming the file when it does not exist, cannot be read, is not YAML or is
/// not a mapping.
ConfigFileValues read_config_file(const std::string& path);

/// The warning for a config file at `path` that holds a secret (a secret setting, or a store URL
/// with a password) and that group or others may read: it names the file, its mode, the keys
/// (never their values) and `chmod 600`. nullopt when there is nothing to say.
std::optional<std::string> shared_secret_file_warning(const std::string& path,
                                                      const ConfigFileValues& file);

} // namespace kprov::config
