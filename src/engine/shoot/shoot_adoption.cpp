#include "engine/shoot/shoot_adoption.hpp"

#include "engine/error.hpp"
#include "engine/shoot/shoot_annotations.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace kprov::engine {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

// The extensions build_shoot sets, each always.
const std::vector<std::string> k_extensions = {"shoot-dns-service", "shoot-cert-service",
                                               "shoot-networking-filter"};
const std::vector<std::string> k_providers = {"aws", "azure", "gcp", "openstack"};

/// A value of the shoot with its path there ("spec.provider.workers[0]"); null when absent.
struct Node {
    const json* value = nullptr;
    std::string path;

    bool present() const { return value != nullptr && !value->is_null(); }
    Node operator[](const std::string& key) const {
        const json* child = nullptr;
        if (value && value->is_object())
            if (const auto it = value->find(key); it != value->end())
                child = &*it;
        return {child, path.empty() ? key : path + "." + key};
    }
    Node operator[](std::size_t i) const {
        const bool has = value && value->is_array() && i < value->size();
        return {has ? &(*value)[i] : nullptr, path + "[" + std::to_string(i) + "]"};
    }
    std::size_t size() const { return value && value->is_array() ? value->size() : 0; }
};

// Reads typed values out of a shoot, collecting every problem with its path.
class ShootReader {
public:
    // Whether `node` has a value; a required one without is a problem.
    bool given(const Node& node, bool required) {
        if (node.present())
            return true;
        if (required)
            problem(node, "is missing (kprov's runtime needs it)");
        return false;
    }

    std::optional<std::string> text(const Node& node, bool required = false) {
        if (!given(node, required))
            return std::nullopt;
        if (!node.value->is_string()) {
            problem(node, "must be a string, got " + node.value->dump());
            return std::nullopt;
        }
        return node.value->get<std::string>();
    }
    std::string required_text(const Node& node) { return text(node, true).value_or(""); }

    std::optional<int> integer(const Node& node, bool required = false) {
        if (!given(node, required))
            return std::nullopt;
        if (!node.value->is_number_integer()) {
            problem(node, "kprov sets a whole number here, the shoot has " + node.value->dump());
            return std::nullopt;
        }
        return node.value->get<int>();
    }

    bool boolean(const Node& node) {
        if (!node.present())
            return false;
        if (!node.value->is_boolean()) {
            problem(node, "must be true or false, got " + node.value->dump());
            return false;
        }
        return node.value->get<bool>();
    }

    std::vector<std::string> strings(const Node& node) {
        std::vector<std::string> out;
        for (std::size_t i = 0; i < node.size(); ++i)
            if (auto s = text(node[i], true))
                out.push_back(*s);
        return out;
    }

    void problem(const Node& node, std::string message) {
        m_problems.push_back({node.path, std::move(message)});
    }
    std::vector<FieldProblem> take_problems() { return std::move(m_problems); }

private:
    std::vector<FieldProblem> m_problems;
};

// "50Gi" -> 50, as build_shoot writes volume sizes.
std::optional<int> gibibytes(ShootReader& r, const Node& node) {
    const auto size = r.text(node);
    if (!size)
        return std::nullopt;
    const auto digits = size->size() > 2 && size->ends_with("Gi")
                            ? size->substr(0, size->size() - 2)
                            : std::string();
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 6) {
        r.problem(node,
                  "kprov sets a size in whole Gi (\"50Gi\"), the shoot has \"" + *size + "\"");
        return std::nullopt;
    }
    return std::stoi(digits);
}

// The extensions must be kprov's three, no more and none missing.
std::optional<bool> networking_filter_disabled(ShootReader& r, const Node& extensions) {
    std::optional<bool> disabled;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < extensions.size(); ++i) {
        const auto type = r.text(extensions[i]["type"], true);
        if (!type)
            continue;
        seen.push_back(*type);
        if (std::find(k_extensions.begin(), k_extensions.end(), *type) == k_extensions.end())
            r.problem(extensions[i], "kprov does not set extension \"" + *type +
                                         "\" (it sets shoot-dns-service, shoot-cert-service and "
                                         "shoot-networking-filter only)");
        else if (*type == "shoot-networking-filter")
            disabled = r.boolean(extensions[i]["disabled"]);
    }
    for (const auto& wanted : k_extensions)
        if (std::find(seen.begin(), seen.end(), wanted) == seen.end())
            r.problem(extensions, "has no \"" + wanted + "\" extension, which kprov always sets");
    return disabled;
}

