// Runtime-cluster connections kept between passes (ClusterConnections, issue 34): the operator
// bindings of several passes over a real loopback server use one TCP connection, and what
// decides how kprov connects (server, CA, certificate check, client certificate) is never
// shared between kubeconfigs that differ in it.

#include "fakes.hpp"
#include "gardener/cluster_connections.hpp"
#include "gardener/kube_client.hpp"
#include "gardener/operator_bindings.hpp"

#include <condition_variable>
#include <gtest/gtest.h>
#include <httplib.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kprov::gardener {
namespace {

using namespace std::chrono_literals;

// Answers every POST with 201 and every DELETE with 200 (an empty Status), and remembers the
// client port of each request (one per TCP connection) and its Authorization header.
class CountingServer {
public:
    CountingServer() {
        m_server.set_keep_alive_max_count(1000);
        m_server.set_keep_alive_timeout(60);
        m_server.new_task_queue = [] {
            return new httplib::ThreadPool(32);
        };
        m_server.set_pre_routing_handler(
            [this](const httplib::Request& req, httplib::Response& res) {
                {
                    std::unique_lock lock(m_mutex);
                    m_ports.insert(req.remote_port);
                    m_requests.push_back(req.method + " " + req.path + " " +
                                         req.get_header_value("Authorization"));
                    if (req.path == "/together") {
                        // Answered when `together` requests are in flight at once (or after
                        // 10 s, so that a broken client fails the test instead of hanging it).
                        const int round = m_arrived++ / together;
                        m_changed.notify_all();
                        m_changed.wait_for(lock, 10s,
                                           [&] { return m_arrived >= (round + 1) * together; });
                    }
                }
                res.status = req.method == "POST" ? 201 : 200;
                res.set_content(R"({"kind":"Status","status":"Success"})", "application/json");
                return httplib::Server::HandlerResponse::Handled;
            });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running())
            std::this_thread::sleep_for(1ms);
    }
    ~CountingServer() {
        m_server.stop();
        m_thread.join();
    }
    CountingServer(const CountingServer&) = delete;
    CountingServer& operator=(const CountingServer&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::size_t connections() {
        std::lock_guard lock(m_mutex);
        return m_ports.size();
    }
    std::vector<std::string> requests() {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

    int together = 8;

private:
    httplib::Server m_server;
    int m_port = 0;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_arrived = 0;
    std::set<int> m_ports;
    std::vector<std::string> m_requests;
};

// An admin kubeconfig as Gardener hands it out: inline token, server with a path prefix.
std::string admin_kubeconfig(const std::string& server, const std::string& token) {
    return "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
           "clusters:\n- name: c\n  cluster:\n    server: " +
           server +
           "\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
           "users:\n- name: u\n  user:\n    token: " +
           token + "\n";
}

engine::OperatorBindings some_bindings() {
    engine::OperatorBindings bindings;
    bindings.l2_subject_name = "l2";
    bindings.l3_subject_name = "l3";
    return bindings;
}

ClientOptions one_try() {
    ClientOptions options;
    options.retry.max_attempts = 1;
    return options;
}

TEST(ClusterConnectionsTest, PassesOfTheOperatorBindingsStageShareOneConnection) {
    CountingServer server;
    ClusterBindings bindings(one_try());
    bindings.create_operator_bindings(admin_kubeconfig(server.url() + "/clusters/a", "token-a"),
                                      some_bindings());
    EXPECT_EQ(server.connections(), 1U) << "one pass: six requests on one connection";
    bindings.create_operator_bindings(admin_kubeconfig(server.url() + "/clusters/a", "token-a"),
                                      some_bindings());
    bindings.create_operator_bindings(admin_kubeconfig(server.url() + "/clusters/b", "token-b"),
                                      some_bindings());
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 18U); // namespace, 2 roles, DeleteCollection, 2 bindings; 3 times
    EXPECT_EQ(server.connections(), 1U) << "later passes reuse the first pass's connection";
    // Each request carries its own kubeconfig's token, whichever connection it goes over.
    EXPECT_EQ(requests[0], "POST /clusters/a/api/v1/namespaces Bearer token-a");
    EXPECT_EQ(requests[17],
              "POST /clusters/b/apis/rbac.authorization.k8s.io/v1/clusterrolebindings "
              "Bearer token-b");
}

TEST(ClusterConnectionsTest, AnotherServerGetsItsOwnConnection) {
    CountingServer first;
    CountingServer second;
    ClusterBindings bindings(one_try());
    bindings.create_operator_bindings(admin_kubeconfig(first.url(), "t"), some_bindings());
    bindings.create_operator_bindings(admin_kubeconfig(second.url(), "t"), some_bindings());
    bindings.create_operator_bindings(admin_kubeconfig(first.url(), "t"), some_bindings());
    EXPECT_EQ(first.connections(), 1U);
    EXPECT_EQ(second.connections(), 1U);
    EXPECT_EQ(first.requests().size(), 12U);
    EXPECT_EQ(second.requests().size(), 6U);
}

TEST(ClusterConnectionsTest, EightCallersAtOnceKeepTheirEightConnections) {
    CountingServer server;
    Kubeconfig config;
    config.server = server.url();
    config.token = "t";
    KubeClient client(config, one_try());
    for (int round = 0; round < 3; ++round) {
        std::vector<std::thread> callers;
        for (int i = 0; i < server.together; ++i)
            callers.emplace_back([&] { client.get("/together"); });
        for (auto& caller : callers)
            caller.join();
    }
    EXPECT_EQ(server.requests().size(), 24U);
    // libcurl keeps 5 connections unless told otherwise: rounds 2 and 3 would open 3 more each.
    EXPECT_EQ(server.connections(), 8U) << "later rounds reuse the first round's connections";
}

Kubeconfig config(const std::string& server) {
    Kubeconfig c;
    c.server = server;
    c.token = "t";
    return c;
}

TEST(ClusterConnectionsTest, OnlyKubeconfigsThatConnectAlikeShareATransport) {
    ClusterConnections connections;
    const auto base = connections.transport_for(config("https://api.example:443/a"));
    ASSERT_NE(base, nullptr);
    auto other_path = config("https://api.example:443/b");
    other_path.token = "another token"; // sent per request: not part of how kprov connects
    other_path.default_namespace = "ns";
    EXPECT_EQ(connections.transport_for(other_path), base);

    auto other_ca = config("https://api.example:443/a");
    other_ca.ca_pem = "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n";
    auto insecure = config("https://api.example:443/a");
    insecure.insecure_skip_tls_verify = true;
    auto client_cert = config("https://api.example:443/a");
    client_cert.client_certificate_pem = "cert";
    client_cert.client_key_pem = "key";
    auto other_key = client_cert;
    other_key.client_key_pem = "another key";
    std::set<std::shared_ptr<net::HttpTransport>> distinct = {base};
    for (const auto& c :
         {config("https://api.example:6443/a"), config("http://api.example:443/a"),
          config("https://other.example:443/a"), other_ca, insecure, client_cert, other_key})
        distinct.insert(connections.transport_for(c));
    EXPECT_EQ(distinct.size(), 8U) << "each differing setting has a transport of its own";
    EXPECT_EQ(connections.size(), 8U);
}

TEST(ClusterConnectionsTest, AProxyOrTlsServerNameIsNotSharedButLeftToTheClient) {
    ClusterConnections connections;
    auto proxied = config("https://api.example");
    proxied.proxy_url = "http://proxy.example:3128";
    auto renamed = config("https://10.0.0.1");
    renamed.tls_server_name = "api.example";
    EXPECT_EQ(connections.transport_for(proxied), nullptr);
    EXPECT_EQ(connections.transport_for(renamed), nullptr);
    EXPECT_EQ(connections.size(), 0U);
}

TEST(ClusterConnectionsTest, AnIdleTransportIsDroppedAndTheLeastRecentlyUsedAtTheCap) {
    auto clock = std::make_shared<testing::FakeClock>();
    ClusterConnections connections({2, 30s}, clock);
    const auto a = connections.transport_for(config("https://a.example"));
    clock->advance(29s);
    EXPECT_EQ(connections.transport_for(config("https://a.example")), a) << "used within 30 s";
    clock->advance(30s);
    const auto a_again = connections.transport_for(config("https://a.example"));
    EXPECT_NE(a_again, a) << "unused for 30 s: dropped, a new one made";
    EXPECT_EQ(connections.size(), 1U);

    clock->advance(1s);
    const auto b = connections.transport_for(config("https://b.example"));
    clock->advance(1s);
    connections.transport_for(config("https://c.example")); // over the cap of 2: `a` goes
    EXPECT_EQ(connections.size(), 2U);
    EXPECT_EQ(connections.transport_for(config("https://b.example")), b);
    EXPECT_NE(connections.transport_for(config("https://a.example")), a_again);
}

} // namespace
} // namespace kprov::gardener
