// The client over real sockets against a small cpp-httplib server: TLS verification, token and
// client-certificate auth, a wrong CA, connection reuse, timeouts and watch streams.

#include "gardener/kube_client.hpp"
#include "gardener/kube_error.hpp"
#include "support/skip.hpp"
#include "test_certs.hpp"

#include <atomic>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

namespace kprov::gardener {
namespace {

using kprov::testing::TempDir;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TestCerts;
using namespace std::chrono_literals;

const std::string k_token = "integration-token";

// An httplib server on a free loopback port, serving on its own thread until destroyed.
class TestServer {
public:
    explicit TestServer(std::unique_ptr<httplib::Server> server, bool tls)
        : m_server(std::move(server))
        , m_tls(tls) {
        m_server->set_tcp_nodelay(true);
        m_server->set_keep_alive_max_count(1000);
        m_server->set_pre_routing_handler([this](const httplib::Request& req,
                                                 httplib::Response& res) {
            {
                std::lock_guard lock(m_mutex);
                m_ports.insert(req.remote_port);
            }
            if (!required_token.empty() &&
                req.get_header_value("Authorization") != "Bearer " + required_token) {
                res.status = 401;
                res.set_content(
                    R"({"kind":"Status","code":401,"reason":"Unauthorized","message":"Unauthorized"})",
                    "application/json");
                return httplib::Server::HandlerResponse::Handled;
            }
            ++handled;
            return httplib::Server::HandlerResponse::Unhandled;
        });
    }
    ~TestServer() {
        stopping = true;
        m_server->stop();
        if (m_thread.joinable())
            m_thread.join();
    }
    void start() {
        m_port = m_server->bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server->listen_after_bind(); });
        while (!m_server->is_running())
            std::this_thread::sleep_for(1ms);
    }
    httplib::Server& http() { return *m_server; }
    std::string url() const {
        return std::string(m_tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m_port);
    }
    std::size_t connections() {
        std::lock_guard lock(m_mutex);
        return m_ports.size();
    }
    // Sleeps up to `d`, less when the server is stopping.
    void pause(std::chrono::milliseconds d) {
        const auto until = std::chrono::steady_clock::now() + d;
        while (!stopping && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(10ms);
    }

    std::string required_token;
    std::atomic<int> handled{0};
    std::atomic<bool> stopping{false};

private:
    std::unique_ptr<httplib::Server> m_server;
    bool m_tls;
    int m_port = 0;
    std::thread m_thread;
    std::mutex m_mutex;
    std::set<int> m_ports;
};

class HttpIntegrationTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { s_certs = TestCerts::make(s_why).release(); }
    static void TearDownTestSuite() {
        delete s_certs;
        s_certs = nullptr;
    }
    void SetUp() override {
        if (s_certs == nullptr)
            KPROV_SKIP_UNLESS_CI(s_why);
    }

    std::unique_ptr<TestServer> https_server(bool client_ca = false) {
        auto server = std::make_unique<TestServer>(
            std::make_unique<httplib::SSLServer>(s_certs->server_cert.c_str(),
                                                 s_certs->server_key.c_str(),
                                                 client_ca ? s_certs->ca.c_str() : nullptr),
            true);
        add_routes(*server);
        return server;
    }
    std::unique_ptr<TestServer> http_server() {
        auto server = std::make_unique<TestServer>(std::make_unique<httplib::Server>(), false);
        add_routes(*server);
        return server;
    }
    static void add_routes(TestServer& server) {
        server.http().Get("/api/v1/namespaces/a", [](const httplib::Request&,
                                                     httplib::Response& res) {
            res.set_content(R"({"kind":"Namespace","metadata":{"name":"a"}})", "application/json");
        });
        server.http().Post("/api/v1/namespaces",
                           [](const httplib::Request& req, httplib::Response& res) {
                               res.status = 201;
                               json answer = json::parse(req.body);
                               answer["contentType"] = req.get_header_value("Content-Type");
                               res.set_content(answer.dump(), "application/json");
                           });
        server.http().Get("/slow", [&server](const httplib::Request&, httplib::Response& res) {
            server.pause(3000ms);
            res.set_content("{}", "application/json");
        });
    }
    Kubeconfig kubeconfig(const TestServer& server) const {
        Kubeconfig config;
        config.source = "test";
        config.server = server.url();
        config.ca_pem = s_certs->read(s_certs->ca);
        return config;
    }
    static ClientOptions quick() {
        ClientOptions options;
        options.retry.max_attempts = 1;
        return options;
    }

    static inline TestCerts* s_certs = nullptr;
    static inline std::string s_why;
};