// ProviderSpecificInput's member for the shoot's cloud, and the workerCidr the builder would
// have taken from the input (AWS and zoned Azure shoots do not use it: their node range).
struct ProviderPart {
    std::string field;
    ordered config;
    std::string worker_cidr;
};

ProviderPart provider_part(ShootReader& r, const std::string& type, const Node& spec,
                           const Node& worker) {
    const Node infra = spec["provider"]["infrastructureConfig"];
    const Node networks = infra["networks"];
    const ordered zones = r.strings(worker["zones"]);
    if (type == "gcp")
        return {"gcpConfig", ordered{{"zones", zones}}, r.required_text(networks["workers"])};
    if (type == "aws") {
        ordered aws_zones = ordered::array();
        const Node list = networks["zones"];
        for (std::size_t i = 0; i < list.size(); ++i)
            aws_zones.push_back({{"name", r.required_text(list[i]["name"])},
                                 {"publicCidr", r.required_text(list[i]["public"])},
                                 {"internalCidr", r.required_text(list[i]["internal"])},
                                 {"workerCidr", r.required_text(list[i]["workers"])}});
        const std::string vpc = r.required_text(networks["vpc"]["cidr"]);
        return {"awsConfig", ordered{{"vpcCidr", vpc}, {"awsZones", aws_zones}}, vpc};
    }
    if (type == "openstack") {
        ordered config{{"zones", zones}};
        if (auto pool = r.text(infra["floatingPoolName"]))
            config["floatingPoolName"] = *pool;
        auto profile = r.text(spec["cloudProfile"]["name"]);
        if (!profile)
            profile = r.text(spec["cloudProfileName"]);
        if (profile)
            config["cloudProfileName"] = *profile;
        config["loadBalancerProvider"] =
            r.required_text(spec["provider"]["controlPlaneConfig"]["loadBalancerProvider"]);
        return {"openStackConfig", std::move(config), r.required_text(networks["workers"])};
    }
    // azure
    const std::string vnet = r.required_text(networks["vnet"]["cidr"]);
    ordered config{{"vnetCidr", vnet}};
    Node nat = networks["natGateway"];
    const Node azure_zones = networks["zones"];
    if (azure_zones.present()) {
        ordered list = ordered::array();
        for (std::size_t i = 0; i < azure_zones.size(); ++i)
            list.push_back({{"name", r.integer(azure_zones[i]["name"], true).value_or(0)},
                            {"cidr", r.required_text(azure_zones[i]["cidr"])}});
        config["azureZones"] = std::move(list);
        nat = azure_zones[0]["natGateway"];
    } else if (!zones.empty()) {
        config["zones"] = zones;
    }
    const bool nat_enabled = r.boolean(nat["enabled"]);
    config["enableNatGateway"] = nat_enabled;
    if (nat_enabled)
        if (auto idle = r.integer(nat["idleConnectionTimeoutMinutes"]))
            config["idleConnectionTimeoutMinutes"] = *idle;
    const auto workers = r.text(networks["workers"]);
    return {"azureConfig", std::move(config), workers.value_or(vnet)};
}

std::optional<ordered> dns_config(ShootReader& r, const Node& dns) {
    const Node providers = dns["providers"];
    if (providers.size() == 0)
        return std::nullopt; // the domain alone is what Gardener defaults
    const std::string domain = r.required_text(dns["domain"]);
    ordered list = ordered::array();
    for (std::size_t i = 0; i < providers.size(); ++i) {
        // From Kubernetes 1.35 the Secret is named by credentialsRef (gardener-landscape.md §4).
        const Node reference = providers[i]["credentialsRef"];
        auto secret = r.text(providers[i]["secretName"]);
        if (!secret && r.text(reference["kind"]) == std::optional<std::string>("Secret"))
            secret = r.text(reference["name"]);
        if (!secret)
            secret = r.required_text(providers[i]["secretName"]);
        list.push_back({{"domainsInclude", ordered::array({domain})},
                        {"primary", r.boolean(providers[i]["primary"])},
                        {"secretName", *secret},
                        {"type", r.required_text(providers[i]["type"])}});
    }
    return ordered{{"domain", domain}, {"providers", std::move(list)}};
}

