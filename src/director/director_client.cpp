#include "director/director_client.hpp"

#include "net/curl_transport.hpp"
#include "net/logger.hpp"
#include "net/remote_values.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

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
    if (!input.request_id.empty())
        in["labels"][k_request_id_label] = input.request_id;
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

// The first GraphQL error as a DirectorError (§6.2, "Director error mapping"). Its texts are
// Director's: capped and cleaned before a message holds them.
engine::DirectorError graphql_error(const std::string& operation, const json& errors) {
    const json& first = errors.at(0);
    std::string message =
        first.is_object() && first.contains("message") && first["message"].is_string()
            ? first["message"].get<std::string>()
            : "";
    message = net::clean_remote_text(message.empty() ? first.dump() : message);
    const json* extensions =
        first.is_object() && first.contains("extensions") ? &first["extensions"] : nullptr;
    if (!extensions || !extensions->is_object() || !extensions->contains("error_code") ||
        !(*extensions)["error_code"].is_number_integer())
        return error(operation, message, 200, false);
    const int code = net::json_int((*extensions)["error_code"]).value_or(0);
    std::string name = director_error_name(code);
    if (name.empty()) {
        constexpr std::size_t k_max_name = 128;
        message = "Did not recognize the error code " + std::to_string(code) + ": " + message;
        const auto given = extensions->find("error");
        name = given != extensions->end() && given->is_string()
                   ? net::clean_remote_text(given->get<std::string>(), k_max_name)
                   : "";
    }
    return error(operation, message + " (error_code " + std::to_string(code) + ")", 200,
                 director_code_retryable(code), name, code);
}

std::shared_ptr<net::HttpTransport> make_transport(const DirectorClientOptions& options) {
    if (options.transport)
        return options.transport;
    net::TlsOptions tls;
    tls.insecure_skip_tls_verify = options.skip_cert_verification;
    return std::make_shared<net::CurlTransport>(std::move(tls));
}

std::string excerpt(const std::string& body) {
    constexpr std::size_t k_max = 200;
    return net::clean_remote_text(body, k_max);
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
    /// False for registerRuntime without a request id: a request that may have arrived is not
    /// sent again (it would register a second runtime, or fail as NotUnique).
    bool idempotent = true;
    /// Asked before every retry; an answer is the call's result (data.result as JSON text)
    /// instead of sending the call again. Unset: calls are simply sent again.
    std::function<std::optional<std::string>()> before_retry;
};

DirectorClient::DirectorClient(OAuthCredentials credentials, DirectorClientOptions options)
    : m_options(std::move(options))
    , m_transport(make_transport(m_options))
    , m_clock(m_options.clock ? m_options.clock : net::steady_clock())
    , m_tokens(std::move(credentials), m_transport, m_clock, m_options.request_timeout) {
    m_options.log = net::logger_or_null(std::move(m_options.log));
}

