#pragma once
// kprov-sim: a stand-in for Gardener, the runtime clusters and Compass Director on one loopback
// port, for kprov's tests, its demo and users' CI. Start one in-process with Simulator, or run
// the kprov-sim executable (main.cpp), which is a thin wrapper around it.

#include "director.hpp"
#include "klm.hpp"
#include "kyma_installer.hpp"
#include "shoot_store.hpp"
#include "tls.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace kprov::sim {

struct SimOptions {
    std::string host = "127.0.0.1";
    int port = 0; ///< 0: any free port
    LifecycleSettings lifecycle;
    KymaSettings kyma; ///< the simulated Kyma installer's time scale
    KlmSettings klm;   ///< the simulated Kyma Lifecycle Manager's time scale
    std::string seed_provider = "aws";
    std::string seed_region = "eu-central-1";
    std::string token;     ///< the Gardener API's bearer token; generated when empty
    std::string kcp_token; ///< the KCP cluster API's bearer token; generated when empty
    bool tls = false;
    double fail_rate = 0;
    int latency_ms = 0;
    DirectorOptions director;
    std::string project; ///< the kubeconfig's namespace is garden-<project> when set
    std::size_t watch_history = 1000;
    double bookmark_seconds = 5;
    double watch_timeout_seconds = 1800;
    bool watch_expired_as_event = false; ///< 410 as an ERROR event instead of an HTTP 410
    int threads = 64;
    std::uint64_t random_seed = 0; ///< fault-injection randomness; 0: from the clock
    /// --landscape files (landscape.hpp), read at start after the default landscape.
    std::vector<std::string> landscape_files;
    bool default_landscape = true; ///< false: --no-default-landscape
};

class Simulator {
public:
    explicit Simulator(SimOptions opts);
    ~Simulator();
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    /// Binds the port and serves in background threads. Throws std::runtime_error when the
    /// port cannot be bound or TLS cannot be set up.
    void start();
    /// Stops serving (ends watches, joins threads). Safe to call twice, and from any thread
    /// but a request handler.
    void stop();
    /// Blocks until stop() has completed.
    void wait();

    /// "http://127.0.0.1:PORT" (https with --tls).
    std::string url() const;
    int port() const;
    const std::string& token() const;
    /// The Gardener API kubeconfig: token auth, current-context set, namespace garden-<project>
    /// when a project is set, certificate-authority-data with TLS.
    std::string gardener_kubeconfig() const;
    /// The KCP cluster API's bearer token.
    const std::string& kcp_token() const;
    /// The KCP cluster API kubeconfig: server <url>/kcp, its own token, namespace kcp-system,
    /// certificate-authority-data with TLS.
    std::string kcp_kubeconfig() const;
    /// The CA certificate (PEM); "" without TLS.
    std::string ca_pem() const;
    /// A client certificate signed by the sim CA (CN `common_name`, O=system:masters).
    /// Throws std::logic_error without TLS.
    CertPair client_certificate(const std::string& common_name) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

} // namespace kprov::sim
