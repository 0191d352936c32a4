// Reading ProvisionRuntimeInput and UpgradeShootInput documents. Two passes: the document is
// first checked against the input type table (every problem collected, each with its path,
// and the paths of the values that could not be read), then read into the structs, taking
// only values of the right type, so the second pass cannot fail even on a bad document and
// the validator can still look at everything that was good.

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/input/runtime_input_detail.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using nlohmann::json;

InputFieldSpec str(std::string_view name, bool required = false) {
    return {name, InputKind::String, {}, required, false};
}
InputFieldSpec strings(std::string_view name, bool required = false) {
    return {name, InputKind::String, {}, required, true};
}
InputFieldSpec integer(std::string_view name, bool required = false) {
    return {name, InputKind::Int, {}, required, false};
}
InputFieldSpec boolean(std::string_view name, bool required = false) {
    return {name, InputKind::Boolean, {}, required, false};
}
InputFieldSpec object(std::string_view name, std::string_view type, bool required = false) {
    return {name, InputKind::Object, type, required, false};
}
InputFieldSpec objects(std::string_view name, std::string_view type, bool required = false) {
    return {name, InputKind::Object, type, required, true};
}
InputFieldSpec enumeration(std::string_view name, std::string_view type) {
    return {name, InputKind::Enum, type, false, false};
}

constexpr bool k_required = true;

// graphql-contract.md, field for field and in its order.
std::vector<InputTypeSpec> make_specs() {
    return {
        {"ProvisionRuntimeInput",
         {object("runtimeInput", "RuntimeInput", k_required),
          object("clusterConfig", "ClusterConfigInput", k_required),
          object("kymaConfig", "KymaConfigInput")}},
        {"RuntimeInput",
         {str("name", k_required),
          str("description"),
          {"labels", InputKind::Labels, {}, false, false}}},
        {"ClusterConfigInput",
         {object("gardenerConfig", "GardenerConfigInput", k_required), strings("administrators")}},
        {"GardenerConfigInput",
         {str("name", k_required),
          str("kubernetesVersion", k_required),
          str("provider", k_required),
          str("targetSecret", k_required),
          str("region", k_required),
          str("machineType", k_required),
          str("machineImage"),
          str("machineImageVersion"),
          str("diskType"),
          integer("volumeSizeGB"),
          str("workerCidr", k_required),
          str("podsCidr"),
          str("servicesCidr"),
          integer("autoScalerMin", k_required),
          integer("autoScalerMax", k_required),
          integer("maxSurge", k_required),
          integer("maxUnavailable", k_required),
          str("purpose"),
          str("licenceType"),
          boolean("enableKubernetesVersionAutoUpdate"),
          boolean("enableMachineImageVersionAutoUpdate"),
          object("providerSpecificConfig", "ProviderSpecificInput", k_required),
          object("dnsConfig", "DNSConfigInput"),
          str("seed"),
          object("oidcConfig", "OIDCConfigInput"),
          str("exposureClassName"),
          boolean("shootNetworkingFilterDisabled"),
          str("controlPlaneFailureTolerance"),
          boolean("euAccess")}},
        {"OIDCConfigInput",
         {str("clientID", k_required), str("groupsClaim", k_required), str("issuerURL", k_required),
          strings("signingAlgs", k_required), str("usernameClaim", k_required),
          str("usernamePrefix", k_required)}},
        {"ProviderSpecificInput",
         {object("gcpConfig", "GCPProviderConfigInput"),
          object("azureConfig", "AzureProviderConfigInput"),
          object("awsConfig", "AWSProviderConfigInput"),
          object("openStackConfig", "OpenStackProviderConfigInput")}},
        {"DNSConfigInput", {str("domain", k_required), objects("providers", "DNSProviderInput")}},
        {"DNSProviderInput",
         {strings("domainsInclude", k_required), boolean("primary", k_required),
          str("secretName", k_required), str("type", k_required)}},
        {"GCPProviderConfigInput", {strings("zones", k_required)}},
        {"AzureProviderConfigInput",
         {str("vnetCidr", k_required), strings("zones"), objects("azureZones", "AzureZoneInput"),
          boolean("enableNatGateway"), integer("idleConnectionTimeoutMinutes")}},
        {"AzureZoneInput", {integer("name", k_required), str("cidr", k_required)}},
        {"AWSProviderConfigInput",
         {str("vpcCidr", k_required), objects("awsZones", "AWSZoneInput", k_required)}},
        {"AWSZoneInput",
         {str("name", k_required), str("publicCidr", k_required), str("internalCidr", k_required),
          str("workerCidr", k_required)}},
        {"OpenStackProviderConfigInput",
         {strings("zones", k_required), str("floatingPoolName"), str("cloudProfileName"),
          str("loadBalancerProvider", k_required)}},
        {"KymaConfigInput",
         {str("version", k_required), enumeration("profile", "KymaProfile"),
          objects("components", "ComponentConfigurationInput", k_required),
          objects("configuration", "ConfigEntryInput"),
          enumeration("conflictStrategy", "ConflictStrategy")}},
        {"ComponentConfigurationInput",
         {str("component", k_required), str("namespace", k_required),
          objects("configuration", "ConfigEntryInput"), str("sourceURL"),
          enumeration("conflictStrategy", "ConflictStrategy")}},
        {"ConfigEntryInput", {str("key", k_required), str("value", k_required), boolean("secret")}},
        {"UpgradeRuntimeInput", {object("kymaConfig", "KymaConfigInput", k_required)}},
        {"UpgradeShootInput",
         {object("gardenerConfig", "GardenerUpgradeInput", k_required), strings("administrators")}},
        {"GardenerUpgradeInput",
         {str("kubernetesVersion"), str("machineType"), str("diskType"), integer("volumeSizeGB"),
          integer("autoScalerMin"), integer("autoScalerMax"), str("machineImage"),
          str("machineImageVersion"), integer("maxSurge"), integer("maxUnavailable"),
          str("purpose"), boolean("enableKubernetesVersionAutoUpdate"),
          boolean("enableMachineImageVersionAutoUpdate"),
          object("providerSpecificConfig", "ProviderSpecificInput"),
          object("oidcConfig", "OIDCConfigInput"), str("exposureClassName"),
          boolean("shootNetworkingFilterDisabled")}},
    };
}

