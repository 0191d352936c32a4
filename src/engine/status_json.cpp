#include "engine/status_json.hpp"

#include <variant>

namespace kprov::engine {
namespace {

using Json = nlohmann::ordered_json;

template <typename T> Json or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json strings(const std::vector<std::string>& values) {
    return Json(values);
}

Json provider_json(const GcpConfig& c) {
    return Json{{"__typename", "GCPProviderConfig"}, {"zones", strings(c.zones)}};
}

Json provider_json(const AzureConfig& c) {
    Json azure_zones = nullptr;
    if (c.azure_zones) {
        azure_zones = Json::array();
        for (const auto& zone : *c.azure_zones)
            azure_zones.push_back(Json{{"name", zone.name}, {"cidr", zone.cidr}});
    }
    return Json{{"__typename", "AzureProviderConfig"},
                {"vnetCidr", c.vnet_cidr},
                {"zones", or_null(c.zones)},
                {"azureZones", azure_zones},
                {"enableNatGateway", or_null(c.enable_nat_gateway)},
                {"idleConnectionTimeoutMinutes", or_null(c.idle_connection_timeout_minutes)}};
}

Json provider_json(const AwsConfig& c) {
    Json zones = Json::array();
    for (const auto& zone : c.aws_zones)
        zones.push_back(Json{{"name", zone.name},
                             {"publicCidr", zone.public_cidr},
                             {"internalCidr", zone.internal_cidr},
                             {"workerCidr", zone.worker_cidr}});
    return Json{{"__typename", "AWSProviderConfig"}, {"awsZones", zones}, {"vpcCidr", c.vpc_cidr}};
}

Json provider_json(const OpenStackConfig& c) {
    return Json{{"__typename", "OpenStackProviderConfig"},
                {"zones", strings(c.zones)},
                {"floatingPoolName", c.floating_pool_name},
                {"cloudProfileName", c.cloud_profile_name},
                {"loadBalancerProvider", c.load_balancer_provider}};
}

// The original always allocates the OIDC config on its read path (original-provisioner.md §1.3).
Json oidc_json(const std::optional<OidcConfig>& oidc) {
    const OidcConfig none;
    const OidcConfig& c = oidc ? *oidc : none;
    return Json{{"clientID", c.client_id},           {"groupsClaim", c.groups_claim},
                {"issuerURL", c.issuer_url},         {"signingAlgs", strings(c.signing_algs)},
                {"usernameClaim", c.username_claim}, {"usernamePrefix", c.username_prefix}};
}

Json dns_json(const std::optional<DnsConfig>& dns) {
    if (!dns)
        return nullptr;
    Json providers = Json::array();
    for (const auto& p : dns->providers)
        providers.push_back(Json{{"domainsInclude", strings(p.domains_include)},
                                 {"primary", p.primary},
                                 {"secretName", p.secret_name},
                                 {"type", p.type}});
    return Json{{"domain", dns->domain}, {"providers", providers}};
}

// A member of a stored object, or null when it is missing.
Json member(const Json& object, const char* name) {
    const auto it = object.find(name);
    return it == object.end() ? Json(nullptr) : *it;
}

// ConfigEntry [{key, value, secret}], or null.
Json config_entries(const Json& entries) {
    if (!entries.is_array())
        return nullptr;
    Json out = Json::array();
    for (const auto& e : entries)
        if (e.is_object())
            out.push_back(Json{{"key", member(e, "key")},
                               {"value", member(e, "value")},
                               {"secret", member(e, "secret")}});
    return out;
}

} // namespace

Json operation_status_json(const Operation& op,
                           const std::optional<std::string>& compass_runtime_id) {
    return Json{{"id", op.id},
                {"operation", to_api(op.type)},
                {"state", to_api(op.state)},
                {"message", op.message},
                {"runtimeID", op.cluster_id},
                {"compassRuntimeID", or_null(compass_runtime_id)},
                {"lastError",
                 {{"errMessage", op.last_error.message},
                  {"reason", op.last_error.reason},
                  {"component", op.last_error.component}}}};
}

Json provider_specific_config_json(const ProviderConfig& config) {
    return std::visit([](const auto& c) { return provider_json(c); }, config);
}

Json gardener_config_json(const GardenerConfig& c) {
    return Json{{"name", c.name},
                {"kubernetesVersion", c.kubernetes_version},
                {"targetSecret", c.target_secret},
                {"provider", c.provider},
                {"region", c.region},
                {"seed", c.seed},
                {"machineType", c.machine_type},
                {"machineImage", or_null(c.machine_image)},
                {"machineImageVersion", or_null(c.machine_image_version)},
                {"diskType", or_null(c.disk_type)},
                {"volumeSizeGB", or_null(c.volume_size_gb)},
                {"workerCidr", c.worker_cidr},
                {"podsCidr", or_null(c.pods_cidr)},
                {"servicesCidr", or_null(c.services_cidr)},
                {"autoScalerMin", c.auto_scaler_min},
                {"autoScalerMax", c.auto_scaler_max},
                {"maxSurge", c.max_surge},
                {"maxUnavailable", c.max_unavailable},
                {"purpose", or_null(c.purpose)},
                {"licenceType", or_null(c.licence_type)},
                {"enableKubernetesVersionAutoUpdate", c.enable_kubernetes_version_auto_update},
                {"enableMachineImageVersionAutoUpdate", c.enable_machine_image_version_auto_update},
                {"providerSpecificConfig", provider_specific_config_json(c.provider_config)},
                {"dnsConfig", dns_json(c.dns)},
                {"oidcConfig", oidc_json(c.oidc)},
                {"exposureClassName", or_null(c.exposure_class_name)},
                {"shootNetworkingFilterDisabled", or_null(c.shoot_networking_filter_disabled)},
                {"controlPlaneFailureTolerance", or_null(c.control_plane_failure_tolerance)},
                {"euAccess", c.eu_access}};
}

Json kyma_config_json(const std::optional<std::string>& stored) {
    if (!stored)
        return nullptr;
    const Json input = Json::parse(*stored, nullptr, /*allow_exceptions=*/false);
    if (!input.is_object())
        return nullptr;
    Json components = nullptr;
    if (const auto it = input.find("components"); it != input.end() && it->is_array()) {
        components = Json::array();
        for (const auto& c : *it)
            if (c.is_object())
                components.push_back(
                    Json{{"component", member(c, "component")},
                         {"namespace", member(c, "namespace")},
                         {"configuration", config_entries(member(c, "configuration"))},
                         {"sourceURL", member(c, "sourceURL")}});
    }
    return Json{{"version", member(input, "version")},
                {"profile", member(input, "profile")},
                {"components", components},
                {"configuration", config_entries(member(input, "configuration"))}};
}

Json runtime_config_json(const Runtime& runtime, const std::optional<std::string>& kubeconfig) {
    return Json{{"clusterConfig", gardener_config_json(runtime.gardener)},
                {"kymaConfig", kyma_config_json(runtime.kyma_config_json)},
                {"kubeconfig", or_null(kubeconfig)}};
}

Json runtime_status_json(const Runtime& runtime, const std::optional<Operation>& last,
                         const RuntimeStatusExtras& extras) {
    Json hibernation = nullptr;
    if (extras.hibernation)
        hibernation =
            Json{{"hibernated", or_null(extras.hibernation->hibernated)},
                 {"hibernationPossible", or_null(extras.hibernation->hibernation_possible)}};
    return Json{{"lastOperationStatus",
                 last ? operation_status_json(*last, extras.compass_runtime_id) : Json(nullptr)},
                {"runtimeConnectionStatus", {{"status", "Pending"}, {"errors", nullptr}}},
                {"runtimeConfiguration", runtime_config_json(runtime, extras.kubeconfig)},
                {"hibernationStatus", hibernation}};
}

} // namespace kprov::engine
