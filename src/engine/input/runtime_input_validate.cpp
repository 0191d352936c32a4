// The rules a parsed request must meet before anything is written: the original's validator
// (original-provisioner.md §1.5) with its messages and order, then kprov's own rules. Every
// problem is collected; the original stopped at the first.

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/input/runtime_input_detail.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using nlohmann::json;

const std::string k_gardener = "clusterConfig.gardenerConfig";
const std::string k_provider_config = k_gardener + ".providerSpecificConfig";
const std::string k_kyma_prefix =
    "Kyma config validation error while starting Runtime provisioning, error: ";
const std::string k_cluster_prefix =
    "Cluster config validation error while starting Runtime provisioning, error: ";

// Gardener's admission rule: the project name, a "--" and the shoot name form a DNS label of
// at most 63 characters on the seed, which it keeps by allowing project + name <= 21.
constexpr std::size_t k_max_project_and_shoot = 21;

// Whether one of the paths is the other or inside it ("a.b" and "a.b[0].c", not "a.bc"); ""
// is the whole document.
bool overlaps(std::string_view a, std::string_view b) {
    const auto& shorter = a.size() <= b.size() ? a : b;
    const auto& longer = a.size() <= b.size() ? b : a;
    return shorter.empty() || (longer.substr(0, shorter.size()) == shorter &&
                               (longer.size() == shorter.size() || longer[shorter.size()] == '.' ||
                                longer[shorter.size()] == '['));
}

// The problems of one input. A field the parser could not read holds a placeholder ("" or 0),
// and a rule that looks at it would report a second, made-up problem ("" is not a DNS label):
// such problems are dropped. A rule that reads more fields than the one it reports names them.
class Problems {
public:
    explicit Problems(const std::vector<std::string>& unparsed)
        : m_unparsed(unparsed) {}

    void add(std::string path, std::string message,
             std::initializer_list<std::string_view> also_reads = {}) {
        if (reads_unparsed(path) || std::any_of(also_reads.begin(), also_reads.end(),
                                                [&](auto p) { return reads_unparsed(p); }))
            return;
        m_list.push_back(FieldProblem{std::move(path), std::move(message)});
    }
    void append(std::vector<FieldProblem> problems) {
        for (auto& problem : problems)
            add(std::move(problem.path), std::move(problem.message));
    }
    std::vector<FieldProblem> take() { return std::move(m_list); }

private:
    bool reads_unparsed(std::string_view path) const {
        return std::any_of(m_unparsed.begin(), m_unparsed.end(),
                           [&](const std::string& u) { return overlaps(path, u); });
    }

    const std::vector<std::string>& m_unparsed;
    std::vector<FieldProblem> m_list;
};

const std::string k_kyma_upgrade_prefix =
    "validation error while starting Runtime upgrade, error: ";

bool is_override_key(std::string_view key) {
    return !key.empty() && key.size() <= 253 && std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
    });
}

// A DNS-1123 label of at most `max` characters.
bool is_dns_label(std::string_view text, std::size_t max) {
    auto alnum = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    };
    return !text.empty() && text.size() <= max && alnum(text.front()) && alnum(text.back()) &&
           std::all_of(text.begin(), text.end(), [&](char c) { return alnum(c) || c == '-'; });
}

void check_override_keys(const json& entries, const std::string& path, Problems& problems) {
    if (!entries.is_array())
        return;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const json& entry = entries[i];
        if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string())
            continue; // the parser said so
        const std::string key = entry["key"].get<std::string>();
        if (!is_override_key(key))
            problems.add(path + "[" + std::to_string(i) + "].key",
                         "must be a ConfigMap key (letters, digits, '-', '_' and '.', at most 253 "
                         "characters), got " +
                             in_quotes(key));
    }
}

