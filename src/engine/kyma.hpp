#pragma once
// Kyma on a runtime: its configuration (the original's kyma_config, kyma_component_config and
// kyma_release tables, kyma-installation.md §1), the upgrade record (runtime_upgrade, §3.3) and
// the two ports the Kyma stages use: KymaInstaller (the runtime cluster side, §2.4-§4.4, §7.1)
// and ReleaseSource (where a release's YAML comes from, §1.5). Values here are plaintext; the
// stores encrypt secret configuration values at rest.

#include "engine/error.hpp"

#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// The DB enum kyma_profile.
enum class KymaProfile { Evaluation, Production };
/// "EVALUATION", "PRODUCTION"
std::string_view to_db(KymaProfile profile);
/// "Evaluation", "Production"
std::string_view to_api(KymaProfile profile);
/// "evaluation", "production": the Installation CR's spec.profile.
std::string_view to_cr(KymaProfile profile);
/// Either spelling, case-insensitively; nullopt for anything else.
std::optional<KymaProfile> kyma_profile_from_text(std::string_view text);

/// ConfigEntryInput: one override, a dotted Helm path and its value.
struct KymaConfigEntry {
    std::string key;
    std::string value; ///< plaintext; a secret one is encrypted by the store
    bool secret = false;
    bool operator==(const KymaConfigEntry&) const = default;
};

/// The original's configuration object ({"configEntries": [...], "conflictStrategy": ...}).
struct KymaOverrides {
    std::vector<KymaConfigEntry> entries;
    std::string conflict_strategy; ///< "", "Merge" or "Replace" (the GraphQL enum name)
    bool operator==(const KymaOverrides&) const = default;
};

/// A row of kyma_component_config.
struct KymaComponent {
    std::string id;
    std::string name;       ///< `component`: the Helm release name
    std::string namespace_; ///< `namespace`
    std::optional<std::string> source_url;
    KymaOverrides configuration;
    int order = 0; ///< component_order, 1-based; 0 for the original's rows from before 2020-03
    bool operator==(const KymaComponent&) const = default;
};

/// A row of kyma_release.
struct KymaRelease {
    std::string id;
    std::string version;
    std::string tiller_yaml;    ///< "" when the release has none (Kyma >= 1.14); never applied
    std::string installer_yaml; ///< kyma-installer-cluster.yaml
    bool operator==(const KymaRelease&) const = default;
};

/// A row of kyma_config with its components (in installation order) and its release. Never
/// updated in place: every provisioning and upgrade writes a new one.
struct KymaConfig {
    std::string id;
    std::string cluster_id;
    /// Store::find_runtime fills all of it; find_runtime_status only id and version.
    KymaRelease release;
    std::optional<KymaProfile> profile;
    std::vector<KymaComponent> components;
    KymaOverrides global; ///< global_configuration
    bool operator==(const KymaConfig&) const = default;
};

/// The DB enum runtime_upgrade_state.
enum class UpgradeState { InProgress, Succeeded, Failed, RolledBack };
/// "IN_PROGRESS", "SUCCEEDED", "FAILED", "ROLLED_BACK"
std::string_view to_db(UpgradeState state);
std::optional<UpgradeState> upgrade_state_from_db(std::string_view text);

/// A row of runtime_upgrade: one per UPGRADE operation.
struct RuntimeUpgradeRecord {
    std::string id;
    std::string operation_id;
    UpgradeState state = UpgradeState::InProgress;
    std::string pre_upgrade_kyma_config_id;
    std::string post_upgrade_kyma_config_id;
    bool operator==(const RuntimeUpgradeRecord&) const = default;
};

// ---------------------------------------------------------------------------------------------
// The runtime cluster side

/// An entry of the Installation's status.errorLog.
struct InstallationErrorEntry {
    std::string component;
    std::string log;
    int occurrences = 0;
    bool operator==(const InstallationErrorEntry&) const = default;
};

