#include "cli/progress.hpp"

#include "engine/error.hpp"
#include "engine/stages/stages.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

namespace kprov::cli {
namespace {

constexpr const char* k_clear_line = "\r\033[2K";

// The write end of the self-pipe, for the signal handler.
std::atomic<int> g_interrupt_fd{-1};

extern "C" void on_interrupt(int sig) {
    const int saved = errno;
    const int fd = g_interrupt_fd.load();
    if (fd >= 0) {
        const char c = sig == SIGTERM ? 't' : 'i';
        [[maybe_unused]] const auto ignored = write(fd, &c, 1);
    }
    errno = saved;
}

} // namespace

std::string installer_progress(const engine::Operation& op) {
    // The messages WaitingForInstallation writes (kyma-installation.md §2.5).
    constexpr std::string_view prefix = "Installation in progress: ";
    if (op.state != engine::OperationState::InProgress)
        return {};
    const std::string_view message = op.message;
    if (message.substr(0, prefix.size()) == prefix)
        return std::string(message.substr(prefix.size()));
    if (message.substr(0, 13) == "Installation ")
        return std::string(message);
    // What the Kyma Lifecycle Manager stages report: "3/5 modules ready: serverless Processing".
    if ((op.stage == engine::k_stage_waiting_for_kyma_ready ||
         op.stage == engine::k_stage_waiting_for_kyma_deletion) &&
        message.substr(0, 22) != "Operation in progress.")
        return std::string(message);
    return {};
}

bool is_terminal(const std::ostream& err) {
    return &err == &std::cerr && isatty(STDERR_FILENO) == 1;
}

int terminal_width() {
    winsize size = {};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
        const int n = std::atoi(columns);
        if (n > 0 && n < 10'000)
            return n;
    }
    return 0;
}

std::string fit_columns(const std::string& text, int columns) {
    if (columns <= 0)
        return text;
    // Byte offsets of the code points: a continuation byte (10xxxxxx) starts none.
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U)
            starts.push_back(i);
    if (starts.size() <= static_cast<std::size_t>(columns))
        return text;
    return text.substr(0, starts[static_cast<std::size_t>(columns - 1)]) + "…";
}

std::string format_elapsed(std::chrono::seconds elapsed) {
    const long long total = std::max<long long>(0, elapsed.count());
    const long long h = total / 3600, m = total / 60 % 60, s = total % 60;
    char text[48];
    if (h > 0)
        std::snprintf(text, sizeof text, "%lldh%02lldm%02llds", h, m, s);
    else if (m > 0)
        std::snprintf(text, sizeof text, "%lldm%02llds", m, s);
    else
        std::snprintf(text, sizeof text, "%llds", s);
    return text;
}

ProgressDisplay::ProgressDisplay(std::ostream& err, bool terminal, const Clock& clock, int width)
    : m_err(err)
    , m_terminal(terminal)
    , m_clock(clock)
    , m_width(width) {}

std::string ProgressDisplay::line() const {
    const auto& op = *m_operation;
    std::string text = op.stage.empty() ? std::string(engine::to_api(op.state)) : op.stage;
    if (op.state != engine::OperationState::InProgress)
        text += " (" + std::string(engine::to_api(op.state)) + ")";
    text += " · " + format_elapsed(std::chrono::duration_cast<std::chrono::seconds>(
                        m_clock.now() - op.start_timestamp));
    if (m_gardener_progress)
        text += " · Gardener " + std::to_string(*m_gardener_progress) + "%";
    if (const auto detail = installer_progress(op); !detail.empty())
        text += " · " + detail;
    return text;
}

