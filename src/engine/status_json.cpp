#include "engine/status_json.hpp"

#include <utility>
#include <variant>

namespace kprov::engine {
namespace {

// Every builder is a template over the JSON type: nlohmann::ordered_json keeps the contract's
// order for the CLI, nlohmann::json is what the GraphQL executor reads.

template <typename Json, typename T> Json or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

template <typename Json> Json strings(const std::vector<std::string>& values) {
    return Json(values);
}

template <typename Json> void put(Json&) {}

template <typename Json, typename V, typename... Rest>
void put(Json& object, const char* key, V&& value, Rest&&... rest) {
    object.emplace(std::string(key), Json(std::forward<V>(value)));
    put(object, std::forward<Rest>(rest)...);
}

// object<Json>("key", value, ...): the members emplaced one by one. nlohmann's initializer-list
// form (object<Json>("key", value)) first builds a two-element array per member and copies each
// value twice, which the API paid for on every runtimeStatus.
template <typename Json, typename... Args> Json object(Args&&... args) {
    Json out = Json::object();
    put(out, std::forward<Args>(args)...);
    return out;
}

template <typename Json> Json provider_json(const GcpConfig& c) {
    return object<Json>("__typename", "GCPProviderConfig", "zones", strings<Json>(c.zones));
}

template <typename Json> Json provider_json(const AzureConfig& c) {
    Json azure_zones = nullptr;
    if (c.azure_zones) {
        azure_zones = Json::array();
        for (const auto& zone : *c.azure_zones)
            azure_zones.push_back(object<Json>("name", zone.name, "cidr", zone.cidr));
    }
    return object<Json>("__typename", "AzureProviderConfig", "vnetCidr", c.vnet_cidr, "zones",
                        or_null<Json>(c.zones), "azureZones", azure_zones, "enableNatGateway",
                        or_null<Json>(c.enable_nat_gateway), "idleConnectionTimeoutMinutes",
                        or_null<Json>(c.idle_connection_timeout_minutes));
}

template <typename Json> Json provider_json(const AwsConfig& c) {
    Json zones = Json::array();
    for (const auto& zone : c.aws_zones)
        zones.push_back(object<Json>("name", zone.name, "publicCidr", zone.public_cidr,
                                     "internalCidr", zone.internal_cidr, "workerCidr",
                                     zone.worker_cidr));
    return object<Json>("__typename", "AWSProviderConfig", "awsZones", zones, "vpcCidr",
                        c.vpc_cidr);
}

template <typename Json> Json provider_json(const OpenStackConfig& c) {
    return object<Json>("__typename", "OpenStackProviderConfig", "zones", strings<Json>(c.zones),
                        "floatingPoolName", c.floating_pool_name, "cloudProfileName",
                        c.cloud_profile_name, "loadBalancerProvider", c.load_balancer_provider);
}

// The original always allocates the OIDC config on its read path (original-provisioner.md §1.3).
template <typename Json> Json oidc_json(const std::optional<OidcConfig>& oidc) {
    const OidcConfig none;
    const OidcConfig& c = oidc ? *oidc : none;
    return object<Json>("clientID", c.client_id, "groupsClaim", c.groups_claim, "issuerURL",
                        c.issuer_url, "signingAlgs", strings<Json>(c.signing_algs), "usernameClaim",
                        c.username_claim, "usernamePrefix", c.username_prefix);
}

template <typename Json> Json dns_json(const std::optional<DnsConfig>& dns) {
    if (!dns)
        return nullptr;
    Json providers = Json::array();
    for (const auto& p : dns->providers)
        providers.push_back(object<Json>("domainsInclude", strings<Json>(p.domains_include),
                                         "primary", p.primary, "secretName", p.secret_name, "type",
                                         p.type));
    return object<Json>("domain", dns->domain, "providers", providers);
}

// A member of a stored object, or null when it is missing.
template <typename Json> Json member(const Json& object, const char* name) {
    const auto it = object.find(name);
    return it == object.end() ? Json(nullptr) : *it;
}

// ConfigEntry [{key, value, secret}], or null.
template <typename Json> Json config_entries(const Json& entries) {
    if (!entries.is_array())
        return nullptr;
    Json out = Json::array();
    for (const auto& e : entries)
        if (e.is_object())
            out.push_back(object<Json>("key", member(e, "key"), "value", member(e, "value"),
                                       "secret", member(e, "secret")));
    return out;
}

template <typename Json>
Json operation_status(const Operation& op, const std::optional<std::string>& compass_runtime_id) {
    return object<Json>("id", op.id, "operation", to_api(op.type), "state", to_api(op.state),
                        "message", op.message, "runtimeID", op.cluster_id, "compassRuntimeID",
                        or_null<Json>(compass_runtime_id), "lastError",
                        object<Json>("errMessage", op.last_error.message, "reason",
                                     op.last_error.reason, "component", op.last_error.component));
}

template <typename Json> Json provider_specific_config(const ProviderConfig& config) {
    return std::visit([](const auto& c) { return provider_json<Json>(c); }, config);
}

template <typename Json> Json gardener_config(const GardenerConfig& c) {
    return object<Json>(
        "name", c.name, "kubernetesVersion", c.kubernetes_version, "targetSecret", c.target_secret,
        "provider", c.provider, "region", c.region, "seed", c.seed, "machineType", c.machine_type,
        "machineImage", or_null<Json>(c.machine_image), "machineImageVersion",
        or_null<Json>(c.machine_image_version), "diskType", or_null<Json>(c.disk_type),
        "volumeSizeGB", or_null<Json>(c.volume_size_gb), "workerCidr", c.worker_cidr, "podsCidr",
        or_null<Json>(c.pods_cidr), "servicesCidr", or_null<Json>(c.services_cidr), "autoScalerMin",
        c.auto_scaler_min, "autoScalerMax", c.auto_scaler_max, "maxSurge", c.max_surge,
        "maxUnavailable", c.max_unavailable, "purpose", or_null<Json>(c.purpose), "licenceType",
        or_null<Json>(c.licence_type), "enableKubernetesVersionAutoUpdate",
        c.enable_kubernetes_version_auto_update, "enableMachineImageVersionAutoUpdate",
        c.enable_machine_image_version_auto_update, "providerSpecificConfig",
        provider_specific_config<Json>(c.provider_config), "dnsConfig", dns_json<Json>(c.dns),
        "oidcConfig", oidc_json<Json>(c.oidc), "exposureClassName",
        or_null<Json>(c.exposure_class_name), "shootNetworkingFilterDisabled",
        or_null<Json>(c.shoot_networking_filter_disabled), "controlPlaneFailureTolerance",
        or_null<Json>(c.control_plane_failure_tolerance), "euAccess", c.eu_access);
}

template <typename Json> Json kyma_config(const std::optional<std::string>& stored) {
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
                    object<Json>("component", member<Json>(c, "component"), "namespace",
                                 member<Json>(c, "namespace"), "configuration",
                                 config_entries<Json>(member<Json>(c, "configuration")),
                                 "sourceURL", member<Json>(c, "sourceURL")));
    }
    return object<Json>("version", member<Json>(input, "version"), "profile",
                        member<Json>(input, "profile"), "components", components, "configuration",
                        config_entries<Json>(member<Json>(input, "configuration")));
}

