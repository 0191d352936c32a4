#include "engine/shoot/shoot_upgrade.hpp"

#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/shoot/shoot_annotations.hpp"
#include "engine/shoot/shoot_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace kprov::engine {
namespace {

// The live shoot keeps its key order, so the applied object differs from what was read only
// where the upgrade changed it.
using ordered = nlohmann::ordered_json;

constexpr const char* k_networking_filter = "shoot-networking-filter";

// Replaces spec.hibernation.schedules, keeping `enabled` (the cluster's state now); no
// schedules remove the member, and an emptied hibernation with it.
void write_hibernation_schedules(ordered& spec, const std::vector<HibernationSchedule>& list) {
    if (const auto text = encode_hibernation_schedules(list)) {
        if (!spec["hibernation"].is_object())
            spec["hibernation"] = ordered::object();
        spec["hibernation"]["schedules"] = ordered::parse(*text);
        return;
    }
    const auto hibernation = spec.find("hibernation");
    if (hibernation == spec.end() || !hibernation->is_object())
        return;
    hibernation->erase("schedules");
    if (hibernation->empty())
        spec.erase(hibernation);
}

// ----- versions -----------------------------------------------------------------------------

struct Version {
    std::vector<std::uint64_t> numbers;
    std::vector<std::string> prerelease;
};

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_identifier_char(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

[[noreturn]] void unparsable(std::string_view text) {
    throw ValidationError("", "Failed to parse \"" + std::string(text) + "\" as a version");
}

/// Dot-separated non-empty identifiers of [0-9A-Za-z-]; false when malformed.
bool split_identifiers(std::string_view text, std::vector<std::string>& out) {
    std::string current;
    for (char c : text) {
        if (c == '.') {
            if (current.empty())
                return false;
            out.push_back(std::move(current));
            current.clear();
        } else if (is_identifier_char(c)) {
            current.push_back(c);
        } else {
            return false;
        }
    }
    if (current.empty())
        return false;
    out.push_back(std::move(current));
    return true;
}

Version parse_version(std::string_view text) {
    std::string_view rest = text;
    if (!rest.empty() && rest.front() == 'v')
        rest.remove_prefix(1);
    Version v;
    std::size_t i = 0;
    while (true) {
        const std::size_t start = i;
        while (i < rest.size() && is_digit(rest[i]))
            ++i;
        if (i == start || i - start > 18) // empty part, or too large for uint64
            unparsable(text);
        v.numbers.push_back(std::stoull(std::string(rest.substr(start, i - start))));
        if (i < rest.size() && rest[i] == '.') {
            ++i;
            continue;
        }
        break;
    }
    rest.remove_prefix(i);
    std::string_view build;
    if (const auto plus = rest.find('+'); plus != std::string_view::npos) {
        build = rest.substr(plus + 1);
        rest = rest.substr(0, plus);
        std::vector<std::string> ignored;
        if (!split_identifiers(build, ignored))
            unparsable(text);
    }
    if (!rest.empty()) {
        if (rest.front() != '-' || !split_identifiers(rest.substr(1), v.prerelease))
            unparsable(text);
    }
    return v;
}

bool numeric(const std::string& id) {
    for (char c : id)
        if (!is_digit(c))
            return false;
    return true;
}

int compare_identifiers(const std::string& a, const std::string& b) {
    const bool na = numeric(a), nb = numeric(b);
    if (na && nb) {
        if (a.size() != b.size()) // no leading zeros in practice; length orders the numbers
            return a.size() < b.size() ? -1 : 1;
        return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
    }
    if (na != nb)
        return na ? -1 : 1; // numeric identifiers sort before alphanumeric ones
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

int compare(const Version& a, const Version& b) {
    const std::size_t parts = std::max(a.numbers.size(), b.numbers.size());
    for (std::size_t i = 0; i < parts; ++i) {
        const std::uint64_t x = i < a.numbers.size() ? a.numbers[i] : 0;
        const std::uint64_t y = i < b.numbers.size() ? b.numbers[i] : 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
    if (a.prerelease.empty() || b.prerelease.empty()) {
        if (a.prerelease.empty() == b.prerelease.empty())
            return 0;
        return a.prerelease.empty() ? 1 : -1; // a release is greater than its prereleases
    }
    for (std::size_t i = 0; i < std::min(a.prerelease.size(), b.prerelease.size()); ++i)
        if (const int c = compare_identifiers(a.prerelease[i], b.prerelease[i]); c != 0)
            return c;
    if (a.prerelease.size() == b.prerelease.size())
        return 0;
    return a.prerelease.size() < b.prerelease.size() ? -1 : 1;
}

// ----- JSON helpers -------------------------------------------------------------------------

/// The object at parent[key], created (or replacing a non-object) when needed.
ordered& object_at(ordered& parent, const char* key) {
    ordered& value = parent[key];
    if (!value.is_object())
        value = ordered::object();
    return value;
}

const ordered* find(const ordered& parent, const char* key) {
    if (!parent.is_object())
        return nullptr;
    const auto it = parent.find(key);
    return it == parent.end() ? nullptr : &*it;
}

std::string string_at(const ordered& parent, const char* key) {
    const ordered* value = find(parent, key);
    return value && value->is_string() ? value->get<std::string>() : std::string();
}

std::optional<bool> networking_filter_disabled(const ordered& shoot) {
    const ordered* spec = find(shoot, "spec");
    const ordered* extensions = spec ? find(*spec, "extensions") : nullptr;
    if (!extensions || !extensions->is_array())
        return std::nullopt;
    for (const auto& extension : *extensions) {
        if (string_at(extension, "type") != k_networking_filter)
            continue;
        if (const ordered* disabled = find(extension, "disabled");
            disabled && disabled->is_boolean())
            return disabled->get<bool>();
    }
    return std::nullopt;
}

ordered parse_shoot(std::string_view text) {
    ordered shoot = ordered::parse(text, nullptr, false);
    if (shoot.is_discarded() || !shoot.is_object())
        throw Error("the live shoot is not a JSON object");
    return shoot;
}

// ----- the edits of §4.6 ----------------------------------------------------------------------

// ordered_json objects are vectors: inserting a key invalidates references to its siblings, so
// every edit below first creates the keys of an object, then takes references into it.

void update_worker(ordered& w, const GardenerConfig& merged) {
    if (!w.is_object())
        w = ordered::object();
    w["maxSurge"] = merged.max_surge;
    w["maxUnavailable"] = merged.max_unavailable;
    w["maximum"] = merged.auto_scaler_max;
    w["minimum"] = merged.auto_scaler_min;
    object_at(w, "machine");
    // A volume needs a size; create one only when the size is known.
    if (find(w, "volume") || merged.volume_size_gb) {
        ordered& volume = object_at(w, "volume");
        if (non_empty(merged.disk_type))
            volume["type"] = *merged.disk_type;
        if (merged.volume_size_gb)
            volume["size"] = std::to_string(*merged.volume_size_gb) + "Gi"; // Go's VolumeSize
    }
    ordered& machine = w["machine"];
    machine["type"] = merged.machine_type;
    // An image needs a name; a version alone only updates an existing image.
    if (non_empty(merged.machine_image))
        object_at(machine, "image")["name"] = *merged.machine_image;
    if (non_empty(merged.machine_image_version) && find(machine, "image"))
        object_at(machine, "image")["version"] = *merged.machine_image_version;
}

void replace_networking_filter(ordered& spec, bool disabled) {
    ordered& extensions = spec["extensions"];
    if (!extensions.is_array())
        extensions = ordered::array();
    ordered kept = ordered::array();
    ordered replacement{{"type", k_networking_filter}};
    for (auto& extension : extensions) {
        if (string_at(extension, "type") != k_networking_filter) {
            kept.push_back(std::move(extension));
            continue;
        }
        // The original dropped any providerConfig here; kprov keeps it.
        if (const ordered* config = find(extension, "providerConfig"))
            replacement["providerConfig"] = *config;
    }
    replacement["disabled"] = disabled;
    kept.push_back(std::move(replacement));
    extensions = std::move(kept);
}

void set_nat(ordered& holder, bool enable, const AzureConfig& azure) {
    if (!enable) {
        holder.erase("natGateway");
        return;
    }
    ordered& nat = object_at(holder, "natGateway");
    nat["enabled"] = true;
    nat["idleConnectionTimeoutMinutes"] =
        azure.idle_connection_timeout_minutes.value_or(k_default_idle_timeout_minutes);
}

void update_azure_infrastructure(ordered& provider, const AzureConfig& azure,
                                 const std::string& shoot_name) {
    ordered infrastructure;
    if (const ordered* live = find(provider, "infrastructureConfig")) {
        if (live->is_object())
            infrastructure = *live;
        else if (live->is_string()) // a RawExtension some clients send as text
            infrastructure = ordered::parse(live->get<std::string>(), nullptr, false);
    }
    if (!infrastructure.is_object())
        throw Error("error decoding infrastructure config of Gardener shoot '" + shoot_name +
                    "': not a JSON object");
    ordered& networks = object_at(infrastructure, "networks");
    const bool enable = *azure.enable_nat_gateway;
    if (!azure.azure_zones || azure.azure_zones->empty()) {
        set_nat(networks, enable, azure);
    } else if (auto zones = networks.find("zones"); zones != networks.end() && zones->is_array()) {
        for (auto& zone : *zones)
            if (zone.is_object())
                set_nat(zone, enable, azure);
    }
    if (!azure.vnet_cidr.empty())
        object_at(networks, "vnet")["cidr"] = azure.vnet_cidr;
    provider["infrastructureConfig"] = std::move(infrastructure);
}

// gardener-landscape.md §4: a shoot raised to 1.35 or later must drop its DNS providers'
// secretName in the same update (Gardener refuses it there, and the GET of a 1.34 shoot returns
// it beside credentialsRef). The same Secret stays referenced through credentialsRef.
void move_dns_secrets_to_credentials_refs(ordered& spec) {
    const auto dns = spec.find("dns");
    if (dns == spec.end() || !dns->is_object())
        return;
    const auto providers = dns->find("providers");
    if (providers == dns->end() || !providers->is_array())
        return;
    for (auto& provider : *providers) {
        if (!provider.is_object())
            continue;
        const std::string secret = string_at(provider, "secretName");
        provider.erase("secretName");
        if (!secret.empty() && !find(provider, "credentialsRef"))
            provider["credentialsRef"] = ordered::parse(dns_credentials_ref(secret));
    }
}

void update_oidc(ordered& shoot, ordered& kubernetes, const OidcConfig& oidc,
                 const GardenerConfig& merged, const ShootOptions& options, ShootUpgrade& out) {
    ordered& server = object_at(kubernetes, "kubeAPIServer");
    if (options.legacy_api) {
        server["oidcConfig"] = ordered::parse(legacy_oidc_config(oidc));
        return;
    }
    server.erase("oidcConfig"); // removed from the API in Gardener v1.142
    const ordered& meta = shoot["metadata"];
    const std::string name = string_at(meta, "name");
    object_at(server, "structuredAuthentication")["configMapName"] =
        structured_auth_config_map_name(name);
    std::string namespace_name = string_at(meta, "namespace");
    if (namespace_name.empty())
        namespace_name =
            "garden-" + (merged.project_name.empty() ? options.project : merged.project_name);
    const ordered* annotations = find(meta, "annotations");
    const std::string runtime_id =
        annotations ? string_at(*annotations, k_runtime_id_annotation.data()) : "";
    out.oidc_config_map = build_oidc_config_map(oidc, name, namespace_name, runtime_id);
    out.oidc = oidc;
}

// A shoot made by the original provisioner or in legacy mode (or adopted from one) may still
// carry kubeAPIServer.oidcConfig, which Gardener refuses for Kubernetes 1.32 and later (v1.107
// to v1.141) and drops from v1.142, leaving the cluster without OIDC (gardener-landscape.md
// §4). Structured authentication, in the same update, is what Gardener asks for instead. The
// live settings as kprov's OidcConfig; ValidationError naming every member that structured
// authentication as kprov writes it cannot carry, before anything is written.
OidcConfig live_oidc_config(const ordered& oidc, const std::string& version) {
    const std::string base = "spec.kubernetes.kubeAPIServer.oidcConfig";
    const std::string why = "the shoot goes to Kubernetes " + version +
                            ", where Gardener refuses oidcConfig and kprov moves it to "
                            "structured authentication, ";
    std::vector<FieldProblem> problems;
    OidcConfig out;
    if (!oidc.is_object()) {
        problems.push_back({base, "is " + oidc.dump() + ", not an object: " + why +
                                      "which needs the OIDC settings"});
        throw ValidationError(std::move(problems));
    }
    const std::string remedy =
        "; give gardenerConfig.oidcConfig in the upgrade (it replaces the shoot's), or move the "
        "shoot to kubeAPIServer.structuredAuthentication yourself";
    for (const auto& [key, value] : oidc.items()) {
        std::string* text = key == "clientID"         ? &out.client_id
                            : key == "groupsClaim"    ? &out.groups_claim
                            : key == "issuerURL"      ? &out.issuer_url
                            : key == "usernameClaim"  ? &out.username_claim
                            : key == "usernamePrefix" ? &out.username_prefix
                                                      : nullptr;
        if (text && value.is_string()) {
            *text = value.get<std::string>();
        } else if (key == "signingAlgs" && value.is_array()) {
            for (const auto& alg : value)
                if (alg.is_string())
                    out.signing_algs.push_back(alg.get<std::string>());
        } else if (!value.is_null()) {
            problems.push_back({base + "." + key, "is " + value.dump() + ": " + why +
                                                      "which cannot carry it" + remedy});
        }
    }
    if (out.client_id.empty())
        problems.push_back(
            {base + ".clientID", "is empty: " + why + "whose audience it must be" + remedy});
    if (out.issuer_url.empty())
        problems.push_back(
            {base + ".issuerURL", "is empty: " + why + "which needs the issuer" + remedy});
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    return out;
}

} // namespace

int compare_kubernetes_versions(std::string_view a, std::string_view b) {
    return compare(parse_version(a), parse_version(b));
}

bool kubernetes_version_at_least(std::string_view version, std::string_view minimum) {
    try {
        return compare_kubernetes_versions(version, minimum) >= 0;
    } catch (const ValidationError&) {
        return false;
    }
}

std::string effective_kubernetes_version(std::string_view live, std::string_view requested) {
    return compare_kubernetes_versions(live, requested) > 0 ? std::string(live)
                                                            : std::string(requested);
}

std::string kept_kubernetes_version_warning(std::string_view requested, std::string_view live) {
    return "kubernetesVersion \"" + std::string(requested) + "\" is lower than the shoot's \"" +
           std::string(live) + "\", which stays (kprov never downgrades Kubernetes)";
}

std::optional<bool> live_networking_filter_disabled(std::string_view live_shoot_json) {
    const ordered shoot = ordered::parse(live_shoot_json, nullptr, false);
    if (shoot.is_discarded())
        return std::nullopt;
    return networking_filter_disabled(shoot);
}

namespace {

// SecretBinding -> CredentialsBinding in the upgrade itself (gardener-landscape.md §2): Gardener
// refuses secretBindingName for Kubernetes >= 1.34 but admits the move in one update. The plan
// put the CredentialsBinding of the same Secret into merged.target_secret; a target_secret that
// is still the SecretBinding's name leaves the shoot as it is, for Gardener to refuse.
void move_to_credentials_binding(ordered& spec, const GardenerConfig& merged,
                                 const ShootOptions& options) {
    const auto it = spec.find("secretBindingName");
    if (options.legacy_api || it == spec.end() || !it->is_string() ||
        it->get<std::string>() == merged.target_secret || merged.target_secret.empty())
        return;
    const auto& kubernetes = spec["kubernetes"];
    std::string version = merged.kubernetes_version;
    if (kubernetes.is_object() && kubernetes.contains("version") &&
        kubernetes["version"].is_string() && !version.empty())
        version = effective_kubernetes_version(kubernetes["version"].get<std::string>(), version);
    if (version.empty() || compare_kubernetes_versions(version, "1.34.0") < 0)
        return;
    spec.erase("secretBindingName");
    spec["credentialsBindingName"] = merged.target_secret;
}

} // namespace

ShootUpgrade build_shoot_upgrade(std::string_view live_shoot_json, const GardenerConfig& merged,
                                 const UpgradeShootInput& input, const ShootOptions& options) {
    ordered shoot = parse_shoot(live_shoot_json);
    ShootUpgrade out;
    object_at(shoot, "metadata").erase("managedFields");
    ordered& spec = object_at(shoot, "spec"); // shoot gets no new key after this line
    const std::string name = string_at(shoot["metadata"], "name");
    for (const char* key : {"provider", "kubernetes", "maintenance"})
        object_at(spec, key);
    {
        const ordered& workers = spec["provider"]["workers"];
        if (!workers.is_array() || workers.empty())
            throw Error("no worker groups assigned to Gardener shoot '" + name + "'");
    }
    // Keys spec may gain; set before references into spec's children are taken.
    if (non_empty(merged.purpose))
        spec["purpose"] = *merged.purpose;
    if (non_empty(merged.exposure_class_name))
        spec["exposureClassName"] = *merged.exposure_class_name;
    if (input.gardener.hibernation_schedules)
        write_hibernation_schedules(spec, *input.gardener.hibernation_schedules);
    move_to_credentials_binding(spec, merged, options);
    out.shoot_networking_filter_disabled = input.gardener.shoot_networking_filter_disabled;
    if (!out.shoot_networking_filter_disabled)
        out.shoot_networking_filter_disabled = networking_filter_disabled(shoot);
    if (out.shoot_networking_filter_disabled)
        replace_networking_filter(spec, *out.shoot_networking_filter_disabled);

    // Kubernetes version: never downgrade what Gardener's auto-update already applied.
    ordered& kubernetes = spec["kubernetes"];
    const std::string live_version = string_at(kubernetes, "version");
    if (merged.kubernetes_version.empty())
        out.kubernetes_version = live_version;
    else if (live_version.empty())
        out.kubernetes_version = merged.kubernetes_version;
    else
        out.kubernetes_version =
            effective_kubernetes_version(live_version, merged.kubernetes_version);
    if (!out.kubernetes_version.empty())
        kubernetes["version"] = out.kubernetes_version;
    if (dns_needs_credentials_ref(out.kubernetes_version))
        move_dns_secrets_to_credentials_refs(spec); // changes only spec.dns's children
    if (!options.legacy_api)
        kubernetes.erase("enableStaticTokenKubeconfig"); // removed in Gardener v1.122
    else if (!out.kubernetes_version.empty() &&
             compare_kubernetes_versions(out.kubernetes_version, "1.27.0") >= 0)
        kubernetes["enableStaticTokenKubeconfig"] = false;
    kubernetes.erase("allowPrivilegedContainers");
    if (input.gardener.oidc) {
        update_oidc(shoot, kubernetes, *input.gardener.oidc, merged, options, out);
    } else if (const ordered* server = find(kubernetes, "kubeAPIServer")) {
        const ordered* live = find(*server, "oidcConfig");
        if (!options.legacy_api && live && !live->is_null() &&
            kubernetes_version_at_least(out.kubernetes_version, "1.32"))
            update_oidc(shoot, kubernetes, live_oidc_config(*live, out.kubernetes_version), merged,
                        options, out);
    }

    ordered& auto_update = object_at(spec["maintenance"], "autoUpdate");
    auto_update["kubernetesVersion"] = merged.enable_kubernetes_version_auto_update;
    auto_update["machineImageVersion"] = merged.enable_machine_image_version_auto_update;

    ordered& provider = spec["provider"];
    update_worker(provider["workers"][0], merged);
    if (const auto* azure = std::get_if<AzureConfig>(&merged.provider_config);
        azure && azure->enable_nat_gateway)
        update_azure_infrastructure(provider, *azure, name);

    ordered result{{"kind", "Shoot"}, {"apiVersion", "core.gardener.cloud/v1beta1"}};
    for (auto& [key, value] : shoot.items())
        if (key != "kind" && key != "apiVersion")
            result[key] = std::move(value);
    out.shoot = result.dump();
    return out;
}

} // namespace kprov::engine
