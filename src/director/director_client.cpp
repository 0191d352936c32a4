#include "director/director_client.hpp"

#include "gardener/curl_transport.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace kprov::director {

using nlohmann::json;

namespace {

std::string condition_name(engine::DirectorStatusCondition condition) {
    switch (condition) {
    case engine::DirectorStatusCondition::Provisioning:
        return "PROVISIONING";
    case engine::DirectorStatusCondition::Connected:
        return "CONNECTED";
    case engine::DirectorStatusCondition::Failed:
        break;
    }
    return "FAILED";
}

json runtime_input(const engine::DirectorRuntimeInput& input) {
    json labels = json::parse(input.labels_json, nullptr, false);
    json in = {{"name", input.name}, {"description", input.description}};
    in["labels"] = labels.is_object() ? labels : json::object();
    if (input.status_condition)
        in["statusCondition"] = condition_name(*input.status_condition);
    return in;
}

engine::DirectorError error(const std::string& operation, const std::string& message,
                            int http_status, bool retryable, std::string reason = {},
                            int code = 0) {
    return engine::DirectorError("compass director: " + operation + ": " + message, http_status,
                                 retryable, std::move(reason), engine::k_component_director, code);
}

// The first GraphQL error as a DirectorError (§6.2, "Director error mapping").
engine::DirectorError graphql_error(const std::string& operation, const json& errors) {
    const json& first = errors.at(0);
    std::string message = first.is_object() ? first.value("message", std::string()) : "";
    if (message.empty())
        message = first.dump();
    const json* extensions =
        first.is_object() && first.contains("extensions") ? &first["extensions"] : nullptr;
    if (!extensions || !extensions->is_object() || !extensions->contains("error_code") ||
        !(*extensions)["error_code"].is_number_integer())
        return error(operation, message, 200, false);
    const int code = (*extensions)["error_code"].get<int>();
    std::string name = director_error_name(code);
    if (name.empty()) {
        message = "Did not recognize the error code " + std::to_string(code) + ": " + message;
        name = extensions->value("error", std::string());
    }
    return error(operation, message + " (error_code " + std::to_string(code) + ")", 200,
                 director_code_retryable(code), name, code);
}

std::shared_ptr<gardener::HttpTransport> make_transport(const DirectorClientOptions& options) {
    if (options.transport)
        return options.transport;
    gardener::TlsOptions tls;
    tls.insecure_skip_tls_verify = options.skip_cert_verification;
    return std::make_shared<gardener::CurlTransport>(std::move(tls));
}

std::string excerpt(const std::string& body) {
    return body.size() > 200 ? body.substr(0, 200) + "..." : body;
}

} // namespace

std::string director_error_name(int code) {
    switch (code) {
    case 10:
        return "InternalError";
    case 11:
        return "UnknownError";
    case 20:
        return "NotFound";
    case 21:
        return "NotUnique";
    case 22:
        return "InvalidData";
    case 23:
        return "InsufficientScopes";
    case 24:
        return "TenantRequired";
    case 25:
        return "TenantNotFound";
    case 26:
        return "Unauthorized";
    case 27:
        return "InvalidOperation";
    default:
        return "";
    }
}

bool director_code_retryable(int code) {
    return code == 10 || code == 11;
}

struct DirectorClient::Call {
    std::string operation; ///< the field, for messages
    std::string document;
    json variables;
    std::string tenant;
    /// False for registerRuntime: a request that may have arrived is not sent again (it would
    /// register a second runtime, or fail as NotUnique).
    bool idempotent = true;
};

DirectorClient::DirectorClient(OAuthCredentials credentials, DirectorClientOptions options)
    : m_options(std::move(options))
    , m_transport(make_transport(m_options))
    , m_clock(m_options.clock ? m_options.clock : gardener::steady_clock())
    , m_tokens(std::move(credentials), m_transport, m_clock, m_options.request_timeout) {}

