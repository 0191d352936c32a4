#pragma once
// A TLS client on OpenSSL for the HTTP server's tests: the protocol versions and TLS 1.2 cipher
// suites it offers are chosen per test, and a failed handshake keeps OpenSSL's reason.

#include "api/http_test_client.hpp"

#include <csignal>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace kprov::api::http::testing {

struct TlsOffer {
    int min_version = TLS1_2_VERSION;
    int max_version = TLS1_3_VERSION;
    std::string ciphers = "DEFAULT"; ///< TLS 1.2 and older
    int security_level = 1;          ///< 0 lets the client offer TLS 1.1 at all
};

class TlsClient : public Client {
public:
    TlsClient(int port, const TlsOffer& offer = {})
        : Client(port) {
        std::signal(SIGPIPE, SIG_IGN); // SSL_write to a closed socket: an error, not the end
        m_ctx = SSL_CTX_new(TLS_client_method());
        SSL_CTX_set_security_level(m_ctx, offer.security_level);
        SSL_CTX_set_min_proto_version(m_ctx, offer.min_version);
        SSL_CTX_set_max_proto_version(m_ctx, offer.max_version);
        SSL_CTX_set_cipher_list(m_ctx, offer.ciphers.c_str());
        m_ssl = SSL_new(m_ctx);
        SSL_set_fd(m_ssl, fd());
        ERR_clear_error();
        m_connected = SSL_connect(m_ssl) == 1;
        if (!m_connected)
            m_error = ERR_get_error();
        ERR_clear_error();
    }
    ~TlsClient() override {
        SSL_free(m_ssl);
        SSL_CTX_free(m_ctx);
    }

    bool connected() const { return m_connected; }
    /// OpenSSL's reason for a failed handshake (SSL_R_...), 0 when none.
    int error_reason() const { return ERR_GET_REASON(m_error); }
    std::string error_text() const {
        char text[256] = "";
        ERR_error_string_n(m_error, text, sizeof text);
        return text;
    }
    int version() const { return SSL_version(m_ssl); }
    std::string cipher() const { return SSL_get_cipher_name(m_ssl); }

    void send(const std::string& bytes) override {
        ASSERT_EQ(SSL_write(m_ssl, bytes.data(), static_cast<int>(bytes.size())),
                  static_cast<int>(bytes.size()));
    }

protected:
    ssize_t receive(char* into, std::size_t size) override {
        const int n = SSL_read(m_ssl, into, static_cast<int>(size));
        if (n > 0)
            return n;
        // A close_notify or a TCP end without one (a server that gives up on a client sends
        // none): both end the connection.
        const int error = SSL_get_error(m_ssl, n);
        const bool eof = error == SSL_ERROR_ZERO_RETURN ||
                         (error == SSL_ERROR_SSL &&
                          ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING);
        ERR_clear_error();
        return eof ? 0 : -1;
    }

private:
    SSL_CTX* m_ctx = nullptr;
    SSL* m_ssl = nullptr;
    bool m_connected = false;
    unsigned long m_error = 0;
};

} // namespace kprov::api::http::testing
