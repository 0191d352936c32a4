#include "api/server.hpp"

#include "api/graphql_endpoint.hpp"
#include "api/http/http_server.hpp"
#include "engine/error.hpp"
#include "engine/util/thread_log_fields.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <openssl/crypto.h>
#include <optional>
#include <system_error>
#include <thread>

namespace kprov::api {
namespace {

using Clock = std::chrono::steady_clock;

// Whether `text` is an IPv4 literal in dotted-quad form (four decimal numbers 0-255) whose
// first number is 127: a loopback address, written in full.
bool is_loopback_ipv4(std::string_view text) {
    int parts = 0;
    std::size_t i = 0;
    while (i <= text.size()) {
        std::size_t digits = 0;
        int value = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4) {
            value = value * 10 + (text[i] - '0');
            ++i;
            ++digits;
        }
        if (digits == 0 || digits > 3 || value > 255 || (parts == 0 && value != 127))
            return false;
        ++parts;
        if (i == text.size())
            return parts == 4;
        if (text[i] != '.' || parts == 4)
            return false;
        ++i;
    }
    return false;
}

// Whether `host` (a Host header: a name or address, then ":port" when given) names a loopback
// listener on `listen_host`. The whole name is compared: "localhost", a loopback IPv4 literal,
// "[::1]" or the listen host itself, never a prefix (DNS rebinding uses names such as
// "127.0.0.1.attacker.example").
bool names_this_listener(std::string_view host, const std::string& listen_host) {
    const bool bracketed = !host.empty() && host.front() == '[';
    std::string_view name = host;
    std::optional<std::string_view> port;
    if (bracketed) { // [v6]:port
        const auto close = host.find(']');
        if (close == std::string_view::npos)
            return false;
        name = host.substr(1, close - 1);
        const auto rest = host.substr(close + 1);
        if (!rest.empty() && rest.front() != ':')
            return false;
        if (!rest.empty())
            port = rest.substr(1);
    } else if (const auto colon = host.find(':'); colon != std::string_view::npos) {
        name = host.substr(0, colon);
        port = host.substr(colon + 1);
    }
    if (port && (port->empty() || port->size() > 5 ||
                 port->find_first_not_of("0123456789") != std::string_view::npos))
        return false;
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (bracketed)
        return lower == "::1" || lower == listen_host;
    return lower == "localhost" || is_loopback_ipv4(lower) || lower == listen_host;
}

// Compares in time independent of where the texts differ.
bool same_secret(std::string_view given, const std::string& expected) {
    return given.size() == expected.size() &&
           CRYPTO_memcmp(given.data(), expected.data(), given.size()) == 0;
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
        , graphql(s, r, m, options) {}

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
            if (graphql.handle(req, res, on_loop) == http::Handled::Blocking)
                return http::Handled::Blocking;
        } else if (req.path == "/" && req.method == "GET" && options.playground) {
            route = "/";
            res.content_type = "text/html; charset=utf-8";
            res.body = playground;
        } else if (req.path == "/healthz" && req.method == "GET") {
            route = "/healthz";
            res.body = "ok";
        } else if (req.path == "/readyz" && req.method == "GET") {
            if (on_loop)
                return http::Handled::Probe; // never behind Gardener calls
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

    // One access-log line (ServerOptions::access_log) for an answered request.
    void log_access(const http::Request& req, const http::Response& res,
                    Clock::time_point start) const {
        if (!options.access_log)
            return;
        // Only names the server chose: a client's path or method is not written as given.
        std::string route = "unmatched";
        for (const std::string_view known :
             {std::string_view(options.api_endpoint), std::string_view("/"),
              std::string_view("/healthz"), std::string_view("/readyz")})
            if (req.path == known)
                route = known;
        std::string method = "other";
        for (const std::string_view known : {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS"})
            if (req.method == known)
                method = known;
        char millis[32];
        std::snprintf(millis, sizeof millis, "%.3f",
                      std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        const std::string status = std::to_string(res.status);
        const std::string client(req.remote);
        const engine::LogFieldsScope fields({{"component", "api"},
                                             {"method", method},
                                             {"route", route},
                                             {"status", status},
                                             {"duration_ms", millis},
                                             {"client", client}});
        const engine::EveryLineScope every_line; // one line per request, repeats or not
        options.access_log(options.access_log_level,
                           method + " " + route + " " + status + " " + millis + " ms " + client);
    }

    const graphql::Schema& schema;
    const graphql::Resolvers& resolvers;
    Metrics& metrics;
    ReadinessCheck readiness;
    ServerOptions options;
    std::string playground;
    GraphqlEndpoint graphql;
    std::unique_ptr<http::Server> api; // HTTP or HTTPS
    std::unique_ptr<MetricsServer> metrics_server;
    int api_port = 0;
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

// The host a URL of a listener on `host` shows: a wildcard as 127.0.0.1, IPv6 in brackets.
std::string shown_host(const std::string& host) {
    return host == "0.0.0.0"                     ? "127.0.0.1"
           : host.find(':') != std::string::npos ? "[" + host + "]"
                                                 : host;
}

} // namespace

struct MetricsServer::Impl {
    Metrics& metrics;
    ReadinessCheck readiness;
    std::string address;
    std::unique_ptr<http::Server> server;
    int port = 0;

    std::string host;         // the listen host
    bool on_loopback = false; // no token guards it: only its own names are answered

    http::Handled handle(const http::Request& req, http::Response& res, bool on_loop) const {
        // On loopback the metrics listener has no token either: a rebinding page must not
        // read it.
        if (on_loopback) {
            const auto given = req.header("Host");
            if (given && !names_this_listener(*given, host)) {
                res.status = 421;
                res.body = "the Host header does not name this server";
                return http::Handled::Answered;
            }
        }
        if (req.method != "GET") {
            res.status = 404;
            res.body = "not found";
        } else if (req.path == "/metrics" || req.path == "/readyz") {
            if (on_loop)
                return http::Handled::Blocking; // reads the store
            if (req.path == "/metrics") {
                res.content_type = "text/plain; version=0.0.4; charset=utf-8";
                res.body = metrics.scrape();
            } else {
                const std::string why = readiness ? readiness() : std::string();
                res.status = why.empty() ? 200 : 503;
                res.body = why.empty() ? "ok" : why;
            }
        } else if (req.path == "/healthz") {
            res.body = "ok";
        } else {
            res.status = 404;
            res.body = "not found";
        }
        return http::Handled::Answered;
    }
};

MetricsServer::MetricsServer(Metrics& metrics, ReadinessCheck readiness, std::string address)
    : m_impl(std::make_unique<Impl>(
          Impl{metrics, std::move(readiness), std::move(address), {}, 0, {}, false})) {}

MetricsServer::~MetricsServer() {
    stop();
}

void MetricsServer::bind() {
    auto& impl = *m_impl;
    http::ServerOptions options;
    options.loops = 1;
    options.workers = 2; // a scrape and a probe at once
    impl.server = std::make_unique<http::Server>(
        [&impl](const http::Request& req, http::Response& res, bool on_loop) {
            return impl.handle(req, res, on_loop);
        },
        std::move(options));
    impl.port = bind_http(*impl.server, impl.address);
    impl.host = split_address(impl.address).first;
    impl.on_loopback =
        impl.host == "::1" || impl.host == "localhost" || is_loopback_ipv4(impl.host);
}

int MetricsServer::port() const {
    return m_impl->port;
}

std::string MetricsServer::url() const {
    return "http://" + shown_host(split_address(m_impl->address).first) + ":" +
           std::to_string(m_impl->port) + "/metrics";
}

void MetricsServer::start() {
    if (m_impl->server)
        m_impl->server->start();
}

void MetricsServer::stop() {
    if (m_impl->server)
        m_impl->server->stop();
}

void ApiServer::bind() {
    auto& impl = *m_impl;
    const auto& options = impl.options;
    if (options.tls_cert_file.has_value() != options.tls_key_file.has_value())
        throw ConfigError("TLS needs both KPROV_TLS_CERT and KPROV_TLS_KEY; only " +
                          std::string(options.tls_cert_file ? "KPROV_TLS_CERT" : "KPROV_TLS_KEY") +
                          " is set");
    const auto handler = [&impl](const http::Request& req, http::Response& res, bool on_loop) {
        const auto start = Clock::now();
        const auto handled = impl.handle(req, res, on_loop);
        if (handled == http::Handled::Answered || !on_loop)
            impl.log_access(req, res, start);
        return handled;
    };
    impl.host = split_address(options.address).first;
    auto http_options = impl.http_options(options.loops, options.threads);
    http_options.tls_cert_file = options.tls_cert_file;
    http_options.tls_key_file = options.tls_key_file;
    // The token is checked on the request's head, before any of its body is read.
    http_options.authorize = [&impl](const http::Request& head) {
        const auto start = Clock::now();
        auto refusal = impl.authorize(head);
        if (refusal)
            impl.log_access(head, *refusal, start);
        return refusal;
    };
    impl.api = std::make_unique<http::Server>(handler, std::move(http_options));
    impl.graphql.set_post(
        [api = impl.api.get()](std::function<void()> task) { api->post(std::move(task)); });
    impl.api_port = bind_http(*impl.api, options.address);
    if (options.tls_cert_file)
        impl.scheme = "https";

    if (!options.metrics_address.empty()) {
        impl.metrics_server =
            std::make_unique<MetricsServer>(impl.metrics, impl.readiness, options.metrics_address);
        impl.metrics_server->bind();
    }
}

int ApiServer::port() const {
    return m_impl->api_port;
}

int ApiServer::metrics_port() const {
    return m_impl->metrics_server ? m_impl->metrics_server->port() : 0;
}

std::string ApiServer::base_url() const {
    return m_impl->scheme + "://" + shown_host(m_impl->host) + ":" +
           std::to_string(m_impl->api_port);
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