std::string DirectorClient::execute(const Call& call) {
    using Failure = net::TryFailure<engine::DirectorError>;
    const auto failed = [](engine::DirectorError e) {
        const bool retryable = e.retryable();
        std::string note = e.what();
        return Failure{std::move(e), retryable, std::nullopt, false, std::move(note)};
    };
    const auto attempt =
        [&](const net::RetryState& state) -> net::TryOutcome<std::string, engine::DirectorError> {
        if (state.attempt > 1 && call.before_retry)
            if (auto found = call.before_retry())
                return std::move(*found);
        std::string token;
        try {
            token = m_tokens.token();
        } catch (const engine::DirectorError& e) {
            return failed(e);
        }
        net::HttpRequest request;
        request.method = "POST";
        request.url = m_options.url;
        request.headers = {{"Content-Type", "application/json"},
                           {"Accept", "application/json"},
                           {"Authorization", "Bearer " + token},
                           {"Tenant", call.tenant}};
        request.body = json{{"query", call.document}, {"variables", call.variables}}.dump();
        request.total_timeout = m_options.request_timeout;
        net::HttpResponse response;
        try {
            response = m_transport->perform(request);
        } catch (const net::TransportError& e) {
            const bool safe = call.idempotent || !e.request_sent();
            return failed(error(call.operation, std::string("no answer: ") + e.what(), 0,
                                safe && e.kind() != net::TransportError::Kind::Tls));
        }
        if (response.status == 401) {
            // Expired early or revoked: one more try with a new token, not counted.
            m_tokens.invalidate(token);
            auto out =
                failed(error(call.operation, "HTTP 401: " + excerpt(response.body), 401, false));
            out.free_retry = true;
            return out;
        }
        if (response.status != 200) {
            auto out = failed(
                error(call.operation,
                      "HTTP " + std::to_string(response.status) + ": " + excerpt(response.body),
                      response.status, response.status == 429 || response.status >= 500));
            // Other 5xx may come after Director did the work: only an idempotent call is sent
            // again. 429 and 503 say the request was not acted on.
            out.may_retry = response.status == 429 || response.status == 503 ||
                            (response.status >= 500 && call.idempotent);
            if (response.status == 429 || response.status == 503)
                if (const auto after = net::parse_retry_after(response.header("retry-after")))
                    out.wait = net::retry_after_delay(m_options.retry, *after);
            return out;
        }
        const json body = json::parse(response.body, nullptr, false);
        if (!body.is_object())
            throw error(call.operation, "the answer is not JSON: " + excerpt(response.body), 200,
                        false);
        if (body.contains("errors") && body["errors"].is_array() && !body["errors"].empty())
            return failed(graphql_error(call.operation, body["errors"]));
        if (body.contains("data") && body["data"].is_object() && body["data"].contains("result"))
            return body["data"]["result"].dump();
        return std::string("null");
    };
    return net::with_retries(m_options.retry, *m_clock, *m_options.log,
                             "compass director: " + call.operation, attempt);
}

std::string DirectorClient::register_runtime(const engine::DirectorRuntimeInput& input,
                                             const std::string& tenant) {
    Call call{"registerRuntime",
              "mutation ($in: RuntimeInput!) { result: registerRuntime(in: $in) { id } }",
              {{"in", runtime_input(input)}},
              tenant,
              false,
              {}};
    if (!input.request_id.empty()) {
        // The label makes a lost answer harmless: before any retry, the runtime an earlier try
        // may have registered is looked up, so the mutation can be sent again safely.
        call.idempotent = true;
        call.before_retry = [this, &input, &tenant]() -> std::optional<std::string> {
            auto id = find_registered(input.request_id, tenant);
            if (!id)
                return std::nullopt;
            m_options.log->info(
                "compass director: registerRuntime: an earlier try registered runtime {} ({}={})",
                *id, k_request_id_label, input.request_id);
            return json{{"id", *id}}.dump();
        };
    }
    const json result = json::parse(execute(call));
    if (!result.is_object() || !result.contains("id") || !result["id"].is_string())
        throw error(call.operation, "Director answered no runtime id", 200, false,
                    "err_director_nil_response");
    return result["id"].get<std::string>();
}

std::optional<std::string> DirectorClient::find_registered(const std::string& request_id,
                                                           const std::string& tenant) {
    // Compass's label filter query for string equality is the value as a JSON string.
    const json filter =
        json::array({{{"key", k_request_id_label}, {"query", json(request_id).dump()}}});
    const Call call{"runtimes",
                    "query ($filter: [LabelFilter!]) { result: runtimes(filter: $filter) "
                    "{ data { id } totalCount } }",
                    {{"filter", filter}},
                    tenant,
                    true,
                    {}};
    const json page = json::parse(execute(call));
    const json* data = page.is_object() && page.contains("data") ? &page["data"] : nullptr;
    if (!data || !data->is_array() || data->empty())
        return std::nullopt;
    const json& first = data->front();
    if (!first.is_object() || !first.contains("id") || !first["id"].is_string())
        throw error(call.operation, "Director answered a runtime without an id", 200, false,
                    "err_director_nil_response");
    return first["id"].get<std::string>();
}

std::optional<engine::DirectorRuntime> DirectorClient::runtime(const std::string& id,
                                                               const std::string& tenant) {
    const Call call{"runtime",
                    "query ($id: ID!) { result: runtime(id: $id) { id name description labels } }",
                    {{"id", id}},
                    tenant,
                    true,
                    {}};
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
                    tenant,
                    true,
                    {}};
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
                    tenant,
                    true,
                    {}};
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
                    tenant,
                    true,
                    {}};
    const json result = json::parse(execute(call));
    if (result.is_null())
        throw error(call.operation, "Director answered null", 200, false,
                    "err_director_nil_response");
}

} // namespace kprov::director