// The original's rules (kyma-installation.md §1.2: the components list is not empty and holds
// compass-runtime-agent), then kprov's: what the installer's objects are named after must make
// valid Kubernetes names (the original let the runtime cluster refuse them, 422, until the
// stage timed out). Items that are not components were reported by the parser.
void check_kyma_config(const std::string& kyma_config_json, const std::string& prefix,
                       Problems& problems, bool requires_agent = true) {
    const json kyma = json::parse(kyma_config_json);
    const auto found = kyma.find("components");
    if (found == kyma.end() || !found->is_array())
        return; // the parser said so
    const json& components = *found;
    if (components.empty()) {
        problems.add("kymaConfig.components", prefix + "Kyma components list is empty");
        return; // the original stopped here; "no runtime agent" would only repeat it
    }
    const bool has_agent = std::any_of(components.begin(), components.end(), [](const json& c) {
        return c.is_object() && c.value("component", json()) == "compass-runtime-agent";
    });
    if (!has_agent && requires_agent)
        problems.add("kymaConfig.components",
                     prefix + "Kyma components list does not contain Compass Runtime Agent");
    check_override_keys(kyma.value("configuration", json()), "kymaConfig.configuration", problems);
    for (std::size_t i = 0; i < components.size(); ++i) {
        const json& c = components[i];
        if (!c.is_object())
            continue;
        const std::string path = "kymaConfig.components[" + std::to_string(i) + "]";
        if (const auto name = c.find("component");
            name != c.end() && name->is_string() && !is_dns_label(name->get<std::string>(), 63))
            problems.add(path + ".component",
                         "must be a lower-case DNS label of at most 63 characters (it names the "
                         "component's override objects), got " +
                             in_quotes(name->get<std::string>()));
        if (const auto ns = c.find("namespace");
            ns != c.end() && ns->is_string() && !is_dns_label(ns->get<std::string>(), 63))
            problems.add(path + ".namespace",
                         "must be a lower-case DNS label of at most 63 characters, got " +
                             in_quotes(ns->get<std::string>()));
        check_override_keys(c.value("configuration", json()), path + ".configuration", problems);
    }
}

void check_cidr(const std::string& path, const std::string& value, Problems& problems) {
    if (!is_ipv4_cidr(value))
        problems.add(path, "must be an IPv4 CIDR such as 10.250.0.0/16, got " + in_quotes(value));
}

void check_optional_cidr(const std::string& path, const std::optional<std::string>& value,
                         Problems& problems) {
    if (value)
        check_cidr(path, *value, problems);
}

void check_not_negative(const std::string& path, int value, Problems& problems) {
    if (value < 0)
        problems.add(path, "must be 0 or more, got " + std::to_string(value));
}

void check_volume_size(const std::string& path, const std::optional<int>& size,
                       Problems& problems) {
    if (size && *size <= 0)
        problems.add(path, "must be greater than 0, got " + std::to_string(*size));
}

void check_auto_scaler(const std::string& path, int min, int max, Problems& problems) {
    check_not_negative(path + ".autoScalerMin", min, problems);
    check_not_negative(path + ".autoScalerMax", max, problems);
    if (min > max)
        problems.add(path + ".autoScalerMax",
                     "must be at least autoScalerMin (" + std::to_string(min) + "), got " +
                         std::to_string(max),
                     {path + ".autoScalerMin"});
}

void check_rollout(const std::string& path, int surge, int unavailable, Problems& problems) {
    check_not_negative(path + ".maxSurge", surge, problems);
    check_not_negative(path + ".maxUnavailable", unavailable, problems);
    if (surge == 0 && unavailable == 0) // Gardener refuses a worker pool that cannot roll
        problems.add(path + ".maxUnavailable",
                     "must be greater than 0 when maxSurge is 0 (nodes could not be replaced)",
                     {path + ".maxSurge"});
}

