// From validated inputs to the stored model: a new runtime with the original's defaults
// (original-provisioner.md §4.1), and an upgrade merged over the stored config (§2.5 step 3)
// with the provider immutability rules (§1.5, §2.5 step 7).

#include "engine/error.hpp"
#include "engine/input/landscape_check.hpp"
#include "engine/input/provider_config.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/input/runtime_input_detail.hpp"

#include <algorithm>

namespace kprov::engine {
namespace {

const std::string k_change_prefix = "Invalid gardener provider config change, ";
const std::string k_openstack_exposure_class = "converged-cloud-internet";
const std::string k_openstack_floating_pool = "FloatingIP-external-kyma-01";
const std::string k_openstack_cloud_profile = "converged-cloud-kyma";

ProviderSubInput sub_input(const ProviderInput& input, std::string_view type) {
    for (const auto& sub : provider_sub_inputs(input))
        if (sub.type == type)
            return sub;
    return {};
}

// The sub-config for cloud `type`, which the caller has checked is given. OpenStack names
// omitted from the input come from `openstack_fallback` (the defaults, or the stored values).
ProviderConfig take(const ProviderInput& input, std::string_view type,
                    const OpenStackConfig& openstack_fallback) {
    if (type == "gcp")
        return *input.gcp;
    if (type == "azure")
        return *input.azure;
    if (type == "aws")
        return *input.aws;
    const OpenStackInput& os = *input.openstack;
    return OpenStackConfig{os.zones,
                           os.floating_pool_name.value_or(openstack_fallback.floating_pool_name),
                           os.cloud_profile_name.value_or(openstack_fallback.cloud_profile_name),
                           os.load_balancer_provider};
}

// The provision path: validate_provision() has checked all of this; the throw keeps an
// unvalidated caller from storing a runtime without a provider config.
ProviderConfig provision_provider_config(const GardenerConfigInput& g) {
    const auto type = provider_type_of(g.provider);
    const std::string path = "clusterConfig.gardenerConfig.providerSpecificConfig";
    if (!type)
        throw ValidationError("clusterConfig.gardenerConfig.provider",
                              "must be one of aws, azure (or az), gcp, openstack, got \"" +
                                  g.provider + "\"");
    if (!sub_input(g.provider_config, *type).given)
        throw ValidationError(path, std::string(sub_input(g.provider_config, *type).field) +
                                        " is missing (provider \"" + g.provider + "\" needs it)");
    return take(g.provider_config, *type,
                OpenStackConfig{{}, k_openstack_floating_pool, k_openstack_cloud_profile, {}});
}

// The original's rule: the DNS providers' domainsInclude is always [domain] (a KEB workaround).
std::optional<DnsConfig> provision_dns(const std::optional<DnsConfig>& input) {
    if (!input)
        return std::nullopt;
    DnsConfig dns = *input;
    for (auto& provider : dns.providers)
        provider.domains_include = {dns.domain};
    return dns;
}

class ChangeCheck {
public:
    explicit ChangeCheck(std::string path)
        : m_path(std::move(path)) {}

    void add(const std::string& sub_path, const std::string& message) {
        m_problems.push_back(FieldProblem{m_path + sub_path, k_change_prefix + message});
    }

    // The upgrade may not move the runtime to another cloud. With the runtime's own member
    // given, the others are ignored (upgrade_input_warnings), as on provisioning.
    bool same_cloud(const ProviderInput& input, std::string_view stored_type) {
        const auto own = sub_input(input, stored_type);
        if (own.given)
            return true;
        bool other = false;
        for (const auto& sub : provider_sub_inputs(input)) {
            if (sub.given) {
                add("." + std::string(sub.field), "cannot change the provider from " +
                                                      std::string(stored_type) + " to " +
                                                      std::string(sub.type));
                other = true;
            }
        }
        if (!other)
            add("", std::string(own.field) + " is missing (the runtime runs on " +
                        std::string(stored_type) + ")");
        return false;
    }

    // Problems of the member's own content (zones, CIDRs), which are not about a change.
    void content(std::vector<FieldProblem> problems) {
        for (auto& problem : problems)
            m_problems.push_back(std::move(problem));
    }

    // Zones keep their CIDRs and none are added (the original's AzureGardenerConfig rule).
    void azure(const AzureConfig& stored, const AzureConfig& input) {
        if (!input.azure_zones)
            return;
        const auto& known = stored.azure_zones ? *stored.azure_zones : std::vector<AzureZone>{};
        for (std::size_t i = 0; i < input.azure_zones->size(); ++i) {
            const auto& zone = (*input.azure_zones)[i];
            const auto where = ".azureConfig.azureZones[" + std::to_string(i) + "]";
            const auto it = std::find_if(known.begin(), known.end(),
                                         [&](const AzureZone& z) { return z.name == zone.name; });
            if (it == known.end())
                add(where, "extension of shoot network zones is not supported");
            else if (it->cidr != zone.cidr)
                add(where + ".cidr",
                    "cannot change shoot network zone CIDR from " + it->cidr + " to " + zone.cidr);
        }
    }

