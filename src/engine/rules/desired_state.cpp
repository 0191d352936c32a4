// Which differences between a stored runtime and a runtime file an upgradeShoot can make, and
// which would need a new runtime. Compared in the GraphQL shape (status_json), so the field
// names are the runtime file's own.

#include "engine/rules/desired_state.hpp"

#include "engine/input/hibernation_schedule.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/status_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using Json = nlohmann::ordered_json;

std::string shown(const Json& value) {
    const std::string text = value.dump();
    return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

// The gardenerConfig fields UpgradeShootInput sets (providerSpecificConfig and
// kubernetesVersion are decided on their own).
const std::vector<std::string>& upgradable_fields() {
    static const std::vector<std::string> k_fields = {"machineType",
                                                      "machineImage",
                                                      "machineImageVersion",
                                                      "diskType",
                                                      "volumeSizeGB",
                                                      "autoScalerMin",
                                                      "autoScalerMax",
                                                      "maxSurge",
                                                      "maxUnavailable",
                                                      "purpose",
                                                      "enableKubernetesVersionAutoUpdate",
                                                      "enableMachineImageVersionAutoUpdate",
                                                      "exposureClassName",
                                                      "shootNetworkingFilterDisabled",
                                                      "oidcConfig"};
    return k_fields;
}

// Members of a provider config that fix the shoot's network and zones: Gardener cannot move a
// running cluster's nodes to other zones or address ranges (the original refused most of it too).
bool is_network_member(const std::string& member) {
    static const std::vector<std::string> k_members = {"zones",   "azureZones", "vnetCidr",
                                                       "vpcCidr", "awsZones",   "cloudProfileName"};
    return std::find(k_members.begin(), k_members.end(), member) != k_members.end();
}

ProviderInput as_input(const ProviderConfig& config) {
    ProviderInput input;
    if (const auto* gcp = std::get_if<GcpConfig>(&config))
        input.gcp = *gcp;
    else if (const auto* azure = std::get_if<AzureConfig>(&config))
        input.azure = *azure;
    else if (const auto* aws = std::get_if<AwsConfig>(&config))
        input.aws = *aws;
    else if (const auto* os = std::get_if<OpenStackConfig>(&config))
        input.openstack = OpenStackInput{os->zones, os->floating_pool_name, os->cloud_profile_name,
                                         os->load_balancer_provider};
    return input;
}

// The runtime file's name of the provider config's member: "awsConfig".
std::string member_field(const ProviderInput& input) {
    for (const auto& sub : provider_sub_inputs(input))
        if (sub.given)
            return std::string(sub.field);
    return "providerSpecificConfig";
}

// Sets the upgrade input's member for `field` to the planned value.
void take(GardenerUpgradeInput& g, const std::string& field, const GardenerConfig& p) {
    if (field == "machineType")
        g.machine_type = p.machine_type;
    else if (field == "machineImage")
        g.machine_image = p.machine_image;
    else if (field == "machineImageVersion")
        g.machine_image_version = p.machine_image_version;
    else if (field == "diskType")
        g.disk_type = p.disk_type;
    else if (field == "volumeSizeGB")
        g.volume_size_gb = p.volume_size_gb;
    else if (field == "autoScalerMin")
        g.auto_scaler_min = p.auto_scaler_min;
    else if (field == "autoScalerMax")
        g.auto_scaler_max = p.auto_scaler_max;
    else if (field == "maxSurge")
        g.max_surge = p.max_surge;
    else if (field == "maxUnavailable")
        g.max_unavailable = p.max_unavailable;
    else if (field == "purpose")
        g.purpose = p.purpose;
    else if (field == "enableKubernetesVersionAutoUpdate")
        g.enable_kubernetes_version_auto_update = p.enable_kubernetes_version_auto_update;
    else if (field == "enableMachineImageVersionAutoUpdate")
        g.enable_machine_image_version_auto_update = p.enable_machine_image_version_auto_update;
    else if (field == "exposureClassName")
        g.exposure_class_name = p.exposure_class_name;
    else if (field == "shootNetworkingFilterDisabled")
        g.shoot_networking_filter_disabled = p.shoot_networking_filter_disabled;
    else if (field == "oidcConfig")
        g.oidc = p.oidc;
}

class Comparison {
public:
    Comparison(const Runtime& stored, const Runtime& planned)
        : m_stored(stored)
        , m_planned(planned)
        , m_from(gardener_config_json(stored.gardener))
        , m_to(gardener_config_json(planned.gardener)) {}

    ConfigChanges run(bool administrators_given, bool schedules_given) {
        runtime_fields();
        for (const auto& [field, value] : m_from.items())
            gardener_field(field, value, m_to[field]);
        if (schedules_given)
            hibernation_schedules();
        if (administrators_given && m_planned.administrators != m_stored.administrators) {
            m_out.upgrade.administrators = m_planned.administrators;
            m_out.upgraded.push_back({"administrators", shown(Json(m_stored.administrators)),
                                      shown(Json(m_planned.administrators)), ""});
        }
        return std::move(m_out);
    }

private:
    void refuse(std::string field, const Json& from, const Json& to, std::string note) {
        m_out.refused.push_back({std::move(field), shown(from), shown(to), std::move(note)});
    }

    // No operation changes what the runtime input and the Kyma request set.
    void runtime_fields() {
        const std::string note = "no operation changes it";
        if (m_planned.name != m_stored.name)
            refuse("runtimeInput.name", m_stored.name, m_planned.name, note);
        if (m_planned.description != m_stored.description)
            refuse("runtimeInput.description", m_stored.description, m_planned.description, note);
        const auto from = Json::parse(m_stored.labels_json, nullptr, false);
        const auto to = Json::parse(m_planned.labels_json, nullptr, false);
        if (from != to)
            refuse("runtimeInput.labels", from, to, note);
        if (!same_kyma(m_stored.kyma, m_planned.kyma))
            refuse("kymaConfig", kyma_config_json(m_stored.kyma), kyma_config_json(m_planned.kyma),
                   "apply does not change Kyma; use kprov upgrade-kyma");
    }

    static bool same_kyma(const std::optional<KymaConfig>& a, const std::optional<KymaConfig>& b) {
        // kyma_config_json shows what a request sets (the release by its version only).
        return kyma_config_json(a) == kyma_config_json(b);
    }

    void gardener_field(const std::string& field, const Json& from, const Json& to) {
        if (from == to || field == "name")
            return;
        if (field == "seed") {
            // Gardener chooses the seed when the file names none.
            if (!m_planned.gardener.seed.empty())
                refuse(field, from, to, "a shoot cannot move to another seed");
            return;
        }
        if (field == "kubernetesVersion") {
            // Lower is no change: kprov never downgrades, and auto-update may have raised it.
            if (compare_kubernetes_versions(m_planned.gardener.kubernetes_version,
                                            m_stored.gardener.kubernetes_version) > 0)
                upgrade(field, from, to);
            return;
        }
        if (field == "providerSpecificConfig")
            return provider_config(from, to);
        const auto& upgradable = upgradable_fields();
        if (std::find(upgradable.begin(), upgradable.end(), field) == upgradable.end())
            return refuse(field, from, to, "no operation changes it");
        const bool removed = field == "oidcConfig"
                                 ? m_stored.gardener.oidc && !m_planned.gardener.oidc
                                 : to.is_null();
        if (removed)
            return refuse(field, from, to, "an upgrade can change it but not remove it");
        upgrade(field, from, to);
    }

    // kprov's own field, outside the GraphQL config: the upgrade replaces the schedules, and a
    // runtime without any leaves the shoot's alone (stored_upgrade_input), so none is no change
    // an upgrade can make.
    void hibernation_schedules() {
        const auto& stored = m_stored.gardener.hibernation_schedules;
        const auto& planned = m_planned.gardener.hibernation_schedules;
        if (stored == planned)
            return;
        const std::string field = "lifecycle.hibernationSchedules";
        auto json_of = [](const std::vector<HibernationSchedule>& schedules) {
            const auto text = encode_hibernation_schedules(schedules);
            return text ? Json::parse(*text) : Json::array();
        };
        if (planned.empty())
            return refuse(field, json_of(stored), Json::array(),
                          "an upgrade can change them but not remove them all");
        m_out.upgrade.gardener.hibernation_schedules = planned;
        m_out.upgraded.push_back({field, shown(json_of(stored)), shown(json_of(planned)), ""});
    }

    void upgrade(const std::string& field, const Json& from, const Json& to) {
        if (field == "kubernetesVersion")
            m_out.upgrade.gardener.kubernetes_version = m_planned.gardener.kubernetes_version;
        else
            take(m_out.upgrade.gardener, field, m_planned.gardener);
        m_out.upgraded.push_back({field, shown(from), shown(to), ""});
    }

    // Another cloud is the provider's refusal; within one cloud, network members are refused
    // one by one and the others go to the upgrade as the whole member.
    void provider_config(const Json& from, const Json& to) {
        if (from.value("__typename", "") != to.value("__typename", ""))
            return; // `provider` differs too, and is refused by that name
        const ProviderInput input = as_input(m_planned.gardener.provider_config);
        const std::string prefix = "providerSpecificConfig." + member_field(input) + ".";
        bool other = false;
        for (const auto& [member, value] : from.items()) {
            if (value == to[member])
                continue;
            if (is_network_member(member))
                refuse(prefix + member, value, to[member],
                       "the shoot's zones and network ranges cannot change");
            else
                other = true;
        }
        if (!other)
            return;
        m_out.upgrade.gardener.provider_config = input;
        m_out.upgraded.push_back({"providerSpecificConfig", shown(from), shown(to), ""});
    }

    const Runtime& m_stored;
    const Runtime& m_planned;
    Json m_from;
    Json m_to;
    ConfigChanges m_out;
};

} // namespace

ConfigChanges config_changes(const Runtime& stored, const Runtime& planned,
                             bool administrators_given, bool schedules_given) {
    return Comparison(stored, planned).run(administrators_given, schedules_given);
}

} // namespace kprov::engine
