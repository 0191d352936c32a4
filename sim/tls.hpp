#pragma once
// The simulator's own PKI for --tls: an EC P-256 CA generated at start, the server certificate
// it signs (SAN IP:127.0.0.1, DNS:localhost and the listen host), client certificates for
// certificate authentication, and the OpenSSL server context that makes client certificates
// optional (so bearer tokens and client certificates both work on one port).

#include <string>
#include <vector>

struct ssl_ctx_st;
struct ssl_st;

namespace kprov::sim {

struct CertPair {
    std::string cert_pem;
    std::string key_pem;
};

class Pki {
public:
    /// Generates the CA and a server certificate valid for `hosts` (IP addresses or DNS names)
    /// plus 127.0.0.1 and localhost. Throws std::runtime_error when OpenSSL fails.
    static Pki generate(const std::vector<std::string>& hosts);

    const std::string& ca_pem() const { return m_ca.cert_pem; }
    const CertPair& server() const { return m_server; }
    /// A client certificate (extended key usage clientAuth) signed by the CA, with subject
    /// CN=`common_name` and O=each of `groups`, valid for a year.
    CertPair issue_client(const std::string& common_name,
                          const std::vector<std::string>& groups) const;

private:
    CertPair m_ca;
    CertPair m_server;
};

/// Sets up `ctx` to present `server` and to request, but not require, a client certificate
/// verified against `ca_pem`. cpp-httplib 0.11's (X509*, EVP_PKEY*, X509_STORE*) constructor
/// makes client certificates mandatory, hence this callback for SSLServer's third constructor.
/// Returns false when OpenSSL refuses the material.
bool configure_server_ctx(ssl_ctx_st& ctx, const CertPair& server, const std::string& ca_pem);

/// True when the TLS peer of `ssl` presented a certificate that verified against the CA.
bool peer_has_verified_cert(const ssl_st* ssl);

} // namespace kprov::sim
