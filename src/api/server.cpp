#include "api/server.hpp"

#include "api/resolvers.hpp"
#include "engine/error.hpp"

#include <atomic>
#include <chrono>
#include <httplib.h>
#include <openssl/crypto.h>
#include <thread>

namespace kprov::api {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* k_json = "application/json";

// A request the transport refuses before GraphQL sees it (400, 401): the same body shape as
// GraphQL errors, so clients need one parser.
void transport_error(httplib::Response& res, int status, const std::string& message,
                     const char* code) {
    res.status = status;
    const json body = {
        {"errors", json::array({{{"message", message}, {"extensions", {{"code", code}}}}})}};
    res.set_content(body.dump(), k_json);
}

// Compares in time independent of where the texts differ.
bool same_secret(const std::string& given, const std::string& expected) {
    return given.size() == expected.size() &&
           CRYPTO_memcmp(given.data(), expected.data(), given.size()) == 0;
}

std::string read_file_error(const std::optional<std::string>& cert,
                            const std::optional<std::string>& key) {
    return "cannot serve TLS with certificate \"" + cert.value_or("") + "\" and key \"" +
           key.value_or("") +
           "\" (KPROV_TLS_CERT, KPROV_TLS_KEY): expected readable PEM files of a certificate "
           "and its private key";
}

struct Listener {
    std::unique_ptr<httplib::Server> server;
    std::thread thread;
    std::atomic<bool> ended{false};
    int port = 0;

    void start() {
        thread = std::thread([this] {
            server->listen_after_bind();
            ended = true;
        });
        // stop() does nothing before listen has begun: wait for it.
        while (!server->is_running() && !ended)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    void stop() {
        if (thread.joinable()) {
            server->stop();
            thread.join();
        }
    }
};

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
        , options(std::move(o)) {}

    void configure(httplib::Server& server) const {
        server.set_tcp_nodelay(true); // else Nagle + delayed ACK: ~40 ms per request
        server.set_keep_alive_max_count(10'000);
        server.set_keep_alive_timeout(5);
        server.set_read_timeout(30);
        server.set_write_timeout(30);
        server.set_payload_max_length(options.max_body_bytes);
        const int threads = options.threads;
        server.new_task_queue = [threads] {
            return new httplib::ThreadPool(threads);
        };
        server.set_exception_handler(
            [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
                transport_error(res, 500, "internal system error", "INTERNAL_SERVER_ERROR");
            });
    }

    // Times the handler and counts its answer under `route`.
    httplib::Server::Handler metered(std::string route, httplib::Server::Handler handler) {
        return [this, route = std::move(route),
                handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
            const auto start = Clock::now();
            handler(req, res);
            metrics.api_request(route, res.status,
                                std::chrono::duration<double>(Clock::now() - start).count());
        };
    }

    bool authorized(const httplib::Request& req, httplib::Response& res) const {
        if (!options.token)
            return true;
        const std::string header = req.get_header_value("Authorization");
        constexpr std::string_view bearer = "Bearer ";
        if (header.size() > bearer.size() &&
            std::equal(bearer.begin(), bearer.end(), header.begin(),
                       [](char a, char b) { return std::tolower(a) == std::tolower(b); }) &&
            same_secret(header.substr(bearer.size()), *options.token))
            return true;
        res.set_header("WWW-Authenticate", "Bearer realm=\"kprov\"");
        transport_error(res, 401,
                        header.empty() ? "authentication required: send Authorization: Bearer "
                                         "<token>"
                                       : "the bearer token is not valid",
                        "UNAUTHENTICATED");
        return false;
    }

    void graphql_request(const httplib::Request& req, httplib::Response& res) const {
        if (!authorized(req, res))
            return;
        graphql::Request request;
        if (req.method == "POST") {
            // Not const: the variables are moved out, since copying a deeply nested JSON value
            // recurses (execute() refuses nesting beyond Limits::max_variable_nesting).
            json body = json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object())
                return transport_error(res, 400,
                                       "the request body is not a JSON object (expected "
                                       "{\"query\": ..., \"variables\": ..., "
                                       "\"operationName\": ...})",
                                       "BAD_REQUEST");
            const auto query = body.find("query");
            if (query == body.end() || !query->is_string())
                return transport_error(res, 400, "the request body has no \"query\" string",
                                       "BAD_REQUEST");
            request.query = query->get<std::string>();
            if (const auto v = body.find("variables"); v != body.end() && !v->is_null()) {
                if (!v->is_object())
                    return transport_error(res, 400, "\"variables\" is not a JSON object",
                                           "BAD_REQUEST");
                request.variables = std::move(*v);
            }
            if (const auto n = body.find("operationName"); n != body.end() && !n->is_null()) {
                if (!n->is_string())
                    return transport_error(res, 400, "\"operationName\" is not a string",
                                           "BAD_REQUEST");
                request.operation_name = n->get<std::string>();
            }
        } else {
            if (!req.has_param("query"))
                return transport_error(res, 400, "the URL has no query parameter \"query\"",
                                       "BAD_REQUEST");
            request.query = req.get_param_value("query");
            request.allow_mutations = false;
            if (const auto text = req.get_param_value("variables"); !text.empty()) {
                request.variables = json::parse(text, nullptr, false);
                if (request.variables.is_discarded() || !request.variables.is_object())
                    return transport_error(res, 400,
                                           "the query parameter \"variables\" is not a JSON "
                                           "object",
                                           "BAD_REQUEST");
            }
            request.operation_name = req.get_param_value("operationName");
        }

        // Header names are case-insensitive in httplib's map.
        std::any state =
            RequestState{req.get_header_value("Tenant"), req.get_header_value("Sub-Account")};
        const auto response = graphql::execute(schema, resolvers, request, state, options.limits);
        res.status = response.outcome == graphql::Response::Outcome::Executed ? 200 : 422;
        res.set_content(response.body.dump(-1, ' ', false, json::error_handler_t::replace), k_json);
    }

