#pragma once
// kprov serve's HTTP/1.1 server, plain or TLS on the same listener, on Boost.Asio (+ asio::ssl)
// with Boost.Beast's request parser: one io_context thread per core, keep-alive and pipelining,
// Content-Length bodies, limits, timeouts and caps against clients that hold connections or
// memory, and a small thread pool for requests that may block. No routing, no header maps, one
// reused buffer set per connection: a general server's per-request overhead cost more CPU than
// answering a GraphQL query (bench/README.md, "GraphQL API"). Boost stays out of this header.
//
// What it answers by itself: 400 for a malformed request line or header, 411 for a chunked (or
// any Transfer-Encoding) request body, 413 for a body over the limit (from Content-Length, before
// reading it), 431 for a header block over the limit, 505 for an HTTP version other than 1.0 and
// 1.1, 503 (Retry-After) when the buffered-bytes budget cannot hold a request's body; each closes
// the connection. And 503 (Retry-After) when every worker is busy and the queue is full.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprov::api::http {

/// A parsed request. Its views point into the connection's buffer (or, for a request handed to
/// a worker thread, into the request's own copy): valid while the handler runs.
struct Request {
    std::string_view method;
    std::string_view target; ///< as sent: path, then "?query" when there is one
    std::string_view path;   ///< target up to '?', not decoded
    std::string_view query;  ///< after '?', not decoded; "" when absent
    std::vector<std::pair<std::string_view, std::string_view>> headers;
    std::string_view body;
    std::string_view remote; ///< the client's address ("127.0.0.1", "::1")

    /// The first header of that name (case-insensitive), nullopt when absent.
    std::optional<std::string_view> header(std::string_view name) const;
    /// The query parameter `name` decoded (%XX, '+' as space), nullopt when absent.
    std::optional<std::string> query_param(std::string_view name) const;
};

struct Response {
    int status = 200;
    std::string content_type = "text/plain";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers; ///< beyond the ones the server writes
};

/// What a handler did with a request on an event loop.
enum class Handled {
    Answered, ///< the response is filled in
    Blocking, ///< the request may block: call the handler again on a worker thread
    /// A probe that may block briefly (a store check): call the handler again on the probe
    /// thread, which never waits behind Blocking requests (Gardener calls, mutations).
    Probe,
};

/// Answers requests. Called on an event-loop thread with `on_loop` true, where it must not
/// block: it answers, or returns Blocking, and the server calls it again with `on_loop` false on
/// a worker thread, where it must answer (its return value is then ignored). An exception
/// becomes a 500. Called concurrently from every loop and worker.
using Handler = std::function<Handled(const Request&, Response&, bool on_loop)>;

/// Decides on a request from its head alone (head.body is empty), before any body byte is read
/// or buffered: nullopt lets it through, a Response is written with `Connection: close` and the
/// connection closed unread. Called on an event-loop thread, concurrently: it must not block.
using Authorizer = std::function<std::optional<Response>(const Request& head)>;

struct ServerOptions {
    int loops = 0;   ///< event-loop threads; 0: one per core
    int workers = 8; ///< threads for Blocking requests and post()
    /// Blocking requests waiting for a worker; one more is answered 503 with Retry-After.
    std::size_t max_queued_requests = 256;
    std::size_t max_header_bytes = 64 * 1024; ///< request line and headers
    std::size_t max_body_bytes = 1024 * 1024;
    /// A keep-alive connection with no request in progress is closed after this long.
    std::chrono::milliseconds idle_timeout{5000};
    /// A request that has not arrived in full this long after its first byte, or a response
    /// the client has not read this long, closes the connection.
    std::chrono::milliseconds io_timeout{30000};
    /// The request line and headers must arrive within this long after the request's first
    /// byte (or within io_timeout, when that is shorter).
    std::chrono::milliseconds header_timeout{10000};
    /// A TLS connection whose handshake has not finished this long after accept is closed.
    std::chrono::milliseconds handshake_timeout{5000};
    /// Requests on one connection before the server closes it.
    int max_requests_per_connection = 100000;
    /// Open connections; one over it is closed at once after accept (plain HTTP: after a 503).
    std::size_t max_connections = 1024;
    /// Open connections from one remote address; as max_connections beyond it.
    std::size_t max_connections_per_client = 64;
    /// Header and body bytes buffered across all connections at once. A request whose body does
    /// not fit is answered 503 with Retry-After; a connection whose header does not fit is
    /// closed.
    std::size_t max_buffered_bytes = 64 * 1024 * 1024;
    /// PEM files of the certificate (chain) and its private key: both or neither. With them the
    /// listener speaks only HTTPS: TLS 1.2 or 1.3, ECDHE with AES-GCM or ChaCha20-Poly1305 (and
    /// the TLS 1.3 suites), no compression, no renegotiation.
    std::optional<std::string> tls_cert_file;
    std::optional<std::string> tls_key_file;
    /// Called once per request with its head; empty: every request goes on to its body.
    Authorizer authorize;
};

/// A running server. Thread-safe: stop() may be called from any thread.
class Server {
public:
    Server(Handler handler, ServerOptions options);
    ~Server(); ///< stop()
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Binds and listens on host:port (port 0: a free one) and returns the port. Throws
    /// std::system_error when the address cannot be bound, ConfigError (engine/error.hpp) naming
    /// the files when only one of tls_cert_file and tls_key_file is set, or they cannot be read,
    /// or the key is not the certificate's.
    int bind(const std::string& host, int port);
    /// Starts the loops and workers (after bind()).
    void start();
    /// Runs `task` on a worker thread (queued until start(); after stop(), on the calling
    /// thread). An exception it throws is swallowed.
    void post(std::function<void()> task);
    /// Graceful: stops accepting, closes idle connections, answers the requests already
    /// received (waiting up to io_timeout for them), then closes everything. Idempotent.
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// The reason phrase of an HTTP status code ("OK", "Not Found"); "" for unknown codes.
std::string_view reason_phrase(int status);

} // namespace kprov::api::http