template <typename Json>
Json runtime_config(const Runtime& runtime, const std::optional<std::string>& kubeconfig) {
    return object<Json>("clusterConfig", gardener_config<Json>(runtime.gardener), "kymaConfig",
                        kyma_config<Json>(runtime.kyma_config_json), "kubeconfig",
                        or_null<Json>(kubeconfig));
}

template <typename Json>
Json runtime_status(const Runtime& runtime, const std::optional<Operation>& last,
                    const RuntimeStatusExtras& extras) {
    Json hibernation = nullptr;
    if (extras.hibernation)
        hibernation = object<Json>("hibernated", or_null<Json>(extras.hibernation->hibernated),
                                   "hibernationPossible",
                                   or_null<Json>(extras.hibernation->hibernation_possible));
    return object<Json>(
        "lastOperationStatus",
        last ? operation_status<Json>(*last, extras.compass_runtime_id) : Json(nullptr),
        "runtimeConnectionStatus", object<Json>("status", "Pending", "errors", nullptr),
        "runtimeConfiguration", runtime_config<Json>(runtime, extras.kubeconfig),
        "hibernationStatus", std::move(hibernation));
}

} // namespace

nlohmann::ordered_json operation_status_json(const Operation& op,
                                             const std::optional<std::string>& compass_runtime_id) {
    return operation_status<nlohmann::ordered_json>(op, compass_runtime_id);
}

nlohmann::json operation_status_value(const Operation& op,
                                      const std::optional<std::string>& compass_runtime_id) {
    return operation_status<nlohmann::json>(op, compass_runtime_id);
}

nlohmann::ordered_json provider_specific_config_json(const ProviderConfig& config) {
    return provider_specific_config<nlohmann::ordered_json>(config);
}

nlohmann::ordered_json gardener_config_json(const GardenerConfig& config) {
    return gardener_config<nlohmann::ordered_json>(config);
}

nlohmann::ordered_json kyma_config_json(const std::optional<std::string>& stored) {
    return kyma_config<nlohmann::ordered_json>(stored);
}

nlohmann::ordered_json runtime_config_json(const Runtime& runtime,
                                           const std::optional<std::string>& kubeconfig) {
    return runtime_config<nlohmann::ordered_json>(runtime, kubeconfig);
}

nlohmann::ordered_json runtime_status_json(const Runtime& runtime,
                                           const std::optional<Operation>& last,
                                           const RuntimeStatusExtras& extras) {
    return runtime_status<nlohmann::ordered_json>(runtime, last, extras);
}

nlohmann::json runtime_status_value(const Runtime& runtime, const std::optional<Operation>& last,
                                    const RuntimeStatusExtras& extras) {
    return runtime_status<nlohmann::json>(runtime, last, extras);
}

} // namespace kprov::engine
