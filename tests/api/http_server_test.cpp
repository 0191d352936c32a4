// kprov's own HTTP/1.1 server (src/api/http/http_server.hpp) over real sockets: keep-alive and
// pipelining, what it refuses by itself, slow and vanishing clients, requests handed to worker
// threads, graceful stop.

#include "api/http/http_server.hpp"
#include "api/http_test_client.hpp"

#include <atomic>
#include <condition_variable>
#include <future>
#include <gtest/gtest.h>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kprov::api::http {
namespace {

using namespace std::chrono_literals;
using testing::Answer;
using testing::Client;
using testing::get;
using testing::post;

// Answers "<method> <path> <body>"; /block goes to a worker and waits there until released.
class HttpServerTest : public ::testing::Test {
protected:
    void start(ServerOptions options = {}) {
        options.loops = options.loops == 0 ? 1 : options.loops;
        server = std::make_unique<Server>(
            [this](const Request& req, Response& res, bool on_loop) {
                ++calls;
                if (req.path == "/block") {
                    if (on_loop)
                        return Handled::Blocking;
                    std::unique_lock lock(mutex);
                    blocked = true;
                    changed.notify_all();
                    changed.wait(lock, [this] { return released; });
                }
                if (req.path == "/probe" && on_loop)
                    return Handled::Probe;
                if (req.path == "/throw")
                    throw std::runtime_error("boom");
                res.body = std::string(req.method) + " " + std::string(req.path) + " " +
                           std::string(req.body);
                if (const auto name = req.query_param("name"))
                    res.body += " name=" + *name;
                if (const auto tenant = req.header("tenant"))
                    res.body += " tenant=" + std::string(*tenant);
                return Handled::Answered;
            },
            options);
        port = server->bind("127.0.0.1", 0);
        server->start();
    }
    void wait_until_blocked() {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return blocked; });
    }
    void release() {
        const std::lock_guard lock(mutex);
        released = true;
        changed.notify_all();
    }
    void TearDown() override {
        release();
        if (server)
            server->stop();
    }

    std::unique_ptr<Server> server;
    int port = 0;
    std::atomic<int> calls{0};
    std::mutex mutex;
    std::condition_variable changed;
    bool blocked = false;
    bool released = false;
};

TEST_F(HttpServerTest, AnswersSeveralRequestsOnOneKeepAliveConnection) {
    start();
    Client c(port);
    for (int i = 0; i < 3; ++i) {
        c.send(post("/p" + std::to_string(i), "body" + std::to_string(i)));
        const Answer a = c.next();
        EXPECT_EQ(a.status, 200) << a.head;
        EXPECT_EQ(a.body, "POST /p" + std::to_string(i) + " body" + std::to_string(i));
        EXPECT_EQ(a.head.find("Connection: close"), std::string::npos) << a.head;
    }
    // Connection: close is honoured.
    c.send(get("/last", "Connection: close\r\n"));
    const Answer last = c.next();
    EXPECT_EQ(last.body, "GET /last ");
    EXPECT_NE(last.head.find("Connection: close"), std::string::npos) << last.head;
    EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
    start();
    Client c(port);
    c.send(get("/a") + post("/b", "x") + get("/c?name=a%20b+c", "Tenant: t-1\r\n"));
    EXPECT_EQ(c.next().body, "GET /a ");
    EXPECT_EQ(c.next().body, "POST /b x");
    EXPECT_EQ(c.next().body, "GET /c  name=a b c tenant=t-1");
}

TEST_F(HttpServerTest, RefusesMalformedRequestsAndClosesTheConnection) {
    start();
    for (const std::string bad :
         {"NOT A REQUEST LINE\r\n\r\n", "GET /x\r\n\r\n", "GET x HTTP/1.1\r\n\r\n",
          "GET /x HTTP/1.1\r\nbad header\r\n\r\n", "GET /x HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
          "G(T /x HTTP/1.1\r\n\r\n"}) {
        Client c(port);
        c.send(bad);
        const Answer a = c.next();
        EXPECT_EQ(a.status, 400) << bad;
        EXPECT_TRUE(c.closed_by_server()) << bad;
    }
    Client c(port);
    c.send("GET /x HTTP/2.0\r\n\r\n");
    EXPECT_EQ(c.next().status, 505);
    EXPECT_EQ(calls, 0);
}

