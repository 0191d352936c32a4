#pragma once
// Issue 32's attacker: a small HTTP server on loopback that plays Gardener (or a release
// server, or a proxy) and answers what a test tells it to; a kubeconfig that points kprov at it;
// and a run of the built kprov that reports its peak memory (getrusage of the child, wait4).

#include "cli/child_process.hpp"

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <httplib.h>
#include <mutex>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
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

struct MeasuredResult {
    int exit_code = -1; ///< 128 + signal when a signal ended it; -1 when killed at the limit
    std::string out;
    std::string err;
    long max_rss_kib = 0; ///< the child's peak resident memory
    double seconds = 0;
};

/// Runs the command to its end as run_process does (killed after `limit`), with its peak memory.
inline MeasuredResult run_measured(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env,
                                   const std::string& scratch_dir,
                                   std::chrono::milliseconds limit = std::chrono::seconds(60)) {
    static std::atomic<int> counter{0};
    const std::string base = scratch_dir + "/measured-" + std::to_string(++counter);
    MeasuredResult result;
    std::vector<std::string> args = argv, envs = env;
    std::vector<char*> a, e;
    for (auto& s : args)
        a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : envs)
        e.push_back(s.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (base + ".out").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (base + ".err").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    const auto start = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, a[0], &actions, nullptr, a.data(), e.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return result;
    const auto until = start + limit;
    for (;;) {
        int status = 0;
        rusage usage{};
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        if (done == pid) {
            result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            result.max_rss_kib = usage.ru_maxrss;
            break;
        }
        if (std::chrono::steady_clock::now() > until) {
            ::kill(pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
            result.exit_code = -1;
            result.max_rss_kib = usage.ru_maxrss;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.out = read_text(base + ".out");
    result.err = read_text(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    return result;
}

} // namespace kprov::testing
