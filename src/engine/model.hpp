#pragma once
// The domain model: a runtime (a cluster kprov provisioned through Gardener), its configuration,
// and the operations run on it. Names follow the original's tables (original-provisioner.md §5)
// and its GraphQL API; values here are always plaintext (stores encrypt secrets at rest).

#include "engine/kyma.hpp"
#include "engine/util/time.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kprov::engine {

// ---------------------------------------------------------------------------------------------
// Operations

/// The DB enum `operation_type`, plus kprov's WAKE_UP.
enum class OperationType {
    Provision,
    Upgrade,
    Deprovision,
    ReconnectRuntime,
    UpgradeShoot,
    Hibernate,
    ProvisionNoInstall,
    DeprovisionNoInstall,
    WakeUp,
};

/// DEPROVISION or DEPROVISION_NO_INSTALL.
inline bool is_deprovisioning(OperationType type) {
    return type == OperationType::Deprovision || type == OperationType::DeprovisionNoInstall;
}

/// The DB enum `operation_state`.
enum class OperationState { InProgress, Succeeded, Failed };

/// "PROVISION", "DEPROVISION_NO_INSTALL", ...: the DB spelling.
std::string_view to_db(OperationType type);
std::optional<OperationType> operation_type_from_db(std::string_view text);
/// "IN_PROGRESS", "SUCCEEDED", "FAILED".
std::string_view to_db(OperationState state);
std::optional<OperationState> operation_state_from_db(std::string_view text);
/// The GraphQL spelling: "Provision", "DeprovisionNoInstall", "InProgress", ...
std::string_view to_api(OperationType type);
std::string_view to_api(OperationState state);
/// Reads either spelling, case-insensitively ("InProgress", "in_progress", "IN_PROGRESS").
std::optional<OperationState> operation_state_from_text(std::string_view text);

/// The error of an operation's last processing pass; all three empty when it had none.
struct LastError {
    std::string message;
    std::string reason;
    std::string component;

    bool empty() const { return message.empty() && reason.empty() && component.empty(); }
    bool operator==(const LastError&) const = default;
};

/// Who may run an operation's stages, and until when. Absent when no worker holds it.
struct Lease {
    std::string owner;
    Timestamp expires_at;
    bool operator==(const Lease&) const = default;
};

/// A row of `operation`, with kprov's scheduling columns.
struct Operation {
    std::string id;
    OperationType type = OperationType::Provision;
    OperationState state = OperationState::InProgress;
    std::string message;
    Timestamp start_timestamp;
    std::optional<Timestamp> end_timestamp;
    std::string cluster_id; ///< the runtime id
    std::string stage;
    std::optional<Timestamp> last_transition;
    LastError last_error;

    // kprov's own columns (additive migration).
    std::optional<Lease> lease;
    Timestamp next_run_at; ///< when a worker should run the current stage next
    int attempts = 0;      ///< how many times a worker has claimed it

    bool operator==(const Operation&) const = default;
};