// Deliberate difference 7: `provider` picks the cloud and its sub-config must be given. The
// other members are ignored (provision_input_warnings says so), as the original ignored all
// but one: its own e2e client sends gcpConfig and azureConfig for a GCP runtime.
void check_provider_choice(const GardenerConfigInput& g, Problems& problems) {
    const auto type = provider_type_of(g.provider);
    if (!type) {
        std::string message =
            "must be one of aws, azure (or az), gcp, openstack, got " + in_quotes(g.provider);
        if (const auto match =
                closest_match(ascii_lower(g.provider), {"aws", "azure", "gcp", "openstack"}))
            message += "; did you mean \"" + *match + "\"?";
        problems.add(k_gardener + ".provider", message);
        return;
    }
    for (const auto& sub : provider_sub_inputs(g.provider_config))
        if (sub.type == *type && !sub.given)
            problems.add(
                k_provider_config,
                std::string(sub.field) + " is missing (provider " + in_quotes(g.provider) +
                    " needs it)",
                {k_gardener + ".provider", k_provider_config + "." + std::string(sub.field)});
}

bool is_dns_label(std::string_view name) {
    auto alphanumeric = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    };
    if (name.empty() || !alphanumeric(name.front()) || !alphanumeric(name.back()))
        return false;
    return std::all_of(name.begin(), name.end(),
                       [&](char c) { return alphanumeric(c) || c == '-'; });
}

// Deliberate difference 12: shoot names are checked before anything is written, by Gardener's
// rules (gardener-contract.md §4.1), which the original left to Gardener: a DNS-1123 label
// (a digit first is fine), no "--" (it separates project and name in the shoot's technical
// id), project + name at most 21 characters (admission).
void check_shoot_name(const std::string& name, const std::string& project, Problems& problems) {
    const auto path = k_gardener + ".name";
    if (!is_dns_label(name))
        problems.add(path, "must be a DNS label (lowercase letters, digits and '-', starting "
                           "and ending with a letter or digit), got " +
                               in_quotes(name));
    else if (name.find("--") != std::string::npos)
        problems.add(path, "must not contain \"--\" (Gardener's rule), got " + in_quotes(name));
    if (project.size() + name.size() > k_max_project_and_shoot)
        problems.add(path, "is too long: project " + in_quotes(project) + " (" +
                               std::to_string(project.size()) + " characters) and shoot name " +
                               in_quotes(name) + " (" + std::to_string(name.size()) +
                               " characters) may have at most " +
                               std::to_string(k_max_project_and_shoot) +
                               " characters together (Gardener's limit)");
}

// Structured authentication (what kprov writes for oidcConfig) makes the clientID the JWT
// audience, and Gardener refuses `audiences: [""]`.
void check_oidc_client_id(const std::optional<OidcConfig>& oidc, const std::string& path,
                          Problems& problems) {
    if (oidc && oidc->client_id.empty())
        problems.add(path + ".clientID",
                     "must not be empty, got \"\": it is the audience of the cluster's OIDC "
                     "tokens, and Gardener refuses an empty audience (give the OIDC client's id)");
}

// gardener-landscape.md §4: from 1.35 the shoot names the DNS Secret by credentialsRef, which
// Gardener accepts only with a provider type.
void check_dns_types(const GardenerConfigInput& g, Problems& problems) {
    if (!g.dns || !dns_needs_credentials_ref(g.kubernetes_version))
        return;
    for (std::size_t i = 0; i < g.dns->providers.size(); ++i)
        if (g.dns->providers[i].type.empty())
            problems.add(k_gardener + ".dnsConfig.providers[" + std::to_string(i) + "].type",
                         "must not be empty, got \"\": from Kubernetes 1.35 Gardener needs the "
                         "type of a DNS provider (such as aws-route53), got kubernetesVersion " +
                             in_quotes(g.kubernetes_version),
                         {k_gardener + ".kubernetesVersion"});
}