    void aws(const AwsConfig& stored, const AwsConfig& input) {
        for (std::size_t i = 0; i < input.aws_zones.size(); ++i) {
            const auto& zone = input.aws_zones[i];
            const auto where = ".awsConfig.awsZones[" + std::to_string(i) + "]";
            const auto it = std::find_if(stored.aws_zones.begin(), stored.aws_zones.end(),
                                         [&](const AwsZone& z) { return z.name == zone.name; });
            if (it == stored.aws_zones.end()) {
                add(where, "extension of shoot network zones is not supported");
                continue;
            }
            cidr(where + ".workerCidr", "workers", it->worker_cidr, zone.worker_cidr);
            cidr(where + ".internalCidr", "internal", it->internal_cidr, zone.internal_cidr);
            // The original said "internal" here too (a copy-paste slip); kprov names the
            // public CIDR.
            cidr(where + ".publicCidr", "public", it->public_cidr, zone.public_cidr);
        }
    }

    void throw_if_any() {
        if (!m_problems.empty())
            throw ValidationError(std::move(m_problems));
    }

private:
    void cidr(const std::string& where, const char* kind, const std::string& from,
              const std::string& to) {
        if (from != to)
            add(where, "cannot change shoot network zone " + std::string(kind) + " CIDR from " +
                           from + " to " + to);
    }

