#include "api/server.hpp"

#include "api/http_server.hpp"
#include "api/post_body.hpp"
#include "api/resolvers.hpp"
#include "engine/error.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>
#include <system_error>
#include <thread>

namespace kprov::api {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* k_json = "application/json";

// A request the transport refuses before GraphQL sees it (400, 401): the same body shape as
// GraphQL errors, so clients need one parser.
void transport_error(http::Response& res, int status, const std::string& message,
                     const char* code) {
    res.status = status;
    const json body = {
        {"errors", json::array({{{"message", message}, {"extensions", {{"code", code}}}}})}};
    res.body = body.dump();
    res.content_type = k_json;
}

// Whether `host` (a Host header: name or address, then ":port" when given) names a loopback
// listener on `listen_host`.
bool names_this_listener(std::string_view host, const std::string& listen_host) {
    if (!host.empty() && host.front() == '[') { // [v6]:port
        const auto close = host.find(']');
        host = close == std::string_view::npos ? host : host.substr(1, close - 1);
    } else if (const auto colon = host.rfind(':'); colon != std::string_view::npos) {
        host = host.substr(0, colon);
    }
    std::string lower(host);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower == "localhost" || lower == "::1" || lower.rfind("127.", 0) == 0 ||
           lower == listen_host;
}

// Compares in time independent of where the texts differ.
bool same_secret(std::string_view given, const std::string& expected) {
    return given.size() == expected.size() &&
           CRYPTO_memcmp(given.data(), expected.data(), given.size()) == 0;
}

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

std::pair<std::string, int> split_address(const std::string& address) {
    const auto colon = address.rfind(':');
    const auto invalid = [&] {
        return ConfigError("listen address \"" + address +
                           "\" is not host:port, :port or [IPv6]:port with a port 0-65535");
    };
    if (colon == std::string::npos)
        throw invalid();
    std::string host = address.substr(0, colon);
    const std::string port_text = address.substr(colon + 1);
    if (port_text.empty() || port_text.size() > 5 ||
        port_text.find_first_not_of("0123456789") != std::string::npos)
        throw invalid();
    const int port = std::stoi(port_text);
    if (port > 65535)
        throw invalid();
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    else if (host.find(':') != std::string::npos)
        throw invalid();
    if (host.empty())
        host = "0.0.0.0";
    return {host, port};
}

struct ApiServer::Impl {
    Impl(const graphql::Schema& s, const graphql::Resolvers& r, Metrics& m, ReadinessCheck ready,
         ServerOptions o)
        : schema(s)
        , resolvers(r)
        , metrics(m)
        , readiness(std::move(ready))
        , options(std::move(o))
        , playground(playground_page(options.playground_endpoint))
        , answers(options.answer_cache_bytes, options.store_version, options.runtime_version) {}

    http::ServerOptions http_options(int loops, int workers) const {
        http::ServerOptions o;
        o.loops = loops;
        o.workers = workers;
        o.max_body_bytes = options.max_body_bytes;
        return o;
    }

    // The API listener's routes. Answers on the event loop what cannot block; the rest
    // (mutations, Gardener calls, the store's readiness) goes to a worker.
    http::Handled handle(const http::Request& req, http::Response& res, bool on_loop) const {
        const auto start = Clock::now();
        if (options.check_host) {
            const auto given = req.header("Host");
            if (given && !names_this_listener(*given, host)) {
                transport_error(res, 421,
                                "the Host header does not name this server (kprov serve without "
                                "a token answers only requests for its loopback address)",
                                "MISDIRECTED_REQUEST");
                return http::Handled::Answered;
            }
        }
        std::string_view route;
        if (req.path == options.api_endpoint && (req.method == "POST" || req.method == "GET")) {
            route = options.api_endpoint;
            if (graphql_request(req, res, on_loop) == http::Handled::Blocking)
                return http::Handled::Blocking;
        } else if (req.path == "/" && req.method == "GET") {
            route = "/";
            res.content_type = "text/html; charset=utf-8";
            res.body = playground;
        } else if (req.path == "/healthz" && req.method == "GET") {
            route = "/healthz";
            res.body = "ok";
        } else if (req.path == "/readyz" && req.method == "GET") {
            if (on_loop)
                return http::Handled::Blocking;
            route = "/readyz";
            const std::string why = readiness ? readiness() : std::string();
            res.status = why.empty() ? 200 : 503;
            res.body = why.empty() ? "ok" : why;
        } else {
            res.status = 404;
            res.body = "not found";
            return http::Handled::Answered; // not counted: a client's path is not a label
        }
        metrics.api_request(route, res.status,
                            std::chrono::duration<double>(Clock::now() - start).count());
        return http::Handled::Answered;
    }

