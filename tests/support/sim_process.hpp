#pragma once
// Runs the kprov-sim binary for a test: starts it on a free loopback port, reads its URL from
// the first line of its stdout, and stops it (SIGTERM) at destruction. It writes a kubeconfig of
// its Gardener API and one of its KCP (<url>/kcp) into a directory of its own.

#include "support/test_databases.hpp"

#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kprov::testing {

/// Where kprov-sim was built: KPROV_SIM_BINARY, else beside the test executable; "" if absent.
inline std::string find_sim_binary() {
#ifdef KPROV_SIM_BINARY
    if (std::filesystem::exists(KPROV_SIM_BINARY))
        return KPROV_SIM_BINARY;
#endif
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec && std::filesystem::exists(self.parent_path() / "kprov-sim"))
        return (self.parent_path() / "kprov-sim").string();
    return {};
}

class SimProcess {
public:
    /// Starts `binary` with `flags` plus --listen, --kubeconfig-out and --kcp-kubeconfig-out.
    /// Throws std::runtime_error when it does not print its URL within 20 s.
    SimProcess(const std::string& binary, std::vector<std::string> flags) {
        kubeconfig = std::filesystem::path(dir.path()) / "kubeconfig";
        kcp_kubeconfig = std::filesystem::path(dir.path()) / "kcp-kubeconfig";
        flags.insert(flags.begin(),
                     {binary, "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig.string(),
                      "--kcp-kubeconfig-out", kcp_kubeconfig.string()});
        int out[2];
        if (pipe(out) != 0)
            throw std::runtime_error("pipe failed");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        const std::string log = (std::filesystem::path(dir.path()) / "sim.log").string();
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0600);
        std::vector<char*> argv;
        for (auto& f : flags)
            argv.push_back(f.data());
        argv.push_back(nullptr);
        const int rc = posix_spawn(&m_pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(out[1]);
        m_stdout = out[0];
        if (rc != 0)
            throw std::runtime_error("cannot start " + binary);
        url = read_line(std::chrono::seconds(20));
        if (url.empty())
            throw std::runtime_error("kprov-sim printed no URL; see " + log);
    }
    ~SimProcess() {
        if (m_pid > 0) {
            kill(m_pid, SIGTERM);
            int status = 0;
            waitpid(m_pid, &status, 0);
        }
        if (m_stdout >= 0)
            close(m_stdout);
    }
    SimProcess(const SimProcess&) = delete;
    SimProcess& operator=(const SimProcess&) = delete;

    pid_t pid() const { return m_pid; }

    TempDir dir;
    std::filesystem::path kubeconfig;
    std::filesystem::path kcp_kubeconfig; ///< the KCP cluster API's (<url>/kcp)
    std::string url;

private:
    std::string read_line(std::chrono::seconds timeout) {
        std::string line;
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < until) {
            pollfd p{m_stdout, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0)
                continue;
            char c = 0;
            if (read(m_stdout, &c, 1) != 1)
                break;
            if (c == '\n')
                return line;
            line += c;
        }
        return {};
    }

    pid_t m_pid = -1;
    int m_stdout = -1;
};

} // namespace kprov::testing
