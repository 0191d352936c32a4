#include "config/engine_options.hpp"

#include "engine/error.hpp"
#include "engine/util/duration.hpp"

#include <fstream>
#include <sstream>

namespace kprov::config {

engine::ConversionOptions conversion_options(const Settings& settings) {
    engine::ConversionOptions options;
    options.gardener_project = settings.gardener_project;
    options.default_enable_kubernetes_version_auto_update =
        settings.default_enable_kubernetes_version_auto_update;
    options.default_enable_machine_image_version_auto_update =
        settings.default_enable_machine_image_version_auto_update;
    options.kyma_requires_runtime_agent = settings.kyma_installer != "lifecycle-manager";
    options.legacy_api = settings.gardener_legacy_api;
    options.cloud_profiles = {{"aws", settings.cloud_profile_aws},
                              {"azure", settings.cloud_profile_azure},
                              {"gcp", settings.cloud_profile_gcp},
                              {"openstack", settings.cloud_profile_openstack}};
    return options;
}

engine::ShootOptions shoot_options(const Settings& settings) {
    engine::ShootOptions options;
    options.project = settings.gardener_project;
    options.legacy_api = settings.gardener_legacy_api;
    options.audit_policy_config_map = settings.audit_logs_policy_config_map;
    const auto& path = settings.maintenance_window_config_path;
    if (!path.empty()) {
        std::ifstream in(path);
        if (!in)
            throw ConfigError("APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH=\"" + path +
                              "\" cannot be read (change it, or the config key "
                              "gardener.maintenance_window_config_path)");
        std::ostringstream text;
        text << in.rdbuf();
        try {
            options.maintenance_windows = engine::parse_maintenance_windows(text.str());
        } catch (const ValidationError& e) {
            throw ConfigError("maintenance window file " + path + ": " + e.what());
        }
    }
    return options;
}

engine::KlmOptions klm_options(const Settings& settings) {
    engine::KlmOptions klm;
    if (!engine::is_kyma_channel(settings.kyma_channel))
        throw ConfigError("KPROV_KYMA_CHANNEL \"" + settings.kyma_channel +
                          "\" is not a channel name (3 to 32 lower-case letters, not "
                          "\"none\"), e.g. regular or fast");
    klm.default_channel = settings.kyma_channel;
    std::string_view rest = settings.kyma_modules;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::string_view name = rest.substr(0, comma);
        while (!name.empty() && name.front() == ' ')
            name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ')
            name.remove_suffix(1);
        if (!name.empty())
            klm.modules.emplace_back(name);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    if (settings.kyma_lossy != "refuse" && settings.kyma_lossy != "warn")
        throw ConfigError("KPROV_KYMA_LOSSY \"" + settings.kyma_lossy +
                          "\" is neither refuse (the default) nor warn");
    klm.lossy_warn = settings.kyma_lossy == "warn";
    klm.deletion_timeout = settings.kyma_deletion_timeout;
    if (settings.kyma_kubeconfig_expiration < std::chrono::minutes(10))
        throw ConfigError("KPROV_KYMA_KUBECONFIG_EXPIRATION " +
                          format_duration(settings.kyma_kubeconfig_expiration) +
                          " is shorter than Gardener's minimum of 10m");
    if (settings.kyma_kubeconfig_rotation >= settings.kyma_kubeconfig_expiration)
        throw ConfigError("KPROV_KYMA_KUBECONFIG_ROTATION " +
                          format_duration(settings.kyma_kubeconfig_rotation) +
                          " is not shorter than KPROV_KYMA_KUBECONFIG_EXPIRATION " +
                          format_duration(settings.kyma_kubeconfig_expiration) +
                          ": the Secret would expire before it is re-issued");
    klm.kubeconfig_expiration =
        std::chrono::ceil<std::chrono::seconds>(settings.kyma_kubeconfig_expiration);
    klm.kubeconfig_rotation = settings.kyma_kubeconfig_rotation;
    return klm;
}

engine::EngineOptions engine_options(const Settings& settings) {
    engine::EngineOptions options;
    options.conversion = conversion_options(settings);
    options.shoot = shoot_options(settings);
    const auto& t = settings.timeouts;
    options.timeouts.cluster_domains = t.cluster_domains;
    options.timeouts.cluster_creation = t.cluster_creation;
    options.timeouts.bindings_creation = t.bindings_creation;
    options.timeouts.agent_configuration = t.agent_configuration;
    options.timeouts.agent_connection = t.agent_connection;
    options.timeouts.shoot_refresh = t.shoot_refresh;
    options.timeouts.shoot_upgrade = t.shoot_upgrade;
    options.timeouts.cluster_deletion = t.cluster_deletion;
    options.timeouts.waiting_for_cluster_deletion = t.waiting_for_cluster_deletion;
    options.timeouts.waiting_for_cluster_hibernation = t.waiting_for_cluster_hibernation;
    options.timeouts.installation_triggering = t.installation_triggering;
    options.timeouts.installation = t.installation;
    options.timeouts.upgrade_triggering = t.upgrade_triggering;
    options.timeouts.cluster_cleanup = t.cluster_cleanup;
    // The installer itself is the caller's to build (it needs gardener/): cli/engine_access.
    options.kyma.installer_setting = settings.kyma_installer;
    options.kyma.kcp_missing =
        settings.kyma_installer == "lifecycle-manager" && settings.kcp_kubeconfig_path.empty();
    options.kyma.cleanup_selector = settings.cluster_cleanup_resource_selector;
    options.kyma.klm = klm_options(settings);
    options.operator_bindings.l2_subject_name = settings.operator_l2_subject_name;
    options.operator_bindings.l3_subject_name = settings.operator_l3_subject_name;
    options.operator_bindings.create_for_administrators = settings.operator_creating_for_admin;
    options.lease_ttl = settings.lease_duration;
    options.tenant_strict = settings.tenant_strict;
    return options;
}

} // namespace kprov::config
