#pragma once
// Issue 32's attacker: a small HTTP server on loopback that plays Gardener (or a release
// server, or a proxy) and answers what a test tells it to, and a kubeconfig that points kprov at
// it. Runs of the built kprov (with their peak memory) are child_process.hpp's run_process.

#include "support/child_process.hpp"

#include <fstream>
#include <functional>
#include <httplib.h>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kprov::testing {

/// An HTTP server on 127.0.0.1 (a free port) answering every request with `handler`; every
/// request's method and target is recorded.
class HostileServer {
public:
    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
    explicit HostileServer(Handler handler)
        : m_handler(std::move(handler)) {
        const auto any = [this](const httplib::Request& req, httplib::Response& res) {
            {
                const std::lock_guard lock(m_mutex);
                m_requests.push_back(req.method + " " + req.target);
            }
            m_handler(req, res);
        };
        for (const char* pattern : {".*"}) {
            m_server.Get(pattern, any);
            m_server.Post(pattern, any);
            m_server.Put(pattern, any);
            m_server.Patch(pattern, any);
            m_server.Delete(pattern, any);
        }
        m_server.set_keep_alive_max_count(1);
        port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running())
            std::this_thread::yield();
        url = "http://127.0.0.1:" + std::to_string(port);
    }
    ~HostileServer() {
        m_server.stop();
        m_thread.join();
    }
    HostileServer(const HostileServer&) = delete;
    HostileServer& operator=(const HostileServer&) = delete;

    std::vector<std::string> requests() const {
        const std::lock_guard lock(m_mutex);
        return m_requests;
    }

    int port = 0;
    std::string url;

private:
    Handler m_handler;
    httplib::Server m_server;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_requests;
};

/// A kubeconfig for `server` with a bearer token, written to `path`; `extra_cluster` is added to
/// the cluster entry (indented YAML lines, such as "    proxy-url: http://...\n").
inline std::string write_kubeconfig(const std::string& path, const std::string& server,
                                    const std::string& extra_cluster = {}) {
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                           "clusters:\n- name: c\n  cluster:\n    server: "
                        << server << "\n"
                        << extra_cluster
                        << "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
                           "users:\n- name: u\n  user:\n    token: hostile-test-token\n";
    return path;
}

} // namespace kprov::testing