// The field a user most likely meant: the same name in another case ("clientId"), else the
// nearest spelling.
std::optional<std::string> closest_field(std::string_view unknown, const InputTypeSpec& type) {
    const auto folded = ascii_lower(unknown);
    std::vector<std::string> names;
    for (const auto& field : type.fields) {
        if (ascii_lower(field.name) == folded)
            return std::string(field.name);
        names.emplace_back(field.name);
    }
    return closest_match(unknown, names);
}

// A value as it appears in a message: scalars as JSON, long text cut short, containers named.
std::string shown(const json& value) {
    if (value.is_object())
        return "an object";
    if (value.is_array())
        return "a list";
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    constexpr std::size_t k_max = 60;
    if (text.size() > k_max)
        text = text.substr(0, k_max) + "...";
    return text;
}

std::string join(const std::string& path, std::string_view field) {
    return path.empty() ? std::string(field) : path + "." + std::string(field);
}

class Checker {
public:
    void object(const json& value, const InputTypeSpec& type, const std::string& path) {
        if (!value.is_object()) {
            problem(path,
                    "must be an object (" + std::string(type.name) + "), got " + shown(value));
            return;
        }
        for (const auto& item : value.items()) {
            const std::string& key = item.key(); // clang 14 cannot capture a structured binding
            const bool known = std::any_of(type.fields.begin(), type.fields.end(),
                                           [&](const auto& f) { return f.name == key; });
            if (known)
                continue;
            std::string message = "unknown field \"" + key + "\"";
            if (const auto suggestion = closest_field(key, type))
                message += "; did you mean \"" + *suggestion + "\"?";
            // Not unparsed: the field is dropped and the rest of its object is still good.
            m_problems.push_back(FieldProblem{path, std::move(message)});
        }
        for (const auto& field : type.fields) {
            const auto it = value.find(field.name);
            const auto field_path = join(path, field.name);
            if (it == value.end() || it->is_null()) {
                if (field.required)
                    problem(field_path,
                            it == value.end() ? "is required" : "is required, got null");
                continue;
            }
            if (!field.list) {
                item(*it, field, field_path);
                continue;
            }
            if (!it->is_array()) {
                problem(field_path, "must be a list, got " + shown(*it));
                continue;
            }
            for (std::size_t i = 0; i < it->size(); ++i)
                item((*it)[i], field, field_path + "[" + std::to_string(i) + "]");
        }
    }

