#include "cli/bulk_runner.hpp"

#include "cli/app.hpp"
#include "cli/driver_watch.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/operation_wait.hpp"
#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "engine/run/sleeper.hpp"

#include <atomic>
#include <csignal>
#include <map>
#include <mutex>
#include <ostream>
#include <semaphore>
#include <sstream>
#include <streambuf>
#include <thread>

namespace kprov::cli {

class SharedStream::Buffer final : public std::streambuf {
public:
    explicit Buffer(std::ostream& target)
        : m_target(target) {}

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        std::lock_guard lock(m_mutex);
        m_target.put(traits_type::to_char_type(c));
        return c;
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
        std::lock_guard lock(m_mutex);
        m_target.write(text, count);
        return count;
    }
    int sync() override {
        std::lock_guard lock(m_mutex);
        m_target.flush();
        return 0;
    }

private:
    std::ostream& m_target;
    std::mutex m_mutex;
};

SharedStream::SharedStream(std::ostream& target)
    : m_buffer(std::make_unique<Buffer>(target))
    , m_stream(std::make_unique<std::ostream>(m_buffer.get())) {}

SharedStream::~SharedStream() = default;

std::ostream& SharedStream::stream() {
    return *m_stream;
}

namespace {

// Threads that wait for operations at once; more runtimes wait for a free one. A waiting
// thread sleeps until Gardener changes its shoot, and the store's connections bound what they
// do at once, so this is high.
constexpr std::size_t k_bulk_drivers = 256;

// Progress of one runtime: what ProgressDisplay would print for it alone, line by line, each
// line prefixed with the runtime's name and written whole, so that the lines of parallel
// runtimes never mix.
class RuntimeLines {
public:
    RuntimeLines(std::ostream& err, bool quiet, std::string prefix, const Clock& clock)
        : m_err(err)
        , m_quiet(quiet)
        , m_prefix(std::move(prefix))
        , m_display(m_buffer, false, clock) {}

    void update(const engine::PassResult& pass) {
        m_display.update(pass);
        flush();
    }
    void note(const std::string& text) {
        m_buffer << text << '\n';
        flush();
    }

private:
    void flush() {
        std::string text = m_buffer.str();
        m_buffer.str({});
        if (m_quiet || text.empty())
            return;
        std::string lines;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
            lines += m_prefix + line + '\n';
        m_err << lines << std::flush;
    }

    std::ostream& m_err;
    const bool m_quiet;
    const std::string m_prefix;
    std::ostringstream m_buffer;
    ProgressDisplay m_display;
};

// The names of the runtimes, padded to one width, as line prefixes.
std::vector<std::string> prefixes(const std::vector<BulkTarget>& targets) {
    std::size_t width = 0;
    for (const auto& t : targets)
        width = std::max(width, visible(t.name).size());
    std::vector<std::string> out;
    for (const auto& t : targets) {
        std::string name = visible(t.name);
        out.push_back(name + std::string(width - name.size(), ' ') + "  ");
    }
    return out;
}

std::string failure_message(const engine::Operation& op) {
    return op.last_error.message.empty() ? op.message : op.last_error.message;
}

// The result of an operation as it stands after this process stopped driving it.
BulkResult result_of(const BulkTarget& target, const engine::Operation& op, bool waited) {
    BulkResult r{target, BulkResult::Kind::Started, op, {}};
    if (op.state == engine::OperationState::Succeeded) {
        r.kind = BulkResult::Kind::Succeeded;
    } else if (op.state == engine::OperationState::Failed) {
        r.kind = BulkResult::Kind::Failed;
        r.message = failure_message(op);
    } else if (waited) {
        r.kind = BulkResult::Kind::Unfinished;
        r.message =
            "still in progress at stage " + op.stage + "; kprov wait " + op.id + " finishes it";
    } else {
        r.message = "at stage " + op.stage + "; kprov wait " + op.id + " finishes it";
    }
    return r;
}

struct Driving {
    EngineAccess& access;
    const BulkStart& start;
    const BulkOptions& options;
    engine::DriveOptions drive;
    /// Starts (and passes without --wait) that may run at once: each asks Gardener and writes.
    std::counting_semaphore<> starting;
};

// Holds one of Driving::starting's slots while it lives.
class StartSlot {
public:
    explicit StartSlot(std::counting_semaphore<>& slots)
        : m_slots(slots) {
        m_slots.acquire();
    }
    ~StartSlot() { m_slots.release(); }
    StartSlot(const StartSlot&) = delete;
    StartSlot& operator=(const StartSlot&) = delete;

private:
    std::counting_semaphore<>& m_slots;
};

// Starts one runtime's operation holding a start slot, and without --wait runs its one pass
// there too; every error becomes its result. nullopt: started, for the caller to drive.
// (The slot is a scope, not an optional released midway: GCC 12 at -O3 takes the optional's
// engaged flag for maybe-uninitialized.)
std::optional<BulkResult> start_one(Driving& d, const BulkTarget& target, RuntimeLines& lines,
                                    engine::Operation& op) {
    const StartSlot slot(d.starting);
    engine::StartedOperation started;
    try {
        started = d.start(d.access, target.id);
    } catch (const RuntimeProtected& e) {
        return BulkResult{target, BulkResult::Kind::Refused, std::nullopt, e.what()};
    } catch (const OperationInProgress& e) {
        return BulkResult{target, BulkResult::Kind::InProgress, std::nullopt,
                          explain_in_progress(d.access.store(), e).what()};
    } catch (const std::exception& e) {
        return BulkResult{target, BulkResult::Kind::Error, std::nullopt, e.what()};
    }
    for (const auto& warning : started.warnings)
        lines.note("warning: " + warning);
    op = std::move(started.operation);
    lines.note(std::string(engine::to_api(op.type)) + " operation " + op.id + " started");
    if (d.options.wait)
        return std::nullopt;
    try {
        return result_of(
            target, d.access.executor().run_operation(op.id, d.access.owner()).operation, false);
    } catch (const std::exception& e) {
        return BulkResult{target, BulkResult::Kind::Error, op, e.what()};
    }
}

// Starts and drives one runtime's operation; every error becomes its result.
BulkResult run_one(Driving& d, const BulkTarget& target, engine::SystemSleeper& sleeper,
                   RuntimeLines& lines) {
    engine::Operation op;
    if (auto done = start_one(d, target, lines, op))
        return std::move(*done);
    // The start slot is free again: waiting is mostly sleeping, every runtime waits at once.
    try {
        engine::DriveOptions drive = d.drive;
        drive.on_progress = [&lines](const engine::PassResult& pass) {
            lines.update(pass);
        };
        return result_of(
            target, d.access.executor().drive(op.id, d.access.owner(), sleeper, drive).operation,
            true);
    } catch (const std::exception& e) {
        return BulkResult{target, BulkResult::Kind::Error, op, e.what()};
    }
}

} // namespace

