// Issue 17's findings, each reproduced against the built `kprov serve` over real sockets, for
// plain HTTP and HTTPS where it applies, and shown to hold. Memory is the server's RSS from
// /proc; times are printed, and asserted only against generous bounds (the figures asked for,
// such as "within 1 s", are measured in bench/README.md, not asserted here).

#include "gardener/test_certs.hpp"
#include "serve_fixture.hpp"

#include <arpa/inet.h>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kprov::api::testing {
namespace {

using SteadyClock = std::chrono::steady_clock;

// The server's resident memory in MiB (VmRSS of /proc/<pid>/status).
double rss_mib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return -1;
}

int port_of(const std::string& url) {
    const auto colon = url.rfind(':');
    return std::stoi(url.substr(colon + 1));
}

// A TCP connection to 127.0.0.1:port from 127.0.0.<source> (an attacker of its own: serve caps
// connections per client address) that sends `bytes` and then nothing; closed at the end.
class RawConnection {
public:
    explicit RawConnection(int port, const std::string& bytes = {}, int source = 1) {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in from{};
        from.sin_family = AF_INET;
        from.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + static_cast<std::uint32_t>(source));
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&from), sizeof from);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        if (connected && !bytes.empty())
            connected = ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                        static_cast<ssize_t>(bytes.size());
    }
    ~RawConnection() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;
    /// What the server sent within `limit` (until it closed or the limit passed).
    std::string read_for(std::chrono::milliseconds limit) {
        timeval tv{static_cast<time_t>(limit.count() / 1000),
                   static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        std::string out;
        char buf[4096];
        for (;;) {
            const ssize_t n = ::recv(m_fd, buf, sizeof buf, 0);
            if (n <= 0)
                break;
            out.append(buf, static_cast<std::size_t>(n));
        }
        return out;
    }
    int fd() const { return m_fd; }
    bool connected = false;

private:
    int m_fd = -1;
};

// The finding's document: one field selected `fields` times with different arguments, so
// that every pair of them conflicts (the original answer listed each pair).
std::string conflicting_document(int fields) {
    std::string q = "{";
    for (int i = 0; i < fields; ++i)
        q += " runtimeOperationStatus(id: \"" + std::to_string(i) + "\") { id }";
    return q + " }";
}

class Attacks : public ServeTest<> {
protected:
    // How long a normal query takes to be answered, in ms.
    double typename_ms() const {
        const auto start = SteadyClock::now();
        const Answer a = process->graphql("{ __typename }");
        EXPECT_EQ(a.status, 200) << a.body;
        return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
    }
    pid_t pid() const { return process->serve->pid(); }
};

// Finding 1: error amplification and retention.
TEST_F(Attacks, ConflictingFieldsGetABoundedAnswerAndRejectedDocumentsAreNotKept) {
    ServeOptions options;
    // ASan holds freed memory in quarantine (256 MB) to catch uses after free, which would count
    // as kept here (194 MB in the sanitizer pass); a plain build ignores the variable.
    options.extra_env = {"ASAN_OPTIONS=quarantine_size_mb=0"};
    start(std::move(options));
    const std::string attack = conflicting_document(1000); // about 37 KB
    const Answer a = process->graphql(attack);
    EXPECT_LE(a.body.size(), 64U * 1024) << "the answer of a " << attack.size() << "-byte request";
    ASSERT_TRUE(a.document.is_object()) << a.body.substr(0, 300);
    EXPECT_LE(a.document["errors"].size(), 101U);
    std::cout << "[ ANSWER   ] a " << attack.size() << "-byte document: a " << a.body.size()
              << "-byte answer with " << a.document["errors"].size() << " errors\n";

    const double before = rss_mib(pid());
    for (int i = 0; i < 60; ++i) // distinct documents, each ~19 KB
        process->graphql(conflicting_document(500) + " # " + std::to_string(i));
    const double after = rss_mib(pid());
    std::cout << "[ RSS      ] before " << before << " MiB, after 60 rejected documents " << after
              << " MiB\n";
    EXPECT_LT(after - before, 64) << "rejected documents are kept";
}

// Finding 2 and 4: idle and slow connections and expensive documents do not hold up others.
TEST_F(Attacks, IdleConnectionsAndExpensiveDocumentsDoNotBlockANormalRequest) {
    start();
    std::vector<std::unique_ptr<RawConnection>> idle;
    const int port = port_of(process->api_url);
    for (int i = 0; i < 200; ++i) // from five other addresses, 40 each
        idle.push_back(std::make_unique<RawConnection>(
            port, i % 2 ? std::string() : std::string("POST /graphql HTTP/1.1\r\nHost: x"),
            2 + i % 5));
    std::string expensive = "{";
    for (int i = 0; i < 4000; ++i)
        expensive += " __typename";
    expensive += " }";
    std::vector<std::thread> heavy;
    for (int i = 0; i < 4; ++i)
        heavy.emplace_back([&, i] { process->graphql(expensive + std::string(i + 1, ' ')); });
    const double ms = typename_ms();
    for (auto& t : heavy)
        t.join();
    std::cout << "[ LATENCY  ] { __typename } with 200 idle connections and 4 expensive "
                 "documents: "
              << ms << " ms\n";
    EXPECT_LT(ms, 5000);
}