TEST_F(HttpIntegrationTest, HttpsWithKubeconfigFileCaAndTokenFile) {
    auto server = https_server();
    server->required_token = k_token;
    server->start();
    TempDir dir;
    dir.write("ca.crt", s_certs->read(s_certs->ca));
    dir.write("token", k_token + "\n");
    const auto path =
        dir.write("kubeconfig", "current-context: c\n"
                                "clusters: [{name: k, cluster: {server: \"" +
                                    server->url() +
                                    "\", certificate-authority: ca.crt}}]\n"
                                    "users: [{name: u, user: {tokenFile: token}}]\n"
                                    "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
    KubeClient client(load_kubeconfig(path));
    EXPECT_EQ(client.get("/api/v1/namespaces/a")["metadata"]["name"], "a");
    const json created = client.create("/api/v1/namespaces", {{"metadata", {{"name", "b"}}}});
    EXPECT_EQ(created["metadata"]["name"], "b");
    EXPECT_EQ(created["contentType"], "application/json");
}

TEST_F(HttpIntegrationTest, WrongTokenIs401) {
    auto server = https_server();
    server->required_token = k_token;
    server->start();
    Kubeconfig config = kubeconfig(*server);
    config.token = "wrong";
    KubeClient client(config, quick());
    try {
        client.get("/api/v1/namespaces/a");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_unauthorized());
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("wrong")));
    }
}

TEST_F(HttpIntegrationTest, WrongCaIsRefusedAndNotRetried) {
    auto server = https_server();
    server->start();
    Kubeconfig config = kubeconfig(*server);
    config.ca_pem = s_certs->read(s_certs->other_ca);
    KubeClient client(config); // default retry policy: TLS failures must still fail at once
    const auto started = std::chrono::steady_clock::now();
    try {
        client.get("/api/v1/namespaces/a");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 0);
        EXPECT_FALSE(e.retryable());
        EXPECT_THAT(e.what(), HasSubstr("certificate"));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
    EXPECT_EQ(server->handled, 0);
}

TEST_F(HttpIntegrationTest, InsecureSkipVerifyAcceptsAnyCertificate) {
    auto server = https_server();
    server->start();
    Kubeconfig config = kubeconfig(*server);
    config.ca_pem.clear();
    config.insecure_skip_tls_verify = true;
    KubeClient client(config);
    EXPECT_EQ(client.get("/api/v1/namespaces/a")["kind"], "Namespace");
}

TEST_F(HttpIntegrationTest, TlsServerNameIsVerifiedInsteadOfTheAddress) {
    auto server = https_server();
    server->start();
    Kubeconfig config = kubeconfig(*server);
    config.tls_server_name = "kube.test"; // only in the certificate; never resolved
    KubeClient client(config);
    EXPECT_EQ(client.get("/api/v1/namespaces/a")["kind"], "Namespace");
    config.tls_server_name = "other.test";
    KubeClient mismatch(config, quick());
    EXPECT_THROW(mismatch.get("/api/v1/namespaces/a"), KubeError);
}

TEST_F(HttpIntegrationTest, ClientCertificateAuth) {
    auto server = https_server(true);
    server->start();
    Kubeconfig config = kubeconfig(*server);
    config.client_certificate_pem = s_certs->read(s_certs->client_cert);
    config.client_key_pem = s_certs->read(s_certs->client_key);
    KubeClient client(config);
    EXPECT_EQ(client.get("/api/v1/namespaces/a")["kind"], "Namespace");

    Kubeconfig without = kubeconfig(*server);
    KubeClient anonymous(without, quick());
    try {
        anonymous.get("/api/v1/namespaces/a");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 0);
        // With TLS 1.3 the refusal comes after the handshake: curl reports either the alert or,
        // when the server closed first, a broken connection; either way no answer.
        EXPECT_THAT(e.what(), HasSubstr("kube: GET /api/v1/namespaces/a: "));
    }
    EXPECT_EQ(server->handled, 1);
}

TEST_F(HttpIntegrationTest, ConnectionsAreReused) {
    auto server = https_server();
    server->start();
    KubeClient client(kubeconfig(*server));
    for (int i = 0; i < 10; ++i)
        client.get("/api/v1/namespaces/a");
    EXPECT_EQ(server->connections(), 1U);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i)
                client.get("/api/v1/namespaces/a");
        });
    for (auto& thread : threads)
        thread.join();
    EXPECT_LE(server->connections(), 4U) << "one connection per concurrent caller at most";
    EXPECT_EQ(server->handled, 40);
}

TEST_F(HttpIntegrationTest, RequestTimeout) {
    auto server = http_server();
    server->start();
    Kubeconfig config;
    config.server = server->url();
    ClientOptions options = quick();
    options.request_timeout = 300ms;
    KubeClient client(config, options);
    const auto started = std::chrono::steady_clock::now();
    try {
        client.get("/slow");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 0);
        EXPECT_TRUE(e.retryable());
        EXPECT_THAT(e.what(), HasSubstr("kube: GET /slow: Timeout was reached"));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
}

