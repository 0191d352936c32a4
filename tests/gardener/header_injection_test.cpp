// Issue 18: a kubeconfig from Gardener cannot make kprov read a local file and send it, and no
// header value with CR, LF or NUL leaves kprov (the parser refuses such tokens; the curl
// transport refuses any such header before it connects).

#include "engine/error.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "net/curl_transport.hpp"
#include "support/test_databases.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace kprov::gardener {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(RuntimeClusterKubeconfig, ATokenFileIsRefusedAndNeverRead) {
    kprov::testing::TempDir dir;
    const std::string secret = "local-secret-never-to-be-sent";
    const auto file = dir.write("token", secret + "\n");
    try {
        RuntimeClusterClient::from_kubeconfig(
            "current-context: c\n"
            "clusters: [{name: k, cluster: {server: \"https://h\"}}]\n"
            "users: [{name: u, user: {tokenFile: " +
            file +
            "}}]\n"
            "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
        FAIL() << "no ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(), "kubeconfig <runtime cluster admin kubeconfig>: "
                               "users[\"u\"].user.tokenFile: a kubeconfig from Gardener must "
                               "carry its credentials inline; file references and plugins are "
                               "refused");
        EXPECT_THAT(e.what(), Not(HasSubstr(secret)));
    }
}

TEST(RuntimeClusterKubeconfig, AnInlineTokenWithALineBreakIsRefused) {
    try {
        RuntimeClusterClient::from_kubeconfig(
            "current-context: c\n"
            "clusters: [{name: k, cluster: {server: \"https://h\"}}]\n"
            "users: [{name: u, user: {token: \"t0ken\\r\\nX-Injected: 1\"}}]\n"
            "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
        FAIL() << "no ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), AllOf(HasSubstr("users[\"u\"].user.token: contains a line break"),
                                    Not(HasSubstr("t0ken")), Not(HasSubstr("Injected"))));
    }
}

// A loopback port that accepts connections (the kernel completes the handshake) without
// answering; `connected()` tells whether any client connected.
class Listener {
public:
    Listener() {
        m_fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (bind(m_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            listen(m_fd, 8) != 0 ||
            getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            throw std::runtime_error("cannot listen on loopback");
        fcntl(m_fd, F_SETFL, fcntl(m_fd, F_GETFL) | O_NONBLOCK);
        m_port = ntohs(address.sin_port);
    }
    ~Listener() { close(m_fd); }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    int port() const { return m_port; }
    bool connected() const {
        const int client = accept(m_fd, nullptr, nullptr);
        if (client < 0)
            return false;
        close(client);
        return true;
    }

private:
    int m_fd = -1;
    int m_port = 0;
};

TEST(CurlTransportHeaders, AHeaderWithCrLfOrNulIsRefusedAndNothingIsSent) {
    Listener server;
    net::CurlTransport transport{net::TlsOptions{}};
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"Authorization", "Bearer t0ken\r\nX-Injected: 1"},
        {"Authorization", "Bearer t0ken\nX-Injected: 1"},
        {"Authorization", std::string("Bearer t0ken\0X-Injected: 1", 26)},
        {"X-Evil\r\nX-Injected", "1"},
    };
    for (const auto& header : bad) {
        net::HttpRequest request;
        request.method = "GET";
        request.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/api";
        request.total_timeout = std::chrono::milliseconds(2000);
        request.headers = {{"Accept", "application/json"}, header};
        try {
            transport.perform(request);
            ADD_FAILURE() << "no ConfigError for " << header.first;
        } catch (const ConfigError& e) {
            EXPECT_THAT(e.what(), AllOf(HasSubstr("contains a line break or NUL character; "
                                                  "refused, nothing sent"),
                                        Not(HasSubstr("t0ken")), Not(HasSubstr("\r\n"))));
        }
    }
    EXPECT_FALSE(server.connected()) << "the transport connected with a refused header";
}

} // namespace
} // namespace kprov::gardener
