#pragma once
// The engine's workers (ARCHITECTURE.md, Engine): N threads sharing one Executor, each claiming
// one due operation at a time from the store and running one pass of it. Between claims an idle
// worker sleeps until the earliest stored next_run_at, a wake-up (notify_due, a shoot event) or
// `max_idle`, whichever comes first, so that operations another process starts are seen within
// `max_idle` even without events.
//
// Claiming one operation at a time keeps a long pass on one thread from holding back others:
// every idle thread can take the next due operation. A pass that ends waiting or succeeded
// claims its worker's next operation in its save's store transaction
// (Store::save_progress_and_claim_next); a failed pass, a lost lease or a store failure falls
// back to a claim of its own. Due operations form two queues, new ones
// and re-checks (a waiting stage an event made due, a retry), each soonest due first; a
// worker's claims take turns between them (WorkerPoolOptions::new_first_every), so neither a
// burst of new operations nor a flood of re-checks holds the other queue back.
//
// A shoot event makes the operations of its runtime due at once (Store::make_due). The watch
// only hands events over: one flusher thread writes them in batches, so a burst of events (a
// thousand shoots finishing together) costs a few store writes, and the watch never waits for
// the store and never falls behind its stream. An event that arrives while this process runs a
// pass of that runtime's operation would be overwritten by the pass's own next_run_at; the pool
// makes such an operation due again after the pass.
//
// The pool remembers at which stage its own passes left each operation waiting. An event whose
// shoot cannot move that stage (shoot_change_may_move: a creation still under way) makes
// nothing due: the pass would only have waited again. An event for an operation that a pass
// here is running is judged when that pass ends, against the stage it ends at. Operations this
// process has not run, or whose last pass here did not end waiting, are made due by every
// event.
//
// Thread-safe: notify_due and on_shoot_events may be called from any thread.

#include "engine/ports.hpp"
#include "engine/run/executor.hpp"
#include "engine/store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kprov::engine {

struct WorkerPoolOptions {
    int workers = 4;
    /// Lease owners are "<owner_prefix>-<n>", n = 1..workers: the prefix must be unique to
    /// the process (host, pid and something random, as the CLI's new_owner_id makes it).
    std::string owner_prefix = "worker";
    /// The longest an idle worker sleeps before it looks at the store again.
    std::chrono::milliseconds max_idle{1000};
    /// How long an idle worker sleeps when the earliest due operation is leased by someone else
    /// (another thread's or process's pass is running it) or the store failed.
    std::chrono::milliseconds busy_poll{200};
    /// Each worker's claims alternate between the two queues of due operations: one claim in
    /// `new_first_every` takes new operations first, the others take re-checks first (a
    /// waiting stage a shoot event made due, a retry). So a new operation is picked up within a
    /// few passes however many re-checks are due, and an operation whose shoot is ready is not
    /// held back by a burst of new ones. Workers start at different points of the cycle.
    int new_first_every = 4;
    /// At start, make every in-progress operation due (APP_ENQUEUE_IN_PROGRESS_OPERATIONS):
    /// while no process watched, shoots may have changed or vanished unseen, and a first list
    /// cannot show what vanished. Off: they run at their stored next_run_at.
    bool catch_up_on_start = true;
};

/// What the workers have done since start, for logs and tests.
struct WorkerPoolStats {
    std::uint64_t passes = 0;     ///< passes run (any outcome but NotClaimed)
    std::uint64_t succeeded = 0;  ///< operations finished Succeeded
    std::uint64_t failed = 0;     ///< operations finished Failed
    std::uint64_t lease_lost = 0; ///< passes that lost their lease to another worker
    std::uint64_t store_errors = 0;
    std::uint64_t events = 0; ///< shoot events received
    /// Events that made nothing due: their shoot could not move the waiting stage.
    std::uint64_t events_ignored = 0;
};

class WorkerPool {
public:
    /// Does not start the threads (start()). `executor` and `store` must outlive the pool; the
    /// store must be the executor's.
    WorkerPool(Executor& executor, Store& store, const Clock& clock, WorkerPoolOptions options);
    /// stop().
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// With catch_up_on_start, makes every operation in progress due (a store failure is
    /// logged, not thrown); then starts the worker threads. Calling it twice is a no-op.
    void start();

