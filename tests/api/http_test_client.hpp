#pragma once
// A raw HTTP/1.1 client for the HTTP server's tests (tests/api/http_*_test.cpp): bytes out as
// given, answers parsed just enough (status, head, Content-Length body).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace kprov::api::http::testing {

struct Answer {
    int status = 0;
    std::string head;
    std::string body;
};

// A client socket with a receive timeout, so that a broken server fails the test instead of
// hanging it.
class Client {
public:
    explicit Client(int port) {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        timeval timeout{10, 0};
        setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    }
    virtual ~Client() { close(); }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    virtual void send(const std::string& bytes) {
        ASSERT_EQ(::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(bytes.size()));
    }
    int fd() const { return m_fd; }
    void shutdown_write() { ::shutdown(m_fd, SHUT_WR); }
    void close() {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

    /// The next answer; status 0 when the connection ends (or times out) first.
    Answer next() {
        Answer a;
        std::size_t end;
        while ((end = m_buffer.find("\r\n\r\n")) == std::string::npos)
            if (!fill())
                return a;
        a.head = m_buffer.substr(0, end + 4);
        a.status = std::stoi(a.head.substr(9, 3));
        const auto at = a.head.find("Content-Length: ");
        const std::size_t length = at == std::string::npos ? 0 : std::stoul(a.head.substr(at + 16));
        while (m_buffer.size() < end + 4 + length)
            if (!fill())
                return Answer{};
        a.body = m_buffer.substr(end + 4, length);
        m_buffer.erase(0, end + 4 + length);
        return a;
    }

    /// Whether the server closes the connection (reading discards what comes before).
    bool closed_by_server() {
        while (fill())
            m_buffer.clear();
        return m_eof;
    }

protected:
    /// What recv() returns: bytes read, 0 at the end, < 0 on an error or timeout.
    virtual ssize_t receive(char* into, std::size_t size) { return ::recv(m_fd, into, size, 0); }

private:
    bool fill() {
        char chunk[4096];
        const ssize_t n = receive(chunk, sizeof chunk);
        if (n <= 0) {
            m_eof = n == 0;
            return false;
        }
        m_buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }

    int m_fd = -1;
    std::string m_buffer;
    bool m_eof = false;
};

inline std::string get(const std::string& path, const std::string& extra = {}) {
    return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + extra + "\r\n";
}

inline std::string post(const std::string& path, const std::string& body) {
    return "POST " + path +
           " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
}

} // namespace kprov::api::http::testing