// workerCidr reaches the shoot only where the provider block uses it (shoot_builder.cpp): GCP
// and OpenStack (networking.nodes), Azure without azureZones (networks.workers). AWS and zoned
// Azure take their networks from vpcCidr/vnetCidr and the zones, so the original accepted any
// text there and built a working shoot; kprov does too.
bool worker_cidr_used(const GardenerConfigInput& g) {
    const auto type = provider_type_of(g.provider);
    if (type == "aws")
        return false;
    if (type == "azure" && g.provider_config.azure && g.provider_config.azure->azure_zones &&
        !g.provider_config.azure->azure_zones->empty())
        return false;
    return true;
}

// Bounds of the runtime's own texts, which kprov stores and prints but nothing else checks:
// the name as the original's varchar(256) columns hold names; description and labels are
// kprov's own bounds, generous for a sentence and a set of labels, and far below what a
// runtime file or a request may carry.
constexpr std::size_t k_max_runtime_name_bytes = 256;
constexpr std::size_t k_max_description_bytes = 2000;
constexpr std::size_t k_max_labels_bytes = 256 * 1024;

void check_runtime_texts(const RuntimeInput& runtime, Problems& problems) {
    const auto at_most = [&](const std::string& path, std::size_t size, std::size_t max) {
        if (size > max)
            problems.add(path,
                         "must be at most " + describe_size(max) + ", got " + describe_size(size));
    };
    at_most("runtimeInput.name", runtime.name.size(), k_max_runtime_name_bytes);
    if (runtime.description)
        at_most("runtimeInput.description", runtime.description->size(), k_max_description_bytes);
    if (runtime.labels_json)
        at_most("runtimeInput.labels", runtime.labels_json->size(), k_max_labels_bytes);
}

// Kyma Lifecycle Manager's internal and beta labels go from the runtime's labels to its Kyma
// (build_kyma_resource) only as true or false; anything else would be dropped silently.
void check_kyma_module_labels(const RuntimeInput& runtime, Problems& problems) {
    if (!runtime.labels_json)
        return;
    const json labels = json::parse(*runtime.labels_json, nullptr, false);
    if (!labels.is_object())
        return;
    for (const std::string_view key : {k_kyma_internal_label, k_kyma_beta_label}) {
        const auto it = labels.find(std::string(key));
        if (it == labels.end() || kyma_module_label_value(*it))
            continue;
        std::string given = it->dump(-1, ' ', false, json::error_handler_t::replace);
        if (given.size() > 64)
            given = given.substr(0, 64) + "...";
        problems.add("runtimeInput.labels." + std::string(key),
                     "must be \"true\" or \"false\" (whether the runtime's Kyma may use "
                     "Kyma Lifecycle Manager's modules labelled so), got " +
                         given);
    }
}

