#pragma once
// kprov serve's HTTP side (graphql-contract.md, Transport): GraphQL over HTTP on APP_ADDRESS
// (POST and GET on APP_API_ENDPOINT), the playground page on "/", /healthz and /readyz; and
// /metrics on APP_METRICS_ADDRESS. Optional bearer-token authentication (KPROV_API_TOKEN, for
// the GraphQL endpoint) and TLS (KPROV_TLS_CERT + KPROV_TLS_KEY, for the API listener).
// One HTTP stack serves HTTP and HTTPS with the same limits (http_server.hpp, Boost.Beast and
// Asio): what cannot block runs on its event loops, the rest (mutations, Gardener calls, store
// checks) on worker threads. This file routes (API, playground, probes, metrics), checks the
// bearer token on the request's head and the Host header; the GraphQL endpoint's pipeline is
// graphql_endpoint.hpp.

#include "api/answer_cache.hpp"
#include "api/graphql/graphql.hpp"
#include "api/metrics.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kprov::api {

struct ServerOptions {
    std::string address = "127.0.0.1:3000"; ///< host:port; port 0 picks a free one
    /// host:port of the metrics listener; "" serves no metrics.
    std::string metrics_address = "127.0.0.1:9000";
    std::string api_endpoint = "/graphql";
    std::string playground_endpoint = "/graphql"; ///< where the playground page posts
    bool playground = true;                       ///< serve the playground on "/" (else 404)
    std::optional<std::string> token;             ///< required as "Authorization: Bearer <token>"
    /// Answer only requests whose Host header names this listener (localhost, a loopback
    /// address, the listen host; any port), against DNS rebinding: serve sets it when it
    /// listens without a token on loopback. Others get 421.
    bool check_host = false;
    std::optional<std::string> tls_cert_file; ///< PEM; both or neither
    std::optional<std::string> tls_key_file;
    /// Event-loop threads of the plain-HTTP listener; 0: one per core.
    int loops = 0;
    /// Threads for requests that may block (mutations, Gardener calls, /readyz).
    int threads = 32;
    /// Whether queries that only read the store run on the event loops. Right for a local
    /// SQLite file; a store across the network (PostgreSQL) would stall a loop per round trip.
    bool queries_on_loop = true;
    std::size_t max_body_bytes = 1024 * 1024; ///< larger bodies get 413
    /// Answers of queries that only read the store, kept until it changes (answer_cache.hpp):
    /// their budget in bytes (0: none), the change counter of the store the calling thread's
    /// resolvers read (empty: none kept), and a runtime's version in that store (empty: every
    /// commit retires every answer).
    std::size_t answer_cache_bytes = 0;
    AnswerCache::VersionOf store_version;
    AnswerCache::RuntimeVersionOf runtime_version;
    graphql::Limits limits; ///< document size, tokens, depth, aliases
    /// Gets one line per answered request of the API listener at `access_log_level`: method,
    /// route (one of the server's, or "unmatched"), status, duration and client address, also
    /// as log fields; never a header, a query string or a body. Empty: no access log.
    engine::LogSink access_log;
    engine::LogLevel access_log_level = engine::LogLevel::Debug;
    /// Where the server's other lines go (a tenant rewrite that failed after its answer): the
    /// command's log, as the engine's LogSink (api/ includes only engine/). Empty: nowhere.
    engine::LogSink log;
};

/// What /readyz asks: "" when ready, else why not (the store cannot be reached, its schema is
/// not current). Called concurrently.
using ReadinessCheck = std::function<std::string()>;

/// Host and port of a listen address "host:port", ":port" (every interface) or "[v6]:port".
/// Throws ConfigError naming the address when it is none of these.
std::pair<std::string, int> split_address(const std::string& address);

/// /metrics, /healthz and /readyz on a listener of their own: serve's metrics listener and
/// watch's only one. Probes and scrapes are not access-logged (they come every few seconds).
class MetricsServer {
public:
    /// `metrics` must outlive the server; `address` is host:port (port 0 picks a free one).
    MetricsServer(Metrics& metrics, ReadinessCheck readiness, std::string address);
    ~MetricsServer(); ///< stop()
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    /// Throws ConfigError naming the address when it cannot be bound.
    void bind();
    int port() const; ///< after bind()
    /// "http://127.0.0.1:9000/metrics" (a wildcard host shown as 127.0.0.1), after bind().
    std::string url() const;
    void start();
    void stop(); ///< graceful, idempotent

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

class ApiServer {
public:
    /// Every reference must outlive the server.
    ApiServer(const graphql::Schema& schema, const graphql::Resolvers& resolvers, Metrics& metrics,
              ReadinessCheck readiness, ServerOptions options);
    ~ApiServer(); ///< stop()
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    /// Binds the listeners. Throws ConfigError naming the address (in use, not local) or the
    /// certificate files (unreadable, not PEM, not matching).
    void bind();
    /// The bound ports (after bind()); metrics_port() is 0 without a metrics listener.
    int port() const;
    int metrics_port() const;
    /// "http://127.0.0.1:3000" or "https://..." of the API listener (after bind()).
    std::string base_url() const;

    /// Serves on background threads (after bind()).
    void start();
    /// Graceful: stops accepting, answers the requests in flight, then returns. Idempotent.
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// The playground page: a self-contained HTML page (no network resources) that posts queries
/// to `endpoint`.
std::string playground_page(const std::string& endpoint);

/// schemas/provisioner.graphql, embedded at build time.
std::string_view provisioner_schema_sdl();

} // namespace kprov::api
