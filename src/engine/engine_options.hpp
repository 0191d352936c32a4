#pragma once
// What the engine's service and executor need from the configuration: values only. The engine
// never reads configuration itself (it must not include config/): the caller fills EngineOptions
// from its Settings, and every default here is the original's (original-provisioner.md §2.7,
// §7.1). What the engine talks to (store, Gardener, Director, Kyma backends, landscape, clock,
// log) comes as EnginePorts (engine_ports.hpp).

#include "engine/input/runtime_input.hpp"
#include "engine/kyma.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/landscape.hpp"
#include "engine/ports.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "engine/util/duration.hpp"

#include <chrono>
#include <functional>
#include <string>

namespace kprov::engine {

/// Per-stage timeouts, measured from the operation's last_transition (start_timestamp when it
/// has none) and checked before each run of the stage. The names are those of the original's
/// APP_*_TIMEOUT_* settings; kprov's own stages (stages.hpp) have their own entries.
struct StageTimeouts {
    /// kprov: CreatingShoot. One POST (and a ConfigMap); retried while Gardener answers with
    /// retryable errors, so this bounds how long an unreachable Gardener is tolerated.
    Duration shoot_creation{std::chrono::minutes(10)};
    Duration cluster_domains{std::chrono::minutes(10)};     ///< WaitingForClusterDomain
    Duration cluster_creation{std::chrono::minutes(60)};    ///< WaitingForClusterCreation
    Duration bindings_creation{std::chrono::minutes(5)};    ///< CreatingBindingsForOperators
    Duration agent_configuration{std::chrono::minutes(15)}; ///< ConnectRuntimeAgent
    /// WaitForAgentToConnect (APP_PROVISIONING_TIMEOUT_AGENT_CONNECTION)
    Duration agent_connection{std::chrono::minutes(15)};
    /// kprov: UpgradingShoot, HibernatingShoot, WakingUpShoot (one write each, like
    /// shoot_creation).
    Duration shoot_update{std::chrono::minutes(10)};
    Duration shoot_refresh{std::chrono::minutes(5)};                 ///< WaitingForShootNewVersion
    Duration shoot_upgrade{std::chrono::minutes(30)};                ///< WaitingForShootUpgrade
    Duration cluster_deletion{std::chrono::minutes(30)};             ///< DeprovisionCluster
    Duration waiting_for_cluster_deletion{std::chrono::minutes(60)}; ///< WaitForClusterDeletion
    /// WaitForHibernation and WaitForWakeUp
    /// (APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION).
    Duration waiting_for_cluster_hibernation{std::chrono::minutes(60)};

    // The Kyma stages (kyma-installation.md §2.2).
    /// StartingInstallation (APP_PROVISIONING_TIMEOUT_INSTALLATION_TRIGGERING)
    Duration installation_triggering{std::chrono::minutes(20)};
    /// WaitingForInstallation, provisioning and upgrade (APP_PROVISIONING_TIMEOUT_INSTALLATION)
    Duration installation{std::chrono::minutes(60)};
    /// StartingUpgrade (APP_PROVISIONING_TIMEOUT_UPGRADE_TRIGGERING)
    Duration upgrade_triggering{std::chrono::minutes(20)};
    /// UpdatingUpgradeState: fixed in the original.
    Duration updating_upgrade_state{std::chrono::minutes(5)};
    /// CleanupCluster (APP_DEPROVISIONING_TIMEOUT_CLUSTER_CLEANUP)
    Duration cluster_cleanup{std::chrono::minutes(20)};
    /// TriggerKymaUninstall: fixed in the original.
    Duration trigger_uninstall{std::chrono::minutes(5)};
};

/// When a stage runs again. A recoverable error retries after `first_retry` doubled for every
/// consecutive failed pass up to `max_retry` (the original always waited 2 s, kprov's first
/// step); a waiting stage polls after its own delay (5 s, 20 s, 30 s). Each delay d becomes
/// d * (1 + jitter * u) with u uniform in [0, 1), so many operations do not poll in step.
struct RetryPolicy {
    Duration first_retry{std::chrono::seconds(2)};
    Duration max_retry{std::chrono::minutes(5)};
    double retry_jitter = 0.2;
    double poll_jitter = 0.1;
};

/// Compass Director (original-provisioner.md §6, APP_RUNTIME_(DE)REGISTRATION_ENABLED). kprov
/// calls Director only through EnginePorts::director, which is there exactly when one of the
/// flags is on (check_ports), and only for what is enabled.
struct DirectorOptions {
    /// Runtime ids come from registerRuntime; WaitingForClusterDomain labels the runtime and
    /// sets PROVISIONING; ConnectRuntimeAgent follows CreatingBindingsForOperators; failed
    /// provisionings and upgrades set FAILED; answers carry compassRuntimeID.
    bool registration_enabled = false;
    /// The end of deprovisioning unregisters the runtime; failed deprovisionings set FAILED.
    bool deregistration_enabled = false;
    /// A stage whose Director call still fails after this many consecutive failed passes fails
    /// the operation (component "compass director") instead of retrying until its timeout.
    int max_failed_passes = 8;

