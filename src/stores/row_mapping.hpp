#pragma once
// Mapping between the model and table rows that does not depend on the SQL dialect, so the
// SQLite and PostgreSQL stores read and write the same logical data from one piece of code.
// A store adapts its result row to RowView, takes the column lists below for its SELECTs, and
// binds the ColumnValue lists with its own placeholder style.

#include "engine/model.hpp"
#include "stores/cipher.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kprov::stores {

/// A value to bind: SQL NULL, text, integer or boolean (SQLite binds booleans as 0/1).
using DbValue = std::variant<std::monostate, std::string, std::int64_t, bool>;

DbValue db_text(const std::optional<std::string>& value);
DbValue db_time(const std::optional<Timestamp>& value);
DbValue db_bool(const std::optional<bool>& value);

/// A column and the value to write to it.
struct ColumnValue {
    const char* column;
    DbValue value;
};

/// One result row, read by 0-based column index. Accessors other than is_null are only called
/// on non-null columns.
class RowView {
public:
    virtual ~RowView() = default;
    virtual bool is_null(int column) const = 0;
    virtual std::string text(int column) const = 0;
    virtual std::int64_t integer(int column) const = 0;
    virtual bool boolean(int column) const = 0;

    std::optional<std::string> optional_text(int column) const;
    /// NULL reads as "" (the original's nullable text columns with '' defaults).
    std::string text_or_empty(int column) const;
    /// NULL reads as false (cluster.deleted is nullable).
    bool boolean_or_false(int column) const;
    /// Throws StoreError naming `what` when the column is NULL or not a timestamp.
    Timestamp time(int column, std::string_view what) const;
    std::optional<Timestamp> optional_time(int column, std::string_view what) const;
};

/// `names` ("a, b, c") with each name prefixed by `alias` and a dot ("o.a, o.b, o.c").
std::string qualified(std::string_view names, std::string_view alias);

// --- operation -------------------------------------------------------------------------------

/// The operation columns read_operation expects, in order.
inline constexpr std::string_view k_operation_columns =
    "id, type, state, message, start_timestamp, end_timestamp, cluster_id, stage, "
    "last_transition, err_message, reason, component, lease_owner, lease_expires_at, "
    "next_run_at, attempts";
inline constexpr int k_operation_column_count = 16;

/// Reads k_operation_columns starting at column `first`. Throws StoreError on unknown enum
/// values or malformed timestamps.
engine::Operation read_operation(const RowView& row, int first = 0);

/// Every column of an operation row, for its INSERT.
std::vector<ColumnValue> operation_values(const engine::Operation& op);

/// The columns save_progress writes (state, stage, message, end/last-transition time, last
/// error, next_run_at); type, runtime, start time, lease and attempts are not the stage's to
/// change.
std::vector<ColumnValue> operation_progress_values(const engine::Operation& op);

/// The columns of operation_transition read_transition expects, in order.
inline constexpr std::string_view k_transition_columns =
    "operation_id, from_stage, to_stage, state, message, at";

engine::StageTransition read_transition(const RowView& row, int first = 0);

/// The columns of a transition row of operation `operation_id` (the id column is generated).
std::vector<ColumnValue> transition_values(const std::string& operation_id,
                                           const engine::StageTransition& t);

// --- gardener_config -------------------------------------------------------------------------

/// The gardener_config columns read_gardener_config expects, in order (cluster_id excluded).
inline constexpr std::string_view k_gardener_columns =
    "id, name, project_name, kubernetes_version, volume_size_gb, machine_type, machine_image, "
    "machine_image_version, region, provider, purpose, licence_type, seed, target_secret, "
    "disk_type, worker_cidr, pods_cidr, services_cidr, auto_scaler_min, auto_scaler_max, "
    "max_surge, max_unavailable, enable_kubernetes_version_auto_update, "
    "enable_machine_image_version_auto_update, exposure_class_name, provider_specific_config, "
    "shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, "
    "hibernation_schedules, cloud_profile";
inline constexpr int k_gardener_column_count = 31;

/// Reads k_gardener_columns starting at `first`; oidc and dns are left empty (other tables).
engine::GardenerConfig read_gardener_config(const RowView& row, int first = 0);

/// Every column except id and cluster_id: what an upgrade's UPDATE writes, and what an INSERT
/// writes besides those two.
std::vector<ColumnValue> gardener_values(const engine::GardenerConfig& g);

