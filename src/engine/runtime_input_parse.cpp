// Reading ProvisionRuntimeInput and UpgradeShootInput documents. Two passes: the document is
// first checked against the input type table (every problem collected, each with its path), and
// only a clean document is then read into the structs, so the second pass cannot fail.

#include "engine/error.hpp"
#include "engine/runtime_input.hpp"
#include "engine/text.hpp"

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

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The field a user most likely meant: the same name in another case ("clientId"), else the
// nearest spelling.
std::optional<std::string> closest_field(std::string_view unknown, const InputTypeSpec& type) {
    const auto folded = lowercase(unknown);
    std::vector<std::string> names;
    for (const auto& field : type.fields) {
        if (lowercase(field.name) == folded)
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
        for (const auto& [key, _] : value.items()) {
            const bool known = std::any_of(type.fields.begin(), type.fields.end(),
                                           [&](const auto& f) { return f.name == key; });
            if (known)
                continue;
            std::string message = "unknown field \"" + key + "\"";
            if (const auto suggestion = closest_field(key, type))
                message += "; did you mean \"" + *suggestion + "\"?";
            problem(path, message);
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

    std::vector<FieldProblem> take() { return std::move(m_problems); }

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
    }

    std::vector<FieldProblem> m_problems;
};

void check(const json& document, std::string_view type) {
    Checker checker;
    checker.object(document, *find_input_type(type), "");
    auto problems = checker.take();
    if (!problems.empty())
        throw ValidationError(std::move(problems));
}

// --- Reading a checked document: every type and presence below was verified by check(). ----

const json* given(const json& j, const char* key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::string> opt_str(const json& j, const char* key) {
    const json* v = given(j, key);
    return v ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

std::optional<int> opt_int(const json& j, const char* key) {
    const json* v = given(j, key);
    return v ? std::optional<int>(v->get<int>()) : std::nullopt;
}

std::optional<bool> opt_bool(const json& j, const char* key) {
    const json* v = given(j, key);
    return v ? std::optional<bool>(v->get<bool>()) : std::nullopt;
}

std::optional<std::vector<std::string>> opt_strings(const json& j, const char* key) {
    const json* v = given(j, key);
    return v ? std::optional<std::vector<std::string>>(v->get<std::vector<std::string>>())
             : std::nullopt;
}

OidcConfig read_oidc(const json& j) {
    return OidcConfig{j.at("clientID").get<std::string>(),
                      j.at("groupsClaim").get<std::string>(),
                      j.at("issuerURL").get<std::string>(),
                      j.at("signingAlgs").get<std::vector<std::string>>(),
                      j.at("usernameClaim").get<std::string>(),
                      j.at("usernamePrefix").get<std::string>()};
}

DnsConfig read_dns(const json& j) {
    DnsConfig dns;
    dns.domain = j.at("domain").get<std::string>();
    if (const json* providers = given(j, "providers")) {
        for (const auto& p : *providers)
            dns.providers.push_back(DnsProvider{
                p.at("domainsInclude").get<std::vector<std::string>>(), p.at("primary").get<bool>(),
                p.at("secretName").get<std::string>(), p.at("type").get<std::string>()});
    }
    return dns;
}

ProviderInput read_provider(const json& j) {
    ProviderInput input;
    if (const json* gcp = given(j, "gcpConfig"))
        input.gcp = GcpConfig{gcp->at("zones").get<std::vector<std::string>>()};
    if (const json* azure = given(j, "azureConfig")) {
        AzureConfig& c = input.azure.emplace();
        c.vnet_cidr = azure->at("vnetCidr").get<std::string>();
        c.zones = opt_strings(*azure, "zones");
        if (const json* zones = given(*azure, "azureZones")) {
            c.azure_zones.emplace();
            for (const auto& z : *zones)
                c.azure_zones->push_back(
                    AzureZone{z.at("name").get<int>(), z.at("cidr").get<std::string>()});
        }
        c.enable_nat_gateway = opt_bool(*azure, "enableNatGateway");
        c.idle_connection_timeout_minutes = opt_int(*azure, "idleConnectionTimeoutMinutes");
    }
    if (const json* aws = given(j, "awsConfig")) {
        AwsConfig& c = input.aws.emplace();
        c.vpc_cidr = aws->at("vpcCidr").get<std::string>();
        for (const auto& z : aws->at("awsZones"))
            c.aws_zones.push_back(AwsZone{
                z.at("name").get<std::string>(), z.at("publicCidr").get<std::string>(),
                z.at("internalCidr").get<std::string>(), z.at("workerCidr").get<std::string>()});
    }
    if (const json* os = given(j, "openStackConfig")) {
        input.openstack = OpenStackInput{
            os->at("zones").get<std::vector<std::string>>(), opt_str(*os, "floatingPoolName"),
            opt_str(*os, "cloudProfileName"), os->at("loadBalancerProvider").get<std::string>()};
    }
    return input;
}

GardenerConfigInput read_gardener(const json& j) {
    GardenerConfigInput g;
    g.name = j.at("name").get<std::string>();
    g.kubernetes_version = j.at("kubernetesVersion").get<std::string>();
    g.provider = j.at("provider").get<std::string>();
    g.target_secret = j.at("targetSecret").get<std::string>();
    g.region = j.at("region").get<std::string>();
    g.machine_type = j.at("machineType").get<std::string>();
    g.machine_image = opt_str(j, "machineImage");
    g.machine_image_version = opt_str(j, "machineImageVersion");
    g.disk_type = opt_str(j, "diskType");
    g.volume_size_gb = opt_int(j, "volumeSizeGB");
    g.worker_cidr = j.at("workerCidr").get<std::string>();
    g.pods_cidr = opt_str(j, "podsCidr");
    g.services_cidr = opt_str(j, "servicesCidr");
    g.auto_scaler_min = j.at("autoScalerMin").get<int>();
    g.auto_scaler_max = j.at("autoScalerMax").get<int>();
    g.max_surge = j.at("maxSurge").get<int>();
    g.max_unavailable = j.at("maxUnavailable").get<int>();
    g.purpose = opt_str(j, "purpose");
    g.licence_type = opt_str(j, "licenceType");
    g.enable_kubernetes_version_auto_update = opt_bool(j, "enableKubernetesVersionAutoUpdate");
    g.enable_machine_image_version_auto_update = opt_bool(j, "enableMachineImageVersionAutoUpdate");
    g.provider_config = read_provider(j.at("providerSpecificConfig"));
    if (const json* dns = given(j, "dnsConfig"))
        g.dns = read_dns(*dns);
    g.seed = opt_str(j, "seed");
    if (const json* oidc = given(j, "oidcConfig"))
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
    if (const json* provider = given(j, "providerSpecificConfig"))
        g.provider_config = read_provider(*provider);
    if (const json* oidc = given(j, "oidcConfig"))
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
    const auto lower = lowercase(provider);
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

ProvisionInput parse_provision_input(const json& document) {
    check(document, "ProvisionRuntimeInput");
    ProvisionInput input;
    const json& runtime = document.at("runtimeInput");
    input.runtime.name = runtime.at("name").get<std::string>();
    input.runtime.description = opt_str(runtime, "description");
    if (const json* labels = given(runtime, "labels"))
        input.runtime.labels_json = labels->dump();
    const json& cluster = document.at("clusterConfig");
    input.gardener = read_gardener(cluster.at("gardenerConfig"));
    input.administrators = opt_strings(cluster, "administrators");
    if (const json* kyma = given(document, "kymaConfig"))
        input.kyma_config_json = kyma->dump();
    return input;
}

UpgradeShootInput parse_upgrade_input(const json& document) {
    check(document, "UpgradeShootInput");
    UpgradeShootInput input;
    input.gardener = read_gardener_upgrade(document.at("gardenerConfig"));
    input.administrators = opt_strings(document, "administrators");
    return input;
}

} // namespace kprov::engine
