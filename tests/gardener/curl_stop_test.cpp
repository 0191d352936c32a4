// HttpRequest::stop: a stop request ends a transfer that is waiting for a server that never
// answers, without should_stop or any timeout (so nothing else could end it), over a real socket.

#include "net/curl_transport.hpp"

#include <arpa/inet.h>
#include <future>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stop_token>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace kprov::gardener {
namespace {

// A loopback port that accepts connections (the kernel completes the handshake) and never
// reads or answers.
class SilentServer {
public:
    SilentServer() {
        m_fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (bind(m_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            listen(m_fd, 8) != 0 ||
            getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            throw std::runtime_error("cannot listen on loopback");
        m_port = ntohs(address.sin_port);
    }
    ~SilentServer() { close(m_fd); }
    int port() const { return m_port; }

private:
    int m_fd = -1;
    int m_port = 0;
};

TEST(CurlTransportStop, AStopRequestEndsAWaitingTransferQuietly) {
    SilentServer server;
    net::CurlTransport transport{net::TlsOptions{}};
    std::stop_source stop;
    net::HttpRequest request;
    request.method = "GET";
    request.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/watch";
    request.total_timeout = std::chrono::milliseconds(0);
    request.stop = stop.get_token();
    auto pending = std::async(std::launch::async, [&] { return transport.perform(request); });
    // Give the transfer time to connect and wait; from then on nothing but the stop request
    // can end it (without the hook this test hangs until ctest's timeout).
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
    const net::HttpResponse response = pending.get();
    EXPECT_EQ(response.status, 0) << "no answer arrived";

    // A token that was stopped before the transfer starts ends it at once, too.
    net::HttpRequest again = request;
    EXPECT_EQ(transport.perform(again).status, 0);
}

} // namespace
} // namespace kprov::gardener