std::string DirectorClient::execute(const Call& call) {
    const auto first_started = m_clock->now();
    bool token_renewed = false;
    for (int attempt = 1;; ++attempt) {
        std::optional<engine::DirectorError> failure;
        std::optional<std::chrono::milliseconds> wait;
        std::string token;
        try {
            token = m_tokens.token();
        } catch (const engine::DirectorError& e) {
            failure = e;
        }
        if (!failure) {
            gardener::HttpRequest request;
            request.method = "POST";
            request.url = m_options.url;
            request.headers = {{"Content-Type", "application/json"},
                               {"Accept", "application/json"},
                               {"Authorization", "Bearer " + token},
                               {"Tenant", call.tenant}};
            request.body = json{{"query", call.document}, {"variables", call.variables}}.dump();
            request.total_timeout = m_options.request_timeout;
            try {
                const gardener::HttpResponse response = m_transport->perform(request);
                if (response.status == 401 && !token_renewed) {
                    // Expired early or revoked: one more try with a new token, not counted.
                    token_renewed = true;
                    m_tokens.invalidate(token);
                    --attempt;
                    continue;
                }
                if (response.status != 200) {
                    failure = error(
                        call.operation,
                        "HTTP " + std::to_string(response.status) + ": " + excerpt(response.body),
                        response.status, response.status == 429 || response.status >= 500);
                    if (response.status == 429 || response.status == 503)
                        if (const auto after = response.header("retry-after"); !after.empty())
                            try {
                                wait = std::chrono::seconds(std::stoi(after));
                            } catch (const std::exception&) {
                            }
                } else {
                    const json body = json::parse(response.body, nullptr, false);
                    if (!body.is_object())
                        throw error(call.operation,
                                    "the answer is not JSON: " + excerpt(response.body), 200,
                                    false);
                    if (body.contains("errors") && body["errors"].is_array() &&
                        !body["errors"].empty())
                        failure = graphql_error(call.operation, body["errors"]);
                    else if (body.contains("data") && body["data"].is_object() &&
                             body["data"].contains("result"))
                        return body["data"]["result"].dump();
                    else
                        return "null";
                }
            } catch (const gardener::TransportError& e) {
                const bool safe = call.idempotent || !e.request_sent();
                failure = error(call.operation, std::string("no answer: ") + e.what(), 0,
                                safe && e.kind() != gardener::TransportError::Kind::Tls);
            }
        }
        const auto delay = wait ? *wait : gardener::backoff_delay(m_options.retry, attempt - 1);
        const bool in_time = m_clock->now() - first_started + delay <= m_options.retry.max_total;
        if (!failure->retryable() || attempt >= m_options.retry.max_attempts || !in_time)
            throw *failure;
        spdlog::default_logger()->debug("compass director: {}: retrying in {}ms: {}",
                                        call.operation, delay.count(), failure->what());
        m_clock->sleep_for(delay);
    }
}

std::string DirectorClient::register_runtime(const engine::DirectorRuntimeInput& input,
                                             const std::string& tenant) {
    const Call call{"registerRuntime",
                    "mutation ($in: RuntimeInput!) { result: registerRuntime(in: $in) { id } }",
                    {{"in", runtime_input(input)}},
                    tenant,
                    false};
    const json result = json::parse(execute(call));
    if (!result.is_object() || !result.contains("id") || !result["id"].is_string())
        throw error(call.operation, "Director answered no runtime id", 200, false,
                    "err_director_nil_response");
    return result["id"].get<std::string>();
}

std::optional<engine::DirectorRuntime> DirectorClient::runtime(const std::string& id,
                                                               const std::string& tenant) {
    const Call call{"runtime",
                    "query ($id: ID!) { result: runtime(id: $id) { id name description labels } }",
                    {{"id", id}},
                    tenant};
    json result;
    try {
        result = json::parse(execute(call));
    } catch (const engine::DirectorError& e) {
        if (e.director_code() == 25) // TenantNotFound: nothing exists there (§2.4)
            return std::nullopt;
        throw;
    }
    if (result.is_null())
        return std::nullopt;
    if (!result.is_object() || result.value("id", std::string()) != id)
        throw error(call.operation, "Director answered another runtime than " + id, 200, false,
                    "err_director_runtime_id_mismatch");
    engine::DirectorRuntime rt;
    rt.id = id;
    rt.name = result.contains("name") && result["name"].is_string()
                  ? result["name"].get<std::string>()
                  : "";
    rt.description = result.contains("description") && result["description"].is_string()
                         ? result["description"].get<std::string>()
                         : "";
    rt.labels_json =
        result.contains("labels") && result["labels"].is_object() ? result["labels"].dump() : "{}";
    return rt;
}

void DirectorClient::update_runtime(const std::string& id,
                                    const engine::DirectorRuntimeInput& input,
                                    const std::string& tenant) {
    const Call call{"updateRuntime",
                    "mutation ($id: ID!, $in: RuntimeInput!) { result: updateRuntime(id: $id, in: "
                    "$in) { id } }",
                    {{"id", id}, {"in", runtime_input(input)}},
                    tenant};
    const json result = json::parse(execute(call));
    if (result.is_null())
        throw error(call.operation, "Director answered null", 200, false,
                    "err_director_nil_response");
    if (!result.is_object() || result.value("id", std::string()) != id)
        throw error(call.operation, "Director answered another runtime than " + id, 200, false,
                    "err_director_runtime_id_mismatch");
}

engine::OneTimeToken DirectorClient::request_one_time_token(const std::string& id,
                                                            const std::string& tenant) {
    const Call call{"requestOneTimeTokenForRuntime",
                    "mutation ($id: ID!) { result: requestOneTimeTokenForRuntime(id: $id) "
                    "{ token connectorURL } }",
                    {{"id", id}},
                    tenant};
    const json result = json::parse(execute(call));
    if (!result.is_object() || !result.contains("token") || !result["token"].is_string())
        throw error(call.operation, "Director answered no token", 200, false,
                    "err_director_nil_response");
    engine::OneTimeToken out;
    out.token = result["token"].get<std::string>();
    if (result.contains("connectorURL") && result["connectorURL"].is_string())
        out.connector_url = result["connectorURL"].get<std::string>();
    return out;
}

void DirectorClient::unregister_runtime(const std::string& id, const std::string& tenant) {
    const Call call{"unregisterRuntime",
                    "mutation ($id: ID!) { result: unregisterRuntime(id: $id) { id } }",
                    {{"id", id}},
                    tenant};
    const json result = json::parse(execute(call));
    if (result.is_null())
        throw error(call.operation, "Director answered null", 200, false,
                    "err_director_nil_response");
}

} // namespace kprov::director