TEST_F(Attacks, SilentTlsConnectionsDoNotBlockHttps) {
    std::string why;
    const auto certs = gardener::testing::TestCerts::make(why);
    if (!certs)
        KPROV_SKIP_UNLESS_CI(why);
    ServeOptions options;
    options.tls_cert = certs->server_cert.string();
    options.tls_key = certs->server_key.string();
    start(options);
    process->ca_file = certs->ca.string();
    std::vector<std::unique_ptr<RawConnection>> silent;
    for (int i = 0; i < 64; ++i)
        silent.push_back(std::make_unique<RawConnection>(port_of(process->api_url), "", 2 + i % 2));
    const double ms = typename_ms();
    std::cout << "[ LATENCY  ] HTTPS { __typename } with 64 silent connections: " << ms << " ms\n";
    EXPECT_LT(ms, 5000);
}

// Finding 3: nothing is buffered before the token is checked.
TEST_F(Attacks, TheTokenIsCheckedBeforeTheBodyIsRead) {
    ServeOptions options;
    options.token = "t0ken";
    start(options);
    RawConnection c(
        port_of(process->api_url),
        "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000000\r\n\r\n");
    ASSERT_TRUE(c.connected);
    const std::string answer = c.read_for(std::chrono::seconds(5)); // no body byte was sent
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0U) << answer.substr(0, 200);

    const double before = rss_mib(pid());
    std::vector<std::unique_ptr<RawConnection>> held;
    const std::string head = "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                             "1000000\r\nAuthorization: Bearer wrong\r\n\r\n" +
                             std::string(60000, '{');
    for (int i = 0; i < 200; ++i)
        held.push_back(std::make_unique<RawConnection>(port_of(process->api_url), head, 2 + i % 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double after = rss_mib(pid());
    std::cout << "[ RSS      ] before " << before << " MiB, with 200 unauthenticated uploads "
              << after << " MiB\n";
    EXPECT_LT(after - before, 64);
}

// Finding 6: TLS 1.2 minimum, AEAD suites only.
bool handshake(int port, int max_version, const char* ciphers) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
    SSL_CTX_set_max_proto_version(ctx, max_version);
    SSL_CTX_set_security_level(ctx, 0);
    if (ciphers)
        SSL_CTX_set_cipher_list(ctx, ciphers);
    const RawConnection c(port);
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, c.fd());
    const bool ok = c.connected && SSL_connect(ssl) == 1;
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

TEST_F(Attacks, OldTlsAndCbcSuitesAreRefused) {
    std::string why;
    const auto certs = gardener::testing::TestCerts::make(why);
    if (!certs)
        KPROV_SKIP_UNLESS_CI(why);
    ServeOptions options;
    options.tls_cert = certs->server_cert.string();
    options.tls_key = certs->server_key.string();
    start(options);
    const int port = port_of(process->api_url);
    EXPECT_FALSE(handshake(port, TLS1_1_VERSION, nullptr)) << "TLS 1.1";
    EXPECT_FALSE(handshake(port, TLS1_2_VERSION,
                           "ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA:"
                           "AES128-SHA:AES256-SHA"))
        << "CBC-SHA1 suites";
    EXPECT_TRUE(handshake(port, TLS1_2_VERSION,
                          "ECDHE-ECDSA-AES128-GCM-SHA256:"
                          "ECDHE-RSA-AES128-GCM-SHA256"))
        << "TLS 1.2 with AEAD";
    EXPECT_TRUE(handshake(port, TLS1_3_VERSION, nullptr)) << "TLS 1.3";
}

// Issue 32, finding 1: DNS rebinding. Without a token, serve on loopback answers only a Host
// that is one of its own names as a whole; names that merely begin like one are refused, on
// the API and the metrics listener.
TEST_F(Attacks, RebindingShapedHostNamesAreRefusedOnTheApiAndMetricsListeners) {
    start();
    const std::vector<std::string> foreign = {"127.attacker.example",
                                              "127.0.0.1.evil.example",
                                              "localhost.evil",
                                              "127.0.0.1.evil.example:3000",
                                              "localhost.evil:80",
                                              "127.0.0.1:80.evil",
                                              "[::1].evil",
                                              "[::1]:x",
                                              "127.0.0.256",
                                              "127.0.0.1.",
                                              "127.1",
                                              "localhost:",
                                              "evil.example",
                                              "[::2]",
                                              "0x7f.0.0.1"};
    for (const auto& host : foreign) {
        const Answer a =
            process->graphql("{ __typename }", nullptr, {{"Tenant", "t"}, {"Host", host}});
        EXPECT_EQ(a.status, 421) << "Host: " << host << " got " << a.body;
        const Answer m = process->get(process->metrics_url, {{"Host", host}});
        EXPECT_EQ(m.status, 421) << "metrics, Host: " << host << " got " << m.body;
        EXPECT_EQ(m.body.find("kprov_"), std::string::npos) << host;
    }
    const std::vector<std::string> own = {"localhost",   "LOCALHOST:3000",  "127.0.0.1",
                                          "127.0.0.1:1", "127.1.2.3:65535", "[::1]",
                                          "[::1]:3000"};
    for (const auto& host : own) {
        const Answer a =
            process->graphql("{ __typename }", nullptr, {{"Tenant", "t"}, {"Host", host}});
        EXPECT_EQ(a.status, 200) << "Host: " << host << " got " << a.body;
        const Answer m = process->get(process->metrics_url, {{"Host", host}});
        EXPECT_EQ(m.status, 200) << "metrics, Host: " << host << " got " << m.body;
    }
}

} // namespace
} // namespace kprov::api::testing