std::optional<ordered> oidc_config(ShootReader& r, const Node& api_server) {
    if (api_server["structuredAuthentication"].present())
        r.problem(api_server["structuredAuthentication"],
                  "kprov cannot read OIDC settings back from a structured-authentication "
                  "ConfigMap; remove it from the shoot, adopt, then set oidcConfig with kprov "
                  "upgrade-shoot");
    const Node oidc = api_server["oidcConfig"];
    if (!oidc.present())
        return std::nullopt;
    return ordered{{"clientID", r.text(oidc["clientID"]).value_or("")},
                   {"groupsClaim", r.text(oidc["groupsClaim"]).value_or("")},
                   {"issuerURL", r.text(oidc["issuerURL"]).value_or("")},
                   {"signingAlgs", r.strings(oidc["signingAlgs"])},
                   {"usernameClaim", r.text(oidc["usernameClaim"]).value_or("")},
                   {"usernamePrefix", r.text(oidc["usernamePrefix"]).value_or("")}};
}

// spec.accessRestrictions holds eu-access-only (what switches EU access on).
bool has_eu_access_restriction(const Node& restrictions) {
    for (std::size_t i = 0; i < restrictions.size(); ++i)
        if (restrictions[i]["name"].present() && restrictions[i]["name"].value->is_string() &&
            restrictions[i]["name"].value->get<std::string>() == "eu-access-only")
            return true;
    return false;
}

std::string annotation(const Node& metadata, std::string_view key) {
    const Node value = metadata["annotations"][std::string(key)];
    return value.present() && value.value->is_string() ? value.value->get<std::string>() : "";
}

// The one worker pool kprov manages; a problem naming the pools when there is not exactly one.
Node the_worker(ShootReader& r, const Node& workers) {
    if (workers.size() != 1) {
        std::string names;
        for (std::size_t i = 0; i < workers.size(); ++i)
            if (workers[i]["name"].present())
                names += (names.empty() ? ": " : ", ") + workers[i]["name"].value->dump();
        r.problem(workers, "kprov manages exactly one worker pool, the shoot has " +
                               std::to_string(workers.size()) + names);
    }
    return workers[0];
}

