// The synchronous part of the Kyma operations (kyma-installation.md §1.5, §3.1, §3.4, §4.1).

#include "engine/service/service.hpp"
#include "engine/stages/stages.hpp"

namespace kprov::engine {

ValidationError kyma_installer_refusal(const KymaOptions& options) {
    if (options.kcp_missing)
        return ValidationError(
            "kymaConfig",
            "kprov installs Kyma through Kyma Lifecycle Manager (KPROV_KYMA_INSTALLER=" +
                options.installer_setting +
                "), but no Kyma Control Plane is configured: set KPROV_KCP_KUBECONFIG_PATH (config "
                "key kcp.kubeconfig_path) to the KCP's kubeconfig, or, on an old landscape whose "
                "clusters still run Kyma 1.x, KPROV_KYMA_INSTALLER=installation-cr; or leave "
                "kymaConfig out");
    return ValidationError(
        "kymaConfig",
        "kprov installs no Kyma: KPROV_KYMA_INSTALLER is " + options.installer_setting +
            ". Set KPROV_KYMA_INSTALLER=lifecycle-manager (with KPROV_KCP_KUBECONFIG_PATH) to "
            "install today's Kyma modules through Kyma Lifecycle Manager, or installation-cr for "
            "Kyma 1.x's Installation CR, or leave kymaConfig out");
}

void check_lifecycle_manager_input(const KymaConfig& config, const KymaOptions& options,
                                   std::vector<std::string>& warnings) {
    std::vector<FieldProblem> problems = unknown_kyma_modules(config, options.klm);
    auto lossy = unrepresentable_kyma_fields(config);
    if (options.klm.lossy_warn) {
        for (const auto& p : lossy)
            warnings.push_back("kymaConfig: " + p.path + " " + p.message +
                               "; not passed to Kyma Lifecycle Manager (KPROV_KYMA_LOSSY=warn)");
    } else {
        for (auto& p : lossy) {
            p.message += "; Kyma Lifecycle Manager cannot honour it (leave it out, or set "
                         "KPROV_KYMA_LOSSY=warn to install without it)";
            problems.push_back(std::move(p));
        }
    }
    if (!problems.empty())
        throw ValidationError(std::move(problems));
}

KymaRelease EngineService::channel_release(const std::string& channel) {
    if (auto stored = m_store.find_kyma_release(channel))
        return std::move(*stored);
    // No installer YAML: a channel is all Kyma Lifecycle Manager needs.
    return m_store.insert_kyma_release(KymaRelease{{}, channel, {}, {}});
}

KymaRelease EngineService::release_of(const std::string& version, bool store) {
    if (auto stored = m_store.find_kyma_release(version))
        return std::move(*stored);
    if (!m_ports.releases)
        throw NotFound("Kyma Release " + version + " not found");
    KymaRelease release = m_ports.releases->fetch(version);
    release.version = version;
    if (!store)
        return release;
    // Of two requests downloading one version, the store keeps the first (the original's
    // unique-violation rule) and both go on with it.
    return m_store.insert_kyma_release(release);
}

StartedOperation EngineService::upgrade_kyma(const std::string& runtime_id,
                                             const KymaUpgradeInput& input,
                                             const RequestContext& context) {
    if (!m_options.kyma.installs())
        throw kyma_installer_refusal(m_options.kyma);
    const Runtime runtime = load_runtime(runtime_id, context);
    if (!runtime.kyma)
        throw KymaNotManaged("failed to upgrade cluster: " + runtime_id +
                             " Kyma configuration of the cluster is managed by Reconciler");
    if (m_options.kyma.lifecycle())
        // kyma-lifecycle-manager.md §1.6: once KLM reached the runtime, it takes modules and
        // channel from the runtime's own Kyma (kyma-system/default) and never again from the
        // KCP's; an edit in the KCP would be accepted and then ignored.
        throw KymaNotManaged(
            "failed to upgrade cluster: " + runtime_id +
            " has its Kyma modules from Kyma Lifecycle Manager, which takes them from the "
            "runtime's own Kyma resource (kyma-system/default) once it has reached the runtime: "
            "change spec.modules or spec.channel there (kprov kubeconfig " +
            runtime_id + " gives access)");
    if (const auto last = m_store.last_operation(runtime_id);
        last && last->state == OperationState::InProgress)
        throw OperationInProgress(runtime_id);
    KymaConfig config = to_kyma_config(input.kyma_config_json, runtime.id);
    config.release = release_of(config.release.version, true);
    const Operation op = new_operation(runtime.id, OperationType::Upgrade, k_stage_starting_upgrade,
                                       k_message_kyma_upgrade_started, m_clock.now());
    const RuntimeUpgradeRecord record{new_uuid(), op.id, UpgradeState::InProgress, runtime.kyma->id,
                                      config.id};
    return start(runtime, op, context, [&] {
        m_store.insert_kyma_upgrade(op, config,
                                    record); // OperationInProgress: the database decides
    });
}

void EngineService::roll_back_kyma(const std::string& runtime_id, const RequestContext& context) {
    const Runtime runtime = load_runtime(runtime_id, context);
    const auto last = m_store.last_operation(runtime_id);
    if (!last || last->type != OperationType::Upgrade || last->state == OperationState::InProgress)
        throw ValidationError("id", "error: upgrade can be rolled back only if it is the last "
                                    "operation that is already finished");
    try {
        m_store.roll_back_upgrade(runtime_id, last->id);
    } catch (const NotFound& e) {
        throw Error("error rolling back last upgrade: " + std::string(e.what()));
    }
    apply_tenant(runtime.id, runtime.tenant, nullptr, context, "a rollBackUpgradeOperation");
}

bool EngineService::deprovision_with_uninstall(const Runtime& runtime,
                                               const std::optional<ShootState>& shoot) {
    if (!runtime.kyma)
        return false;
    if (m_options.kyma.lifecycle() && !m_options.kyma.kcp_missing)
        return true; // the Kyma in the KCP goes first, whatever became of the shoot
    if (m_options.kyma.installer_setting != "installation-cr") {
        log(LogLevel::Warning, "runtime " + runtime.id + " has Kyma, but KPROV_KYMA_INSTALLER is " +
                                   m_options.kyma.installer_setting +
                                   ": deprovisioning it without uninstalling Kyma");
        return false;
    }
    if (!shoot || !is_own_shoot(*shoot, runtime.id))
        return true; // the stages find nothing to do there and skip themselves
    std::string kubeconfig;
    try {
        kubeconfig =
            m_shoots.admin_kubeconfig(runtime.gardener.name, m_options.admin_kubeconfig_expiration);
    } catch (const std::exception&) {
        return true; // as the original with no kubeconfig: the stages skip themselves
    }
    try {
        // Only a cluster without an Installation CR (Kyma managed elsewhere) goes without.
        return m_ports.kyma_installer->probe(kubeconfig).kind !=
               InstallationProbe::Kind::NoInstallation;
    } catch (const std::exception&) {
        return true; // the original ignored the error
    }
}

} // namespace kprov::engine
