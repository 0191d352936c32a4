// libFuzzer target for kprov's GraphQL: the input is a query, optionally followed by a NUL byte
// and the variables as JSON, then optionally a second NUL and an operation name. It runs through
// check_document() and execute() against schemas/provisioner.graphql with stub resolvers that
// return every shape the schema has (unions, lists, non-null fields given null, errors), and the
// response must serialize as strict UTF-8 JSON. Build and run: tests/fuzz/README.md.

#include "api/graphql/graphql.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace {

using kprov::api::graphql::FieldContext;
using kprov::api::graphql::FieldError;
using kprov::api::graphql::Value;
using nlohmann::json;

std::shared_ptr<const kprov::api::graphql::Schema> g_schema;
kprov::api::graphql::Resolvers g_resolvers;

json operation_status(const FieldContext& ctx) {
    const json& id = ctx.arguments.contains("id") ? ctx.arguments["id"] : json("op");
    return {{"id", id},
            {"operation", "Provision"},
            {"state", "InProgress"},
            {"message", nullptr},
            {"runtimeID", id},
            {"lastError", {{"errMessage", ""}, {"reason", ""}, {"component", ""}}}};
}

// Built as a graphql::Value, as kprov's resolvers build it, with JSON inside it in places, so
// that both kinds the executor reads are fuzzed.
Value runtime_status(const FieldContext& ctx) {
    Value cluster = Value::object();
    cluster.add("name", "shoot");
    cluster.add("volumeSizeGB", 50);
    cluster.add("autoScalerMin", "not a number"); // a field error while completing
    Value zones = Value::array();
    Value zone = Value::object();
    zone.add("name", "a");
    zones.push_back(std::move(zone));
    zones.push_back(nullptr);
    Value provider = Value::object();
    provider.add("__typename", "AWSProviderConfig");
    provider.add("vpcCidr", "10.0.0.0/16");
    provider.add("awsZones", std::move(zones));
    cluster.add("providerSpecificConfig", std::move(provider));
    cluster.add("dnsConfig",
                json{{"domain", nullptr}, {"providers", json::array()}}); // null in non-null
    cluster.add("oidcConfig", json{{"clientID", "c"},
                                   {"groupsClaim", "g"},
                                   {"issuerURL", "i"},
                                   {"signingAlgs", json::array({"RS256", nullptr})},
                                   {"usernameClaim", "u"},
                                   {"usernamePrefix", "-"}});
    Value config = Value::object();
    config.add("clusterConfig", std::move(cluster));
    config.add("kubeconfig", "apiVersion: v1");
    Value status = Value::object();
    status.add("lastOperationStatus", operation_status(ctx));
    status.add("runtimeConnectionStatus", json{{"status", "Pending"}, {"errors", nullptr}});
    status.add("runtimeConfiguration", std::move(config));
    status.add("hibernationStatus", json{{"hibernated", false}, {"hibernationPossible", true}});
    return status;
}

void init() {
    std::ifstream in(std::string(KPROV_SOURCE_DIR) + "/schemas/provisioner.graphql");
    std::ostringstream sdl;
    sdl << in.rdbuf();
    g_schema = kprov::api::graphql::load_schema(sdl.str());
    g_resolvers.add("Query.runtimeStatus", runtime_status);
    g_resolvers.add("Query.runtimeOperationStatus", operation_status);
    g_resolvers.add("Mutation.provisionRuntime", [](const FieldContext& ctx) {
        json status = operation_status(ctx);
        status["message"] = ctx.arguments.dump(); // echoes whatever the client sent
        return status;
    });
    g_resolvers.add("Mutation.upgradeShoot", operation_status);
    g_resolvers.add("Mutation.hibernateRuntime", [](const FieldContext&) { return json(); });
    g_resolvers.add("Mutation.wakeUpRuntime", operation_status);
    g_resolvers.add("Mutation.deprovisionRuntime", [](const FieldContext&) -> json {
        throw FieldError("tenant header is empty", {{"error_code", 400}});
    });
    g_resolvers.add("Mutation.reconnectRuntimeAgent", [](const FieldContext&) { return json(); });
    g_resolvers.add("Mutation.upgradeRuntime", [](const FieldContext&) -> json {
        throw std::runtime_error("managed by Reconciler");
    });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (!g_schema)
        init();
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto first = input.find('\0');
    kprov::api::graphql::Request request;
    request.query = std::string(input.substr(0, first));
    if (first != std::string_view::npos) {
        const std::string_view rest = input.substr(first + 1);
        const auto second = rest.find('\0');
        request.variables = json::parse(rest.substr(0, second), nullptr, false);
        if (request.variables.is_discarded())
            request.variables = json::object();
        if (second != std::string_view::npos)
            request.operation_name = std::string(rest.substr(second + 1));
    }
    request.allow_mutations = size % 2 == 0;

    kprov::api::graphql::Limits limits;
    const auto checked = kprov::api::graphql::check_document(*g_schema, request.query, limits);
    std::any state;
    const auto response =
        kprov::api::graphql::execute(*g_schema, g_resolvers, request, state, limits);
    // Strict serialization: throws (and the fuzzer reports it) on invalid UTF-8.
    const std::string body = response.body().dump() + checked.body().dump();
    if (body.empty() || !response.body().is_object())
        __builtin_trap();
    if (response.outcome != kprov::api::graphql::Response::Outcome::Executed &&
        response.body().contains("data"))
        __builtin_trap();
    return 0;
}
