#include "engine/shoot/shoot_builder.hpp"

#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/input/landscape_check.hpp"
#include "engine/shoot/shoot_annotations.hpp"
#include "engine/shoot/shoot_fields.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <variant>

namespace kprov::engine {
namespace {

// Insertion-ordered: the provider configs must keep the original's key order (§4.2 byte strings),
// and the rest follows Gardener's Go field order so the body reads like a Go client's.
using ordered = nlohmann::ordered_json;

constexpr const char* k_infrastructure_kind = "InfrastructureConfig";
constexpr const char* k_control_plane_kind = "ControlPlaneConfig";
constexpr const char* k_default_floating_pool = "FloatingIP-external-kyma-01";

std::string provider_api_version(std::string_view provider) {
    return std::string(provider) + ".provider.extensions.gardener.cloud/v1alpha1";
}

ordered typed_object(const char* kind, std::string_view provider) {
    return ordered{{"kind", kind}, {"apiVersion", provider_api_version(provider)}};
}

ordered nat_gateway(const AzureConfig& c) {
    return ordered{{"enabled", true},
                   {"idleConnectionTimeoutMinutes",
                    c.idle_connection_timeout_minutes.value_or(k_default_idle_timeout_minutes)}};
}

/// The parts of spec that depend on the cloud (§4.2 "provider block per cloud").
struct ProviderBlock {
    std::string type;
    std::string nodes;
    ordered infrastructure;
    ordered control_plane;
    std::vector<std::string> zones;
};

struct ProviderBlockBuilder {
    const GardenerConfig& g;

    ProviderBlock operator()(const GcpConfig& c) const {
        if (c.zones.empty())
            throw ValidationError(
                "clusterConfig.gardenerConfig.providerSpecificConfig.gcpConfig.zones",
                "at least one zone is required, the control plane is placed in "
                "the first one");
        ordered infra = typed_object(k_infrastructure_kind, "gcp");
        infra["networks"] = ordered{{"worker", g.worker_cidr}, {"workers", g.worker_cidr}};
        ordered cp = typed_object(k_control_plane_kind, "gcp");
        cp["zone"] = c.zones.front();
        return {"gcp", g.worker_cidr, std::move(infra), std::move(cp), c.zones};
    }

    ProviderBlock operator()(const AzureConfig& c) const {
        const bool has_azure_zones = c.azure_zones && !c.azure_zones->empty();
        const bool zoned = (c.zones && !c.zones->empty()) || has_azure_zones;
        const bool nat = c.enable_nat_gateway.value_or(false);

        ordered networks{{"vnet", ordered{{"cidr", c.vnet_cidr}}}};
        if (!has_azure_zones)
            networks["workers"] = g.worker_cidr;
        if (zoned && !has_azure_zones && nat)
            networks["natGateway"] = nat_gateway(c);
        std::vector<std::string> worker_zones = c.zones.value_or(std::vector<std::string>{});
        if (has_azure_zones) {
            ordered zones = ordered::array();
            worker_zones.clear();
            for (const auto& z : *c.azure_zones) {
                ordered zone{{"name", z.name}, {"cidr", z.cidr}};
                if (nat)
                    zone["natGateway"] = nat_gateway(c);
                zones.push_back(std::move(zone));
                worker_zones.push_back(std::to_string(z.name));
            }
            networks["zones"] = std::move(zones);
        }
        ordered infra = typed_object(k_infrastructure_kind, "azure");
        infra["networks"] = std::move(networks);
        infra["zoned"] = zoned;
        return {"azure", c.vnet_cidr, std::move(infra), typed_object(k_control_plane_kind, "azure"),
                std::move(worker_zones)};
    }

    ProviderBlock operator()(const AwsConfig& c) const {
        ordered zones = ordered::array();
        std::vector<std::string> names;
        for (const auto& z : c.aws_zones) {
            zones.push_back(ordered{{"name", z.name},
                                    {"internal", z.internal_cidr},
                                    {"public", z.public_cidr},
                                    {"workers", z.worker_cidr}});
            names.push_back(z.name);
        }
        ordered infra = typed_object(k_infrastructure_kind, "aws");
        infra["networks"] = ordered{{"vpc", ordered{{"cidr", c.vpc_cidr}}}, {"zones", zones}};
        return {"aws", c.vpc_cidr, std::move(infra), typed_object(k_control_plane_kind, "aws"),
                std::move(names)};
    }

