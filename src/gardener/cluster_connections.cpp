#include "gardener/cluster_connections.hpp"

#include "net/curl_transport.hpp"

#include <algorithm>
#include <vector>

namespace kprov::gardener {
namespace {

// "https://host:port" of "https://host:port/prefix": connections are to an authority, the path
// prefix stays in each request's URL.
std::string scheme_and_authority(const std::string& server) {
    const auto scheme_end = server.find("://");
    if (scheme_end == std::string::npos)
        return server;
    return server.substr(0, server.find('/', scheme_end + 3));
}

// Each part with its length in front, so that no two different settings give the same key.
void append_part(std::string& key, const std::string& part) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
}

std::string connection_key(const Kubeconfig& config) {
    std::string key;
    key.reserve(config.ca_pem.size() + config.client_certificate_pem.size() +
                config.client_key_pem.size() + 128);
    append_part(key, scheme_and_authority(config.server));
    append_part(key, config.insecure_skip_tls_verify ? "insecure" : "verify");
    append_part(key, config.ca_pem);
    append_part(key, config.client_certificate_pem);
    append_part(key, config.client_key_pem);
    return key;
}

} // namespace

ClusterConnections::ClusterConnections(ConnectionLimits limits, std::shared_ptr<net::Clock> clock)
    : m_limits(limits)
    , m_clock(clock ? std::move(clock) : net::steady_clock()) {}

ClusterConnections::~ClusterConnections() = default;

std::shared_ptr<net::HttpTransport> ClusterConnections::transport_for(const Kubeconfig& config) {
    if (!config.proxy_url.empty() || !config.tls_server_name.empty())
        return nullptr;
    std::string key = connection_key(config);
    const auto now = m_clock->now();
    // Dropped transports close their connections after the lock is released.
    std::vector<std::shared_ptr<net::HttpTransport>> dropped;
    std::lock_guard lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (now - it->second.last_used >= m_limits.idle) {
            dropped.push_back(std::move(it->second.transport));
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
    if (const auto found = m_entries.find(key); found != m_entries.end()) {
        found->second.last_used = now;
        return found->second.transport;
    }
    if (m_limits.max_transports == 0)
        return nullptr;
    if (m_entries.size() >= m_limits.max_transports) {
        const auto oldest =
            std::min_element(m_entries.begin(), m_entries.end(), [](const auto& a, const auto& b) {
                return a.second.last_used < b.second.last_used;
            });
        dropped.push_back(std::move(oldest->second.transport));
        m_entries.erase(oldest);
    }
    net::TlsOptions tls;
    tls.ca_pem = config.ca_pem;
    tls.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
    tls.client_certificate_pem = config.client_certificate_pem;
    tls.client_key_pem = config.client_key_pem;
    auto transport = std::make_shared<net::CurlTransport>(std::move(tls));
    m_entries.emplace(std::move(key), Entry{transport, now});
    return transport;
}

std::size_t ClusterConnections::size() const {
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

} // namespace kprov::gardener
