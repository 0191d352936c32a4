// The HTTP server's TLS settings, on OpenSSL directly (asio::ssl::context hands its SSL_CTX).

#include "api/http/http_internal.hpp"
#include "engine/error.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace kprov::api::http::detail {
namespace {

// TLS 1.2: ECDHE key exchange with an AEAD cipher only (no CBC, no SHA-1 MACs, no RSA key
// transport). TLS 1.3 keeps OpenSSL's suites, which all qualify.
constexpr const char* k_tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

std::string openssl_reason() {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (code == 0)
        return "unknown";
    const char* reason = ERR_reason_error_string(code);
    return reason ? reason : "unknown";
}

} // namespace

void configure_tls(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file) {
    const auto fail = [&](const std::string& what) {
        return ConfigError("cannot serve TLS with certificate \"" + cert_file + "\" and key \"" +
                           key_file + "\": " + what +
                           " (expected readable PEM files of a certificate and its private key)");
    };
    ERR_clear_error();
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
        throw fail("the certificate cannot be loaded, " + openssl_reason());
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
        throw fail(ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH
                       ? "the private key is not the certificate's, " + openssl_reason()
                       : "the private key cannot be loaded, " + openssl_reason());
    if (SSL_CTX_check_private_key(ctx) != 1)
        throw fail("the private key is not the certificate's, " + openssl_reason());
    // A protocol floor (not SSL_OP_NO_TLSv1_1 alone) makes OpenSSL answer an older client's
    // hello with a protocol_version alert.
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_SINGLE_ECDH_USE);
    if (SSL_CTX_set_cipher_list(ctx, k_tls12_ciphers) != 1)
        throw fail("the cipher list is refused, " + openssl_reason());
    // An idle connection gives its read and write buffers back (about 34 KiB each).
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
}

} // namespace kprov::api::http::detail