    std::vector<FieldProblem> take_problems() { return std::move(m_problems); }
    std::vector<std::string> take_unparsed() { return std::move(m_unparsed); }

private:
    void item(const json& value, const InputFieldSpec& field, const std::string& path) {
        switch (field.kind) {
        case InputKind::String:
            if (!value.is_string())
                problem(path, "must be a string, got " + shown(value));
            return;
        case InputKind::Int:
            integer_in_range(value, path);
            return;
        case InputKind::Boolean:
            if (!value.is_boolean())
                problem(path, "must be true or false, got " + shown(value));
            return;
        case InputKind::Labels:
            if (!value.is_object())
                problem(path, "must be an object of labels, got " + shown(value));
            return;
        case InputKind::Enum:
            enum_value(value, field.type, path);
            return;
        case InputKind::Object:
            object(value, *find_input_type(field.type), path);
            return;
        }
    }

    // GraphQL's Int is 32 bits; a bigger number is refused, not wrapped.
    void integer_in_range(const json& value, const std::string& path) {
        const bool fits =
            (value.is_number_unsigned() && value.get<std::uint64_t>() <= INT_MAX) ||
            (value.is_number_integer() && !value.is_number_unsigned() &&
             value.get<std::int64_t>() >= INT_MIN && value.get<std::int64_t>() <= INT_MAX);
        if (fits)
            return;
        if (value.is_number_integer())
            problem(path, "must be an integer between " + std::to_string(INT_MIN) + " and " +
                              std::to_string(INT_MAX) + ", got " + shown(value));
        else
            problem(path, "must be an integer, got " + shown(value));
    }

    void enum_value(const json& value, std::string_view type, const std::string& path) {
        const auto values = input_enum_values(type);
        if (value.is_string() &&
            std::find(values.begin(), values.end(), value.get<std::string>()) != values.end())
            return;
        std::string expected;
        for (auto v : values)
            expected += (expected.empty() ? "" : ", ") + std::string(v);
        problem(path,
                "must be one of " + expected + " (" + std::string(type) + "), got " + shown(value));
    }

    void problem(const std::string& path, std::string message) {
        m_problems.push_back(FieldProblem{path, std::move(message)});
        m_unparsed.push_back(path);
    }

    std::vector<FieldProblem> m_problems;
    std::vector<std::string> m_unparsed;
};

// --- Reading a checked document. Only values of the checked type are taken; anything else was
// reported by the Checker and is left at its default (and listed as unparsed). --------------