    const graphql::Schema& schema;
    const graphql::Resolvers& resolvers;
    Metrics& metrics;
    ReadinessCheck readiness;
    ServerOptions options;
    Listener api;
    Listener metrics_listener;
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

void ApiServer::bind() {
    auto& impl = *m_impl;
    const auto& options = impl.options;
    if (options.tls_cert_file.has_value() != options.tls_key_file.has_value())
        throw ConfigError("TLS needs both KPROV_TLS_CERT and KPROV_TLS_KEY; only " +
                          std::string(options.tls_cert_file ? "KPROV_TLS_CERT" : "KPROV_TLS_KEY") +
                          " is set");
    if (options.tls_cert_file) {
        auto server = std::make_unique<httplib::SSLServer>(options.tls_cert_file->c_str(),
                                                           options.tls_key_file->c_str());
        if (!server->is_valid())
            throw ConfigError(read_file_error(options.tls_cert_file, options.tls_key_file));
        impl.api.server = std::move(server);
        impl.scheme = "https";
    } else {
        impl.api.server = std::make_unique<httplib::Server>();
    }
    auto& api = *impl.api.server;
    impl.configure(api);

    const std::string endpoint = options.api_endpoint;
    const auto graphql = impl.metered(
        endpoint, [&impl](const auto& req, auto& res) { impl.graphql_request(req, res); });
    api.Post(endpoint, graphql);
    api.Get(endpoint, graphql);
    const std::string page = playground_page(options.playground_endpoint);
    api.Get("/", impl.metered("/", [page](const auto&, auto& res) {
        res.set_content(page, "text/html; charset=utf-8");
    }));
    api.Get("/healthz", impl.metered("/healthz", [](const auto&, auto& res) {
        res.set_content("ok", "text/plain");
    }));
    api.Get("/readyz", impl.metered("/readyz", [&impl](const auto&, auto& res) {
        const std::string why = impl.readiness ? impl.readiness() : std::string();
        res.status = why.empty() ? 200 : 503;
        res.set_content(why.empty() ? "ok" : why, "text/plain");
    }));

    const auto bind_one = [](httplib::Server& server, const std::string& address) {
        const auto [host, port] = split_address(address);
        const int bound = port == 0 ? server.bind_to_any_port(host)
                                    : (server.bind_to_port(host, port) ? port : -1);
        if (bound <= 0)
            throw ConfigError("cannot listen on \"" + address +
                              "\": the port is in use or the host is not an address of this "
                              "machine");
        return bound;
    };
    impl.api.port = bind_one(api, options.address);
    impl.host = split_address(options.address).first;

    if (!options.metrics_address.empty()) {
        impl.metrics_listener.server = std::make_unique<httplib::Server>();
        auto& metrics = *impl.metrics_listener.server;
        impl.configure(metrics);
        metrics.new_task_queue = [] {
            return new httplib::ThreadPool(2);
        };
        metrics.Get("/metrics", [&impl](const auto&, auto& res) {
            res.set_content(impl.metrics.scrape(), "text/plain; version=0.0.4; charset=utf-8");
        });
        metrics.Get("/healthz",
                    [](const auto&, auto& res) { res.set_content("ok", "text/plain"); });
        impl.metrics_listener.port = bind_one(metrics, options.metrics_address);
    }
}

int ApiServer::port() const {
    return m_impl->api.port;
}

int ApiServer::metrics_port() const {
    return m_impl->metrics_listener.port;
}

std::string ApiServer::base_url() const {
    const std::string& host = m_impl->host;
    const std::string shown = host == "0.0.0.0"                     ? "127.0.0.1"
                              : host.find(':') != std::string::npos ? "[" + host + "]"
                                                                    : host;
    return m_impl->scheme + "://" + shown + ":" + std::to_string(m_impl->api.port);
}

void ApiServer::start() {
    if (m_impl->started)
        return;
    m_impl->started = true;
    if (m_impl->metrics_listener.server)
        m_impl->metrics_listener.start();
    m_impl->api.start();
}

void ApiServer::stop() {
    m_impl->api.stop();
    m_impl->metrics_listener.stop();
}

} // namespace kprov::api