ordered gardener_config(ShootReader& r, const Node& shoot) {
    const Node spec = shoot["spec"];
    const Node metadata = shoot["metadata"];
    const Node worker = the_worker(r, spec["provider"]["workers"]);
    const std::string type = r.required_text(spec["provider"]["type"]);
    const bool known = std::find(k_providers.begin(), k_providers.end(), type) != k_providers.end();
    if (!type.empty() && !known)
        r.problem(spec["provider"]["type"], "kprov builds shoots for aws, azure, gcp and "
                                            "openstack, not \"" +
                                                type + "\"");
    ordered g{{"name", r.required_text(metadata["name"])},
              {"kubernetesVersion", r.required_text(spec["kubernetes"]["version"])},
              {"provider", type}};
    auto secret = r.text(spec["credentialsBindingName"]);
    if (!secret)
        secret = r.text(spec["secretBindingName"]);
    if (!secret)
        r.problem(spec["credentialsBindingName"], "is missing (kprov's targetSecret)");
    g["targetSecret"] = secret.value_or("");
    g["region"] = r.required_text(spec["region"]);
    g["machineType"] = r.required_text(worker["machine"]["type"]);
    if (auto image = r.text(worker["machine"]["image"]["name"]))
        g["machineImage"] = *image;
    if (auto version = r.text(worker["machine"]["image"]["version"]))
        g["machineImageVersion"] = *version;
    if (auto disk = r.text(worker["volume"]["type"]))
        g["diskType"] = *disk;
    if (auto size = gibibytes(r, worker["volume"]["size"]))
        g["volumeSizeGB"] = *size;
    ProviderPart part = known ? provider_part(r, type, spec, worker) : ProviderPart{};
    g["workerCidr"] = part.worker_cidr;
    if (auto pods = r.text(spec["networking"]["pods"]))
        g["podsCidr"] = *pods;
    if (auto services = r.text(spec["networking"]["services"]))
        g["servicesCidr"] = *services;
    g["autoScalerMin"] = r.integer(worker["minimum"], true).value_or(0);
    g["autoScalerMax"] = r.integer(worker["maximum"], true).value_or(0);
    g["maxSurge"] = r.integer(worker["maxSurge"], true).value_or(0);
    g["maxUnavailable"] = r.integer(worker["maxUnavailable"], true).value_or(0);
    if (auto purpose = r.text(spec["purpose"]))
        g["purpose"] = *purpose;
    if (auto licence = annotation(metadata, k_licence_type_annotation); !licence.empty())
        g["licenceType"] = licence;
    const Node auto_update = spec["maintenance"]["autoUpdate"];
    g["enableKubernetesVersionAutoUpdate"] = r.boolean(auto_update["kubernetesVersion"]);
    g["enableMachineImageVersionAutoUpdate"] = r.boolean(auto_update["machineImageVersion"]);
    g["providerSpecificConfig"] =
        part.field.empty() ? ordered::object() : ordered{{part.field, std::move(part.config)}};
    if (auto dns = dns_config(r, spec["dns"]))
        g["dnsConfig"] = std::move(*dns);
    if (auto seed = r.text(spec["seedName"]))
        g["seed"] = *seed;
    if (auto oidc = oidc_config(r, spec["kubernetes"]["kubeAPIServer"]))
        g["oidcConfig"] = std::move(*oidc);
    if (auto exposure = r.text(spec["exposureClassName"]))
        g["exposureClassName"] = *exposure;
    g["shootNetworkingFilterDisabled"] =
        networking_filter_disabled(r, spec["extensions"]).value_or(false);
    if (auto tolerance =
            r.text(spec["controlPlane"]["highAvailability"]["failureTolerance"]["type"]))
        g["controlPlaneFailureTolerance"] = *tolerance;
    g["euAccess"] = annotation(metadata, k_eu_access_annotation) == "true" ||
                    has_eu_access_restriction(spec["accessRestrictions"]);
    return g;
}

// The labels and annotations build_shoot sets, from its shoot.
ordered built_metadata(const std::string& built_shoot_json) {
    const ordered built = ordered::parse(built_shoot_json);
    const ordered& metadata = built.at("metadata");
    return ordered{{"labels", metadata.value("labels", ordered::object())},
                   {"annotations", metadata.value("annotations", ordered::object())}};
}

} // namespace

std::string runtime_file_of_shoot(const std::string& shoot_json, const ShootOptions& options) {
    (void)options; // what the builder makes of the options, the caller's comparison checks
    const json shoot = json::parse(shoot_json);
    const Node root{&shoot, ""};
    ShootReader reader;
    ordered g = gardener_config(reader, root);
    auto problems = reader.take_problems();
    if (!problems.empty()) {
        ValidationError error(std::move(problems));
        error.set_source("shoot " + shoot["metadata"].value("name", std::string("?")));
        throw error;
    }
    const std::string name = g["name"];
    return ordered{{"runtimeInput", {{"name", name}}},
                   {"clusterConfig", {{"gardenerConfig", std::move(g)}}}}
        .dump();
}

std::string adoption_patch(const std::string& built_shoot_json,
                           const std::string& resource_version) {
    ordered metadata = built_metadata(built_shoot_json);
    if (!resource_version.empty())
        metadata["resourceVersion"] = resource_version;
    return ordered{{"metadata", std::move(metadata)}}.dump();
}

std::string adoption_undo_patch(const std::string& built_shoot_json) {
    ordered annotations = built_metadata(built_shoot_json)["annotations"];
    for (auto& [key, value] : annotations.items())
        value = nullptr;
    return ordered{{"metadata", {{"annotations", std::move(annotations)}}}}.dump();
}

} // namespace kprov::engine
