#pragma once
// Internal to kube_client.cpp and kube_watch.cpp: the state of a KubeClient and the request
// loop that both share.

#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"
#include "net/rate_limiter.hpp"

#include <mutex>
#include <nlohmann/json.hpp>

namespace kprov::gardener {

/// One API call as the client sees it, before URL and headers are added.
struct ApiCall {
    std::string method;
    std::string path;  // without query
    std::string query; // encoded, without '?'
    std::string body;
    std::string content_type;
    bool idempotent = true;
};

struct KubeClient::Impl {
    Impl(Kubeconfig kubeconfig, ClientOptions client_options);

    Kubeconfig config;
    ClientOptions options;
    std::shared_ptr<net::Clock> clock;
    std::shared_ptr<net::HttpTransport> transport;
    net::RateLimiter limiter;
    std::string base_url; // may differ from config.server when tls-server-name is set

    /// Sends `call`, retrying per the policy; returns the 2xx answer or throws KubeError.
    net::HttpResponse execute(const ApiCall& call);
    /// The request for `call` with URL, headers and timeouts, and no retry.
    net::HttpRequest make_request(const ApiCall& call);
    ErrorContext error_context(const ApiCall& call, int attempts) const;
    /// Logs "VERB path -> code in Nms" (debug) and the server's Warning headers.
    void log_exchange(const ApiCall& call, int status, net::Clock::time_point started,
                      const net::HttpResponse* response) const;
    /// The "Authorization" value, or "" without a token. `refresh` re-reads the token file now.
    std::string authorization(bool refresh);
    nlohmann::json list_all(const std::string& path, const ListOptions& options);

private:
    std::mutex m_token_mutex;
    std::string m_token;
    net::Clock::time_point m_token_read;
};

/// A request that hit one of the client's caps (ClientOptions::max_*): "<label>: <VERB>
/// <path>: <what>", not retryable.
KubeError cap_error(const ErrorContext& context, const std::string& what);
/// "64 MiB", "3 KiB", "100 bytes".
std::string format_bytes(std::size_t bytes);
/// Test hook: bytes the watch line splitter has searched for newlines, in all clients.
std::size_t watch_bytes_scanned();

/// "labelSelector=...&fieldSelector=..." for the non-empty selectors.
std::string selector_query(const ListOptions& options);
void append_query(std::string& query, const std::string& key, const std::string& value);

} // namespace kprov::gardener