    // The metrics listener's routes.
    http::Handled handle_metrics(const http::Request& req, http::Response& res,
                                 bool on_loop) const {
        if (req.path == "/metrics" && req.method == "GET") {
            if (on_loop)
                return http::Handled::Blocking; // reads the store
            res.content_type = "text/plain; version=0.0.4; charset=utf-8";
            res.body = metrics.scrape();
        } else if (req.path == "/healthz" && req.method == "GET") {
            res.body = "ok";
        } else {
            res.status = 404;
            res.body = "not found";
        }
        return http::Handled::Answered;
    }

    // The bearer token of a GraphQL request, on its head (http::ServerOptions::authorize): a
    // refusal is written before any body byte is read. Probes and the playground need none.
    std::optional<http::Response> authorize(const http::Request& head) const {
        if (!options.token || head.path != options.api_endpoint)
            return std::nullopt;
        const std::string_view header = head.header("Authorization").value_or("");
        constexpr std::string_view bearer = "Bearer ";
        if (header.size() > bearer.size() &&
            std::equal(bearer.begin(), bearer.end(), header.begin(),
                       [](char a, char b) { return std::tolower(a) == std::tolower(b); }) &&
            same_secret(header.substr(bearer.size()), *options.token))
            return std::nullopt;
        http::Response res;
        res.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"kprov\"");
        transport_error(res, 401,
                        header.empty() ? "authentication required: send Authorization: Bearer "
                                         "<token>"
                                       : "the bearer token is not valid",
                        "UNAUTHENTICATED");
        return res;
    }

    http::Handled graphql_request(const http::Request& req, http::Response& res,
                                  bool on_loop) const {
        // A client polling with the same request while what it asks about stands still gets
        // the answer it got before, without the request being parsed or run again.
        const auto generation = answers.generation();
        std::string key;
        if (generation) {
            key = answer_key(req);
            if (auto answer = answers.find(key, *generation)) {
                metrics.answer_cache(true);
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
                transport_error(res, 400, "the request body has no \"query\" string",
                                "BAD_REQUEST");
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
                transport_error(res, 400, "the URL has no query parameter \"query\"",
                                "BAD_REQUEST");
                return http::Handled::Answered;
            }
            request.query = std::move(*query);
            request.allow_mutations = false;
            if (const auto text = req.query_param("variables"); text && !text->empty()) {
                request.variables = json::parse(*text, nullptr, false);
                if (request.variables.is_discarded() || !request.variables.is_object()) {
                    transport_error(res, 400,
                                    "the query parameter \"variables\" is not a JSON object",
                                    "BAD_REQUEST");
                    return http::Handled::Answered;
                }
            }
            request.operation_name = req.query_param("operationName").value_or("");
        }
        std::any state =
            RequestState{std::string(req.header("Tenant").value_or("")),
                         std::string(req.header("Sub-Account").value_or("")), on_loop};
        // Decided once, from the validated document and what its resolvers declare: a
        // mutation, or a field that asks Gardener, runs on a worker; on PostgreSQL every query
        // does (a read is a network round trip). The worker's run finds the document parsed.
        const graphql::Gate stay_on_loop = [this](const graphql::OperationPlan& plan) {
            return options.queries_on_loop && !plan.mutation && !plan.blocking;
        };
        auto response = graphql::execute(schema, resolvers, request, state, options.limits,
                                         &documents, on_loop ? stay_on_loop : graphql::Gate());
        if (response.outcome == graphql::Response::Outcome::Deferred)
            return http::Handled::Blocking;
        auto& done = std::any_cast<RequestState&>(state);
        // A tenant rewrite a query found on the loop, written once the answer is out.
        for (auto& write : done.writes)
            api->post([write = std::move(write)] {
                try {
                    write();
                } catch (const std::exception& e) {
                    spdlog::warn("the tenant rewrite of an answered query failed: {}", e.what());
                }
            });
        const bool executed = response.outcome == graphql::Response::Outcome::Executed;
        if (generation && executed && response.query && !response.field_errors && done.reusable) {
            answers.insert(key, *generation, response.text, shown_runtime(done));
            metrics.answer_cache(false);
        }
        res.status = executed ? 200 : 422;
        res.content_type = k_json;
        res.body = std::move(response.text);
        return http::Handled::Answered;
    }

