// What provisioning and an upgrade send to Gardener, built once for the requests, the plans
// and the stages alike.

#include "engine/service/service.hpp"
#include "engine/stages/stages.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {

ProvisionPlan plan_provision(const ProvisionInput& input, const RequestContext& context,
                             const EngineOptions& options, Landscape* landscape, Timestamp now,
                             const PlanIds& ids, LandscapeRequest::Kind kind) {
    if (input.kyma_config_json && !options.kyma.installs())
        throw kyma_installer_refusal(options.kyma);
    ProvisionPlan plan;
    plan.runtime = to_runtime(input, ids.runtime_id, context.tenant, context.sub_account, now,
                              options.conversion);
    if (landscape) {
        LandscapeRequest request;
        request.kind = kind;
        request.now = now;
        request.secret_binding = options.shoot.legacy_api;
        check_against_landscape(plan.runtime.gardener, *landscape, request);
    } else {
        plan.warnings.emplace_back(k_landscape_not_checked);
    }
    // The original's types: PROVISION installs Kyma, PROVISION_NO_INSTALL does not (§2.1).
    plan.operation = new_operation(ids.runtime_id,
                                   plan.runtime.kyma ? OperationType::Provision
                                                     : OperationType::ProvisionNoInstall,
                                   k_stage_creating_shoot, k_message_provisioning_started, now);
    plan.operation.id = ids.operation_id;
    // CreatingShoot builds the shoot again from the stored runtime, with the same function.
    plan.shoot = build_shoot(plan.runtime, plan.operation.id, options.shoot);
    const auto input_warnings = provision_input_warnings(input);
    plan.warnings.insert(plan.warnings.begin(), input_warnings.begin(), input_warnings.end());
    if (plan.runtime.kyma && options.kyma.lifecycle())
        check_lifecycle_manager_input(*plan.runtime.kyma, options.kyma, plan.warnings);
    plan.warnings.insert(plan.warnings.end(), plan.shoot.warnings.begin(),
                         plan.shoot.warnings.end());
    return plan;
}

namespace {

// The landscape's rules for the upgrade, and the move off a SecretBinding that Gardener needs
// for Kubernetes 1.34 and later, recorded in the merged config so that UpgradingShoot sends it.
void check_upgrade(UpgradePlan& plan, const Runtime& runtime, const ShootState& live,
                   const EngineOptions& options, Landscape* landscape, Timestamp now) {
    if (!landscape) {
        plan.warnings.emplace_back(k_landscape_not_checked);
        return;
    }
    LandscapeRequest request;
    request.kind = LandscapeRequest::Kind::Upgrade;
    request.prefix = "gardenerConfig";
    request.before = &runtime.gardener;
    request.live_version = live.kubernetes_version;
    request.now = now;
    check_against_landscape(plan.merged, *landscape, request);
    const auto secret_binding = secret_binding_of_shoot(live.json);
    const auto& version = plan.merged.kubernetes_version;
    if (!secret_binding || options.shoot.legacy_api || version.empty() ||
        compare_kubernetes_versions(version, "1.34.0") < 0)
        return;
    plan.merged.target_secret =
        credentials_binding_for(*landscape, *secret_binding, "gardenerConfig.kubernetesVersion");
    plan.warnings.push_back("shoot " + runtime.gardener.name + " moves from SecretBinding \"" +
                            *secret_binding + "\" to CredentialsBinding \"" +
                            plan.merged.target_secret +
                            "\", which holds the same Secret: Gardener refuses "
                            "secretBindingName for Kubernetes 1.34 and later");
}

} // namespace

