// The stages of the lifecycle-manager backend (kyma-lifecycle-manager.md §6, "Backend algorithm"):
// provisioning writes the kubeconfig Secret and the Kyma into the KCP and waits for the Kyma to be
// Ready; deprovisioning deletes the Kyma before the shoot and, when KLM cannot let go of it (a
// stuck module, an unreachable runtime), deletes the Secret so that it does (§4.2-4.3).

#include "engine/kyma_lifecycle.hpp"
#include "engine/stages/stages.hpp"

namespace kprov::engine {
namespace {

StageError klm_error(const std::string& message, bool recoverable = true,
                     std::string_view reason = {}) {
    return StageError(message, std::string(reason), std::string(k_component_lifecycle_manager),
                      recoverable);
}

// Runs one call to the KCP; its failures are recoverable errors naming the KCP.
template <typename Call> auto on_kcp(StageContext& context, std::string_view what, Call call) {
    try {
        return call(context.lifecycle_manager());
    } catch (const RemoteError& e) {
        throw klm_error("error: failed to " + std::string(what) + " in the KCP (" +
                            context.lifecycle_manager().server() + "): " + e.what(),
                        e.retryable() || e.http_status() == 0 || e.http_status() >= 500 ||
                            e.http_status() == 409 || e.http_status() == 429);
    }
}

std::string kyma_of(const StageContext& context) {
    return kyma_name_of(context.runtime().id);
}

std::string where(StageContext& context) {
    return context.lifecycle_manager().namespace_name() + "/" + kyma_of(context);
}

// The runtime cannot be cleaned by KLM: its shoot is gone, hibernated or not this runtime's.
bool runtime_unreachable(StageContext& context) {
    const auto shoot = context.shoot();
    return !shoot || shoot->is_hibernated || shoot->deletion_timestamp ||
           !is_own_shoot(*shoot, context.runtime().id);
}

// ApplyingKymaSecret: a fresh admin kubeconfig into kubeconfig-<runtime id> (§2).
StageResult applying_kyma_secret(StageContext& context) {
    const KlmOptions& klm = context.options().kyma.klm;
    std::string kubeconfig;
    try {
        kubeconfig =
            context.shoots().admin_kubeconfig(context.shoot_name(), klm.kubeconfig_expiration);
    } catch (const RemoteError& e) {
        throw from_remote(e, k_component_gardener_client, true);
    }
    const auto removed = on_kcp(context, "write the kubeconfig Secret", [&](auto& kcp) {
        return kcp.apply_secret(
            build_access_secret(context.runtime(), std::move(kubeconfig), context.now()));
    });
    for (const auto& name : removed)
        context.note("deleted Secret " + context.lifecycle_manager().namespace_name() + "/" + name +
                     ": it also named Kyma " + kyma_of(context) +
                     ", and Kyma Lifecycle Manager needs exactly one such Secret");
    return go_to(k_stage_applying_kyma);
}

// ApplyingKyma: the Kyma resource (§6); a Kyma that exists keeps its spec (§3.5).
StageResult applying_kyma(StageContext& context) {
    const Runtime& runtime = context.runtime();
    if (!runtime.kyma)
        throw StageError::non_recoverable("error: runtime " + runtime.id +
                                          " has no Kyma configuration to install");
    for (const auto& problem : unrepresentable_kyma_fields(*runtime.kyma))
        context.note("kymaConfig: " + problem.path + " " + problem.message +
                     "; not passed to Kyma Lifecycle Manager (KPROV_KYMA_LOSSY=warn)");
    const auto shoot = context.shoot();
    const std::string domain = shoot && shoot->dns_domain ? *shoot->dns_domain : "";
    const KymaResource kyma = build_kyma_resource(runtime, domain, context.options().kyma.klm);
    on_kcp(context, "apply the Kyma resource", [&](auto& kcp) { return kcp.apply_kyma(kyma); });
    std::string modules;
    for (const auto& m : kyma.modules)
        modules += (modules.empty() ? "" : ", ") + m.name;
    context.report("Kyma " + where(context) + " applied: channel " + kyma.channel + ", modules " +
                   (modules.empty() ? "none" : modules));
    return go_to(k_stage_waiting_for_kyma_ready);
}

// WaitingForKymaReady: status.state Ready; every other state may still change (§6 step 3).
StageResult waiting_for_kyma_ready(StageContext& context) {
    const std::string name = kyma_of(context);
    const auto state =
        on_kcp(context, "read the Kyma resource", [&](auto& kcp) { return kcp.read_kyma(name); });
    if (!state) {
        context.note("Kyma " + where(context) + " is gone; applying it again");
        return go_to(k_stage_applying_kyma);
    }
    context.report(kyma_progress(*state));
    if (state->ready())
        return go_to(context.options().director.registers() ? k_stage_connect_runtime_agent
                                                            : k_stage_finished);
    context.await_installation(name, state->resource_version);
    return wait_in(k_stage_waiting_for_kyma_ready, context.options().kyma.klm.poll);
}

// What a WaitingForKymaReady that timed out fails with: what the Kyma says of itself.
StageError kyma_not_ready(StageContext& context) {
    std::string detail;
    try {
        if (const auto state = context.lifecycle_manager().read_kyma(kyma_of(context))) {
            detail = "state " + (state->state.empty() ? std::string("(none)") : state->state);
            if (!state->last_operation.empty())
                detail += ", last operation \"" + state->last_operation + "\"";
            if (const auto pending = modules_not_ready(*state); !pending.empty())
                detail += "; modules not ready: " + pending;
        } else {
            detail = "it does not exist";
        }
    } catch (const std::exception& e) {
        detail = "it could not be read: " + std::string(e.what());
    }
    return klm_error("error: timeout waiting for Kyma " + where(context) +
                         " to be Ready: " + detail,
                     false, k_reason_timeout);
}

// DeletingKyma: the Kyma goes first, so that its modules remove what they made (§4.1).
StageResult deleting_kyma(StageContext& context) {
    const std::string name = kyma_of(context);
    if (!on_kcp(context, "delete the Kyma resource",
                [&](auto& kcp) { return kcp.delete_kyma(name); }))
        context.note("no Kyma " + where(context) + " to delete");
    return go_to(k_stage_waiting_for_kyma_deletion);
}

bool delete_secret(StageContext& context) {
    const std::string secret = kyma_secret_name_of(context.runtime().id);
    return on_kcp(context, "delete the kubeconfig Secret",
                  [&](auto& kcp) { return kcp.delete_secret(secret); });
}

// WaitingForKymaDeletion: KLM drops its finalizer once the modules are gone. When it cannot
// (the runtime is unreachable, or the deletion outlasts KlmOptions::deletion_timeout), the
// Secret goes, and KLM lets go without cleaning the runtime (§4.3); after a second timeout the
// shoot is deleted all the same, never before the Secret.
StageResult waiting_for_kyma_deletion(StageContext& context) {
    const std::string name = kyma_of(context);
    const auto state =
        on_kcp(context, "read the Kyma resource", [&](auto& kcp) { return kcp.read_kyma(name); });
    if (!state)
        return go_to(k_stage_deprovision_cluster);
    const Duration waited = std::chrono::duration_cast<Duration>(
        context.now() - context.operation().last_transition.value_or(context.now()));
    const Duration timeout = context.options().kyma.klm.deletion_timeout;
    if (waited >= timeout || runtime_unreachable(context)) {
        if (delete_secret(context))
            context.note("deleted Secret " + context.lifecycle_manager().namespace_name() + "/" +
                         kyma_secret_name_of(context.runtime().id) +
                         " so that Kyma Lifecycle Manager lets " + "go of Kyma " + name +
                         (waited >= timeout
                              ? " (its deletion took longer than " + format_duration(timeout) + ")"
                              : " (the runtime cannot be reached)") +
                         "; the modules' resources stay on the runtime until the shoot goes");
    }
    if (waited >= 2 * timeout) {
        context.note("Kyma " + where(context) + " is still there after " + format_duration(waited) +
                     " (" + kyma_progress(*state) + "); deleting the shoot all the same");
        return go_to(k_stage_deprovision_cluster);
    }
    context.report("waiting for Kyma " + where(context) + " to be deleted: " +
                   (state->last_operation.empty() ? state->state : state->last_operation));
    context.await_installation(name, state->resource_version);
    // Look again at the next deadline at the latest: with a poll longer than the timeout, the
    // first look after it would otherwise already be past twice the timeout, and the shoot would
    // go while KLM still holds the Kyma, its Secret never deleted.
    const Duration next_deadline = waited < timeout ? timeout - waited : 2 * timeout - waited;
    return wait_in(k_stage_waiting_for_kyma_deletion,
                   std::min(context.options().kyma.klm.poll, next_deadline));
}

} // namespace

bool uses_lifecycle_manager(const StageContext& context) {
    const auto& kyma = context.options().kyma;
    return context.runtime().kyma && kyma.lifecycle() && !kyma.kcp_missing;
}

KymaLifecycleManager& StageContext::lifecycle_manager() const {
    if (!m_options.kyma.lifecycle() || m_options.kyma.kcp_missing) // else its port is there
        throw StageError::recoverable(
            "runtime " + m_runtime.id + " has Kyma, but KPROV_KYMA_INSTALLER is " +
            m_options.kyma.installer_setting +
            ": set KPROV_KYMA_INSTALLER=lifecycle-manager for kprov to go on with it");
    return *m_ports.lifecycle_manager;
}

void delete_kyma_secret_if_any(StageContext& context) {
    if (uses_lifecycle_manager(context))
        delete_secret(context);
}

std::vector<StageDef> klm_provision_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    return {
        {std::string(k_stage_applying_kyma_secret), t.installation_triggering,
         applying_kyma_secret},
        {std::string(k_stage_applying_kyma), t.installation_triggering, applying_kyma},
        {std::string(k_stage_waiting_for_kyma_ready), t.installation, waiting_for_kyma_ready,
         kyma_not_ready},
    };
}

std::vector<StageDef> klm_deprovision_stages(const EngineOptions& options) {
    const auto& t = options.timeouts;
    // Long enough for both waits of WaitingForKymaDeletion and a few polls after them.
    const Duration both_waits = 2 * options.kyma.klm.deletion_timeout + 5 * options.kyma.klm.poll;
    return {
        {std::string(k_stage_deleting_kyma), t.trigger_uninstall, deleting_kyma},
        {std::string(k_stage_waiting_for_kyma_deletion), both_waits, waiting_for_kyma_deletion},
    };
}

} // namespace kprov::engine