    const graphql::Schema& schema;
    const graphql::Resolvers& resolvers;
    Metrics& metrics;
    ReadinessCheck readiness;
    ServerOptions options;
    std::string playground;
    mutable graphql::DocumentCache documents;
    mutable AnswerCache answers;
    std::unique_ptr<http::Server> api; // HTTP or HTTPS
    std::unique_ptr<http::Server> metrics_server;
    int api_port = 0;
    int metrics_port = 0;
    std::string scheme = "http";
    std::string host;
    bool started = false;
};

ApiServer::ApiServer(const graphql::Schema& schema, const graphql::Resolvers& resolvers,
                     Metrics& metrics, ReadinessCheck readiness, ServerOptions options)
    : m_impl(std::make_unique<Impl>(schema, resolvers, metrics, std::move(readiness),
                                    std::move(options))) {}

ApiServer::~ApiServer() {
    stop();
}

namespace {

int bind_http(http::Server& server, const std::string& address) {
    const auto [host, port] = split_address(address);
    try {
        return server.bind(host, port);
    } catch (const std::system_error&) {
        throw ConfigError("cannot listen on \"" + address +
                          "\": the port is in use or the host is not an address of this machine");
    }
}

} // namespace

void ApiServer::bind() {
    auto& impl = *m_impl;
    const auto& options = impl.options;
    if (options.tls_cert_file.has_value() != options.tls_key_file.has_value())
        throw ConfigError("TLS needs both KPROV_TLS_CERT and KPROV_TLS_KEY; only " +
                          std::string(options.tls_cert_file ? "KPROV_TLS_CERT" : "KPROV_TLS_KEY") +
                          " is set");
    const auto handler = [&impl](const http::Request& req, http::Response& res, bool on_loop) {
        return impl.handle(req, res, on_loop);
    };
    impl.host = split_address(options.address).first;
    auto http_options = impl.http_options(options.loops, options.threads);
    http_options.tls_cert_file = options.tls_cert_file;
    http_options.tls_key_file = options.tls_key_file;
    // The token is checked on the request's head, before any of its body is read.
    http_options.authorize = [&impl](const http::Request& head) {
        return impl.authorize(head);
    };
    impl.api = std::make_unique<http::Server>(handler, std::move(http_options));
    impl.api_port = bind_http(*impl.api, options.address);
    if (options.tls_cert_file)
        impl.scheme = "https";

    if (!options.metrics_address.empty()) {
        impl.metrics_server = std::make_unique<http::Server>(
            [&impl](const http::Request& req, http::Response& res, bool on_loop) {
                return impl.handle_metrics(req, res, on_loop);
            },
            impl.http_options(1, 1));
        impl.metrics_port = bind_http(*impl.metrics_server, options.metrics_address);
    }
}

int ApiServer::port() const {
    return m_impl->api_port;
}

int ApiServer::metrics_port() const {
    return m_impl->metrics_port;
}

std::string ApiServer::base_url() const {
    const std::string& host = m_impl->host;
    const std::string shown = host == "0.0.0.0"                     ? "127.0.0.1"
                              : host.find(':') != std::string::npos ? "[" + host + "]"
                                                                    : host;
    return m_impl->scheme + "://" + shown + ":" + std::to_string(m_impl->api_port);
}

void ApiServer::start() {
    auto& impl = *m_impl;
    if (impl.started)
        return;
    impl.started = true;
    if (impl.metrics_server)
        impl.metrics_server->start();
    if (impl.api)
        impl.api->start();
}

void ApiServer::stop() {
    auto& impl = *m_impl;
    if (impl.api)
        impl.api->stop();
    if (impl.metrics_server)
        impl.metrics_server->stop();
}

} // namespace kprov::api
