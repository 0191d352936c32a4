// The settings of what the engine does (settings_groups.hpp): stage timeouts, operator role
// bindings, Gardener, and Kyma releases and start-up. Part of the table of settings
// (settings_table.cpp), in the order `kprov config` lists them.

#include "config/settings.hpp"
#include "config/settings_groups.hpp"

namespace kprov::config {

std::vector<SettingSpec> engine_settings() {
    return {
        // --- Stage timeouts (§2.7) --------------------------------------------------------------
        {.key = "timeouts.cluster_creation",
         .env = "APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION",
         .kind = Kind::Duration,
         .default_value = "60m",
         .description = "timeout of WaitingForClusterCreation",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.cluster_creation};
             }},
        {.key = "timeouts.cluster_domains",
         .env = "APP_PROVISIONING_TIMEOUT_CLUSTER_DOMAINS",
         .kind = Kind::Duration,
         .default_value = "10m",
         .description = "timeout of WaitingForClusterDomain",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.cluster_domains};
             }},
        {.key = "timeouts.bindings_creation",
         .env = "APP_PROVISIONING_TIMEOUT_BINDINGS_CREATION",
         .kind = Kind::Duration,
         .default_value = "5m",
         .description = "timeout of CreatingBindingsForOperators",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.bindings_creation};
             }},
        {.key = "timeouts.agent_configuration",
         .env = "APP_PROVISIONING_TIMEOUT_AGENT_CONFIGURATION",
         .kind = Kind::Duration,
         .default_value = "15m",
         .description = "timeout of ConnectRuntimeAgent",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.agent_configuration};
             }},
        {.key = "timeouts.shoot_upgrade",
         .env = "APP_PROVISIONING_TIMEOUT_SHOOT_UPGRADE",
         .kind = Kind::Duration,
         .default_value = "30m",
         .description = "timeout of WaitingForShootUpgrade",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.shoot_upgrade};
             }},
        {.key = "timeouts.shoot_refresh",
         .env = "APP_PROVISIONING_TIMEOUT_SHOOT_REFRESH",
         .kind = Kind::Duration,
         .default_value = "5m",
         .description = "timeout of WaitingForShootNewVersion",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.shoot_refresh};
             }},
        {.key = "timeouts.installation_triggering",
         .env = "APP_PROVISIONING_TIMEOUT_INSTALLATION_TRIGGERING",
         .kind = Kind::Duration,
         .default_value = "20m",
         .description = "timeout of StartingInstallation",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.installation_triggering};
             }},
        {.key = "timeouts.installation",
         .env = "APP_PROVISIONING_TIMEOUT_INSTALLATION",
         .kind = Kind::Duration,
         .default_value = "60m",
         .description = "timeout of WaitingForInstallation (provisioning and Kyma upgrade)",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.installation};
             }},
        {.key = "timeouts.upgrade",
         .env = "APP_PROVISIONING_TIMEOUT_UPGRADE",
         .kind = Kind::Duration,
         .default_value = "60m",
         .description = "parsed and unused, as in the original (WaitingForInstallation uses "
                        "APP_PROVISIONING_TIMEOUT_INSTALLATION)",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.upgrade};
             }},
        {.key = "timeouts.upgrade_triggering",
         .env = "APP_PROVISIONING_TIMEOUT_UPGRADE_TRIGGERING",
         .kind = Kind::Duration,
         .default_value = "20m",
         .description = "timeout of StartingUpgrade",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.upgrade_triggering};
             }},
        {.key = "timeouts.agent_connection",
         .env = "APP_PROVISIONING_TIMEOUT_AGENT_CONNECTION",
         .kind = Kind::Duration,
         .default_value = "15m",
         .description =
             "timeout of WaitForAgentToConnect (runtimes with Kyma, Director registration on)",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.agent_connection};
             }},
        {.key = "timeouts.cluster_cleanup",
         .env = "APP_DEPROVISIONING_TIMEOUT_CLUSTER_CLEANUP",
         .kind = Kind::Duration,
         .default_value = "20m",
         .description = "timeout of CleanupCluster",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.cluster_cleanup};
             }},
        {.key = "timeouts.cluster_deletion",
         .env = "APP_DEPROVISIONING_TIMEOUT_CLUSTER_DELETION",
         .kind = Kind::Duration,
         .default_value = "30m",
         .description = "timeout of DeprovisionCluster",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.cluster_deletion};
             }},
        {.key = "timeouts.waiting_for_cluster_deletion",
         .env = "APP_DEPROVISIONING_TIMEOUT_WAITING_FOR_CLUSTER_DELETION",
         .kind = Kind::Duration,
         .default_value = "60m",
         .description = "timeout of WaitForClusterDeletion",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.waiting_for_cluster_deletion};
             }},
        {.key = "timeouts.waiting_for_cluster_hibernation",
         .env = "APP_HIBERNATION_TIMEOUT_WAITING_FOR_CLUSTER_HIBERNATION",
         .kind = Kind::Duration,
         .default_value = "60m",
         .description = "timeout of waiting for a shoot to hibernate",
         .field =
             [](Settings& s) {
                 return Field{&s.timeouts.waiting_for_cluster_hibernation};
             }},

        // --- Operator role bindings (§7.1) ----------------------------------------------------
        // The Helm chart spells these L2SUBJECT_NAME; the original ignores that spelling
        // (silently applying the default), kprov accepts it so the chart means what it says.
        {.key = "operator_role_binding.l2_subject_name",
         .env = "APP_OPERATOR_ROLE_BINDING_L2_SUBJECT_NAME",
         .aliases = {"APP_OPERATOR_ROLE_BINDING_L2SUBJECT_NAME"},
         .default_value = "runtimeOperator",
         .description = "group bound to the l2-operator ClusterRole in new runtimes",
         .field =
             [](Settings& s) {
                 return Field{&s.operator_l2_subject_name};
             }},
        {.key = "operator_role_binding.l3_subject_name",
         .env = "APP_OPERATOR_ROLE_BINDING_L3_SUBJECT_NAME",
         .aliases = {"APP_OPERATOR_ROLE_BINDING_L3SUBJECT_NAME"},
         .default_value = "runtimeAdmin",
         .description = "group bound to cluster-admin in new runtimes",
         .field =
             [](Settings& s) {
                 return Field{&s.operator_l3_subject_name};
             }},
        {.key = "operator_role_binding.creating_for_admin",
         .env = "APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "also bind each cluster administrator to cluster-admin",
         .field =
             [](Settings& s) {
                 return Field{&s.operator_creating_for_admin};
             }},

        // --- Gardener --------------------------------------------------------------------------
        {.key = "gardener.project",
         .env = "APP_GARDENER_PROJECT",
         .default_value = "gardenerProject",
         .description = "Gardener project; shoots live in namespace garden-<project>",
         .flag = "--gardener-project",
         .field =
             [](Settings& s) {
                 return Field{&s.gardener_project};
             }},
        {.key = "gardener.kubeconfig_path",
         .env = "APP_GARDENER_KUBECONFIG_PATH",
         .kind = Kind::Path,
         .default_value = "./dev/kubeconfig.yaml",
         .description = "kubeconfig of the Gardener project",
         .flag = "--gardener-kubeconfig",
         .field =
             [](Settings& s) {
                 return Field{&s.gardener_kubeconfig_path};
             }},
        {.key = "gardener.audit_logs_policy_config_map",
         .env = "APP_GARDENER_AUDIT_LOGS_POLICY_CONFIG_MAP",
         .description = "ConfigMap with the audit policy referenced by new shoots",
         .field =
             [](Settings& s) {
                 return Field{&s.audit_logs_policy_config_map};
             }},
        {.key = "gardener.audit_logs_tenant_config_path",
         .env = "APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH",
         .kind = Kind::Path,
         .description = "JSON file of audit log tenants by region",
         .field =
             [](Settings& s) {
                 return Field{&s.audit_logs_tenant_config_path};
             }},
        {.key = "gardener.maintenance_window_config_path",
         .env = "APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH",
         .kind = Kind::Path,
         .description = "JSON file of maintenance windows by region",
         .field =
             [](Settings& s) {
                 return Field{&s.maintenance_window_config_path};
             }},
        {.key = "gardener.cluster_cleanup_resource_selector",
         .env = "APP_GARDENER_CLUSTER_CLEANUP_RESOURCE_SELECTOR",
         .default_value = "https://service-manager.",
         .description = "CleanupCluster deletes the Service Catalog instances of brokers whose URL "
                        "starts with it",
         .field =
             [](Settings& s) {
                 return Field{&s.cluster_cleanup_resource_selector};
             }},
        {.key = "gardener.default_enable_kubernetes_version_auto_update",
         .env = "APP_GARDENER_DEFAULT_ENABLE_KUBERNETES_VERSION_AUTO_UPDATE",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "Kubernetes version auto-update when the input leaves it out",
         .field =
             [](Settings& s) {
                 return Field{&s.default_enable_kubernetes_version_auto_update};
             }},
        {.key = "gardener.default_enable_machine_image_version_auto_update",
         .env = "APP_GARDENER_DEFAULT_ENABLE_MACHINE_IMAGE_VERSION_AUTO_UPDATE",
         .kind = Kind::Bool,
         .default_value = "false",
         .description = "machine image version auto-update when the input leaves it out",
         .field =
             [](Settings& s) {
                 return Field{&s.default_enable_machine_image_version_auto_update};
             }},
        {.key = "gardener.legacy_api",
         .env = "APP_GARDENER_LEGACY_API",
         .kind = Kind::Bool,
         .default_value = "false",
         .description =
             "send the original's shoot fields (cloudProfileName, secretBindingName, oidcConfig) "
             "to an old Gardener",
         .field =
             [](Settings& s) {
                 return Field{&s.gardener_legacy_api};
             }},
        {.key = "gardener.cloud_profile_aws",
         .env = "KPROV_CLOUD_PROFILE_AWS",
         .default_value = "aws",
         .description = "the CloudProfile of AWS shoots unless the runtime file names one "
                        "(gardenerConfig.cloudProfile)",
         .field =
             [](Settings& s) {
                 return Field{&s.cloud_profile_aws};
             }},
        {.key = "gardener.cloud_profile_azure",
         .env = "KPROV_CLOUD_PROFILE_AZURE",
         .default_value = "az",
         .description = "the CloudProfile of Azure shoots unless the runtime file names one "
                        "(gardenerConfig.cloudProfile)",
         .field =
             [](Settings& s) {
                 return Field{&s.cloud_profile_azure};
             }},
        {.key = "gardener.cloud_profile_gcp",
         .env = "KPROV_CLOUD_PROFILE_GCP",
         .default_value = "gcp",
         .description = "the CloudProfile of GCP shoots unless the runtime file names one "
                        "(gardenerConfig.cloudProfile)",
         .field =
             [](Settings& s) {
                 return Field{&s.cloud_profile_gcp};
             }},
        {.key = "gardener.cloud_profile_openstack",
         .env = "KPROV_CLOUD_PROFILE_OPENSTACK",
         .default_value = "converged-cloud-kyma",
         .description = "the CloudProfile of OpenStack shoots unless the runtime file names one "
                        "(gardenerConfig.cloudProfile)",
         .field =
             [](Settings& s) {
                 return Field{&s.cloud_profile_openstack};
             }},
        {.key = "gardener.landscape_cache_seconds",
         .env = "KPROV_LANDSCAPE_CACHE_SECONDS",
         .kind = Kind::Int,
         .default_value = "30",
         .description = "how long serve and watch keep the CloudProfiles and bindings they read "
                        "(one-shot commands read them once)",
         .min = 1,
         .max = 3600,
         .field =
             [](Settings& s) {
                 return Field{&s.landscape_cache_seconds};
             }},
        {.key = "gardener.qps",
         .env = "KPROV_GARDENER_QPS",
         .kind = Kind::Double,
         .default_value = "20",
         .description = "requests per second to the Gardener API (client-side limit)",
         .field =
             [](Settings& s) {
                 return Field{&s.gardener_qps};
             }},
        {.key = "gardener.burst",
         .env = "KPROV_GARDENER_BURST",
         .kind = Kind::Int,
         .default_value = "40",
         .description = "requests allowed above gardener.qps in a burst",
         .min = 1,
         .field =
             [](Settings& s) {
                 return Field{&s.gardener_burst};
             }},

        // --- Kyma releases and start-up (§2.7) ------------------------------------------------
        {.key = "latest_downloaded_releases",
         .env = "APP_LATEST_DOWNLOADED_RELEASES",
         .kind = Kind::Int,
         .default_value = "5",
         .description = "no effect (the original's GitHub release downloader, gone since 2021); "
                        "accepted for compatibility",
         .field =
             [](Settings& s) {
                 return Field{&s.latest_downloaded_releases};
             }},
        {.key = "download_pre_releases",
         .env = "APP_DOWNLOAD_PRE_RELEASES",
         .kind = Kind::Bool,
         .default_value = "true",
         .description = "no effect (the original's GitHub release downloader, gone since 2021); "
                        "accepted for compatibility",
         .field =
             [](Settings& s) {
                 return Field{&s.download_pre_releases};
             }},
        {.key = "kyma.installer",
         .env = "KPROV_KYMA_INSTALLER",
         .kind = Kind::KymaInstaller,
         .default_value = "lifecycle-manager",
         .description = "how kymaConfig is installed: lifecycle-manager (Kyma Lifecycle Manager "
                        "in the KCP of KPROV_KCP_KUBECONFIG_PATH; without one, kymaConfig is "
                        "refused), installation-cr (Kyma 1.x's Installation CR, for old "
                        "landscapes only) or none (requests with a kymaConfig are refused)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_installer};
             }},
        {.key = "kyma.releases_url",
         .env = "KPROV_KYMA_RELEASES_URL",
         .kind = Kind::ArtifactUrl,
         .default_value = "https://storage.googleapis.com/kyma-prow-artifacts",
         .description =
             "URL prefix of Kyma releases: <prefix>/<version>/kyma-installer-cluster.yaml "
             "and tiller.yaml",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_releases_url};
             }},
        {.key = "kyma.dev_releases_url",
         .env = "KPROV_KYMA_DEV_RELEASES_URL",
         .kind = Kind::ArtifactUrl,
         .default_value = "https://storage.googleapis.com/kyma-development-artifacts",
         .description = "URL prefix of the on-demand Kyma versions (PR-..., main-..., main)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_dev_releases_url};
             }},
        {.key = "kcp.kubeconfig_path",
         .env = "KPROV_KCP_KUBECONFIG_PATH",
         .kind = Kind::Path,
         .default_value = "",
         .description = "kubeconfig of the Kyma Control Plane cluster where Kyma Lifecycle Manager "
                        "runs (needed by lifecycle-manager)",
         .field =
             [](Settings& s) {
                 return Field{&s.kcp_kubeconfig_path};
             }},
        {.key = "kcp.namespace",
         .env = "KPROV_KCP_NAMESPACE",
         .kind = Kind::String,
         .default_value = "kcp-system",
         .description = "KCP namespace of the Kyma resources and kubeconfig Secrets",
         .field =
             [](Settings& s) {
                 return Field{&s.kcp_namespace};
             }},
        {.key = "kyma.channel",
         .env = "KPROV_KYMA_CHANNEL",
         .kind = Kind::String,
         .default_value = "regular",
         .description =
             "lifecycle-manager: the channel of a kymaConfig whose version is not a channel name",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_channel};
             }},
        {.key = "kyma.modules",
         .env = "KPROV_KYMA_MODULES",
         .kind = Kind::String,
         .default_value = "",
         .description = "lifecycle-manager: comma-separated module names the landscape offers; "
                        "others are refused (empty: any)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_modules};
             }},
        {.key = "kyma.lossy",
         .env = "KPROV_KYMA_LOSSY",
         .kind = Kind::String,
         .default_value = "refuse",
         .description =
             "lifecycle-manager: what a Kyma resource cannot say (namespaces, overrides, "
             "sourceURL, a Kyma 1.x version) is refused, or passed with a warning (warn)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_lossy};
             }},
        {.key = "kyma.deletion_timeout",
         .env = "KPROV_KYMA_DELETION_TIMEOUT",
         .kind = Kind::Duration,
         .default_value = "30m",
         .description =
             "lifecycle-manager: how long deprovisioning waits for the Kyma to go before it "
             "deletes the kubeconfig Secret (and again before deleting the shoot all the same)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_deletion_timeout};
             }},
        {.key = "kyma.kubeconfig_expiration",
         .env = "KPROV_KYMA_KUBECONFIG_EXPIRATION",
         .kind = Kind::Duration,
         .default_value = "24h",
         .description =
             "lifecycle-manager: validity of the admin kubeconfig in the KCP Secret (at least 10m)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_kubeconfig_expiration};
             }},
        {.key = "kyma.kubeconfig_rotation",
         .env = "KPROV_KYMA_KUBECONFIG_ROTATION",
         .kind = Kind::Duration,
         .default_value = "13h40m48s",
         .description = "lifecycle-manager: age after which watch and serve re-issue the KCP "
                        "Secret's kubeconfig (below the expiration)",
         .field =
             [](Settings& s) {
                 return Field{&s.kyma_kubeconfig_rotation};
             }},
        {.key = "enqueue_in_progress_operations",
         .env = "APP_ENQUEUE_IN_PROGRESS_OPERATIONS",
         .kind = Kind::Bool,
         .default_value = "true",
         .description = "resume in-progress operations of every type at start",
         .field =
             [](Settings& s) {
                 return Field{&s.enqueue_in_progress_operations};
             }},
    };
}

} // namespace kprov::config