    ProviderBlock operator()(const OpenStackConfig& c) const {
        ordered infra = typed_object(k_infrastructure_kind, "openstack");
        infra["floatingPoolName"] =
            c.floating_pool_name.empty() ? k_default_floating_pool : c.floating_pool_name;
        infra["networks"] = ordered{{"worker", ""}, {"workers", g.worker_cidr}};
        ordered cp = typed_object(k_control_plane_kind, "openstack");
        cp["loadBalancerProvider"] = c.load_balancer_provider;
        return {"openstack", g.worker_cidr, std::move(infra), std::move(cp), c.zones};
    }
};

ordered worker(const GardenerConfig& g, const std::vector<std::string>& zones) {
    ordered machine{{"type", g.machine_type}};
    if (non_empty(g.machine_image)) {
        ordered image{{"name", *g.machine_image}};
        if (non_empty(g.machine_image_version))
            image["version"] = *g.machine_image_version;
        machine["image"] = std::move(image);
    }
    ordered w{{"name", "cpu-worker-0"},       {"machine", std::move(machine)},
              {"maximum", g.auto_scaler_max}, {"minimum", g.auto_scaler_min},
              {"maxSurge", g.max_surge},      {"maxUnavailable", g.max_unavailable}};
    // Gardener's wire key is "size" (Go field VolumeSize, json tag "size").
    if (g.disk_type && g.volume_size_gb)
        w["volume"] =
            ordered{{"type", *g.disk_type}, {"size", std::to_string(*g.volume_size_gb) + "Gi"}};
    if (!zones.empty())
        w["zones"] = zones;
    return w;
}

ordered dns(const DnsConfig& config, std::string_view kubernetes_version) {
    ordered out{{"domain", config.domain}};
    ordered providers = ordered::array();
    // gardener-landscape.md §4: from 1.35 Gardener refuses secretName (422); the same Secret of
    // the project goes in credentialsRef, which needs the type beside it.
    const bool by_reference = dns_needs_credentials_ref(kubernetes_version);
    for (const auto& p : config.providers) {
        // §4.1: the include list is always [domain], whatever the input said (a KEB workaround).
        ordered provider{{"domains", ordered{{"include", ordered::array({config.domain})}}},
                         {"primary", p.primary}};
        if (by_reference)
            provider["credentialsRef"] = ordered::parse(dns_credentials_ref(p.secret_name));
        else
            provider["secretName"] = p.secret_name;
        provider["type"] = p.type;
        providers.push_back(std::move(provider));
    }
    if (!providers.empty())
        out["providers"] = std::move(providers);
    return out;
}

// gardener-landscape.md §4: EU access is this restriction, with the two options KIM sends
// (Gardener passes them on without interpreting them); the region must offer it.
ordered eu_access_restrictions() {
    return ordered::array({ordered{
        {"name", "eu-access-only"},
        {"options", ordered{{"support.gardener.cloud/eu-access-for-cluster-addons", "true"},
                            {"support.gardener.cloud/eu-access-for-cluster-nodes", "true"}}}}});
}

ordered extensions(const GardenerConfig& g) {
    return ordered::array(
        {ordered{{"type", "shoot-dns-service"},
                 {"providerConfig",
                  ordered{{"apiVersion", "service.dns.extensions.gardener.cloud/v1alpha1"},
                          {"dnsProviderReplication", ordered{{"enabled", true}}},
                          {"kind", "DNSConfig"}}}},
         ordered{{"type", "shoot-cert-service"},
                 {"providerConfig",
                  ordered{{"apiVersion", "service.cert.extensions.gardener.cloud/v1alpha1"},
                          {"shootIssuers", ordered{{"enabled", true}}},
                          {"kind", "CertConfig"}}}},
         ordered{{"type", "shoot-networking-filter"},
                 {"disabled", g.shoot_networking_filter_disabled.value_or(true)}}});
}

std::optional<ordered> maintenance_window(const GardenerConfig& g, const ShootOptions& options,
                                          std::vector<std::string>& warnings) {
    if (g.purpose != "production" || !options.maintenance_windows)
        return std::nullopt;
    const auto& windows = *options.maintenance_windows;
    const auto it = windows.find(ascii_lower(g.region));
    if (it == windows.end()) {
        warnings.push_back("no maintenance window is configured for region \"" + g.region +
                           "\"; Gardener will choose one");
        return std::nullopt;
    }
    if (it->second.begin.empty() || it->second.end.empty()) {
        warnings.push_back("the maintenance window of region \"" + g.region +
                           "\" has an empty begin or end; Gardener will choose one");
        return std::nullopt;
    }
    return ordered{{"begin", it->second.begin}, {"end", it->second.end}};
}

std::string username_prefix(const OidcConfig& oidc, const std::string& claim) {
    // The legacy --oidc-username-prefix rules, which structured authentication does not apply
    // by itself: "-" means none; unset means "<issuer>#" unless the claim is "email".
    if (oidc.username_prefix == "-")
        return "";
    if (oidc.username_prefix.empty())
        return claim == "email" ? "" : oidc.issuer_url + "#";
    return oidc.username_prefix;
}

ordered authentication_configuration(const OidcConfig& oidc) {
    const std::string claim = oidc.username_claim.empty() ? "sub" : oidc.username_claim;
    ordered mappings{
        {"username", ordered{{"claim", claim}, {"prefix", username_prefix(oidc, claim)}}}};
    if (!oidc.groups_claim.empty())
        mappings["groups"] = ordered{{"claim", oidc.groups_claim}, {"prefix", ""}};
    ordered jwt{{"issuer", ordered{{"url", oidc.issuer_url},
                                   {"audiences", ordered::array({oidc.client_id})}}},
                {"claimMappings", std::move(mappings)}};
    return ordered{{"apiVersion", "apiserver.config.k8s.io/v1beta1"},
                   {"kind", "AuthenticationConfiguration"},
                   {"jwt", ordered::array({std::move(jwt)})}};
}

ordered kube_api_server(const Runtime& runtime, const std::string& namespace_name,
                        const ShootOptions& options, ShootPlan& plan) {
    const GardenerConfig& g = runtime.gardener;
    ordered server = ordered::object();
    if (!options.audit_policy_config_map.empty())
        server["auditConfig"] = ordered{
            {"auditPolicy",
             ordered{{"configMapRef", ordered{{"name", options.audit_policy_config_map}}}}}};
    if (g.oidc) {
        if (options.legacy_api) {
            server["oidcConfig"] = ordered::parse(legacy_oidc_config(*g.oidc));
        } else {
            server["structuredAuthentication"] =
                ordered{{"configMapName", structured_auth_config_map_name(g.name)}};
            plan.oidc_config_map =
                build_oidc_config_map(*g.oidc, g.name, namespace_name, runtime.id);
        }
    }
    return server;
}

ordered metadata(const Runtime& runtime, const std::string& operation_id,
                 const std::string& namespace_name) {
    const GardenerConfig& g = runtime.gardener;
    // Sorted, as Go marshals its annotation map.
    std::map<std::string, std::string> annotations{
        {std::string(k_runtime_id_annotation), runtime.id},
        {std::string(k_operation_id_annotation), operation_id},
        {std::string(k_legacy_runtime_id_annotation), runtime.id},
        {std::string(k_legacy_operation_id_annotation), operation_id},
    };
    if (g.licence_type)
        annotations[std::string(k_licence_type_annotation)] = *g.licence_type;
    // The annotation switches nothing on in Gardener (spec.accessRestrictions does, see
    // eu_access_restrictions); it stays because shoots of the original provisioner carry it and
    // adoption (shoot_adoption.cpp) reads euAccess from it on shoots without restrictions.
    if (g.eu_access)
        annotations[std::string(k_eu_access_annotation)] = "true";
    return ordered{
        {"name", g.name},
        {"namespace", namespace_name},
        {"labels", ordered{{"account", runtime.tenant}, {"subaccount", runtime.sub_account_id}}},
        {"annotations", annotations}};
}

} // namespace

std::map<std::string, MaintenanceWindow> parse_maintenance_windows(std::string_view json_text) {
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::parse_error& e) {
        throw ValidationError("", "the maintenance window file is not valid JSON (error at byte " +
                                      std::to_string(e.byte) + ")");
    }
    if (!document.is_object())
        throw ValidationError("", "the maintenance window file must be a JSON object keyed by "
                                  "region, such as {\"westeurope\": {\"begin\": \"170000+0000\", "
                                  "\"end\": \"180000+0000\"}}");
    std::map<std::string, MaintenanceWindow> windows;
    std::vector<FieldProblem> problems;
    for (const auto& item : document.items()) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::string& region = item.key();
        const auto& value = item.value();
        if (!value.is_object()) {
            problems.push_back({region, "must be an object with \"begin\" and \"end\""});
            continue;
        }
        const auto read = [&](const std::string& key) {
            const auto it = value.find(key);
            if (it == value.end() || it->is_null())
                return std::string();
            if (!it->is_string()) {
                problems.push_back(
                    {region + "." + key, "must be a string such as \"170000+0000\""});
                return std::string();
            }
            return it->get<std::string>();
        };
        windows[ascii_lower(region)] = MaintenanceWindow{read("begin"), read("end")};
    }
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    return windows;
}