std::vector<FieldProblem> provision_rules(const ProvisionInput& input,
                                          const ConversionOptions& options,
                                          const std::vector<std::string>& unparsed) {
    Problems problems(unparsed);
    const GardenerConfigInput& g = input.gardener;

    // The original's rules in its order (§1.5). Rules 3 and 4 (runtimeInput, clusterConfig or
    // gardenerConfig missing) are the parser's "is required", as gqlgen's schema check was.
    if (input.kyma_config_json)
        check_kyma_config(*input.kyma_config_json, k_kyma_prefix, problems,
                          options.kyma_requires_runtime_agent);
    if (g.machine_image_version && !g.machine_image_version->empty() &&
        (!g.machine_image || g.machine_image->empty()))
        problems.add(k_gardener + ".machineImageVersion",
                     k_cluster_prefix + "Machine Image Version passed while Machine Image is empty",
                     {k_gardener + ".machineImage"});
    if (provider_type_of(g.provider) == "openstack" && (g.disk_type || g.volume_size_gb))
        problems.add(k_gardener + (g.disk_type ? ".diskType" : ".volumeSizeGB"),
                     k_cluster_prefix +
                         "OpenStack mutation does not accept diskType or volumeSizeGb parameters");

    // kprov's own rules. Each is one the original did not have; each refuses only what would
    // fail later (a panic in the original, or Gardener's or a provider extension's validation
    // refusing the shoot), so every request the original turned into a working shoot passes.
    check_provider_choice(g, problems);
    // Zones (the original panicked on empty GCP zones; Gardener needs worker zones for AWS and
    // OpenStack) and CIDRs (Gardener and the provider extensions parse them), for the
    // sub-config that is used only: the others are ignored, as in the original.
    if (const auto type = provider_type_of(g.provider))
        problems.append(
            detail::provider_content_problems(k_provider_config, g.provider_config, *type));
    check_shoot_name(g.name, options.gardener_project, problems);
    check_runtime_texts(input.runtime, problems);
    check_kyma_module_labels(input.runtime, problems);
    // Gardener: 0 <= minimum <= maximum, maxSurge and maxUnavailable not negative, not both 0.
    check_auto_scaler(k_gardener, g.auto_scaler_min, g.auto_scaler_max, problems);
    check_rollout(k_gardener, g.max_surge, g.max_unavailable, problems);
    // The worker volume is sent only with a diskType too (§4.2); a size alone never reaches
    // Gardener, so the original accepted any.
    if (g.disk_type)
        check_volume_size(k_gardener + ".volumeSizeGB", g.volume_size_gb, problems);
    if (worker_cidr_used(g))
        check_cidr(k_gardener + ".workerCidr", g.worker_cidr, problems);
    check_optional_cidr(k_gardener + ".podsCidr", g.pods_cidr, problems);
    check_optional_cidr(k_gardener + ".servicesCidr", g.services_cidr, problems);
    // Gardener knows node and zone; "" makes the original (and kprov) leave the block out.
    if (g.control_plane_failure_tolerance && !g.control_plane_failure_tolerance->empty() &&
        *g.control_plane_failure_tolerance != "node" &&
        *g.control_plane_failure_tolerance != "zone")
        problems.add(k_gardener + ".controlPlaneFailureTolerance",
                     "must be \"node\" or \"zone\" (or empty for none), got " +
                         in_quotes(*g.control_plane_failure_tolerance));
    check_oidc_client_id(g.oidc, k_gardener + ".oidcConfig", problems);
    check_dns_types(g, problems);
    if (options.legacy_api)
        for (auto& problem :
             legacy_api_problems(g.kubernetes_version, g.oidc.has_value(),
                                 k_gardener + ".kubernetesVersion", k_gardener + ".oidcConfig"))
            problems.add(std::move(problem.path), std::move(problem.message),
                         {k_gardener + ".kubernetesVersion"});
    return problems.take();
}

std::vector<FieldProblem> upgrade_rules(const UpgradeShootInput& input,
                                        const std::vector<std::string>& unparsed) {
    Problems problems(unparsed);
    const GardenerUpgradeInput& g = input.gardener;
    const std::string base = "gardenerConfig";

    // The original's rules in its order (§1.5); a missing gardenerConfig is the parser's.
    auto not_empty = [&](const std::optional<std::string>& value, const char* field,
                         const char* message) {
        if (value && value->empty())
            problems.add(base + "." + field, message);
    };
    not_empty(g.machine_type, "machineType", "empty machine type provided");
    not_empty(g.kubernetes_version, "kubernetesVersion", "empty kubernetes version provided");
    not_empty(g.disk_type, "diskType", "empty disk type provided");
    not_empty(g.purpose, "purpose", "empty purpose provided");

    // kprov's own rules, on what the input gives (the same Gardener rules as provisioning; the
    // upgrade sends volumeSizeGB whenever it is given).
    if (g.auto_scaler_min && g.auto_scaler_max)
        check_auto_scaler(base, *g.auto_scaler_min, *g.auto_scaler_max, problems);
    else if (g.auto_scaler_min)
        check_not_negative(base + ".autoScalerMin", *g.auto_scaler_min, problems);
    else if (g.auto_scaler_max)
        check_not_negative(base + ".autoScalerMax", *g.auto_scaler_max, problems);
    if (g.max_surge && g.max_unavailable)
        check_rollout(base, *g.max_surge, *g.max_unavailable, problems);
    else if (g.max_surge)
        check_not_negative(base + ".maxSurge", *g.max_surge, problems);
    else if (g.max_unavailable)
        check_not_negative(base + ".maxUnavailable", *g.max_unavailable, problems);
    check_volume_size(base + ".volumeSizeGB", g.volume_size_gb, problems);
    check_oidc_client_id(g.oidc, base + ".oidcConfig", problems);
    // Which member is used depends on the stored runtime: with one, it is that one (or
    // merge_upgrade refuses the change of cloud); with several, merge_upgrade checks the one
    // it takes.
    if (g.provider_config) {
        const auto subs = provider_sub_inputs(*g.provider_config);
        const auto given = std::count_if(subs.begin(), subs.end(), [](auto s) { return s.given; });
        for (const auto& sub : subs)
            if (sub.given && given == 1)
                problems.append(detail::provider_content_problems(base + ".providerSpecificConfig",
                                                                  *g.provider_config, sub.type));
    }
    return problems.take();
}

