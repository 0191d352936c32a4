#pragma once
// Running the built binaries as child processes for black-box tests: a command run to its end
// (output and peak memory captured), or a long-running one (kprov watch) that a test signals
// and kills.

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kprov::testing {

/// A child process with its stdout and stderr appended to files. Killed (SIGKILL) and reaped at
/// destruction if still running.
class ChildProcess {
public:
    /// `argv[0]` is the program's path; `env` the whole environment ("NAME=value").
    ChildProcess(std::vector<std::string> argv, std::vector<std::string> env,
                 const std::string& out_path, const std::string& err_path) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                         O_WRONLY | O_CREAT | O_APPEND, 0600);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                         O_WRONLY | O_CREAT | O_APPEND, 0600);
        std::vector<char*> args, envp;
        for (auto& a : argv)
            args.push_back(a.data());
        args.push_back(nullptr);
        for (auto& e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        const int rc =
            posix_spawn(&m_pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0)
            throw std::runtime_error("cannot start " + argv[0]);
    }
    ~ChildProcess() {
        if (m_pid > 0 && !m_status) {
            ::kill(m_pid, SIGKILL);
            wait();
        }
    }
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return m_pid; }
    void signal(int sig) {
        if (!m_status)
            ::kill(m_pid, sig);
    }
    /// The exit code, or 128 + the signal that ended it.
    int wait() {
        while (!m_status) {
            int status = 0;
            if (wait4(m_pid, &status, 0, &m_usage) == m_pid)
                m_status = decode(status);
            else if (errno != EINTR)
                m_status = -1;
        }
        return *m_status;
    }
    /// As wait(), but nullopt when it is still running after `limit`.
    std::optional<int> wait_for(std::chrono::milliseconds limit) {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!m_status) {
            int status = 0;
            if (wait4(m_pid, &status, WNOHANG, &m_usage) == m_pid) {
                m_status = decode(status);
                break;
            }
            if (std::chrono::steady_clock::now() > until)
                return std::nullopt;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return m_status;
    }
    /// The child's peak resident memory (KiB), once it has been reaped; 0 before.
    long max_rss_kib() const { return m_status ? m_usage.ru_maxrss : 0; }

private:
    static int decode(int status) {
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    pid_t m_pid = -1;
    std::optional<int> m_status;
    rusage m_usage{};
};

struct ProcessResult {
    int exit_code = -1; ///< 128 + signal when a signal ended it; -1 when killed at the limit
    std::string out;
    std::string err;
    long max_rss_kib = 0; ///< the child's peak resident memory
    double seconds = 0;
};

/// This process's environment without kprov's and the original's settings (KPROV_*, APP_*) and
/// the XDG directories, for a child that gets only the test's own.
inline std::vector<std::string> environment_without_settings() {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        if (entry.rfind("KPROV_", 0) != 0 && entry.rfind("APP_", 0) != 0 &&
            entry.rfind("XDG_", 0) != 0)
            env.push_back(entry);
    }
    return env;
}

/// environment_without_settings() without HOME, then `settings` ("NAME", "value"): the whole
/// environment of a child that gets the test's own directories and settings.
inline std::vector<std::string>
environment_with(const std::vector<std::pair<std::string, std::string>>& settings) {
    std::vector<std::string> env;
    for (auto& entry : environment_without_settings())
        if (entry.rfind("HOME=", 0) != 0)
            env.push_back(std::move(entry));
    for (const auto& [name, value] : settings)
        env.push_back(name + "=" + value);
    return env;
}

/// The lines of `text` (a child's output or log), without their line ends.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// examples/gcp.yaml, the runtime file the hostile-input tests start from.
inline std::string example_runtime() {
    return read_text(KPROV_SOURCE_DIR "/examples/gcp.yaml");
}

/// Runs the command to its end (killed after `limit`), with stdout and stderr captured through
/// files in `scratch_dir`, its peak memory and how long it ran.
inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env,
                                 const std::string& scratch_dir,
                                 std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    static std::atomic<int> counter{0};
    const std::string base = scratch_dir + "/run-" + std::to_string(++counter);
    ProcessResult result;
    const auto start = std::chrono::steady_clock::now();
    {
        ChildProcess child(argv, env, base + ".out", base + ".err");
        const auto code = child.wait_for(limit);
        if (!code) {
            child.signal(SIGKILL);
            child.wait();
        }
        result.exit_code = code.value_or(-1);
        result.max_rss_kib = child.max_rss_kib();
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