bool dns_needs_credentials_ref(std::string_view kubernetes_version) {
    return kubernetes_version_at_least(kubernetes_version, "1.35");
}

std::string dns_credentials_ref(std::string_view secret_name) {
    return ordered{{"apiVersion", "v1"}, {"kind", "Secret"}, {"name", secret_name}}.dump();
}

std::string structured_auth_config_map_name(std::string_view shoot_name) {
    return "structured-auth-config-" + std::string(shoot_name);
}

std::string build_oidc_config_map(const OidcConfig& oidc, std::string_view shoot_name,
                                  std::string_view namespace_name, std::string_view runtime_id) {
    ordered meta{{"name", structured_auth_config_map_name(shoot_name)},
                 {"namespace", namespace_name}};
    if (!runtime_id.empty())
        meta["annotations"] = ordered{{std::string(k_runtime_id_annotation), runtime_id}};
    // JSON is YAML: Gardener reads config.yaml with a YAML decoder.
    return ordered{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", std::move(meta)},
        {"data", ordered{{"config.yaml", authentication_configuration(oidc).dump(2) + "\n"}}}}
        .dump();
}

std::string legacy_oidc_config(const OidcConfig& oidc) {
    return ordered{{"clientID", oidc.client_id},           {"groupsClaim", oidc.groups_claim},
                   {"issuerURL", oidc.issuer_url},         {"signingAlgs", oidc.signing_algs},
                   {"usernameClaim", oidc.username_claim}, {"usernamePrefix", oidc.username_prefix}}
        .dump();
}

