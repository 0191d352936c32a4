// The Kyma stages (kyma-installation.md §2.3, §2.5, §3.2, §4.3, §4.4), written as the reference's
// tables: each stage probes the Installation CR through the KymaInstaller port and decides from
// what it read. Messages, components and reasons are the original's, literally.

#include "engine/stages/registration.hpp"
#include "engine/stages/stages.hpp"
#include "engine/unusable_release.hpp"

#include <algorithm>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;

StageError installer_error(const std::string& message, std::string_view reason,
                           bool recoverable = true) {
    return StageError(message, std::string(reason), std::string(k_component_kyma_installer),
                      recoverable);
}

// The admin kubeconfig the installer talks to the runtime with. The original read the one it
// had stored ("error: kubeconfig is nil" while it had none); kprov asks Gardener, once per pass.
std::string runtime_kubeconfig(StageContext& context) {
    try {
        return context.admin_kubeconfig();
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_gardener_client, true);
    }
}

// A kubeconfig the installer could not use: the original's K8s-mapped "failed to create
// kubernetes config from raw".
StageError unusable_kubeconfig(const ConfigError& e, bool recoverable = true) {
    return StageError("error: failed to create kubernetes config from raw: " +
                          std::string(e.what()),
                      {}, std::string(k_component_cluster_client), recoverable);
}

const KymaConfig& active_config(const StageContext& context) {
    if (!context.runtime().kyma)
        throw StageError::non_recoverable("error: runtime " + context.runtime().id +
                                          " has no Kyma configuration to install");
    return *context.runtime().kyma;
}

// Runs probe(); its failures as `check_failed` makes them.
template <typename OnFailure>
InstallationProbe probe(StageContext& context, const std::string& kubeconfig,
                        OnFailure check_failed) {
    try {
        return context.installer().probe(kubeconfig);
    } catch (const ConfigError& e) {
        throw unusable_kubeconfig(e);
    } catch (const InvalidInstallationState& e) {
        throw check_failed(e.what());
    } catch (const RemoteError& e) {
        throw check_failed(e.what());
    }
}

StageError check_failed_external(const std::string& what) {
    return installer_error("error: failed to check installation state: " + what,
                           k_reason_check_installation_state);
}

StageError check_failed_plain(const std::string& what) {
    return StageError::recoverable("error: failed to check installation CR state: " + what);
}

// Tiller (Helm 2, Kyma < 1.14) is never applied (§7.3): a release that carries it is noted.
void note_tiller(StageContext& context, const KymaConfig& config) {
    if (!config.release.tiller_yaml.empty())
        context.note("Kyma release " + config.release.version +
                     " carries a Tiller manifest; kprov does not apply it (Helm 2 is out of "
                     "support; Kyma before 1.14 needs it)");
}

// WaitingForInstallation (§2.5), for provisioning and upgrade; `next` follows Installed.
StageResult waiting_for_installation(StageContext& context, std::string_view next) {
    const std::string kubeconfig = runtime_kubeconfig(context);
    const InstallationProbe state = probe(context, kubeconfig, check_failed_external);
    const Duration poll = context.options().kyma.poll;
    switch (state.kind) {
    case InstallationProbe::Kind::InstallerError: {
        // The prefix really is doubled in the original.
        context.report("Installation error occurred: " + state.error_message);
        if (state.recoverable) {
            context.await_installation(kubeconfig, state.resource_version);
            return wait_in(k_stage_waiting_for_installation, poll);
        }
        std::string reason;
        for (const auto& entry : state.error_log)
            reason += (reason.empty() ? "" : ", ") + entry.component;
        throw installer_error(state.error_message, reason, false);
    }
    case InstallationProbe::Kind::NoInstallation:
        throw installer_error("installation not yet started", k_reason_no_installation);
    case InstallationProbe::Kind::State:
        break;
    }
    if (state.installed()) {
        context.report("Installation completed: " + state.description);
        return go_to(next);
    }
    context.report("Installation in progress: " + state.description);
    context.await_installation(kubeconfig, state.resource_version);
    return wait_in(k_stage_waiting_for_installation, poll);
}

StageResult waiting_for_upgrade_installation(StageContext& context) {
    return waiting_for_installation(context, k_stage_updating_upgrade_state);
}

// StartingUpgrade (§3.2).
StageResult starting_upgrade(StageContext& context) {
    const KymaConfig& config = active_config(context);
    const std::string kubeconfig = runtime_kubeconfig(context);
    const InstallationProbe state = probe(context, kubeconfig, check_failed_plain);
    const Duration poll = context.options().kyma.poll;
    const bool trigger =
        (state.kind == InstallationProbe::Kind::InstallerError && !state.recoverable) ||
        state.installed();
    if (state.kind == InstallationProbe::Kind::NoInstallation)
        throw StageError::non_recoverable(
            "error: Installation CR not found in the cluster, cannot trigger upgrade");
    // WaitingForInstallation runs at the CR's next change, or after the original's 30 s.
    context.await_installation(kubeconfig, state.resource_version);
    if (!trigger) // in progress, a recoverable error, or an empty state: the original waits
        return wait_in(k_stage_waiting_for_installation, poll);
    note_tiller(context, config);
    try {
        context.installer().upgrade(kubeconfig, config);
    } catch (const UnusableRelease& e) {
        throw installer_error("error: " + std::string(e.what()), k_reason_trigger_install, false);
    } catch (const ConfigError& e) {
        throw unusable_kubeconfig(e);
    } catch (const RemoteError& e) {
        throw StageError::recoverable("error: failed to trigger upgrade: " + std::string(e.what()));
    }
    return wait_in(k_stage_waiting_for_installation, poll);
}