// Called with m_mutex held.
void ProgressDisplay::draw() {
    if (m_terminal) {
        std::string text = line();
        // Too wide: the percentage matters more than the word before it.
        if (m_width > 0 && fit_columns(text, m_width - 1) != text)
            if (const auto at = text.find(" · Gardener "); at != std::string::npos)
                text.erase(at + std::string_view(" · ").size(),
                           std::string_view("Gardener ").size());
        m_err << k_clear_line << fit_columns(text, m_width - 1) << std::flush;
        m_line_open = true;
    } else if (m_operation->stage != m_stage_shown ||
               installer_progress(*m_operation) != m_detail_shown) {
        m_err << line() << '\n' << std::flush;
    }
    m_stage_shown = m_operation->stage;
    m_detail_shown = installer_progress(*m_operation);
}

void ProgressDisplay::update(const engine::PassResult& pass) {
    std::lock_guard lock(m_mutex);
    const bool stage_changed = m_operation && m_operation->stage != pass.operation.stage;
    m_operation = pass.operation;
    if (pass.shoot_operation && pass.shoot_operation->state != "Succeeded")
        m_gardener_active = true;
    if (pass.shoot_operation && m_gardener_active)
        m_gardener_progress = pass.shoot_operation->progress;
    else if (stage_changed)
        m_gardener_progress.reset(); // a new stage: the old percentage says nothing about it
    auto note = [&](const std::string& text) {
        if (m_line_open)
            m_err << k_clear_line;
        m_err << text << '\n';
        m_line_open = false;
    };
    const auto& lease = pass.operation.lease;
    if (pass.outcome == engine::PassOutcome::NotClaimed &&
        pass.operation.state == engine::OperationState::InProgress && lease && !m_follow_shown) {
        note("another worker (" + lease->owner + ") drives this operation; following it");
        m_follow_shown = true;
    }
    const std::string& error = pass.outcome == engine::PassOutcome::Waiting
                                   ? pass.error
                                   : pass.operation.last_error.message;
    if (pass.operation.state == engine::OperationState::InProgress && !error.empty() &&
        error != m_error_shown)
        note(pass.operation.stage + ": " + error + " (retrying)");
    m_error_shown = error;
    draw();
}

void ProgressDisplay::tick() {
    std::lock_guard lock(m_mutex);
    if (m_terminal && m_operation)
        draw();
}

void ProgressDisplay::finish() {
    std::lock_guard lock(m_mutex);
    if (m_line_open)
        m_err << '\n' << std::flush;
    m_line_open = false;
}

InterruptScope::InterruptScope(std::stop_source stop, std::function<void()> tick)
    : m_stop(std::move(stop))
    , m_tick(std::move(tick)) {
    if (pipe2(m_pipe, O_CLOEXEC) != 0)
        throw Error("cannot create a pipe for SIGINT handling");
    fcntl(m_pipe[1], F_SETFL, O_NONBLOCK);
    g_interrupt_fd.store(m_pipe[1]);
    struct sigaction action = {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, &m_previous_int);
    sigaction(SIGTERM, &action, &m_previous_term);
    m_thread = std::thread([this] { run(); });
}

InterruptScope::~InterruptScope() {
    const char quit = 'q';
    [[maybe_unused]] const auto ignored = write(m_pipe[1], &quit, 1);
    m_thread.join();
    restore();
    g_interrupt_fd.store(-1);
    close(m_pipe[0]);
    close(m_pipe[1]);
}

void InterruptScope::restore() {
    std::call_once(m_restored, [this] {
        sigaction(SIGINT, &m_previous_int, nullptr);
        sigaction(SIGTERM, &m_previous_term, nullptr);
    });
}

void InterruptScope::run() {
    for (;;) {
        pollfd p{m_pipe[0], POLLIN, 0};
        const int ready = poll(&p, 1, 1000);
        if (ready == 0) {
            if (m_tick)
                m_tick();
            continue;
        }
        char c = 0;
        if (ready < 0 || read(m_pipe[0], &c, 1) != 1) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (c == 'q')
            return;
        int expected = 0;
        m_signal.compare_exchange_strong(expected, c == 't' ? SIGTERM : SIGINT);
        m_stop.request_stop();
        restore(); // a second signal ends the process as usual
    }
}

} // namespace kprov::cli