// --- cluster ---------------------------------------------------------------------------------

/// The cluster columns read_cluster expects, in order.
inline constexpr std::string_view k_cluster_columns =
    "id, tenant, sub_account_id, creation_timestamp, deleted, runtime_name, description, labels, "
    "active_kyma_config_id, kubeconfig, is_kubeconfig_encrypted";
inline constexpr int k_cluster_column_count = 11;
/// Where active_kyma_config_id is in k_cluster_columns: read_cluster leaves Runtime::kyma empty,
/// the store reads the config it names (kyma_rows.hpp). (The column cluster.kyma_config, the
/// request JSON of earlier kprov versions, is no longer read or written.)
inline constexpr int k_cluster_active_kyma_column = 8;

/// k_cluster_columns prefixed with `alias`, with NULL in place of the kubeconfig and its
/// encryption flag: for reads that must not decrypt it (a status does not show it).
std::string cluster_columns_without_kubeconfig(std::string_view alias);

/// Reads k_cluster_columns starting at `first`, decrypting the kubeconfig; administrators and
/// gardener config are left empty (other tables).
engine::Runtime read_cluster(const RowView& row, const SecretCipher& cipher, int first = 0);

/// Every column of a new cluster row; the kubeconfig, when present, encrypted;
/// active_kyma_config_id is r.kyma's id (its rows are the caller's to write).
std::vector<ColumnValue> cluster_values(const engine::Runtime& r, const SecretCipher& cipher);

// --- children of gardener_config and cluster --------------------------------------------------

/// The oidc_config columns read_oidc_config expects; its signing_algs come from another table.
inline constexpr std::string_view k_oidc_columns =
    "client_id, groups_claim, issuer_url, username_claim, username_prefix";
engine::OidcConfig read_oidc_config(const RowView& row, int first = 0);

/// The dns_providers columns read_dns_provider expects.
inline constexpr std::string_view k_dns_provider_columns =
    "domains_include, is_primary, secret_name, type";
engine::DnsProvider read_dns_provider(const RowView& row, int first = 0);

/// The oidc_config row of gardener config `gardener_id`, which is also the row's id.
std::vector<ColumnValue> oidc_values(const std::string& gardener_id, const engine::OidcConfig& o);
std::vector<ColumnValue> signing_algorithm_values(const std::string& id,
                                                  const std::string& gardener_id,
                                                  const std::string& algorithm);
std::vector<ColumnValue> dns_config_values(const std::string& id, const std::string& gardener_id,
                                           const engine::DnsConfig& d);
std::vector<ColumnValue> dns_provider_values(const std::string& id,
                                             const std::string& dns_config_id,
                                             const engine::DnsProvider& p);
/// A cluster_administrator row, its user_id encrypted.
std::vector<ColumnValue> administrator_values(const std::string& id, const std::string& cluster_id,
                                              const std::string& user_id,
                                              const SecretCipher& cipher);

// --- list ------------------------------------------------------------------------------------

/// What read_summary expects before the last operation's k_operation_columns, with `c` the
/// cluster and `g` its gardener_config.
inline constexpr std::string_view k_summary_columns =
    "c.id, c.runtime_name, g.name, g.provider, g.region, c.tenant, c.creation_timestamp, "
    "c.deleted";
inline constexpr int k_summary_column_count = 8;

/// Reads k_summary_columns and then the runtime's last operation (all NULL when it has none).
engine::RuntimeSummary read_summary(const RowView& row, int first = 0);

// --- secrets and small conversions -----------------------------------------------------------

/// A secret column as plaintext: `stored` itself when the row's flag says it is not encrypted
/// (legacy rows), else decrypted for `context`.
std::string read_secret(const SecretCipher& cipher, const std::string& stored, bool encrypted,
                        const std::string& context);

/// volume_size_gb is an integer kept as text (original-provisioner.md §5.2).
std::optional<std::string> volume_to_db(std::optional<int> gb);
std::optional<int> volume_from_db(const std::optional<std::string>& text);

/// Decodes provider_specific_config; a NULL column (legacy rows) gives the empty config of the
/// cloud named by `provider`. Throws StoreError when the JSON fits no provider.
engine::ProviderConfig provider_config_from_db(const std::optional<std::string>& json,
                                               std::string_view provider);

} // namespace kprov::stores
