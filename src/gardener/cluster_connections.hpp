#pragma once
// Transports to runtime clusters kept between passes: requests to one API server with the same
// TLS settings reuse the connections of earlier passes (TCP, TLS session, libcurl's handles)
// instead of setting up and tearing down a libcurl transport per pass.

#include "gardener/kubeconfig.hpp"
#include "net/clock.hpp"
#include "net/http_transport.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kprov::gardener {

/// How many transports ClusterConnections keeps, and for how long one may go unused.
struct ConnectionLimits {
    std::size_t max_transports = 64;
    std::chrono::seconds idle{30};
};

/// Thread-safe. One transport per scheme, host and port and TLS settings (CA, certificate check,
/// client certificate and key): everything that decides how kprov connects is in the key, so a
/// kubeconfig never gets a connection set up for another one's settings (the bearer token goes
/// with each request). A transport unused for `idle` is dropped (its connections closed) at the
/// next call; at most `max_transports` are kept, the least recently used dropped first.
class ClusterConnections {
public:
    /// `clock` null: the real steady clock.
    explicit ClusterConnections(ConnectionLimits limits = {},
                                std::shared_ptr<net::Clock> clock = nullptr);
    ~ClusterConnections();
    ClusterConnections(const ClusterConnections&) = delete;
    ClusterConnections& operator=(const ClusterConnections&) = delete;

    /// The kept transport for `config`'s server and TLS settings, or a new one kept from now on.
    /// Null when `config` sets a proxy or a TLS server name (a kubeconfig from Gardener may not;
    /// KubeClient sets those up itself).
    std::shared_ptr<net::HttpTransport> transport_for(const Kubeconfig& config);

    /// How many transports are kept.
    std::size_t size() const;

private:
    struct Entry {
        std::shared_ptr<net::HttpTransport> transport;
        net::Clock::time_point last_used;
    };

    ConnectionLimits m_limits;
    std::shared_ptr<net::Clock> m_clock;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, Entry> m_entries;
};

} // namespace kprov::gardener