    std::string m_path;
    std::vector<FieldProblem> m_problems;
};

template <typename T> void keep_or_take(T& stored, const std::optional<T>& input) {
    if (input)
        stored = *input;
}

template <typename T> void keep_or_take(std::optional<T>& stored, const std::optional<T>& input) {
    if (input)
        stored = input;
}

// What the upgrade gives, combined with what it keeps, must still make a worker pool.
void check_merged_workers(const GardenerConfig& merged, const GardenerUpgradeInput& g) {
    std::vector<FieldProblem> problems;
    const std::string base = "gardenerConfig.";
    if (merged.auto_scaler_min > merged.auto_scaler_max) {
        if (g.auto_scaler_max)
            problems.push_back(
                {base + "autoScalerMax", "must be at least autoScalerMin (" +
                                             std::to_string(merged.auto_scaler_min) +
                                             (g.auto_scaler_min ? "" : ", the stored value") +
                                             "), got " + std::to_string(merged.auto_scaler_max)});
        else
            problems.push_back(
                {base + "autoScalerMin",
                 "must be at most autoScalerMax (" + std::to_string(merged.auto_scaler_max) +
                     ", the stored value), got " + std::to_string(merged.auto_scaler_min)});
    }
    if (merged.max_surge == 0 && merged.max_unavailable == 0 && (g.max_surge || g.max_unavailable))
        problems.push_back({base + (g.max_unavailable ? "maxUnavailable" : "maxSurge"),
                            "must be greater than 0 when the other of maxSurge and "
                            "maxUnavailable is 0 (nodes could not be replaced)"});
    if (!problems.empty())
        throw ValidationError(std::move(problems));
}

// The runtime file's profile, else OpenStack's cloudProfileName, else the provider's setting:
// stored with the runtime, so that a changed setting never moves an existing shoot.
std::optional<CloudProfileRef> cloud_profile_for(const GardenerConfigInput& g,
                                                 const ConversionOptions& options) {
    if (g.cloud_profile)
        return g.cloud_profile;
    const auto type = provider_type_of(g.provider);
    if (!type)
        return std::nullopt;
    if (*type == "openstack" && g.provider_config.openstack &&
        g.provider_config.openstack->cloud_profile_name)
        return CloudProfileRef{std::string(k_cloud_profile_kind),
                               *g.provider_config.openstack->cloud_profile_name};
    const std::string key(*type);
    if (const auto it = options.cloud_profiles.find(key); it != options.cloud_profiles.end())
        return CloudProfileRef{std::string(k_cloud_profile_kind), it->second};
    return CloudProfileRef{std::string(k_cloud_profile_kind), default_cloud_profiles().at(key)};
}

} // namespace

Runtime to_runtime(const ProvisionInput& input, const std::string& runtime_id,
                   const std::string& tenant, const std::string& sub_account, Timestamp now,
                   const ConversionOptions& options) {
    const GardenerConfigInput& g = input.gardener;
    Runtime runtime;
    runtime.id = runtime_id;
    runtime.tenant = tenant;
    runtime.sub_account_id = sub_account;
    runtime.creation_timestamp = now;
    runtime.name = input.runtime.name;
    runtime.description = input.runtime.description.value_or("");
    runtime.labels_json = input.runtime.labels_json.value_or("{}");
    if (input.kyma_config_json)
        runtime.kyma = to_kyma_config(*input.kyma_config_json, runtime_id);
    runtime.administrators = input.administrators.value_or(std::vector<std::string>{});

    GardenerConfig& c = runtime.gardener;
    c.id = new_uuid();
    c.name = g.name;
    c.project_name = options.gardener_project;
    c.kubernetes_version = g.kubernetes_version;
    c.volume_size_gb = g.volume_size_gb;
    c.machine_type = g.machine_type;
    c.machine_image = g.machine_image;
    c.machine_image_version = g.machine_image_version;
    c.region = g.region;
    c.provider = g.provider;
    c.purpose = g.purpose;
    c.licence_type = g.licence_type;
    c.seed = g.seed.value_or("");
    c.target_secret = g.target_secret;
    c.disk_type = g.disk_type;
    c.worker_cidr = g.worker_cidr;
    c.pods_cidr = g.pods_cidr;
    c.services_cidr = g.services_cidr;
    c.auto_scaler_min = g.auto_scaler_min;
    c.auto_scaler_max = g.auto_scaler_max;
    c.max_surge = g.max_surge;
    c.max_unavailable = g.max_unavailable;
    c.enable_kubernetes_version_auto_update = g.enable_kubernetes_version_auto_update.value_or(
        options.default_enable_kubernetes_version_auto_update);
    c.enable_machine_image_version_auto_update =
        g.enable_machine_image_version_auto_update.value_or(
            options.default_enable_machine_image_version_auto_update);
    // The original forces this class on every OpenStack shoot, whatever the input says.
    c.exposure_class_name = provider_type_of(g.provider) == "openstack"
                                ? std::optional<std::string>(k_openstack_exposure_class)
                                : g.exposure_class_name;
    c.provider_config = provision_provider_config(g);
    c.shoot_networking_filter_disabled = g.shoot_networking_filter_disabled.value_or(true);
    c.control_plane_failure_tolerance = g.control_plane_failure_tolerance;
    c.eu_access = g.eu_access.value_or(false);
    c.oidc = g.oidc;
    c.dns = provision_dns(g.dns);
    c.hibernation_schedules = g.hibernation_schedules;
    c.cloud_profile = cloud_profile_for(g, options);
    return runtime;
}

GardenerConfig merge_upgrade(const GardenerConfig& stored, const UpgradeShootInput& input) {
    const GardenerUpgradeInput& g = input.gardener;
    GardenerConfig merged = stored;
    keep_or_take(merged.kubernetes_version, g.kubernetes_version);
    keep_or_take(merged.machine_type, g.machine_type);
    keep_or_take(merged.disk_type, g.disk_type);
    keep_or_take(merged.volume_size_gb, g.volume_size_gb);
    keep_or_take(merged.auto_scaler_min, g.auto_scaler_min);
    keep_or_take(merged.auto_scaler_max, g.auto_scaler_max);
    keep_or_take(merged.machine_image, g.machine_image);
    keep_or_take(merged.machine_image_version, g.machine_image_version);
    keep_or_take(merged.max_surge, g.max_surge);
    keep_or_take(merged.max_unavailable, g.max_unavailable);
    keep_or_take(merged.purpose, g.purpose);
    keep_or_take(merged.enable_kubernetes_version_auto_update,
                 g.enable_kubernetes_version_auto_update);
    keep_or_take(merged.enable_machine_image_version_auto_update,
                 g.enable_machine_image_version_auto_update);
    keep_or_take(merged.exposure_class_name, g.exposure_class_name);
    keep_or_take(merged.shoot_networking_filter_disabled, g.shoot_networking_filter_disabled);
    // Deliberate difference 6: the original took OIDC only from the input, dropping the stored
    // one on every upgrade that did not repeat it.
    keep_or_take(merged.oidc, g.oidc);
    keep_or_take(merged.hibernation_schedules, g.hibernation_schedules);

    if (g.provider_config) {
        const std::string path = "gardenerConfig.providerSpecificConfig";
        ChangeCheck check(path);
        const auto type = provider_type(stored.provider_config);
        if (check.same_cloud(*g.provider_config, type)) {
            // validate_upgrade could not know which member is used when several are given.
            check.content(detail::provider_content_problems(path, *g.provider_config, type));
            const auto* stored_os = std::get_if<OpenStackConfig>(&stored.provider_config);
            merged.provider_config =
                take(*g.provider_config, type, stored_os ? *stored_os : OpenStackConfig{});
            if (const auto* azure = std::get_if<AzureConfig>(&stored.provider_config))
                check.azure(*azure, std::get<AzureConfig>(merged.provider_config));
            if (const auto* aws = std::get_if<AwsConfig>(&stored.provider_config))
                check.aws(*aws, std::get<AwsConfig>(merged.provider_config));
        }
        check.throw_if_any();
    }

    check_merged_workers(merged, g);
    return merged;
}

std::vector<std::string> upgrade_input_warnings(const GardenerConfig& stored,
                                                const UpgradeShootInput& input) {
    const auto& given = input.gardener.provider_config;
    const auto type = provider_type(stored.provider_config);
    if (!given || !sub_input(*given, type).given)
        return {}; // nothing ignored, or merge_upgrade refuses it
    std::vector<std::string> warnings;
    for (const auto& sub : provider_sub_inputs(*given))
        if (sub.given && sub.type != type)
            warnings.push_back("gardenerConfig.providerSpecificConfig." + std::string(sub.field) +
                               " is ignored: the runtime runs on " + std::string(type) +
                               " and uses " + std::string(sub_input(*given, type).field));
    return warnings;
}

} // namespace kprov::engine
