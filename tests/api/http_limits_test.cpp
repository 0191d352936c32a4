// The HTTP server (src/api/http/http_server.hpp) against clients that attack it (issue 17), over
// plain HTTP and HTTPS alike (each test runs for both, /0 plain, /1 TLS): connections that hold
// nothing, silent TLS handshakes, half request lines, bodies announced and never sent, too many
// connections, too many bytes; and its TLS policy.

#include "api/http/http_server.hpp"
#include "api/http_tls_client.hpp"
#include "engine/error.hpp"
#include "gardener/test_certs.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <gtest/gtest.h>
#include <memory>
#include <thread>

namespace kprov::api::http {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::Client;
using testing::get;
using testing::post;
using testing::TlsClient;
using testing::TlsOffer;

// Generous: the assertions say "answered", the measured times go to the test output.
constexpr auto k_deadline = 5s;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

class HttpLimits : public ::testing::TestWithParam<bool> {
protected:
    static void SetUpTestSuite() { s_certs = gardener::testing::TestCerts::make(s_why); }
    static void TearDownTestSuite() { s_certs.reset(); }

    bool tls() const { return GetParam(); }

    void start(ServerOptions options = {}) {
        if (tls() && !s_certs)
            GTEST_SKIP() << s_why;
        options.loops = options.loops == 0 ? 2 : options.loops;
        if (tls()) {
            options.tls_cert_file = s_certs->server_cert.string();
            options.tls_key_file = s_certs->server_key.string();
        }
        server.reset();
        server = std::make_unique<Server>(
            [this](const Request& req, Response& res, bool on_loop) {
                if (req.path == "/block" && on_loop)
                    return Handled::Blocking;
                ++calls;
                res.body = std::string(req.method) + " " + std::string(req.path) + " " +
                           std::string(req.body);
                if (req.path == "/remote")
                    res.body = std::string(req.remote);
                return Handled::Answered;
            },
            options);
        port = server->bind("127.0.0.1", 0);
        server->start();
    }

    /// A client of the server's kind, its TLS handshake done.
    std::unique_ptr<Client> connect() {
        if (!tls())
            return std::make_unique<Client>(port);
        auto client = std::make_unique<TlsClient>(port);
        EXPECT_TRUE(client->connected()) << client->error_text();
        return client;
    }

    void TearDown() override { server.reset(); }