UpgradePlan plan_upgrade(const Runtime& runtime, const ShootState& live,
                         const UpgradeShootInput& input, const EngineOptions& options,
                         Landscape* landscape, Timestamp now) {
    UpgradePlan plan;
    plan.warnings = upgrade_input_warnings(runtime.gardener, input);
    plan.merged = merge_upgrade(runtime.gardener, input);
    GardenerConfig& merged = plan.merged;
    if (!live.kubernetes_version.empty() && !merged.kubernetes_version.empty()) {
        const std::string requested = merged.kubernetes_version;
        merged.kubernetes_version =
            effective_kubernetes_version(live.kubernetes_version, requested);
        // Said out loud: a request that changes nothing here must not look like it did.
        if (input.gardener.kubernetes_version && merged.kubernetes_version != requested)
            plan.warnings.push_back(
                kept_kubernetes_version_warning(requested, live.kubernetes_version));
    }
    check_upgrade(plan, runtime, live, options, landscape, now);
    if (!input.gardener.shoot_networking_filter_disabled)
        if (const auto live_filter = live_networking_filter_disabled(live.json))
            merged.shoot_networking_filter_disabled = live_filter;
    // Exactly the stage's call: UpgradingShoot has only the stored config to go by.
    plan.upgrade =
        build_shoot_upgrade(live.json, merged, stored_upgrade_input(merged), options.shoot);
    // The live oidcConfig moved to structured authentication is the runtime's OIDC from now on.
    if (!merged.oidc && plan.upgrade.oidc)
        merged.oidc = plan.upgrade.oidc;
    // Legacy mode keeps the live shoot's cloudProfileName and secretBindingName and writes
    // oidcConfig: refused here, before anything is stored, for the versions Gardener refuses.
    if (options.shoot.legacy_api) {
        auto problems =
            legacy_api_problems(plan.upgrade.kubernetes_version, merged.oidc.has_value(),
                                "gardenerConfig.kubernetesVersion", "gardenerConfig.oidcConfig");
        if (!problems.empty())
            throw ValidationError(std::move(problems));
    }
    plan.live_shoot = live.json;
    return plan;
}

ShootNameTaken shoot_name_refusal(const std::string& owner_id, const Runtime& planned) {
    const auto& g = planned.gardener;
    return ShootNameTaken(g.project_name, g.name, owner_id,
                          ", made by another request: choose another shoot name, or deprovision "
                          "runtime " +
                              owner_id + " first");
}

std::string shoot_name_outcome(const std::optional<ShootNameOwner>& owner, const Runtime& planned) {
    if (!owner)
        return "would be created";
    if (owner->same_request)
        return "already requested: runtime " + owner->runtime_id +
               " is this request's, provision would answer with its operation";
    return std::string("refused: ") + shoot_name_refusal(owner->runtime_id, planned).what();
}

namespace {

bool same_json(const std::optional<std::string>& a, const std::optional<std::string>& b) {
    if (!a || !b)
        return a.has_value() == b.has_value();
    const auto left = nlohmann::json::parse(*a, nullptr, false);
    const auto right = nlohmann::json::parse(*b, nullptr, false);
    if (left.is_discarded() || right.is_discarded())
        return *a == *b;
    return left == right; // objects compare by member, whatever their order
}

// The same Kyma config as a request makes it: ids and the release's stored contents (the
// candidate has only its version) do not count.
bool same_kyma_request(const std::optional<KymaConfig>& a, const std::optional<KymaConfig>& b) {
    if (!a || !b)
        return !a && !b;
    auto comparable = [](KymaConfig c) {
        c.id.clear();
        c.cluster_id.clear();
        c.release = KymaRelease{{}, c.release.version, {}, {}};
        for (auto& component : c.components)
            component.id.clear();
        return c;
    };
    return comparable(*a) == comparable(*b);
}

} // namespace

bool is_same_provision_request(const Runtime& stored, const Runtime& planned) {
    // Compared as the request made them: what kprov set itself or learned since (ids, times,
    // the seed Gardener chose, the kubeconfig) does not count.
    Runtime candidate = planned;
    candidate.id = stored.id;
    candidate.creation_timestamp = stored.creation_timestamp;
    candidate.deleted = stored.deleted;
    candidate.kubeconfig = stored.kubeconfig;
    candidate.gardener.id = stored.gardener.id;
    if (candidate.gardener.seed.empty())
        candidate.gardener.seed = stored.gardener.seed;
    if (!same_json(candidate.labels_json, stored.labels_json) ||
        !same_kyma_request(candidate.kyma, stored.kyma))
        return false;
    candidate.labels_json = stored.labels_json;
    candidate.kyma = stored.kyma;
    return candidate == stored;
}

} // namespace kprov::engine
