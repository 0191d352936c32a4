#pragma once
// The HTTP layer under the Kubernetes and Director clients, behind an interface so that unit tests
// can script answers and failures (FakeTransport in tests/gardener/fakes.hpp) and production uses
// libcurl (curl_transport.hpp).

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprov::net {

struct HttpRequest {
    std::string method; // GET, POST, PUT, PATCH, DELETE
    std::string url;    // absolute, query included
    /// Header name/value pairs. May carry credentials (Authorization): never log them.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::chrono::milliseconds connect_timeout{10'000};
    /// The whole exchange; zero means none (watch streams).
    std::chrono::milliseconds total_timeout{60'000};
    /// Abort when no byte arrives for this long; zero means no limit. Checked about once a
    /// second.
    std::chrono::milliseconds inactivity_timeout{0};
    /// The most bytes of HttpResponse::body (bodies not given to `on_body`); the transfer is cut
    /// and ResponseTooLarge thrown as soon as more arrive. Zero means no limit.
    std::size_t max_body_bytes = 0;
    /// When set and the status is 2xx, body bytes go here as they arrive instead of into
    /// HttpResponse::body; returning false ends the exchange (no error is raised then).
    /// Exceptions thrown here end the exchange and leave perform() unchanged.
    std::function<bool(std::string_view)> on_body;
    /// Polled about once a second (and whenever data arrives); true ends the exchange quietly.
    std::function<bool()> should_stop;
    /// A stop request ends the exchange quietly at once (no polling delay): the transport wakes
    /// the transfer from another thread. Unset (no stop source) by default.
    std::stop_token stop;
};

struct HttpResponse {
    int status = 0;
    /// Lower-case names; a repeated header keeps every value, in order.
    std::multimap<std::string, std::string> headers;
    std::string body;

    /// The first value of header `name` (lower case), or "" when absent.
    std::string header(const std::string& name) const;
};

/// No HTTP answer arrived: the connection failed, broke or timed out.
class TransportError : public std::runtime_error {
public:
    enum class Kind {
        Connect, // could not connect (refused, DNS, unreachable): the request was not sent
        Tls,     // TLS handshake or certificate verification failed: retrying will not help
        Timeout, // a connect, total or inactivity timeout
        Io,      // the connection broke while sending or receiving
    };
    TransportError(Kind kind, bool request_sent, const std::string& message)
        : std::runtime_error(message)
        , m_kind(kind)
        , m_request_sent(request_sent) {}
    Kind kind() const { return m_kind; }
    /// False only when the server certainly saw nothing of the request (safe to retry a POST).
    bool request_sent() const { return m_request_sent; }

private:
    Kind m_kind;
    bool m_request_sent;
};

/// The answer's body grew past HttpRequest::max_body_bytes; the transfer was cut there.
class ResponseTooLarge : public TransportError {
public:
    explicit ResponseTooLarge(std::size_t limit)
        : TransportError(Kind::Io, true,
                         "the response is larger than " + std::to_string(limit) + " bytes")
        , m_limit(limit) {}
    std::size_t limit() const { return m_limit; }

private:
    std::size_t m_limit;
};

/// Performs HTTP exchanges. Implementations are thread-safe: many threads may call perform()
/// at once.
class HttpTransport {
public:
    virtual ~HttpTransport() = default;
    /// Returns the answer for any HTTP status (4xx and 5xx included). Throws TransportError when
    /// no answer arrived, and rethrows what `on_body` threw.
    virtual HttpResponse perform(const HttpRequest& request) = 0;
};

} // namespace kprov::net