// A list of a million wrong items is a million problems; the first hundred say what is wrong.
constexpr std::size_t k_max_reported_problems = 100;

void throw_if_any(std::vector<FieldProblem> problems) {
    if (problems.size() > k_max_reported_problems) {
        const auto more = problems.size() - k_max_reported_problems;
        problems.resize(k_max_reported_problems);
        problems.push_back({"", std::to_string(more) + " more problems follow, not shown"});
    }
    if (!problems.empty())
        throw ValidationError(std::move(problems));
}

// The parser's problems, then the validator's on what parsed (the original's rules first, in
// their order), all in one error.
template <typename Input, typename Rules>
Input read_and_check(detail::Parsed<Input> parsed, const Rules& rules) {
    auto problems = std::move(parsed.problems);
    for (auto& problem : rules(parsed.input, parsed.unparsed))
        problems.push_back(std::move(problem));
    throw_if_any(std::move(problems));
    return std::move(parsed.input);
}

} // namespace

bool is_ipv4_cidr(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos)
        return false;
    auto number = [](std::string_view part, int max) {
        if (part.empty() || part.size() > 3 || (part.size() > 1 && part.front() == '0') ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return false;
        int value = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        return ec == std::errc() && end == part.data() + part.size() && value <= max;
    };
    if (!number(text.substr(slash + 1), 32))
        return false;
    std::string_view address = text.substr(0, slash);
    for (int octet = 0; octet < 4; ++octet) {
        const auto dot = address.find('.');
        if ((octet < 3) == (dot == std::string_view::npos))
            return false;
        if (!number(address.substr(0, dot), 255))
            return false;
        address = dot == std::string_view::npos ? std::string_view() : address.substr(dot + 1);
    }
    return true;
}

std::vector<FieldProblem> legacy_api_problems(std::string_view version, bool has_oidc,
                                              const std::string& version_path,
                                              const std::string& oidc_path) {
    std::vector<FieldProblem> out;
    const std::string given = "kubernetesVersion " + in_quotes(version);
    if (has_oidc && kubernetes_version_at_least(version, "1.32"))
        out.push_back(
            {oidc_path,
             "legacy mode (APP_GARDENER_LEGACY_API=true) sends it as kubeAPIServer.oidcConfig, "
             "which Gardener refuses (or, since v1.142, drops) for Kubernetes 1.32 and later, "
             "got " +
                 given +
                 ": use structured authentication (set APP_GARDENER_LEGACY_API=false: kprov then "
                 "writes a structured-authentication ConfigMap), or a version below 1.32"});
    if (kubernetes_version_at_least(version, "1.34"))
        out.push_back(
            {version_path,
             "legacy mode (APP_GARDENER_LEGACY_API=true) sends spec.cloudProfileName and "
             "spec.secretBindingName, which Gardener refuses for Kubernetes 1.34 and later, "
             "got " +
                 in_quotes(version) +
                 ": set APP_GARDENER_LEGACY_API=false (kprov then sends spec.cloudProfile and "
                 "spec.credentialsBindingName), or use a version below 1.34"});
    return out;
}