const json* given(const json& j, const char* key) {
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

// An object field, or an empty object when it is absent or not an object.
const json& object_at(const json& j, const char* key) {
    static const json k_empty = json::object();
    const json* v = given(j, key);
    return v && v->is_object() ? *v : k_empty;
}

// The items of a list field that are objects.
std::vector<const json*> objects_at(const json& j, const char* key) {
    std::vector<const json*> out;
    if (const json* v = given(j, key); v && v->is_array())
        for (const auto& item : *v)
            if (item.is_object())
                out.push_back(&item);
    return out;
}

std::optional<int> as_int(const json& v) {
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>() <= INT_MAX ? std::optional<int>(v.get<int>()) : std::nullopt;
    if (v.is_number_integer() && v.get<std::int64_t>() >= INT_MIN &&
        v.get<std::int64_t>() <= INT_MAX)
        return v.get<int>();
    return std::nullopt;
}

std::optional<std::string> opt_str(const json& j, const char* key) {
    const json* v = given(j, key);
    return v && v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

std::optional<int> opt_int(const json& j, const char* key) {
    const json* v = given(j, key);
    return v ? as_int(*v) : std::nullopt;
}

std::optional<bool> opt_bool(const json& j, const char* key) {
    const json* v = given(j, key);
    return v && v->is_boolean() ? std::optional<bool>(v->get<bool>()) : std::nullopt;
}

std::optional<std::vector<std::string>> opt_strings(const json& j, const char* key) {
    const json* v = given(j, key);
    if (!v || !v->is_array())
        return std::nullopt;
    std::vector<std::string> out;
    for (const auto& item : *v)
        if (item.is_string())
            out.push_back(item.get<std::string>());
    return out;
}

std::string req_str(const json& j, const char* key) {
    return opt_str(j, key).value_or("");
}

int req_int(const json& j, const char* key) {
    return opt_int(j, key).value_or(0);
}

std::vector<std::string> req_strings(const json& j, const char* key) {
    return opt_strings(j, key).value_or(std::vector<std::string>{});
}

OidcConfig read_oidc(const json& j) {
    return OidcConfig{req_str(j, "clientID"),      req_str(j, "groupsClaim"),
                      req_str(j, "issuerURL"),     req_strings(j, "signingAlgs"),
                      req_str(j, "usernameClaim"), req_str(j, "usernamePrefix")};
}

DnsConfig read_dns(const json& j) {
    DnsConfig dns;
    dns.domain = req_str(j, "domain");
    for (const json* p : objects_at(j, "providers"))
        dns.providers.push_back(DnsProvider{req_strings(*p, "domainsInclude"),
                                            opt_bool(*p, "primary").value_or(false),
                                            req_str(*p, "secretName"), req_str(*p, "type")});
    return dns;
}

// A sub-config counts as given when it is an object; one of another type was reported.
const json* given_object(const json& j, const char* key) {
    const json* v = given(j, key);
    return v && v->is_object() ? v : nullptr;
}

ProviderInput read_provider(const json& j) {
    ProviderInput input;
    if (const json* gcp = given_object(j, "gcpConfig"))
        input.gcp = GcpConfig{req_strings(*gcp, "zones")};
    if (const json* azure = given_object(j, "azureConfig")) {
        AzureConfig& c = input.azure.emplace();
        c.vnet_cidr = req_str(*azure, "vnetCidr");
        c.zones = opt_strings(*azure, "zones");
        if (given(*azure, "azureZones")) {
            c.azure_zones.emplace();
            for (const json* z : objects_at(*azure, "azureZones"))
                c.azure_zones->push_back(AzureZone{req_int(*z, "name"), req_str(*z, "cidr")});
        }
        c.enable_nat_gateway = opt_bool(*azure, "enableNatGateway");
        c.idle_connection_timeout_minutes = opt_int(*azure, "idleConnectionTimeoutMinutes");
    }
    if (const json* aws = given_object(j, "awsConfig")) {
        AwsConfig& c = input.aws.emplace();
        c.vpc_cidr = req_str(*aws, "vpcCidr");
        for (const json* z : objects_at(*aws, "awsZones"))
            c.aws_zones.push_back(AwsZone{req_str(*z, "name"), req_str(*z, "publicCidr"),
                                          req_str(*z, "internalCidr"), req_str(*z, "workerCidr")});
    }
    if (const json* os = given_object(j, "openStackConfig")) {
        input.openstack =
            OpenStackInput{req_strings(*os, "zones"), opt_str(*os, "floatingPoolName"),
                           opt_str(*os, "cloudProfileName"), req_str(*os, "loadBalancerProvider")};
    }
    return input;
}

GardenerConfigInput read_gardener(const json& j) {
    GardenerConfigInput g;
    g.name = req_str(j, "name");
    g.kubernetes_version = req_str(j, "kubernetesVersion");
    g.provider = req_str(j, "provider");
    g.target_secret = req_str(j, "targetSecret");
    g.region = req_str(j, "region");
    g.machine_type = req_str(j, "machineType");
    g.machine_image = opt_str(j, "machineImage");
    g.machine_image_version = opt_str(j, "machineImageVersion");
    g.disk_type = opt_str(j, "diskType");
    g.volume_size_gb = opt_int(j, "volumeSizeGB");
    g.worker_cidr = req_str(j, "workerCidr");
    g.pods_cidr = opt_str(j, "podsCidr");
    g.services_cidr = opt_str(j, "servicesCidr");
    g.auto_scaler_min = req_int(j, "autoScalerMin");
    g.auto_scaler_max = req_int(j, "autoScalerMax");
    g.max_surge = req_int(j, "maxSurge");
    g.max_unavailable = req_int(j, "maxUnavailable");
    g.purpose = opt_str(j, "purpose");
    g.licence_type = opt_str(j, "licenceType");
    g.enable_kubernetes_version_auto_update = opt_bool(j, "enableKubernetesVersionAutoUpdate");
    g.enable_machine_image_version_auto_update = opt_bool(j, "enableMachineImageVersionAutoUpdate");
    g.provider_config = read_provider(object_at(j, "providerSpecificConfig"));
    if (const json* dns = given_object(j, "dnsConfig"))
        g.dns = read_dns(*dns);
    g.seed = opt_str(j, "seed");
    if (const json* oidc = given_object(j, "oidcConfig"))
        g.oidc = read_oidc(*oidc);
    g.exposure_class_name = opt_str(j, "exposureClassName");
    g.shoot_networking_filter_disabled = opt_bool(j, "shootNetworkingFilterDisabled");
    g.control_plane_failure_tolerance = opt_str(j, "controlPlaneFailureTolerance");
    g.eu_access = opt_bool(j, "euAccess");
    return g;
}

GardenerUpgradeInput read_gardener_upgrade(const json& j) {
    GardenerUpgradeInput g;
    g.kubernetes_version = opt_str(j, "kubernetesVersion");
    g.machine_type = opt_str(j, "machineType");
    g.disk_type = opt_str(j, "diskType");
    g.volume_size_gb = opt_int(j, "volumeSizeGB");
    g.auto_scaler_min = opt_int(j, "autoScalerMin");
    g.auto_scaler_max = opt_int(j, "autoScalerMax");
    g.machine_image = opt_str(j, "machineImage");
    g.machine_image_version = opt_str(j, "machineImageVersion");
    g.max_surge = opt_int(j, "maxSurge");
    g.max_unavailable = opt_int(j, "maxUnavailable");
    g.purpose = opt_str(j, "purpose");
    g.enable_kubernetes_version_auto_update = opt_bool(j, "enableKubernetesVersionAutoUpdate");
    g.enable_machine_image_version_auto_update = opt_bool(j, "enableMachineImageVersionAutoUpdate");
    if (const json* provider = given_object(j, "providerSpecificConfig"))
        g.provider_config = read_provider(*provider);
    if (const json* oidc = given_object(j, "oidcConfig"))
        g.oidc = read_oidc(*oidc);
    g.exposure_class_name = opt_str(j, "exposureClassName");
    g.shoot_networking_filter_disabled = opt_bool(j, "shootNetworkingFilterDisabled");
    return g;
}

} // namespace

const std::vector<InputTypeSpec>& input_type_specs() {
    static const std::vector<InputTypeSpec> k_specs = make_specs();
    return k_specs;
}

const InputTypeSpec* find_input_type(std::string_view name) {
    const auto& specs = input_type_specs();
    const auto it = std::find_if(specs.begin(), specs.end(),
                                 [&](const auto& spec) { return spec.name == name; });
    return it == specs.end() ? nullptr : &*it;
}

std::vector<std::string_view> input_enum_values(std::string_view name) {
    if (name == "KymaProfile")
        return {"Evaluation", "Production"};
    if (name == "ConflictStrategy")
        return {"Merge", "Replace"};
    return {};
}

std::optional<std::string_view> provider_type_of(std::string_view provider) {
    const auto lower = ascii_lower(provider);
    for (std::string_view type : {"aws", "azure", "gcp", "openstack"})
        if (lower == type)
            return type;
    if (lower == "az")
        return std::string_view("azure");
    return std::nullopt;
}

std::array<ProviderSubInput, 4> provider_sub_inputs(const ProviderInput& input) {
    return {{{"gcp", "gcpConfig", input.gcp.has_value()},
             {"azure", "azureConfig", input.azure.has_value()},
             {"aws", "awsConfig", input.aws.has_value()},
             {"openstack", "openStackConfig", input.openstack.has_value()}}};
}

namespace {

// A document nested deeper than every reader allows, or with text that is not UTF-8, is
// refused whole before anything walks it: the checker recurses, dump() does, and a store, the
// API and -o json hold UTF-8 only. Every reader bounds nesting already; this holds for any
// caller (a GraphQL literal nests up to the parser's own limit).
template <typename Input> std::optional<detail::Parsed<Input>> out_of_bounds(const json& document) {
    auto problem = input_bounds_problem(document, "");
    if (!problem)
        return std::nullopt;
    detail::Parsed<Input> parsed;
    parsed.problems.push_back(FieldProblem{std::move(problem->path), std::move(problem->message)});
    parsed.unparsed.emplace_back(); // "": nothing of it was read
    return parsed;
}

} // namespace

namespace detail {

Parsed<ProvisionInput> parse_provision_document(const json& document) {
    if (auto refused = out_of_bounds<ProvisionInput>(document))
        return std::move(*refused);
    Checker checker;
    checker.object(document, *find_input_type("ProvisionRuntimeInput"), "");
    Parsed<ProvisionInput> parsed{{}, checker.take_problems(), checker.take_unparsed()};
    ProvisionInput& input = parsed.input;
    const json& runtime = object_at(document, "runtimeInput");
    input.runtime.name = req_str(runtime, "name");
    input.runtime.description = opt_str(runtime, "description");
    if (const json* labels = given_object(runtime, "labels"))
        input.runtime.labels_json = labels->dump();
    const json& cluster = object_at(document, "clusterConfig");
    input.gardener = read_gardener(object_at(cluster, "gardenerConfig"));
    input.administrators = opt_strings(cluster, "administrators");
    if (const json* kyma = given_object(document, "kymaConfig"))
        input.kyma_config_json = kyma->dump();
    return parsed;
}

Parsed<UpgradeShootInput> parse_upgrade_document(const json& document) {
    if (auto refused = out_of_bounds<UpgradeShootInput>(document))
        return std::move(*refused);
    Checker checker;
    checker.object(document, *find_input_type("UpgradeShootInput"), "");
    Parsed<UpgradeShootInput> parsed{{}, checker.take_problems(), checker.take_unparsed()};
    parsed.input.gardener = read_gardener_upgrade(object_at(document, "gardenerConfig"));
    parsed.input.administrators = opt_strings(document, "administrators");
    return parsed;
}

Parsed<KymaUpgradeInput> parse_kyma_upgrade_document(const json& document) {
    if (auto refused = out_of_bounds<KymaUpgradeInput>(document))
        return std::move(*refused);
    Checker checker;
    checker.object(document, *find_input_type("UpgradeRuntimeInput"), "");
    Parsed<KymaUpgradeInput> parsed{{}, checker.take_problems(), checker.take_unparsed()};
    if (const json* kyma = given_object(document, "kymaConfig"))
        parsed.input.kyma_config_json = kyma->dump();
    return parsed;
}

} // namespace detail

namespace {

template <typename Input> Input parsed_or_throw(detail::Parsed<Input> parsed) {
    if (!parsed.problems.empty())
        throw ValidationError(std::move(parsed.problems));
    return std::move(parsed.input);
}

} // namespace

ProvisionInput parse_provision_input(const json& document) {
    return parsed_or_throw(detail::parse_provision_document(document));
}

UpgradeShootInput parse_upgrade_input(const json& document) {
    return parsed_or_throw(detail::parse_upgrade_document(document));
}

} // namespace kprov::engine