    bool registers() const { return registration_enabled; }
    bool deregisters() const { return deregistration_enabled; }
};

/// Installing Kyma (kyma-installation.md; KPROV_KYMA_INSTALLER). Without an installer
/// (KPROV_KYMA_INSTALLER=none) a request with a kymaConfig is refused at once. The backend
/// itself is a port (EnginePorts::kyma_installer or ::lifecycle_manager, present exactly as the
/// setting says).
struct KymaOptions {
    KlmOptions klm;
    /// The value of KPROV_KYMA_INSTALLER: "installation-cr", "lifecycle-manager" or "none".
    std::string installer_setting = "none";
    /// lifecycle-manager without KPROV_KCP_KUBECONFIG_PATH: there is no KCP to write to, so a
    /// kymaConfig is refused (kyma_installer_refusal says what to configure).
    bool kcp_missing = false;

    /// Whether requests with a kymaConfig are accepted: an installer is configured. Decided by
    /// the setting alone, for plans (which contact nothing) and requests alike.
    bool installs() const { return !kcp_missing && installer_setting != "none"; }
    /// Whether kymaConfig goes to Kyma Lifecycle Manager (by the setting alone).
    bool lifecycle() const { return installer_setting == "lifecycle-manager"; }
    /// How often WaitingForInstallation looks, and how long after a trigger (the original's 30 s).
    Duration poll{std::chrono::seconds(30)};
    /// APP_GARDENER_CLUSTER_CLEANUP_RESOURCE_SELECTOR: CleanupCluster deletes the Service
    /// Catalog instances of brokers whose URL starts with it.
    std::string cleanup_selector = "https://service-manager.";
};

struct EngineOptions {
    ConversionOptions conversion;
    ShootOptions shoot;
    StageTimeouts timeouts;
    RetryPolicy retry;
    /// APP_OPERATOR_ROLE_BINDING_*: subject names and whether administrators get bindings; the
    /// administrators themselves come from the runtime.
    OperatorBindings operator_bindings;
    DirectorOptions director;
    KymaOptions kyma;
    /// The adminkubeconfig expiration (the original's 8 h).
    std::chrono::seconds admin_kubeconfig_expiration{std::chrono::hours(8)};
    /// How long a claimed operation stays leased without renewal. The executor renews the
    /// lease of a running pass every third of it (lease_keeper.hpp).
    std::chrono::milliseconds lease_ttl{std::chrono::minutes(1)};
    /// APP_TENANT_STRICT: refuse requests whose tenant differs from the runtime's (403)
    /// instead of rewriting it (ARCHITECTURE.md, deliberate difference 3).
    bool tenant_strict = false;
    /// How often drive() looks at an operation that another worker holds.
    Duration drive_poll{std::chrono::seconds(1)};
};

} // namespace kprov::engine