// UpdatingUpgradeState (§3.2): the runtime_upgrade row is written with the pass's progress.
StageResult updating_upgrade_state(StageContext& context) {
    context.change().upgrade_state = UpgradeState::Succeeded;
    return go_to(k_stage_finished);
}

// What CleanupCluster and TriggerKymaUninstall share (§4.3, §4.4 step 1): the runtime cluster to
// talk to, or nullopt when the stage has nothing to do there: no kubeconfig can be had (the
// cluster never came up), the shoot is gone, hibernated, or not this runtime's.
std::optional<std::string> reachable_cluster(StageContext& context) {
    const auto shoot = context.read_shoot();
    if (!shoot || shoot->is_hibernated || !is_own_shoot(*shoot, context.runtime().id))
        return std::nullopt;
    try {
        return context.admin_kubeconfig();
    } catch (const RemoteError& e) {
        if (e.http_status() == 422 || e.http_status() == 404)
            return std::nullopt; // Gardener has no kubeconfig for it
        throw from_remote(e, k_component_gardener_client, true);
    }
}

} // namespace

KymaInstaller& StageContext::installer() const {
    if (m_options.kyma.installer_setting != "installation-cr") // its port is then there
        throw StageError::recoverable(
            "runtime " + m_runtime.id + " has a kymaConfig, but KPROV_KYMA_INSTALLER is " +
            m_options.kyma.installer_setting +
            ": set KPROV_KYMA_INSTALLER=installation-cr for kprov to go on with it");
    return *m_ports.kyma_installer;
}

std::string_view after_bindings(const StageContext& context) {
    if (uses_lifecycle_manager(context))
        return k_stage_applying_kyma_secret;
    if (context.runtime().kyma)
        return k_stage_starting_installation;
    return context.options().director.registers() ? k_stage_connect_runtime_agent
                                                  : k_stage_finished;
}

// StartingInstallation (§2.3).
StageResult starting_installation(StageContext& context) {
    const KymaConfig& config = active_config(context);
    const std::string kubeconfig = runtime_kubeconfig(context);
    const InstallationProbe state = probe(context, kubeconfig, check_failed_external);
    // An installer error, InProgress or Installed: "already in progress" (rows 3 and 5), which
    // is also what a re-run after a crash between the trigger and the next probe finds.
    const bool untouched = state.kind == InstallationProbe::Kind::NoInstallation ||
                           (state.kind == InstallationProbe::Kind::State && state.state.empty());
    if (!untouched)
        return go_to(k_stage_waiting_for_installation);
    note_tiller(context, config);
    try {
        context.installer().install(kubeconfig, config);
    } catch (const UnusableRelease& e) {
        throw installer_error("error: " + std::string(e.what()), k_reason_trigger_install, false);
    } catch (const ConfigError& e) {
        throw unusable_kubeconfig(e);
    } catch (const RemoteError& e) {
        throw installer_error("error: failed to start installation: " + std::string(e.what()),
                              k_reason_trigger_install);
    }
    // The trigger changed the CR since the probe: the watch from the probe's version wakes the
    // operation at once, and then at every step of the installer.
    context.await_installation(kubeconfig, state.resource_version);
    return wait_in(k_stage_waiting_for_installation, context.options().kyma.poll);
}

StageResult waiting_for_provisioning_installation(StageContext& context) {
    return waiting_for_installation(context, context.options().director.registers()
                                                 ? k_stage_connect_runtime_agent
                                                 : k_stage_finished);
}

StageResult cleanup_cluster(StageContext& context) {
    const auto kubeconfig = reachable_cluster(context);
    if (!kubeconfig)
        return go_to(k_stage_trigger_kyma_uninstall);
    try {
        context.installer().cleanup(*kubeconfig, context.options().kyma.cleanup_selector);
    } catch (const ConfigError& e) {
        throw unusable_kubeconfig(e, false);
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_cluster_client, true);
    }
    return go_to(k_stage_trigger_kyma_uninstall);
}

StageResult trigger_kyma_uninstall(StageContext& context) {
    const auto kubeconfig = reachable_cluster(context);
    if (!kubeconfig)
        return go_to(k_stage_deprovision_cluster);
    try {
        // A CR that vanished since the request is nothing to uninstall (§7.4; the original
        // failed for 5 minutes).
        if (!context.installer().uninstall(*kubeconfig))
            context.note("no Installation CR on the runtime cluster: nothing to uninstall");
    } catch (const ConfigError& e) {
        throw unusable_kubeconfig(e, false);
    } catch (const RemoteError& e) {
        throw installer_error(e.what(), k_reason_trigger_uninstall);
    }
    // Fire and forget: the shoot's deletion starts at once.
    return go_to(k_stage_deprovision_cluster);
}

StageTable kyma_upgrade_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return StageTable({
        {std::string(k_stage_starting_upgrade), t.upgrade_triggering, starting_upgrade},
        {std::string(k_stage_waiting_for_installation), t.installation,
         waiting_for_upgrade_installation},
        {std::string(k_stage_updating_upgrade_state), t.updating_upgrade_state,
         updating_upgrade_state},
    });
}

} // namespace kprov::engine
