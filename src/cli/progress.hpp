#pragma once
// What `--wait` and `kprov wait` show while they drive an operation, and how they stop on
// SIGINT without losing it.

#include "engine/executor.hpp"

#include <atomic>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <signal.h>
#include <stop_token>
#include <string>
#include <thread>

namespace kprov::cli {

/// Whether `err` is this process's std::cerr and standard error is a terminal (in-process
/// tests pass string streams: never a terminal).
bool is_terminal(const std::ostream& err);

/// What an operation's message says of a Kyma installation under way ("install component
/// istio", or "Installation error occurred: ..."); "" for any other message.
std::string installer_progress(const engine::Operation& op);

/// Progress on stderr (ARCHITECTURE.md, CLI contract). On a terminal one line redrawn in
/// place, "<stage> · <elapsed> · Gardener <progress>%" (or " · <installer_progress>");
/// otherwise one such line per stage change and per installer progress change. Either way a retried
/// error is shown once on its own line, and so is the fact that another worker drives the
/// operation. Thread-safe.
class ProgressDisplay {
public:
    ProgressDisplay(std::ostream& err, bool terminal, const Clock& clock);

    /// Executor::drive's on_progress.
    void update(const engine::PassResult& pass);
    /// Redraws the line with the current elapsed time (terminal only; call about once a second).
    void tick();
    /// Ends the line being redrawn, so that what follows starts on a line of its own.
    void finish();

private:
    std::string line() const;
    void draw();

    std::ostream& m_err;
    const bool m_terminal;
    const Clock& m_clock;
    std::mutex m_mutex;
    std::optional<engine::Operation> m_operation;
    std::optional<int> m_gardener_progress;
    std::string m_stage_shown;
    std::string m_detail_shown;
    std::string m_error_shown;
    bool m_follow_shown = false;
    bool m_line_open = false;
};

/// "12s", "3m05s", "1h02m03s": elapsed time as the progress line shows it.
std::string format_elapsed(std::chrono::seconds elapsed);

/// While it lives, SIGINT requests a stop of `stop` instead of ending the process (a second
/// SIGINT ends it as before), and `tick` runs about once a second on a helper thread. The
/// previous SIGINT disposition returns at destruction. One at a time per process.
class InterruptScope {
public:
    InterruptScope(std::stop_source stop, std::function<void()> tick);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    /// Whether a SIGINT arrived.
    bool interrupted() const { return m_interrupted; }

private:
    void run();
    void restore();

    std::stop_source m_stop;
    std::function<void()> m_tick;
    int m_pipe[2] = {-1, -1};
    struct sigaction m_previous = {};
    std::once_flag m_restored;
    std::atomic<bool> m_interrupted{false};
    std::thread m_thread;
};

} // namespace kprov::cli
