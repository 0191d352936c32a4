#include "engine/input/provider_config.hpp"

#include "engine/error.hpp"

#include <initializer_list>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using nlohmann::json;

// Thrown inside decoding when a shape does not fit; the caller tries the next provider.
struct Mismatch {};

void only_keys(const json& j, std::initializer_list<std::string_view> allowed) {
    if (!j.is_object())
        throw Mismatch{};
    for (const auto& [key, _] : j.items()) {
        bool ok = false;
        for (auto a : allowed)
            ok = ok || key == a;
        if (!ok)
            throw Mismatch{};
    }
}

const json* field(const json& j, const char* key) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string str(const json& j, const char* key) {
    const json* v = field(j, key);
    if (!v)
        return {};
    if (!v->is_string())
        throw Mismatch{};
    return v->get<std::string>();
}

std::vector<std::string> string_list(const json& v) {
    if (!v.is_array())
        throw Mismatch{};
    std::vector<std::string> out;
    for (const auto& e : v) {
        if (!e.is_string())
            throw Mismatch{};
        out.push_back(e.get<std::string>());
    }
    return out;
}

std::vector<std::string> string_list(const json& j, const char* key) {
    const json* v = field(j, key);
    return v ? string_list(*v) : std::vector<std::string>{};
}

int integer_of(const json& v) {
    if (!v.is_number_integer())
        throw Mismatch{};
    return v.get<int>();
}

json optional_strings(const std::optional<std::vector<std::string>>& v) {
    return v ? json(*v) : json(nullptr);
}

GcpConfig decode_gcp(const json& j) {
    only_keys(j, {"zones"});
    return GcpConfig{string_list(j, "zones")};
}

AzureConfig decode_azure(const json& j) {
    only_keys(
        j, {"vnetCidr", "zones", "azureZones", "enableNatGateway", "idleConnectionTimeoutMinutes"});
    AzureConfig c;
    c.vnet_cidr = str(j, "vnetCidr");
    if (const json* v = field(j, "zones"))
        c.zones = string_list(*v);
    if (const json* v = field(j, "azureZones")) {
        if (!v->is_array())
            throw Mismatch{};
        c.azure_zones.emplace();
        for (const auto& z : *v) {
            only_keys(z, {"name", "cidr"});
            const json* name = field(z, "name");
            c.azure_zones->push_back(AzureZone{name ? integer_of(*name) : 0, str(z, "cidr")});
        }
    }
    if (const json* v = field(j, "enableNatGateway")) {
        if (!v->is_boolean())
            throw Mismatch{};
        c.enable_nat_gateway = v->get<bool>();
    }
    if (const json* v = field(j, "idleConnectionTimeoutMinutes"))
        c.idle_connection_timeout_minutes = integer_of(*v);
    return c;
}

AwsConfig decode_aws(const json& j) {
    only_keys(j, {"vpcCidr", "awsZones"});
    AwsConfig c;
    c.vpc_cidr = str(j, "vpcCidr");
    if (const json* v = field(j, "awsZones")) {
        if (!v->is_array())
            throw Mismatch{};
        for (const auto& z : *v) {
            if (z.is_null()) {
                c.aws_zones.emplace_back();
                continue;
            }
            only_keys(z, {"name", "publicCidr", "internalCidr", "workerCidr"});
            c.aws_zones.push_back(AwsZone{str(z, "name"), str(z, "publicCidr"),
                                          str(z, "internalCidr"), str(z, "workerCidr")});
        }
    }
    return c;
}

OpenStackConfig decode_openstack(const json& j) {
    only_keys(j, {"zones", "floatingPoolName", "cloudProfileName", "loadBalancerProvider"});
    return OpenStackConfig{string_list(j, "zones"), str(j, "floatingPoolName"),
                           str(j, "cloudProfileName"), str(j, "loadBalancerProvider")};
}

template <typename Decode> std::optional<ProviderConfig> attempt(const json& j, Decode decode) {
    try {
        return ProviderConfig{decode(j)};
    } catch (const Mismatch&) {
        return std::nullopt;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

struct Encoder {
    json operator()(const GcpConfig& c) const { return json{{"zones", c.zones}}; }
    json operator()(const AzureConfig& c) const {
        json zones = nullptr;
        if (c.azure_zones) {
            zones = json::array();
            for (const auto& z : *c.azure_zones)
                zones.push_back(json{{"name", z.name}, {"cidr", z.cidr}});
        }
        return json{{"vnetCidr", c.vnet_cidr},
                    {"zones", optional_strings(c.zones)},
                    {"azureZones", zones},
                    {"enableNatGateway",
                     c.enable_nat_gateway ? json(*c.enable_nat_gateway) : json(nullptr)},
                    {"idleConnectionTimeoutMinutes", c.idle_connection_timeout_minutes
                                                         ? json(*c.idle_connection_timeout_minutes)
                                                         : json(nullptr)}};
    }
    json operator()(const AwsConfig& c) const {
        json zones = json::array();
        for (const auto& z : c.aws_zones)
            zones.push_back(json{{"name", z.name},
                                 {"publicCidr", z.public_cidr},
                                 {"internalCidr", z.internal_cidr},
                                 {"workerCidr", z.worker_cidr}});
        return json{{"vpcCidr", c.vpc_cidr}, {"awsZones", zones}};
    }
    json operator()(const OpenStackConfig& c) const {
        return json{{"zones", c.zones},
                    {"floatingPoolName", c.floating_pool_name},
                    {"cloudProfileName", c.cloud_profile_name},
                    {"loadBalancerProvider", c.load_balancer_provider}};
    }
};

struct TypeOf {
    std::string_view operator()(const GcpConfig&) const { return "gcp"; }
    std::string_view operator()(const AzureConfig&) const { return "azure"; }
    std::string_view operator()(const AwsConfig&) const { return "aws"; }
    std::string_view operator()(const OpenStackConfig&) const { return "openstack"; }
};

} // namespace

std::string_view provider_type(const ProviderConfig& config) {
    return std::visit(TypeOf{}, config);
}

std::string encode_provider_config(const ProviderConfig& config) {
    return std::visit(Encoder{}, config).dump();
}

ProviderConfig decode_provider_config(std::string_view text) {
    const json j = json::parse(text, nullptr, false);
    if (!j.is_discarded()) {
        if (auto c = attempt(j, decode_gcp))
            return *c;
        if (auto c = attempt(j, decode_azure))
            return *c;
        if (auto c = attempt(j, decode_aws))
            return *c;
        if (auto c = attempt(j, decode_openstack))
            return *c;
    }
    throw ValidationError("providerSpecificConfig",
                          "json data does not match any of Gardener providers");
}

} // namespace kprov::engine
