#pragma once
// kprov's configuration: one typed Settings struct filled from, in rising precedence,
// defaults < config file < environment < flags. Every APP_* variable of the original
// (original-provisioner.md §7.5) is read with its default; kprov's own settings use KPROV_*.
// The table of settings (settings_table.cpp) is the single source for loading, `kprov config`,
// the README and the man page.

#include "engine/duration.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
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
    /// Environment lookup; tests pass a map. Defaults to ::getenv.
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
};

struct Database {
    std::string user = "postgres";
    std::string password = "password";
    std::string host = "localhost";
    bool host_set = false;  ///< APP_DATABASE_HOST (or APP_DATABSE_HOST) given: use PostgreSQL
    int port = 5432;
    std::string name = "provisioner";
    std::string ssl_mode = "disable";
    std::string ssl_root_cert;
    std::optional<std::string> secret_key;  ///< 16, 24 or 32 bytes when set
};

struct Settings {
    // kprov's own
    std::string store_url;  ///< resolved: --store > KPROV_STORE > APP_DATABASE_* > local SQLite
    std::string log_level = "info";
    std::optional<std::string> tenant;
    std::optional<std::string> sub_account;
    int workers = 4;
    Duration lease_duration{std::chrono::seconds(30)};
    double gardener_qps = 20;
    int gardener_burst = 40;
    bool gardener_legacy_api = false;
    bool tenant_strict = false;
    std::optional<std::string> api_token;
    std::optional<std::string> tls_cert_file;
    std::optional<std::string> tls_key_file;

    // the original's APP_* settings
    std::string address = "127.0.0.1:3000";
    std::string api_endpoint = "/graphql";
    std::string playground_api_endpoint = "/graphql";
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
};

/// One line of `kprov config`.
struct Entry {
    std::string key;          ///< "database.secret_key"
    std::string env;          ///< the primary environment variable name
    std::string value;        ///< effective value; "***" for a set secret, "" for an unset one
    Origin origin = Origin::Default;
    std::string source;       ///< the variable, file or flag it came from; "" for defaults
    bool secret = false;
};

/// Settings plus where each value came from.
struct Effective {
    Settings settings;
    std::vector<Entry> entries;  ///< one per setting, in table order
};

/// Loads and validates every setting. Throws ConfigError listing every invalid value, one per
/// line, each naming its variable (or file key, or flag) and the value: a duration that does not
/// parse, a port or address out of range, a boolean or number that is not one, an AES key that
/// is not 16/24/32 bytes, an unknown log level, an unknown key in the config file; or naming the
/// file when the config file cannot be read or parsed.
Effective load(const Sources& sources);

} // namespace kprov::config