ShootPlan build_shoot(const Runtime& runtime, const std::string& operation_id,
                      const ShootOptions& options) {
    const GardenerConfig& g = runtime.gardener;
    ShootPlan plan;
    const std::string project = g.project_name.empty() ? options.project : g.project_name;
    const std::string namespace_name = "garden-" + project;
    ProviderBlock block = std::visit(ProviderBlockBuilder{g}, g.provider_config);

    ordered spec = ordered::object();
    const CloudProfileRef profile = cloud_profile_of(g);
    if (options.legacy_api)
        spec["cloudProfileName"] = profile.name;
    if (g.dns)
        spec["dns"] = dns(*g.dns, g.kubernetes_version);
    spec["extensions"] = extensions(g);
    if (const auto schedules = encode_hibernation_schedules(g.hibernation_schedules))
        spec["hibernation"] = ordered{{"schedules", ordered::parse(*schedules)}};

    ordered kubernetes{{"kubeAPIServer", kube_api_server(runtime, namespace_name, options, plan)},
                       {"version", g.kubernetes_version}};
    if (options.legacy_api) // removed from the API in Gardener v1.122
        kubernetes["enableStaticTokenKubeconfig"] = false;
    spec["kubernetes"] = std::move(kubernetes);

    ordered networking{{"type", "calico"}};
    if (non_empty(g.pods_cidr))
        networking["pods"] = *g.pods_cidr;
    if (!block.nodes.empty())
        networking["nodes"] = block.nodes;
    if (non_empty(g.services_cidr))
        networking["services"] = *g.services_cidr;
    spec["networking"] = std::move(networking);

    ordered maintenance{
        {"autoUpdate",
         ordered{{"kubernetesVersion", g.enable_kubernetes_version_auto_update},
                 {"machineImageVersion", g.enable_machine_image_version_auto_update}}}};
    if (auto window = maintenance_window(g, options, plan.warnings))
        maintenance["timeWindow"] = std::move(*window);
    spec["maintenance"] = std::move(maintenance);

    spec["provider"] = ordered{{"type", block.type},
                               {"controlPlaneConfig", std::move(block.control_plane)},
                               {"infrastructureConfig", std::move(block.infrastructure)},
                               {"workers", ordered::array({worker(g, block.zones)})}};
    if (non_empty(g.purpose))
        spec["purpose"] = *g.purpose;
    spec["region"] = g.region;
    if (options.legacy_api)
        spec["secretBindingName"] = g.target_secret;
    if (!g.seed.empty())
        spec["seedName"] = g.seed;
    if (non_empty(g.exposure_class_name))
        spec["exposureClassName"] = *g.exposure_class_name;
    if (non_empty(g.control_plane_failure_tolerance))
        spec["controlPlane"] = ordered{
            {"highAvailability",
             ordered{{"failureTolerance", ordered{{"type", *g.control_plane_failure_tolerance}}}}}};
    if (!options.legacy_api) {
        spec["cloudProfile"] = ordered{{"kind", profile.kind}, {"name", profile.name}};
        spec["credentialsBindingName"] = g.target_secret;
    }
    // Also in legacy mode: a Gardener from v1.107 honours it, an older one drops the field.
    if (g.eu_access)
        spec["accessRestrictions"] = eu_access_restrictions();

    plan.shoot = ordered{{"kind", "Shoot"},
                         {"apiVersion", "core.gardener.cloud/v1beta1"},
                         {"metadata", metadata(runtime, operation_id, namespace_name)},
                         {"spec", std::move(spec)}}
                     .dump();
    return plan;
}

} // namespace kprov::engine