TEST_F(HttpServerTest, RefusesOversizedHeadersAndBodiesAndChunkedBodies) {
    ServerOptions options;
    options.max_header_bytes = 1024;
    options.max_body_bytes = 100;
    start(options);
    {
        Client c(port);
        c.send(get("/x", "X-Big: " + std::string(2000, 'a') + "\r\n"));
        EXPECT_EQ(c.next().status, 431);
        EXPECT_TRUE(c.closed_by_server());
    }
    {
        // The body is sent in full although the answer comes first: the client reads 413.
        Client c(port);
        c.send(post("/x", std::string(100'000, 'b')));
        EXPECT_EQ(c.next().status, 413);
        EXPECT_TRUE(c.closed_by_server());
    }
    {
        Client c(port);
        c.send("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        EXPECT_EQ(c.next().status, 411);
        EXPECT_TRUE(c.closed_by_server());
    }
    EXPECT_EQ(calls, 0);
    Client c(port);
    c.send(post("/x", std::string(100, 'c')));
    EXPECT_EQ(c.next().status, 200);
}

TEST_F(HttpServerTest, ClosesASlowClientsConnectionAndAnIdleOne) {
    ServerOptions options;
    options.io_timeout = 200ms;
    options.idle_timeout = 200ms;
    start(options);
    Client slow(port);
    slow.send("GET /x HTTP/1.1\r\nHost: x\r\n"); // never finishes its request
    Client idle(port);
    idle.send(get("/x"));
    EXPECT_EQ(idle.next().status, 200);
    EXPECT_TRUE(slow.closed_by_server());
    EXPECT_TRUE(idle.closed_by_server());
    EXPECT_EQ(calls, 1);
}

TEST_F(HttpServerTest, ForgetsAConnectionClosedMidRequest) {
    start();
    {
        Client c(port);
        c.send("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
    }
    Client c(port);
    c.send(get("/after"));
    EXPECT_EQ(c.next().body, "GET /after ");
    EXPECT_EQ(calls, 1);
}

TEST_F(HttpServerTest, AnswersARequestTheClientHalfClosedAfter) {
    start();
    Client c(port);
    c.send(get("/half"));
    c.shutdown_write(); // as `nc -N` does: the request is complete, so it is answered
    EXPECT_EQ(c.next().body, "GET /half ");
    EXPECT_TRUE(c.closed_by_server());
}

TEST_F(HttpServerTest, ServesOtherConnectionsWhileAWorkerBlocks) {
    start(); // one loop
    Client blocking(port);
    blocking.send(get("/block"));
    wait_until_blocked();
    Client other(port);
    other.send(get("/free"));
    EXPECT_EQ(other.next().body, "GET /free ");
    release();
    EXPECT_EQ(blocking.next().body, "GET /block ");
    // The connection goes on after the worker's answer.
    blocking.send(get("/next"));
    EXPECT_EQ(blocking.next().body, "GET /next ");
}

// Issue 32, finding 10: /readyz answered after 57 s behind slow Gardener calls. Probes have a
// thread of their own, and requests that wait for a worker are bounded (503, Retry-After).
TEST_F(HttpServerTest, AProbeIsAnsweredWhileEveryWorkerIsBlocked) {
    ServerOptions options;
    options.workers = 1;
    start(options);
    Client blocking(port);
    blocking.send(get("/block"));
    wait_until_blocked();
    Client queued(port);
    queued.send(get("/block"));
    Client probe(port);
    probe.send(get("/probe"));
    EXPECT_EQ(probe.next().body, "GET /probe ");
    release();
    EXPECT_EQ(blocking.next().body, "GET /block ");
    EXPECT_EQ(queued.next().body, "GET /block ");
}

TEST_F(HttpServerTest, ARequestBeyondTheQueueIsAnswered503WithRetryAfter) {
    ServerOptions options;
    options.workers = 1;
    options.max_queued_requests = 1;
    start(options); // one loop: requests are dispatched in the order they arrive
    Client running(port);
    running.send(get("/block"));
    wait_until_blocked();
    const int before = calls;
    Client queued(port);
    queued.send(get("/block"));
    while (calls == before) // the loop has seen it, and queued it, once its handler ran
        std::this_thread::yield();
    Client refused(port);
    refused.send(get("/block"));
    const Answer a = refused.next();
    EXPECT_EQ(a.status, 503);
    EXPECT_NE(a.head.find("Retry-After: 1"), std::string::npos) << a.head;
    release();
    EXPECT_EQ(running.next().body, "GET /block ");
    EXPECT_EQ(queued.next().body, "GET /block ");
}

TEST_F(HttpServerTest, AnswersAHandlersExceptionWith500) {
    start();
    Client c(port);
    c.send(get("/throw") + get("/x"));
    EXPECT_EQ(c.next().status, 500);
    EXPECT_EQ(c.next().status, 200);
}

TEST_F(HttpServerTest, StopAnswersTheRequestInFlightThenCloses) {
    start();
    Client idle(port);
    idle.send(get("/x"));
    EXPECT_EQ(idle.next().status, 200);
    Client c(port);
    c.send(get("/block"));
    wait_until_blocked();
    auto stopped = std::async(std::launch::async, [this] { server->stop(); });
    EXPECT_TRUE(idle.closed_by_server());
    release();
    const Answer a = c.next();
    EXPECT_EQ(a.body, "GET /block ");
    EXPECT_NE(a.head.find("Connection: close"), std::string::npos) << a.head;
    stopped.get();
    EXPECT_TRUE(c.closed_by_server());
}

TEST(HttpServer, RefusesAnAddressInUse) {
    Server first([](const Request&, Response&, bool) { return Handled::Answered; }, {});
    const int port = first.bind("127.0.0.1", 0);
    Server second([](const Request&, Response&, bool) { return Handled::Answered; }, {});
    EXPECT_THROW(second.bind("127.0.0.1", port), std::system_error);
    EXPECT_THROW(second.bind("256.0.0.1", 0), std::system_error);
}

TEST(HttpRequest, DecodesQueryParametersAndFindsHeadersByAnyCase) {
    Request r;
    r.query = "a=1&query=%7B%20x%20%7D&plus=a+b&empty&bad=%zz";
    r.headers = {{"Content-Type", "text/plain"}};
    EXPECT_EQ(r.query_param("query"), "{ x }");
    EXPECT_EQ(r.query_param("plus"), "a b");
    EXPECT_EQ(r.query_param("empty"), "");
    EXPECT_EQ(r.query_param("bad"), "%zz");
    EXPECT_EQ(r.query_param("missing"), std::nullopt);
    EXPECT_EQ(r.header("content-type"), "text/plain");
    EXPECT_EQ(r.header("Accept"), std::nullopt);
}

} // namespace
} // namespace kprov::api::http