TEST_F(HttpIntegrationTest, ConnectionRefusedIsRetriedThenReported) {
    Kubeconfig config;
    config.server = "http://127.0.0.1:1";
    ClientOptions options;
    options.retry = {3, 10ms, 20ms, 5000ms};
    KubeClient client(config, options);
    try {
        client.get("/x");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("kube: GET /x: Couldn't connect to server"));
        EXPECT_THAT(e.what(), HasSubstr("(after 3 attempts)"));
    }
}

TEST_F(HttpIntegrationTest, AnEndlessBodyIsCutAtMaxResponseBytes) {
    std::atomic<std::size_t> sent{0}; // outlives the server's thread
    auto server = http_server();
    server->http().Get("/endless", [&](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider("application/json", [&](size_t, httplib::DataSink& sink) {
            const std::string piece(64 * 1024, 'x');
            while (!server->stopping && sent < (std::size_t{1} << 30)) {
                if (!sink.write(piece.data(), piece.size()))
                    return false; // the client hung up
                sent += piece.size();
            }
            sink.done();
            return true;
        });
    });
    server->start();
    Kubeconfig config;
    config.server = server->url();
    ClientOptions options;
    options.max_response_bytes = 1U << 20;
    options.label = "runtime cluster";
    KubeClient client(config, options);
    const auto started = std::chrono::steady_clock::now();
    try {
        client.get("/endless");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_STREQ(e.what(), "runtime cluster: the response of GET /endless is larger than "
                               "1 MiB (ClientOptions::max_response_bytes)");
        EXPECT_FALSE(e.retryable());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    std::this_thread::sleep_for(200ms); // let the server notice the hang-up
    EXPECT_LT(sent.load(), std::size_t{64} << 20)
        << "the transfer was aborted, not read to its end";
}

// A watch endpoint: each connection gets the events scripted for it, then either ends the
// stream or stalls (sending nothing) until the server stops.
struct WatchScript {
    std::vector<std::vector<std::string>> events; // per connection
    std::vector<bool> stall;                      // per connection
    std::mutex mutex;
    std::vector<std::string> versions; // resourceVersion asked for, per connection
};

void add_watch(TestServer& server, WatchScript& script) {
    server.http().Get("/w", [&](const httplib::Request& req, httplib::Response& res) {
        std::size_t n;
        {
            std::lock_guard lock(script.mutex);
            n = script.versions.size();
            script.versions.push_back(req.get_param_value("resourceVersion"));
        }
        const auto events =
            n < script.events.size() ? script.events[n] : std::vector<std::string>{};
        const bool stall = n < script.stall.size() ? script.stall[n] : true;
        res.set_chunked_content_provider("application/json",
                                         [&server, events, stall](size_t, httplib::DataSink& sink) {
                                             for (const auto& e : events) {
                                                 const std::string line = e + "\n";
                                                 sink.write(line.data(), line.size());
                                             }
                                             if (stall)
                                                 server.pause(5000ms);
                                             sink.done();
                                             return true;
                                         });
    });
}

std::string added(const std::string& rv) {
    return R"({"type":"ADDED","object":{"metadata":{"name":"s","resourceVersion":")" + rv +
           R"("}}})";
}

TEST_F(HttpIntegrationTest, WatchResumesAfterTheStreamEndsAndAfterInactivity) {
    auto server = https_server();
    WatchScript script;
    script.events = {{added("2"), added("3")}, {added("4")}, {added("5")}};
    script.stall = {false, true, true};
    add_watch(*server, script);
    server->start();
    ClientOptions options;
    options.watch_inactivity_timeout = 1000ms;
    KubeClient client(kubeconfig(*server), options);
    std::vector<std::string> seen;
    std::stop_source stop;
    const auto started = std::chrono::steady_clock::now();
    client.watch(
        "/w", {"1", "", "", {}},
        [&](const WatchEvent& e) {
            seen.push_back(e.object["metadata"]["resourceVersion"]);
            if (seen.size() == 4)
                stop.request_stop();
        },
        stop.get_token());
    EXPECT_THAT(seen, ElementsAre("2", "3", "4", "5"));
    std::lock_guard lock(script.mutex);
    EXPECT_THAT(script.versions, ElementsAre("1", "3", "4"));
    const auto elapsed = std::chrono::steady_clock::now() - started;
    EXPECT_GE(elapsed, 900ms) << "the stalled second stream was dropped by the inactivity timeout";
    EXPECT_LT(elapsed, 4000ms);
}

TEST_F(HttpIntegrationTest, StoppingAStalledWatchIsQuick) {
    auto server = http_server();
    WatchScript script;
    add_watch(*server, script);
    server->start();
    Kubeconfig config;
    config.server = server->url();
    KubeClient client(config);
    std::stop_source stop;
    std::thread stopper([&] {
        std::this_thread::sleep_for(300ms);
        stop.request_stop();
    });
    const auto started = std::chrono::steady_clock::now();
    client.watch(
        "/w", {"1", "", "", {}}, [](const WatchEvent&) {}, stop.get_token());
    stopper.join();
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
}

} // namespace
} // namespace kprov::gardener
