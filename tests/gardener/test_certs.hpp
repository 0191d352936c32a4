#pragma once
// Throwaway PKI for TLS tests, made with the openssl command line tool: a CA, a server
// certificate for 127.0.0.1/localhost, a client certificate, and an unrelated CA.

#include "support/test_databases.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace kprov::gardener::testing {

struct TestCerts {
    kprov::testing::TempDir dir;
    std::filesystem::path ca, server_cert, server_key, client_cert, client_key, other_ca;

    std::string read(const std::filesystem::path& file) const {
        std::ifstream in(file, std::ios::binary);
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }

    /// Null (with `why` set) when openssl is missing or fails.
    static std::unique_ptr<TestCerts> make(std::string& why) {
        auto certs = std::make_unique<TestCerts>();
        const std::filesystem::path d = certs->dir.path();
        certs->dir.write("server.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kube.test\n"
                                       "extendedKeyUsage=serverAuth\n");
        certs->dir.write("client.ext", "extendedKeyUsage=clientAuth\n");
        const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
        const std::string ca_ext = " -addext basicConstraints=critical,CA:TRUE"
                                   " -addext keyUsage=critical,keyCertSign,cRLSign";
        const std::string log = " >>" + certs->dir.file("openssl.log") + " 2>&1";
        const std::string in = "cd " + d.string() + " && ";
        const std::string commands[] = {
            "openssl req -x509" + key + " -days 2 -subj /CN=kprov-test-ca" + ca_ext +
                " -keyout ca.key -out ca.crt",
            "openssl req -x509" + key + " -days 2 -subj /CN=kprov-other-ca" + ca_ext +
                " -keyout other-ca.key -out other-ca.crt",
            "openssl req" + key + " -subj /CN=localhost -keyout server.key -out server.csr",
            "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2"
            " -extfile server.ext -out server.crt",
            "openssl req" + key + " -subj /CN=kprov-client -keyout client.key -out client.csr",
            "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2"
            " -extfile client.ext -out client.crt",
        };
        for (const auto& command : commands) {
            if (std::system((in + command + log).c_str()) != 0) {
                why = "openssl failed (is the openssl tool installed?): " + command;
                return nullptr;
            }
        }
        certs->ca = d / "ca.crt";
        certs->other_ca = d / "other-ca.crt";
        certs->server_cert = d / "server.crt";
        certs->server_key = d / "server.key";
        certs->client_cert = d / "client.crt";
        certs->client_key = d / "client.key";
        return certs;
    }
};

} // namespace kprov::gardener::testing