/// One entry of an operation's history: it moved to `stage` (and/or `state`) at `at`.
struct StageTransition {
    std::string operation_id;
    std::string from_stage; ///< empty for the first entry
    std::string to_stage;
    OperationState state = OperationState::InProgress;
    std::string message;
    Timestamp at;
    bool operator==(const StageTransition&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Gardener configuration

struct OidcConfig {
    std::string client_id;
    std::string groups_claim;
    std::string issuer_url;
    std::vector<std::string> signing_algs;
    std::string username_claim;
    std::string username_prefix;
    bool operator==(const OidcConfig&) const = default;
};

struct DnsProvider {
    std::vector<std::string> domains_include;
    bool primary = false;
    std::string secret_name;
    std::string type;
    bool operator==(const DnsProvider&) const = default;
};

struct DnsConfig {
    std::string domain;
    std::vector<DnsProvider> providers;
    bool operator==(const DnsConfig&) const = default;
};

/// One of Gardener's `spec.hibernation.schedules`: cron expressions (minute hour day-of-month
/// month day-of-week) that hibernate (start) and wake up (end) the cluster, in `location`'s
/// time zone (UTC when absent). kprov's own, from the runtime file's lifecycle block.
struct HibernationSchedule {
    std::optional<std::string> start;
    std::optional<std::string> end;
    std::optional<std::string> location;
    bool operator==(const HibernationSchedule&) const = default;
};

struct GcpConfig {
    std::vector<std::string> zones;
    bool operator==(const GcpConfig&) const = default;
};

struct AzureZone {
    int name = 0;
    std::string cidr;
    bool operator==(const AzureZone&) const = default;
};

struct AzureConfig {
    std::string vnet_cidr;
    std::optional<std::vector<std::string>> zones;
    std::optional<std::vector<AzureZone>> azure_zones;
    std::optional<bool> enable_nat_gateway;
    std::optional<int> idle_connection_timeout_minutes;
    bool operator==(const AzureConfig&) const = default;
};

struct AwsZone {
    std::string name;
    std::string public_cidr;
    std::string internal_cidr;
    std::string worker_cidr;
    bool operator==(const AwsZone&) const = default;
};

struct AwsConfig {
    std::string vpc_cidr;
    std::vector<AwsZone> aws_zones;
    bool operator==(const AwsConfig&) const = default;
};

struct OpenStackConfig {
    std::vector<std::string> zones;
    std::string floating_pool_name;
    std::string cloud_profile_name;
    std::string load_balancer_provider;
    bool operator==(const OpenStackConfig&) const = default;
};

/// The provider sub-config; its alternative decides the cloud.
using ProviderConfig = std::variant<GcpConfig, AzureConfig, AwsConfig, OpenStackConfig>;

inline constexpr std::string_view k_cloud_profile_kind = "CloudProfile";
inline constexpr std::string_view k_namespaced_cloud_profile_kind = "NamespacedCloudProfile";

/// What a shoot's spec.cloudProfile names (../reference/gardener-landscape.md §1.1).
struct CloudProfileRef {
    std::string kind{k_cloud_profile_kind}; ///< CloudProfile or NamespacedCloudProfile
    std::string name;
    bool operator==(const CloudProfileRef&) const = default;
};

/// A row of `gardener_config` with its OIDC and DNS rows.
struct GardenerConfig {
    std::string id;
    std::string name; ///< the shoot name
    std::string project_name;
    std::string kubernetes_version;
    std::optional<int> volume_size_gb;
    std::string machine_type;
    std::optional<std::string> machine_image;
    std::optional<std::string> machine_image_version;
    std::string region;
    std::string provider; ///< as the user sent it ("aws", "AZ", ...)
    std::optional<std::string> purpose;
    std::optional<std::string> licence_type;
    std::string seed; ///< "" until learned from the shoot
    std::string target_secret;
    std::optional<std::string> disk_type;
    std::string worker_cidr;
    std::optional<std::string> pods_cidr;
    std::optional<std::string> services_cidr;
    int auto_scaler_min = 0;
    int auto_scaler_max = 0;
    int max_surge = 0;
    int max_unavailable = 0;
    bool enable_kubernetes_version_auto_update = false;
    bool enable_machine_image_version_auto_update = false;
    std::optional<std::string> exposure_class_name;
    ProviderConfig provider_config;
    std::optional<bool> shoot_networking_filter_disabled;
    std::optional<std::string> control_plane_failure_tolerance;
    bool eu_access = false;
    std::optional<OidcConfig> oidc;
    std::optional<DnsConfig> dns;
    /// kprov's own (gardener_config.hibernation_schedules): written to spec.hibernation.
    std::vector<HibernationSchedule> hibernation_schedules;
    /// kprov's own (gardener_config.cloud_profile): the profile chosen at provisioning (the
    /// runtime file's, else the provider's setting); nullopt for runtimes stored before, whose
    /// shoots use the provider's historical default.
    std::optional<CloudProfileRef> cloud_profile;

    bool operator==(const GardenerConfig&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Runtimes

/// A row of `cluster` with everything that hangs off it.
struct Runtime {
    std::string id;
    std::string tenant;
    std::string sub_account_id; ///< "" when the request had none
    Timestamp creation_timestamp;
    bool deleted = false; ///< soft delete, set at the end of deprovisioning

    // From the runtime input (kprov keeps them; the original left them to Director).
    std::string name;
    std::string description;
    std::string labels_json = "{}"; ///< a JSON object
    /// The active Kyma config (cluster.active_kyma_config_id); nullopt: no Kyma on this runtime.
    std::optional<KymaConfig> kyma;

    std::optional<std::string> kubeconfig; ///< admin kubeconfig cached after an upgrade
    std::vector<std::string> administrators;
    GardenerConfig gardener;

    bool operator==(const Runtime&) const = default;
};

/// A runtime as `list` shows it: the essentials and its last operation.
struct RuntimeSummary {
    std::string id;
    std::string name;
    std::string shoot_name;
    std::string provider;
    std::string region;
    std::string tenant;
    Timestamp creation_timestamp;
    bool deleted = false;
    std::optional<Operation> last_operation;
    std::string labels_json = "{}"; ///< filled by Store::query_runtimes only
};

/// A new random UUID v4 (122 random bits from the kernel) in canonical lower-case text.
/// Thread-safe. Throws std::system_error when the kernel gives no random bytes.
std::string new_uuid();

} // namespace kprov::engine