BulkOutcome run_in_parallel(EngineAccess& access, std::ostream& err, bool quiet,
                            const std::vector<BulkTarget>& targets, const BulkStart& start,
                            const BulkOptions& options) {
    BulkOutcome outcome;
    outcome.results.resize(targets.size());
    if (targets.empty())
        return outcome;
    std::vector<std::unique_ptr<engine::SystemSleeper>> sleepers;
    std::map<std::string, engine::SystemSleeper*> by_shoot;
    for (const auto& t : targets) {
        sleepers.push_back(std::make_unique<engine::SystemSleeper>(access.clock()));
        if (!t.shoot.empty())
            by_shoot[t.shoot] = sleepers.back().get();
    }
    // One watch for all the runtimes waited for: a shoot's change wakes its runtime's driver.
    std::optional<DriverWatch> watch;
    if (options.wait && !by_shoot.empty())
        watch.emplace(access, by_shoot, FeedWatched::Yes);

    std::stop_source stop;
    Driving driving{
        access, start, options, {}, std::counting_semaphore<>(std::max(1, options.parallelism))};
    driving.drive.stop = stop.get_token();
    if (options.timeout)
        driving.drive.deadline = access.clock().now() +
                                 std::chrono::duration_cast<Timestamp::duration>(*options.timeout);
    const auto names = prefixes(targets);
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < targets.size(); i = next++) {
            RuntimeLines lines(err, quiet, names[i], access.clock());
            outcome.results[i] = run_one(driving, targets[i], *sleepers[i], lines);
        }
    };
    {
        std::optional<InterruptScope> interrupt;
        if (options.wait)
            interrupt.emplace(stop, std::function<void()>{});
        {
            std::vector<std::jthread> threads;
            const std::size_t count = std::min<std::size_t>(targets.size(), k_bulk_drivers);
            for (std::size_t i = 0; i < count; ++i)
                threads.emplace_back(work);
        } // joined here
        if (interrupt)
            outcome.signal_number = interrupt->signal_number();
    }
    return outcome;
}

std::string summary_text(const std::vector<BulkResult>& results) {
    using Kind = BulkResult::Kind;
    const std::vector<std::pair<Kind, const char*>> k_words = {
        {Kind::Succeeded, "succeeded"}, {Kind::Started, "started"},
        {Kind::Failed, "failed"},       {Kind::Unfinished, "still in progress"},
        {Kind::Refused, "refused"},     {Kind::InProgress, "refused (operation in progress)"},
        {Kind::Error, "error"}};
    std::string out;
    for (const auto& [kind, word] : k_words) {
        const auto n = std::count_if(results.begin(), results.end(),
                                     [kind = kind](const BulkResult& r) { return r.kind == kind; });
        if (n > 0)
            out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + word;
    }
    return std::to_string(results.size()) + " runtime" + (results.size() == 1 ? "" : "s") +
           (out.empty() ? "" : ": " + out);
}

int bulk_exit_code(const std::vector<BulkResult>& results, int signal_number) {
    using Kind = BulkResult::Kind;
    auto any = [&results](Kind kind) {
        return std::any_of(results.begin(), results.end(),
                           [kind](const BulkResult& r) { return r.kind == kind; });
    };
    if (std::all_of(results.begin(), results.end(), [](const BulkResult& r) {
            return r.kind == Kind::Succeeded || r.kind == Kind::Started;
        }))
        return k_exit_ok;
    if (signal_number != 0)
        return signal_number == SIGTERM ? k_exit_terminated : k_exit_interrupted;
    if (any(Kind::Failed))
        return k_exit_operation_failed;
    if (any(Kind::Refused) || any(Kind::Error))
        return k_exit_error;
    if (any(Kind::InProgress))
        return k_exit_in_progress;
    return k_exit_timeout;
}

} // namespace kprov::cli