/// What KymaInstaller::probe read (the table of kyma-installation.md §2.5).
struct InstallationProbe {
    enum class Kind {
        NoInstallation, ///< no Installation CR on the cluster
        State,          ///< state "", "InProgress" or "Installed", with its description
        InstallerError, ///< state "Error": message, recoverability, errorLog
    };
    Kind kind = Kind::NoInstallation;
    std::string state;       ///< Kind::State: "", "InProgress" or "Installed"
    std::string description; ///< status.description; NoInstallation: the original's text
    /// InstallerError: "installation error occurred: <description>".
    std::string error_message;
    /// InstallerError: the CR still carries the label action=install.
    bool recoverable = false;
    std::vector<InstallationErrorEntry> error_log;
    /// metadata.resourceVersion of the CR read ("" for NoInstallation): KymaInstaller::
    /// await_change waits for a version after it.
    std::string resource_version;

    bool installed() const { return kind == Kind::State && state == "Installed"; }
};

/// A probe found a state outside the contract ("invalid installation state: Bogus").
class InvalidInstallationState : public Error {
public:
    using Error::Error;
};

/// Installs, upgrades and uninstalls Kyma on one runtime cluster, reached with an admin
/// kubeconfig (YAML text). Thread-safe. Every method throws RemoteError (or a subclass) when the
/// cluster answers with an error or not at all, and ConfigError when `kubeconfig` cannot be
/// used (the original's "failed to create kubernetes config from raw").
class KymaInstaller {
public:
    virtual ~KymaInstaller() = default;

    /// The backend's name as KPROV_KYMA_INSTALLER spells it ("installation-cr").
    virtual std::string_view name() const = 0;

    /// Reads the installation's state (§2.5). Throws InvalidInstallationState for a state the
    /// contract does not know.
    virtual InstallationProbe probe(const std::string& kubeconfig) = 0;

    /// Triggers the installation of `config` (its release's YAML, its components in order and
    /// its overrides; §2.4). Idempotent: applying again converges on the same objects.
    virtual void install(const std::string& kubeconfig, const KymaConfig& config) = 0;

    /// Triggers the upgrade to `config`: install(), after the installer's Deployment was deleted
    /// so that the new release's installer starts fresh (§3.2).
    virtual void upgrade(const std::string& kubeconfig, const KymaConfig& config) = 0;

    /// Asks the installer to uninstall Kyma (label action=uninstall on the CR; fire and forget,
    /// §4.4). False when there is no Installation CR (nothing to uninstall).
    virtual bool uninstall(const std::string& kubeconfig) = 0;

    /// Deletes the Service Catalog instances of brokers whose URL starts with `selector` and
    /// strips every broker's finalizers (§4.3); does nothing where Service Catalog is absent.
    virtual void cleanup(const std::string& kubeconfig, const std::string& selector) = 0;

    /// Blocks until the Installation CR changes after `resource_version` (a watch; "" for any
    /// change from now on), `max_wait` passes or `stop` is requested; returns true when it saw
    /// a change. False at once when the backend or the cluster cannot watch: the caller polls
    /// instead. Throws nothing.
    virtual bool await_change(const std::string& kubeconfig, const std::string& resource_version,
                              std::chrono::milliseconds max_wait, std::stop_token stop) {
        (void)kubeconfig;
        (void)resource_version;
        (void)max_wait;
        (void)stop;
        return false;
    }
};

/// Where the YAML of a Kyma release comes from (§1.5): kyma-installer-cluster.yaml and
/// tiller.yaml under a URL prefix per version. Thread-safe.
class ReleaseSource {
public:
    virtual ~ReleaseSource() = default;
    /// Downloads the release `version` (id left empty). Throws RemoteError with the original's
    /// messages ("Failed to download installer YAML release for version <v>: ...").
    virtual KymaRelease fetch(const std::string& version) = 0;
};

/// Whether `version` is one of the on-demand versions served from the development bucket: it
/// starts with "PR-" or "main-", or is "main" (case-insensitively).
bool is_on_demand_version(std::string_view version);

} // namespace kprov::engine
