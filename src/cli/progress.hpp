#pragma once
// What `--wait` and `kprov wait` show while they drive an operation, and how they stop on
// SIGINT without losing it.

#include "engine/run/executor.hpp"

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
    /// `width`: the terminal's columns; a redrawn line is cut to width - 1 columns so that it
    /// never wraps (a wrapped line is left behind at each redraw). 0: no limit.
    ProgressDisplay(std::ostream& err, bool terminal, const Clock& clock, int width = 0);

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
    const int m_width;
    /// Whether Gardener was seen processing during this display: until then a finished
    /// lastOperation is the previous operation's, and its 100% is not shown.
    bool m_gardener_active = false;
    std::mutex m_mutex;
    std::optional<engine::Operation> m_operation;
    std::optional<int> m_gardener_progress;
    std::string m_stage_shown;
    std::string m_detail_shown;
    std::string m_error_shown;
    bool m_follow_shown = false;
    bool m_line_open = false;
};

/// The columns of the terminal on standard error (TIOCGWINSZ), else $COLUMNS, else 0.
int terminal_width();

/// `text` cut to at most `columns` characters (UTF-8 code points), "…" marking a cut; `text`
/// itself when columns <= 0.
std::string fit_columns(const std::string& text, int columns);

/// "12s", "3m05s", "1h02m03s": elapsed time as the progress line shows it.
std::string format_elapsed(std::chrono::seconds elapsed);

/// While it lives, SIGINT and SIGTERM request a stop of `stop` instead of ending the process (a
/// second signal ends it as before), and `tick` runs about once a second on a helper thread.
/// The previous dispositions return at destruction. One at a time per process.
class InterruptScope {
public:
    InterruptScope(std::stop_source stop, std::function<void()> tick);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    /// Whether SIGINT or SIGTERM arrived.
    bool interrupted() const { return m_signal != 0; }
    /// The signal that arrived first (SIGINT or SIGTERM); 0 for none.
    int signal_number() const { return m_signal; }

private:
    void run();
    void restore();

    std::stop_source m_stop;
    std::function<void()> m_tick;
    int m_pipe[2] = {-1, -1};
    struct sigaction m_previous_int = {};
    struct sigaction m_previous_term = {};
    std::once_flag m_restored;
    std::atomic<int> m_signal{0};
    std::thread m_thread;
};

} // namespace kprov::cli
