#pragma once
// HttpTransport over libcurl: one connection cache shared by every request (keep-alive and TLS
// session reuse across threads) and a pool of easy handles.

#include "net/http_transport.hpp"

#include <memory>
#include <string>

namespace kprov::net {

/// How to reach one API server. Holds credentials (the client key): never log it.
struct TlsOptions {
    std::string ca_pem; // empty: the system trust store
    bool insecure_skip_tls_verify = false;
    std::string client_certificate_pem;
    std::string client_key_pem;
    std::string proxy_url;  // empty: curl's defaults (the *_proxy environment variables)
    std::string connect_to; // curl CONNECT_TO entry "HOST:PORT:REAL_HOST:REAL_PORT", or empty
};

/// Thread-safe; any number of threads may perform requests at once. Connections are shared
/// through a CURLSH connection cache, and easy handles are recycled through a pool, so a
/// sequence of requests to one server uses one TCP/TLS connection per concurrent caller.
class CurlTransport : public HttpTransport {
public:
    explicit CurlTransport(TlsOptions tls);
    ~CurlTransport() override;
    CurlTransport(const CurlTransport&) = delete;
    CurlTransport& operator=(const CurlTransport&) = delete;

    HttpResponse perform(const HttpRequest& request) override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace kprov::net
