#include "tls.hpp"

#include <arpa/inet.h>
#include <memory>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdexcept>

namespace kprov::sim {

namespace {

struct Free {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
    void operator()(X509* p) const { X509_free(p); }
    void operator()(BIO* p) const { BIO_free(p); }
    void operator()(BIGNUM* p) const { BN_free(p); }
    void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using CertPtr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("kprov-sim: TLS: " + what);
}

void check(int rc, const char* what) {
    if (rc <= 0)
        fail(what);
}

KeyPtr new_key() {
    KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!key)
        fail("EC P-256 key generation failed");
    return key;
}

std::string bio_string(BIO* bio) {
    char* data = nullptr;
    long n = BIO_ctrl(bio, BIO_CTRL_INFO, 0, static_cast<void*>(&data));
    return n > 0 && data ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

std::string cert_pem(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    check(PEM_write_bio_X509(bio.get(), cert), "PEM_write_bio_X509");
    return bio_string(bio.get());
}

std::string key_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr),
          "PEM_write_bio_PrivateKey");
    return bio_string(bio.get());
}

CertPtr read_cert(const std::string& pem) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert)
        fail("cannot read a certificate");
    return cert;
}

KeyPtr read_key(const std::string& pem) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
    if (!key)
        fail("cannot read a private key");
    return key;
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    std::unique_ptr<X509_EXTENSION, Free> ext(
        X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext)
        fail("cannot build extension " + value);
    check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

struct Subject {
    std::string cn;
    std::vector<std::string> orgs;
};

/// A certificate for `key`, signed by `issuer_key` (self-signed when `issuer` is null).
CertPtr make_cert(EVP_PKEY* key, const Subject& subject, X509* issuer, EVP_PKEY* issuer_key,
                  long days, const std::vector<std::pair<int, std::string>>& extensions) {
    CertPtr cert(X509_new());
    check(X509_set_version(cert.get(), 2), "X509_set_version");
    std::unique_ptr<BIGNUM, Free> serial(BN_new());
    check(BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY), "BN_rand");
    check(BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) != nullptr, "serial");
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
    check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
    X509_NAME* name = X509_get_subject_name(cert.get());
    for (const auto& o : subject.orgs)
        check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                         reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1,
                                         0),
              "subject O");
    check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>(subject.cn.c_str()), -1,
                                     -1, 0),
          "subject CN");
    X509* signer = issuer ? issuer : cert.get();
    check(X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)), "issuer");
    for (const auto& [nid, value] : extensions)
        add_ext(cert.get(), signer, nid, value);
    check(X509_sign(cert.get(), issuer_key, EVP_sha256()), "X509_sign");
    return cert;
}

bool is_ip(const std::string& host) {
    unsigned char buf[16];
    return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
           inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

} // namespace

Pki Pki::generate(const std::vector<std::string>& hosts) {
    Pki pki;
    KeyPtr ca_key = new_key();
    CertPtr ca =
        make_cert(ca_key.get(), {"kprov-sim CA", {"kprov-sim"}}, nullptr, ca_key.get(), 3650,
                  {{NID_basic_constraints, "critical,CA:TRUE"},
                   {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"},
                   {NID_subject_key_identifier, "hash"}});
    pki.m_ca = {cert_pem(ca.get()), key_pem(ca_key.get())};

    std::string san = "IP:127.0.0.1,DNS:localhost";
    for (const auto& h : hosts) {
        if (h.empty() || h == "127.0.0.1" || h == "localhost")
            continue;
        san += (is_ip(h) ? ",IP:" : ",DNS:") + h;
    }
    KeyPtr key = new_key();
    CertPtr cert = make_cert(key.get(), {"kprov-sim", {}}, ca.get(), ca_key.get(), 825,
                             {{NID_basic_constraints, "critical,CA:FALSE"},
                              {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                              {NID_ext_key_usage, "serverAuth"},
                              {NID_subject_key_identifier, "hash"},
                              {NID_authority_key_identifier, "keyid:always"},
                              {NID_subject_alt_name, san}});
    pki.m_server = {cert_pem(cert.get()), key_pem(key.get())};
    return pki;
}

CertPair Pki::issue_client(const std::string& common_name,
                           const std::vector<std::string>& groups) const {
    CertPtr ca = read_cert(m_ca.cert_pem);
    KeyPtr ca_key = read_key(m_ca.key_pem);
    KeyPtr key = new_key();
    CertPtr cert = make_cert(key.get(), {common_name, groups}, ca.get(), ca_key.get(), 365,
                             {{NID_basic_constraints, "critical,CA:FALSE"},
                              {NID_key_usage, "critical,digitalSignature"},
                              {NID_ext_key_usage, "clientAuth"},
                              {NID_authority_key_identifier, "keyid:always"}});
    return {cert_pem(cert.get()), key_pem(key.get())};
}

bool configure_server_ctx(ssl_ctx_st& ctx, const CertPair& server, const std::string& ca_pem) {
    try {
        CertPtr cert = read_cert(server.cert_pem);
        KeyPtr key = read_key(server.key_pem);
        CertPtr ca = read_cert(ca_pem);
        SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
        SSL_CTX_set_options(&ctx,
                            SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
        if (SSL_CTX_use_certificate(&ctx, cert.get()) != 1 ||
            SSL_CTX_use_PrivateKey(&ctx, key.get()) != 1 || SSL_CTX_check_private_key(&ctx) != 1)
            return false;
        if (X509_STORE_add_cert(SSL_CTX_get_cert_store(&ctx), ca.get()) != 1)
            return false;
        // Tell clients which CA their certificate should come from, ask for one, but do not
        // require it: bearer-token clients send none.
        STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
        sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca.get())));
        SSL_CTX_set_client_CA_list(&ctx, names);
        SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
        static const unsigned char sid[] = "kprov-sim";
        SSL_CTX_set_session_id_context(&ctx, sid, sizeof(sid) - 1);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

bool peer_has_verified_cert(const ssl_st* ssl) {
    return ssl && SSL_get0_peer_certificate(ssl) != nullptr &&
           SSL_get_verify_result(ssl) == X509_V_OK;
}

} // namespace kprov::sim
