#include "api/graphql_endpoint.hpp"

#include "api/post_body.hpp"
#include "api/resolvers.hpp"

namespace kprov::api {
namespace {

using nlohmann::json;

constexpr const char* k_json = "application/json";

// What identifies a GraphQL request for the answer cache: everything of it that reaches the
// resolvers. Header values hold no line feed, so the parts cannot run into each other.
std::string answer_key(const http::Request& req) {
    const std::string_view tenant = req.header("Tenant").value_or("");
    const std::string_view sub_account = req.header("Sub-Account").value_or("");
    const std::string_view payload = req.method == "POST" ? req.body : req.query;
    std::string key;
    key.reserve(req.method.size() + tenant.size() + sub_account.size() + payload.size() + 3);
    for (const std::string_view part : {req.method, tenant, sub_account})
        key.append(part).push_back('\n');
    key.append(payload);
    return key;
}

// The one runtime an answer shows, with its version as read with its rows; nullopt when the
// answer shows none, several, or one of a store without versions.
std::optional<RuntimeVersion> shown_runtime(const RequestState& state) {
    if (state.read.empty())
        return std::nullopt;
    const auto& [id, version] = state.read.front();
    for (const auto& other : state.read)
        if (!other.second || other != state.read.front())
            return std::nullopt;
    return RuntimeVersion{id, *version};
}

// The quick reading of a POST body into `request` (post_body.hpp); false: parse it in full.
bool quick_read(std::string_view body, graphql::Request& request) {
    auto read = api::read_post_body(body);
    if (!read || !(read->variables.is_null() || read->variables.is_object()) ||
        !(read->operation_name.is_null() || read->operation_name.is_string()))
        return false;
    request.query = std::move(read->query);
    if (read->variables.is_object())
        request.variables = std::move(read->variables);
    if (read->operation_name.is_string())
        request.operation_name = read->operation_name.get<std::string>();
    return true;
}

} // namespace

void transport_error(http::Response& res, int status, const std::string& message,
                     const char* code) {
    res.status = status;
    const json body = {
        {"errors", json::array({{{"message", message}, {"extensions", {{"code", code}}}}})}};
    res.body = body.dump();
    res.content_type = k_json;
}

GraphqlEndpoint::GraphqlEndpoint(const graphql::Schema& schema, const graphql::Resolvers& resolvers,
                                 Metrics& metrics, const ServerOptions& options)
    : m_schema(schema)
    , m_resolvers(resolvers)
    , m_metrics(metrics)
    , m_options(options)
    , m_answers(options.answer_cache_bytes, options.store_version, options.runtime_version) {}

http::Handled GraphqlEndpoint::handle(const http::Request& req, http::Response& res,
                                      bool on_loop) const {
    // A client polling with the same request while what it asks about stands still gets
    // the answer it got before, without the request being parsed or run again.
    const auto generation = m_answers.generation();
    std::string key;
    if (generation) {
        key = answer_key(req);
        if (auto answer = m_answers.find(key, *generation)) {
            m_metrics.answer_cache(true);
            res.content_type = k_json;
            res.body = std::move(*answer);
            return http::Handled::Answered;
        }
    }
    graphql::Request request;
    if (req.method == "POST" && quick_read(req.body, request)) {
        // The usual body, read without a JSON tree of the query text.
    } else if (req.method == "POST") {
        // Not const: the variables are moved out, since copying a deeply nested JSON value
        // recurses (execute() refuses nesting beyond Limits::max_variable_nesting).
        json body = json::parse(req.body, nullptr, false);
        if (body.is_discarded() || !body.is_object()) {
            transport_error(res, 400,
                            "the request body is not a JSON object (expected "
                            "{\"query\": ..., \"variables\": ..., \"operationName\": ...})",
                            "BAD_REQUEST");
            return http::Handled::Answered;
        }
        const auto query = body.find("query");
        if (query == body.end() || !query->is_string()) {
            transport_error(res, 400, "the request body has no \"query\" string", "BAD_REQUEST");
            return http::Handled::Answered;
        }
        request.query = std::move(query->get_ref<std::string&>());
        if (const auto v = body.find("variables"); v != body.end() && !v->is_null()) {
            if (!v->is_object()) {
                transport_error(res, 400, "\"variables\" is not a JSON object", "BAD_REQUEST");
                return http::Handled::Answered;
            }
            request.variables = std::move(*v);
        }
        if (const auto n = body.find("operationName"); n != body.end() && !n->is_null()) {
            if (!n->is_string()) {
                transport_error(res, 400, "\"operationName\" is not a string", "BAD_REQUEST");
                return http::Handled::Answered;
            }
            request.operation_name = n->get<std::string>();
        }
    } else {
        auto query = req.query_param("query");
        if (!query) {
            transport_error(res, 400, "the URL has no query parameter \"query\"", "BAD_REQUEST");
            return http::Handled::Answered;
        }
        request.query = std::move(*query);
        request.allow_mutations = false;
        if (const auto text = req.query_param("variables"); text && !text->empty()) {
            request.variables = json::parse(*text, nullptr, false);
            if (request.variables.is_discarded() || !request.variables.is_object()) {
                transport_error(res, 400, "the query parameter \"variables\" is not a JSON object",
                                "BAD_REQUEST");
                return http::Handled::Answered;
            }
        }
        request.operation_name = req.query_param("operationName").value_or("");
    }
    std::any state = RequestState{std::string(req.header("Tenant").value_or("")),
                                  std::string(req.header("Sub-Account").value_or("")), on_loop};
    // Decided once, from the validated document and what its resolvers declare: a
    // mutation, or a field that asks Gardener, runs on a worker; on PostgreSQL every query
    // does (a read is a network round trip). The worker's run finds the document parsed.
    const graphql::Gate stay_on_loop = [this](const graphql::OperationPlan& plan) {
        return m_options.queries_on_loop && !plan.mutation && !plan.blocking;
    };
    auto response = graphql::execute(m_schema, m_resolvers, request, state, m_options.limits,
                                     &m_documents, on_loop ? stay_on_loop : graphql::Gate());
    if (response.outcome == graphql::Response::Outcome::Deferred)
        return http::Handled::Blocking;
    auto& done = std::any_cast<RequestState&>(state);
    // A tenant rewrite a query found on the loop, written once the answer is out.
    for (auto& write : done.writes)
        m_post([write = std::move(write), log = m_options.log] {
            try {
                write();
            } catch (const std::exception& e) {
                if (log)
                    log(engine::LogLevel::Warning,
                        std::string("the tenant rewrite of an answered query failed: ") + e.what());
            }
        });
    const bool executed = response.outcome == graphql::Response::Outcome::Executed;
    if (generation && executed && response.query && !response.field_errors && done.reusable) {
        m_answers.insert(key, *generation, response.text, shown_runtime(done));
        m_metrics.answer_cache(false);
    }
    res.status = executed ? 200 : 422;
    res.content_type = k_json;
    res.body = std::move(response.text);
    return http::Handled::Answered;
}

} // namespace kprov::api