    static inline std::unique_ptr<gardener::testing::TestCerts> s_certs;
    static inline std::string s_why;
    std::unique_ptr<Server> server;
    int port = 0;
    std::atomic<int> calls{0};
};

INSTANTIATE_TEST_SUITE_P(Http, HttpLimits, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Https" : "Plain"; });

TEST_P(HttpLimits, AnswersWhileManyConnectionsHoldNothing) {
    ServerOptions options;
    options.max_connections_per_client = 1000; // every test client comes from 127.0.0.1
    start(options);
    // Plain: 200 connections that never send a byte. TLS: 64 that never send a hello (cpp-httplib
    // blocked on 32).
    const int silent = tls() ? 64 : 200;
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < silent; ++i)
        idle.push_back(std::make_unique<Client>(port));
    const auto began = Clock::now();
    auto c = connect();
    c->send(get("/x"));
    const auto a = c->next();
    const double took = ms_since(began);
    EXPECT_EQ(a.status, 200);
    EXPECT_LT(took, (std::chrono::duration<double, std::milli>(k_deadline).count()));
    std::cout << "answered under " << silent << " silent connections in " << took << " ms\n";
}

TEST_P(HttpLimits, ClosesAConnectionThatSendsHalfARequestLine) {
    ServerOptions options;
    options.header_timeout = 200ms;
    start(options);
    auto c = connect();
    const auto began = Clock::now();
    c->send("GET /x HT");
    EXPECT_TRUE(c->closed_by_server());
    EXPECT_GE(ms_since(began), 150);
    std::cout << "closed after " << ms_since(began) << " ms\n";
    EXPECT_EQ(calls, 0);
}

TEST_P(HttpLimits, AuthorizeRefusesBeforeReadingTheBody) {
    ServerOptions options;
    options.authorize = [](const Request& head) -> std::optional<Response> {
        EXPECT_TRUE(head.body.empty());
        if (head.header("Authorization") == "Bearer t")
            return std::nullopt;
        Response res;
        res.status = 401;
        res.body = "authentication required";
        return res;
    };
    start(options);
    {
        // The body is announced and never sent: the answer cannot wait for it.
        auto c = connect();
        const auto began = Clock::now();
        c->send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
        const auto a = c->next();
        EXPECT_EQ(a.status, 401);
        EXPECT_NE(a.head.find("Connection: close"), std::string::npos) << a.head;
        EXPECT_TRUE(c->closed_by_server());
        std::cout << "401 and closed in " << ms_since(began) << " ms\n";
    }
    auto c = connect();
    c->send("POST /x HTTP/1.1\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\n\r\nok");
    EXPECT_EQ(c->next().body, "POST /x ok");
    EXPECT_EQ(calls, 1);
}

TEST_P(HttpLimits, CapsConnectionsPerClient) {
    ServerOptions options;
    options.max_connections_per_client = 2;
    start(options);
    auto first = connect();
    auto second = connect();
    for (auto* c : {first.get(), second.get()}) {
        c->send(get("/x"));
        EXPECT_EQ(c->next().status, 200);
    }
    if (tls()) {
        TlsClient third(port);
        EXPECT_FALSE(third.connected());
    } else {
        Client third(port);
        EXPECT_EQ(third.next().status, 503); // written unasked, then closed
        EXPECT_TRUE(third.closed_by_server());
    }
    // A slot given back is taken again.
    first.reset();
    const auto until = Clock::now() + k_deadline;
    int status = 0;
    while (status != 200 && Clock::now() < until) {
        std::unique_ptr<Client> again;
        if (tls()) {
            auto tls_client = std::make_unique<TlsClient>(port);
            if (!tls_client->connected())
                continue;
            again = std::move(tls_client);
        } else {
            again = std::make_unique<Client>(port);
        }
        again->send(get("/x"));
        status = again->next().status;
    }
    EXPECT_EQ(status, 200);
}

TEST_P(HttpLimits, CapsConnectionsInTotal) {
    ServerOptions options;
    options.max_connections = 1;
    start(options);
    auto first = connect();
    first->send(get("/x"));
    EXPECT_EQ(first->next().status, 200);
    Client second(port);
    EXPECT_TRUE(second.closed_by_server());
    first->send(get("/y"));
    EXPECT_EQ(first->next().body, "GET /y ");
}

TEST_P(HttpLimits, RefusesABodyTheBufferBudgetCannotHold) {
    ServerOptions options;
    options.max_buffered_bytes = 60'000; // one 40 kB body and read buffers, not two bodies
    start(options);
    const std::string body(40'000, 'b');
    auto first = connect();
    first->send("POST /first HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 40000\r\n\r\n");
    EXPECT_EQ(first->next().status, 100); // its body's bytes are reserved now
    // Refused from its Content-Length: its body is not sent (over TLS, bytes still on their way
    // when the server closes would make the client's write fail, a race of the test's own).
    auto second = connect();
    second->send("POST /second HTTP/1.1\r\nContent-Length: 40000\r\n\r\n");
    const auto refused = second->next();
    EXPECT_EQ(refused.status, 503);
    EXPECT_NE(refused.head.find("Retry-After: "), std::string::npos) << refused.head;
    EXPECT_TRUE(second->closed_by_server());
    first->send(body);
    EXPECT_EQ(first->next().body, "POST /first " + body);
    // Given back: the next body fits.
    auto third = connect();
    third->send(post("/third", body));
    EXPECT_EQ(third->next().status, 200);
}

TEST_P(HttpLimits, KeepsBodiesKeepAlivePipeliningAndRefusals) {
    ServerOptions options;
    options.max_header_bytes = 1024;
    options.max_body_bytes = 100;
    start(options);
    {
        auto c = connect();
        c->send(get("/a") + post("/b", "xy") + get("/block"));
        EXPECT_EQ(c->next().body, "GET /a ");
        EXPECT_EQ(c->next().body, "POST /b xy");
        EXPECT_EQ(c->next().body, "GET /block ");
        c->send(get("/remote"));
        EXPECT_EQ(c->next().body, "127.0.0.1");
    }
    const std::pair<std::string, int> refused[] = {
        {post("/x", std::string(1000, 'b')), 413},
        {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411},
        {get("/x", "X-Big: " + std::string(2000, 'a') + "\r\n"), 431},
        {"GET /x HTTP/2.0\r\n\r\n", 505},
        {"GET /x\r\n\r\n", 400},
    };
    for (const auto& [request, status] : refused) {
        auto c = connect();
        c->send(request);
        EXPECT_EQ(c->next().status, status) << request.substr(0, 40);
        EXPECT_TRUE(c->closed_by_server());
    }
    EXPECT_EQ(calls, 4);
}

TEST_P(HttpLimits, PostRunsATaskOnAWorker) {
    start();
    std::promise<std::thread::id> ran;
    server->post([&ran] { ran.set_value(std::this_thread::get_id()); });
    auto id = ran.get_future();
    ASSERT_EQ(id.wait_for(k_deadline), std::future_status::ready);
    EXPECT_NE(id.get(), std::this_thread::get_id());
}

// --- TLS policy ------------------------------------------------------------------------------

class HttpsPolicy : public HttpLimits {};
INSTANTIATE_TEST_SUITE_P(Http, HttpsPolicy, ::testing::Values(true),
                         [](const auto&) { return "Https"; });

TEST_P(HttpsPolicy, ClosesATlsConnectionThatNeverSendsItsHello) {
    ServerOptions options;
    options.handshake_timeout = 200ms;
    start(options);
    Client silent(port); // TCP only: no ClientHello
    const auto began = Clock::now();
    EXPECT_TRUE(silent.closed_by_server());
    std::cout << "closed after " << ms_since(began) << " ms\n";
}

TEST_P(HttpsPolicy, RefusesTls11WithAProtocolVersionAlert) {
    start();
    TlsOffer old;
    old.min_version = old.max_version = TLS1_1_VERSION;
    old.ciphers = "DEFAULT:@SECLEVEL=0";
    old.security_level = 0;
    TlsClient c(port, old);
    EXPECT_FALSE(c.connected());
    EXPECT_EQ(c.error_reason(), SSL_R_TLSV1_ALERT_PROTOCOL_VERSION) << c.error_text();
}

TEST_P(HttpsPolicy, RefusesTls12WithCbcSuitesOnly) {
    start();
    TlsOffer cbc;
    cbc.max_version = TLS1_2_VERSION;
    cbc.ciphers = "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES128-SHA:AES128-SHA:"
                  "AES256-SHA:AES128-SHA256";
    TlsClient c(port, cbc);
    EXPECT_FALSE(c.connected());
    EXPECT_EQ(c.error_reason(), SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE) << c.error_text();
}

TEST_P(HttpsPolicy, SpeaksTls12WithAeadAndTls13) {
    start();
    TlsOffer tls12;
    tls12.max_version = TLS1_2_VERSION;
    for (const auto& offer : {tls12, TlsOffer{}}) {
        TlsClient c(port, offer);
        ASSERT_TRUE(c.connected()) << c.error_text();
        EXPECT_EQ(c.version(), offer.max_version);
        const std::string cipher = c.cipher();
        EXPECT_TRUE(cipher.find("GCM") != std::string::npos ||
                    cipher.find("CHACHA20") != std::string::npos)
            << cipher;
        c.send(get("/x"));
        EXPECT_EQ(c.next().body, "GET /x ");
    }
}

TEST_P(HttpsPolicy, BindRefusesMissingOrMismatchedFiles) {
    start(); // for the certificates
    const auto refused = [](std::optional<std::string> cert, std::optional<std::string> key) {
        ServerOptions options;
        options.tls_cert_file = std::move(cert);
        options.tls_key_file = std::move(key);
        Server s([](const Request&, Response&, bool) { return Handled::Answered; }, options);
        try {
            s.bind("127.0.0.1", 0);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no ConfigError");
    };
    const std::string cert = s_certs->server_cert.string();
    const std::string key = s_certs->server_key.string();
    const std::string other_key = s_certs->dir.file("ca.key");
    EXPECT_NE(refused(cert, std::nullopt).find(cert), std::string::npos);
    EXPECT_NE(refused("/nonexistent.pem", key).find("/nonexistent.pem"), std::string::npos);
    const std::string mismatch = refused(cert, other_key);
    EXPECT_NE(mismatch.find(other_key), std::string::npos) << mismatch;
    EXPECT_NE(mismatch.find("not the certificate's"), std::string::npos) << mismatch;
}

} // namespace
} // namespace kprov::api::http