namespace detail {

std::vector<FieldProblem> provider_content_problems(const std::string& path,
                                                    const ProviderInput& input,
                                                    std::string_view type) {
    std::vector<std::string> none;
    Problems problems(none);
    if (type == "gcp" && input.gcp && input.gcp->zones.empty())
        problems.add(path + ".gcpConfig.zones", "must list at least one zone");
    if (type == "azure" && input.azure) {
        const auto base = path + ".azureConfig";
        check_cidr(base + ".vnetCidr", input.azure->vnet_cidr, problems);
        if (input.azure->azure_zones) {
            const auto& zones = *input.azure->azure_zones;
            for (std::size_t i = 0; i < zones.size(); ++i)
                check_cidr(base + ".azureZones[" + std::to_string(i) + "].cidr", zones[i].cidr,
                           problems);
        }
    }
    if (type == "aws" && input.aws) {
        const auto base = path + ".awsConfig";
        check_cidr(base + ".vpcCidr", input.aws->vpc_cidr, problems);
        if (input.aws->aws_zones.empty())
            problems.add(base + ".awsZones", "must list at least one zone");
        for (std::size_t i = 0; i < input.aws->aws_zones.size(); ++i) {
            const auto& zone = input.aws->aws_zones[i];
            const auto zone_path = base + ".awsZones[" + std::to_string(i) + "]";
            check_cidr(zone_path + ".publicCidr", zone.public_cidr, problems);
            check_cidr(zone_path + ".internalCidr", zone.internal_cidr, problems);
            check_cidr(zone_path + ".workerCidr", zone.worker_cidr, problems);
        }
    }
    if (type == "openstack" && input.openstack && input.openstack->zones.empty())
        problems.add(path + ".openStackConfig.zones", "must list at least one zone");
    return problems.take();
}

} // namespace detail

void validate_provision(const ProvisionInput& input, const ConversionOptions& options) {
    throw_if_any(provision_rules(input, options, {}));
}

void validate_upgrade(const UpgradeShootInput& input) {
    throw_if_any(upgrade_rules(input, {}));
}

ProvisionInput read_provision_input(const json& document, const ConversionOptions& options) {
    return read_and_check(
        detail::parse_provision_document(document),
        [&](const ProvisionInput& input, const std::vector<std::string>& unparsed) {
            return provision_rules(input, options, unparsed);
        });
}

UpgradeShootInput read_upgrade_input(const json& document) {
    return read_and_check(detail::parse_upgrade_document(document), upgrade_rules);
}

KymaUpgradeInput read_kyma_upgrade_input(const json& document, const ConversionOptions& options) {
    return read_and_check(
        detail::parse_kyma_upgrade_document(document),
        [&](const KymaUpgradeInput& input, const std::vector<std::string>& unparsed) {
            Problems problems(unparsed);
            if (!input.kyma_config_json.empty())
                check_kyma_config(input.kyma_config_json, k_kyma_upgrade_prefix, problems,
                                  options.kyma_requires_runtime_agent);
            return problems.take();
        });
}

std::vector<std::string> provision_input_warnings(const ProvisionInput& input) {
    const GardenerConfigInput& g = input.gardener;
    const auto type = provider_type_of(g.provider);
    if (!type)
        return {};
    std::string_view used;
    for (const auto& sub : provider_sub_inputs(g.provider_config))
        if (sub.type == *type)
            used = sub.field;
    std::vector<std::string> warnings;
    for (const auto& sub : provider_sub_inputs(g.provider_config))
        if (sub.given && sub.type != *type)
            warnings.push_back(k_provider_config + "." + std::string(sub.field) +
                               " is ignored: provider " + in_quotes(g.provider) + " uses " +
                               std::string(used));
    return warnings;
}

} // namespace kprov::engine
