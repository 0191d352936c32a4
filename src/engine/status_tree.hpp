#pragma once
// The builders behind status_json.hpp, as templates over the JSON type they build, so that each
// front builds its own kind without a conversion: nlohmann::ordered_json keeps the contract's
// order for the CLI (status_json.cpp); the API's resolvers build graphql::Value, which the
// executor reads for the fields a query selects. A JSON type here is a nlohmann::basic_json, or
// a type with Json::object(n), Json::array(), push_back, constructors from the model's values
// and from nlohmann::json, and an add_member(object, "key", value) found by argument-dependent
// lookup.
//
// Include only from cli/, api/ and status_json.cpp: nlohmann/json.hpp is a heavy header.

#include "engine/model.hpp"
#include "engine/status_json.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kprov::engine::status_tree {

template <typename Json>
inline constexpr bool is_nlohmann = nlohmann::detail::is_basic_json<Json>::value;

template <typename Json, std::size_t N>
requires is_nlohmann<Json>
void add_member(Json& object, const char (&key)[N], Json&& value) {
    object.emplace(std::string(key, N - 1), std::move(value));
}

template <typename Json> Json empty_object(std::size_t members) {
    if constexpr (is_nlohmann<Json>)
        return Json::object();
    else
        return Json::object(members);
}

template <typename Json, typename T> Json or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

template <typename Json> Json strings(const std::vector<std::string>& values) {
    return Json(values);
}

template <typename Json> void put(Json&) {}

template <typename Json, std::size_t N, typename V, typename... Rest>
void put(Json& object, const char (&key)[N], V&& value, Rest&&... rest) {
    add_member(object, key, Json(std::forward<V>(value)));
    put(object, std::forward<Rest>(rest)...);
}

// object<Json>("key", value, ...): the members added one by one. nlohmann's initializer-list
// form ({{"key", value}, ...}) first builds a two-element array per member and copies each value
// twice, which the API paid for on every runtimeStatus.
template <typename Json, typename... Args> Json object(Args&&... args) {
    Json out = empty_object<Json>(sizeof...(Args) / 2);
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

// ConfigEntry [{key, value, secret}].
template <typename Json> Json config_entries(const KymaOverrides& overrides, bool mask_secrets) {
    Json out = Json::array();
    for (const auto& e : overrides.entries)
        out.push_back(object<Json>("key", e.key, "value",
                                   mask_secrets && e.secret ? std::string(k_secret_mask) : e.value,
                                   "secret", e.secret));
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

template <typename Json>
Json kyma_config(const std::optional<KymaConfig>& config, bool mask_secrets = false) {
    if (!config)
        return nullptr;
    Json components = Json::array();
    for (const auto& c : config->components)
        components.push_back(object<Json>("component", c.name, "namespace", c.namespace_,
                                          "configuration",
                                          config_entries<Json>(c.configuration, mask_secrets),
                                          "sourceURL", or_null<Json>(c.source_url)));
    return object<Json>(
        "version", config->release.version, "profile",
        config->profile ? Json(std::string(to_api(*config->profile))) : Json(nullptr), "components",
        std::move(components), "configuration", config_entries<Json>(config->global, mask_secrets));
}

template <typename Json>
Json runtime_config(const Runtime& runtime, const std::optional<std::string>& kubeconfig,
                    bool mask_secrets = false) {
    return object<Json>("clusterConfig", gardener_config<Json>(runtime.gardener), "kymaConfig",
                        kyma_config<Json>(runtime.kyma, mask_secrets), "kubeconfig",
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
        "runtimeConfiguration",
        runtime_config<Json>(runtime, extras.kubeconfig, extras.mask_secret_overrides),
        "hibernationStatus", std::move(hibernation));
}

} // namespace kprov::engine::status_tree