    /// Graceful stop: no new claims; passes in flight run to their end (their save releases
    /// their lease); returns when every thread has ended. Idempotent.
    void stop();

    /// Wakes every idle worker to look for due operations now (an operation was started).
    void notify_due();

    /// Queues the events' runtimes for the flusher, which makes their operations due and wakes
    /// workers; returns at once. Events without a runtime id (shoots kprov did not create) are
    /// ignored: those operations poll. A failed make_due is retried after `busy_poll`. Before
    /// start(), events wait for it (start() makes every operation due anyway).
    void on_shoot_events(const std::vector<ShootEvent>& events);

    WorkerPoolStats stats() const;
    /// The lease owner of worker n (1-based).
    std::string owner_of(int worker) const;
    const WorkerPoolOptions& options() const { return m_options; }

private:
    void work(std::stop_token stop, int index);
    /// The flusher: makes the queued runtimes' operations due, many in one store write.
    void flush_events(std::stop_token stop);
    void catch_up();
    enum class Claim { Ran, NoneDue, StoreFailed };
    /// Claims one due operation and runs a pass of it, and then of each operation a pass's
    /// save claimed next (Store::save_progress_and_claim_next).
    Claim run_one(std::stop_token stop, const std::string& owner, int index);
    /// The queue worker `slot`'s next claim takes first (the turn of m_claims).
    ClaimOrder next_order(std::size_t slot) const;
    /// Counts and logs a pass of worker `slot` that began at event sequence `since`, and
    /// judges the events it may have missed.
    Claim account(const PassResult& r, const std::string& owner, std::size_t slot,
                  std::uint64_t since);
    /// Sleeps until the next due operation, a wake-up, `max_idle` or a stop.
    void idle(std::stop_token stop, std::chrono::milliseconds cap);
    void wake(int workers);
    /// Called after a pass of `runtime_id`'s operation that began at event sequence `since` and
    /// left it waiting at `stage`.
    void redo_if_event_missed(const std::string& runtime_id, std::uint64_t since,
                              const std::string& stage);
    /// Whether `event` can move the operation of its runtime, as far as this process knows
    /// its stage (m_waiting_at). Called with m_mutex held.
    bool may_move(const ShootEvent& event) const;
    void forget_old_events();
    void log(LogLevel level, const std::string& message) const;

    Executor& m_executor;
    Store& m_store;
    const Clock& m_clock;
    WorkerPoolOptions m_options;

    std::mutex m_mutex; ///< guards the members up to m_threads
    std::condition_variable_any m_cv;
    int m_wakeups = 0; ///< workers to wake, at most options.workers
    std::uint64_t m_event_sequence = 0;
    /// Per runtime, its latest event and that event's sequence number; entries older than every
    /// pass in flight are dropped.
    struct LastEvent {
        std::uint64_t sequence = 0;
        ShootEvent event;
    };
    std::unordered_map<std::string, LastEvent> m_last_event;
    /// Per runtime, the stage where this process's last pass left its operation waiting.
    std::unordered_map<std::string, std::string> m_waiting_at;
    /// Per worker, the runtime whose operation its pass runs ("" when none). Events for those
    /// are judged after the pass, against the stage it ends at (redo_if_event_missed).
    std::vector<std::string> m_in_pass;
    std::size_t m_prune_at = 0; ///< m_last_event is pruned when it grows to this size
    /// Per worker, the event sequence when its pass began; UINT64_MAX when it runs none.
    std::vector<std::uint64_t> m_pass_since;
    /// Per worker, its claims so far (only its own thread touches its entry).
    std::vector<std::uint64_t> m_claims;
    /// Runtimes with shoot events not yet written by the flusher.
    std::unordered_set<std::string> m_pending_due;
    std::condition_variable_any m_flush_cv;
    std::vector<std::jthread> m_threads; ///< the workers, then the flusher

    std::atomic<std::uint64_t> m_passes{0}, m_succeeded{0}, m_failed{0}, m_lease_lost{0},
        m_store_errors{0}, m_events{0}, m_events_ignored{0};
};

} // namespace kprov::engine
