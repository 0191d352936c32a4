#include "engine/run/worker_pool.hpp"

#include "engine/error.hpp"
#include "engine/util/thread_log_fields.hpp"

#include <algorithm>
#include <limits>

namespace kprov::engine {
namespace {

constexpr std::uint64_t k_no_pass = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t k_min_event_memory = 1024;
constexpr std::size_t k_max_waiting_entries = 100'000;

// Whether `event` can move an operation waiting at `stage` ("" when unknown: any event can).
// A deletion, or an event without the shoot, always can.
bool may_move_at(const ShootEvent& event, const std::string& stage) {
    return event.deleted || !event.state || shoot_change_may_move(stage, *event.state);
}

std::string describe(const PassResult& r, const std::string& owner) {
    std::string text = owner + ": operation " + r.operation.id + " (" +
                       std::string(to_api(r.operation.type)) + " of runtime " +
                       r.operation.cluster_id + ")";
    switch (r.outcome) {
    case PassOutcome::Succeeded:
        return text + " succeeded";
    case PassOutcome::Failed:
        return text + " failed: " + r.operation.message;
    case PassOutcome::Waiting:
        return text + " waits at " + r.operation.stage +
               (r.error.empty() ? std::string() : " after an error: " + r.error);
    case PassOutcome::LeaseLost:
        return text + ": lease lost to another worker";
    case PassOutcome::StoreFailed:
        return text + ": the store failed: " + r.error;
    case PassOutcome::NotClaimed:
        break;
    }
    return text + " was not run";
}

} // namespace

WorkerPool::WorkerPool(Executor& executor, Store& store, const Clock& clock,
                       WorkerPoolOptions options)
    : m_executor(executor)
    , m_store(store)
    , m_clock(clock)
    , m_options(std::move(options)) {
    m_options.workers = std::max(1, m_options.workers);
    m_options.new_first_every = std::max(1, m_options.new_first_every);
    m_pass_since.assign(static_cast<std::size_t>(m_options.workers), k_no_pass);
    m_claims.assign(static_cast<std::size_t>(m_options.workers), 0);
    m_in_pass.assign(static_cast<std::size_t>(m_options.workers), std::string());
}

WorkerPool::~WorkerPool() {
    stop();
}

void WorkerPool::start() {
    if (!m_threads.empty())
        return;
    if (m_options.catch_up_on_start)
        catch_up();
    for (int i = 0; i < m_options.workers; ++i)
        m_threads.emplace_back([this, i](std::stop_token stop) { work(stop, i); });
    m_threads.emplace_back([this](std::stop_token stop) { flush_events(stop); });
    log(LogLevel::Info, std::to_string(m_options.workers) + " workers started (" + owner_of(1) +
                            (m_options.workers > 1 ? " .. " + owner_of(m_options.workers) : "") +
                            ")");
}

void WorkerPool::stop() {
    if (m_threads.empty())
        return;
    for (auto& t : m_threads)
        t.request_stop();
    m_cv.notify_all();
    m_flush_cv.notify_all();
    for (auto& t : m_threads)
        t.join();
    m_threads.clear();
    log(LogLevel::Info, "workers stopped");
}

std::string WorkerPool::owner_of(int worker) const {
    return m_options.owner_prefix + "-" + std::to_string(worker);
}

void WorkerPool::work(std::stop_token stop, int index) {
    const std::string owner = owner_of(index + 1);
    const LogFieldsScope component({{"component", "worker"}});
    while (!stop.stop_requested()) {
        try {
            switch (run_one(stop, owner, index)) {
            case Claim::Ran:
                continue;
            case Claim::NoneDue:
                idle(stop, m_options.max_idle);
                break;
            case Claim::StoreFailed: // do not hammer a store that just failed
                idle(stop, m_options.busy_poll);
                break;
            }
        } catch (const std::exception& e) {
            // A failed claim (StoreError) or a bug: the worker must live on either way, and
            // not spin.
            ++m_store_errors;
            log(LogLevel::Error, owner + ": " + e.what());
            idle(stop, m_options.busy_poll);
        }
    }
}

void WorkerPool::catch_up() {
    try {
        RuntimeFilter filter;
        filter.state = OperationState::InProgress;
        std::vector<std::string> runtime_ids;
        for (const auto& summary : m_store.list_runtimes(filter))
            runtime_ids.push_back(summary.id);
        const int touched = m_store.make_due(runtime_ids, m_clock.now());
        if (touched > 0) {
            log(LogLevel::Info, std::to_string(touched) +
                                    (touched == 1 ? " operation" : " operations") +
                                    " in progress resume now");
            wake(touched);
        }
    } catch (const std::exception& e) {
        log(LogLevel::Warning, std::string("resuming operations in progress: ") + e.what() +
                                   "; they run at their scheduled times");
    }
}

ClaimOrder WorkerPool::next_order(std::size_t slot) const {
    const auto turn = m_claims[slot] + slot;
    return turn % static_cast<std::uint64_t>(m_options.new_first_every) == 0
               ? ClaimOrder::NewFirst
               : ClaimOrder::RecheckFirst;
}

WorkerPool::Claim WorkerPool::run_one(std::stop_token stop, const std::string& owner, int index) {
    const auto slot = static_cast<std::size_t>(index);
    std::uint64_t since = 0;
    {
        std::lock_guard lock(m_mutex);
        since = m_event_sequence;
        m_pass_since[slot] = since;
    }
    struct PassEnd {
        WorkerPool& pool;
        std::size_t slot;
        ~PassEnd() {
            std::lock_guard lock(pool.m_mutex);
            pool.m_pass_since[slot] = k_no_pass;
            pool.m_in_pass[slot].clear();
        }
    } pass_end{*this, slot};

    const ClaimOrder order = next_order(slot);
    ++m_claims[slot];
    auto claimed =
        m_store.claim_due(owner, m_clock.now(), m_executor.options().lease_ttl, 1, order);
    if (claimed.empty())
        return Claim::NoneDue;
    std::optional<Operation> op = std::move(claimed.front());
    // Each pass that ends waiting or succeeded claims the next operation in its save's
    // transaction; the chain ends when nothing is due, a stop is requested, or a pass could not
    // claim (then the caller claims on its own, as before).
    for (;;) {
        {
            std::lock_guard lock(m_mutex);
            m_in_pass[slot] = op->cluster_id;
        }
        // The next pass begins at its claim: events after this count as missed by it.
        std::uint64_t next_since = since;
        ClaimNext next;
        next.order = next_order(slot);
        next.stop = stop;
        next.before_claim = [&] {
            std::lock_guard lock(m_mutex);
            next_since = m_event_sequence;
        };
        PassResult r = m_executor.run_pass(*op, owner, &next);
        if (r.claimed_with_save)
            ++m_claims[slot];
        const Claim claim = account(r, owner, slot, since);
        if (!r.claimed_with_save)
            return claim;
        if (!r.next)
            return Claim::NoneDue;
        if (stop.stop_requested()) { // claimed before the stop: not run, but handed back
            try {
                m_store.release(r.next->id, owner);
            } catch (const std::exception&) {
                // The lease then expires by itself.
            }
            return Claim::Ran;
        }
        op = std::move(r.next);
        since = next_since;
        std::lock_guard lock(m_mutex);
        m_pass_since[slot] = since;
    }
}

WorkerPool::Claim WorkerPool::account(const PassResult& r, const std::string& owner,
                                      std::size_t slot, std::uint64_t since) {
    Claim claim = Claim::Ran;
    if (r.outcome != PassOutcome::NotClaimed)
        ++m_passes;
    {
        std::lock_guard lock(m_mutex);
        m_in_pass[slot].clear(); // from here on, events are judged against m_waiting_at
        if (r.outcome == PassOutcome::Waiting) {
            // Operations that end in another process leave their entry behind; forgetting
            // all of them now and then only costs passes.
            if (m_waiting_at.size() >= k_max_waiting_entries)
                m_waiting_at.clear();
            m_waiting_at[r.operation.cluster_id] = r.operation.stage;
        } else if (r.outcome != PassOutcome::NotClaimed)
            m_waiting_at.erase(r.operation.cluster_id);
    }
    const LogFieldsScope fields({{"runtime", r.operation.cluster_id},
                                 {"operation", r.operation.id},
                                 {"stage", r.operation.stage}});
    switch (r.outcome) {
    case PassOutcome::Succeeded:
        ++m_succeeded;
        log(LogLevel::Info, describe(r, owner));
        break;
    case PassOutcome::Failed:
        ++m_failed;
        log(LogLevel::Warning, describe(r, owner));
        break;
    case PassOutcome::Waiting:
        log(LogLevel::Debug, describe(r, owner));
        redo_if_event_missed(r.operation.cluster_id, since, r.operation.stage);
        break;
    case PassOutcome::LeaseLost:
        ++m_lease_lost;
        log(LogLevel::Info, describe(r, owner));
        // Events held back during the pass: the stage is unknown, so any of them counts.
        redo_if_event_missed(r.operation.cluster_id, since, "");
        break;
    case PassOutcome::StoreFailed:
        ++m_store_errors; // the executor logged it
        claim = Claim::StoreFailed;
        redo_if_event_missed(r.operation.cluster_id, since, "");
        break;
    case PassOutcome::NotClaimed:
        break;
    }
    return claim;
}

void WorkerPool::idle(std::stop_token stop, std::chrono::milliseconds cap) {
    {
        std::lock_guard lock(m_mutex);
        if (m_wakeups > 0) {
            --m_wakeups;
            return;
        }
    }
    auto wait = cap;
    try {
        if (const auto next = m_store.next_due()) {
            const auto now = m_clock.now();
            // Due but not claimable: someone else's pass holds it, and will schedule it anew.
            const auto left = *next <= now
                                  ? m_options.busy_poll
                                  : std::chrono::ceil<std::chrono::milliseconds>(*next - now);
            wait = std::min(wait, left);
        }
    } catch (const std::exception& e) {
        log(LogLevel::Warning, std::string("looking for due operations: ") + e.what());
        wait = std::min(wait, m_options.busy_poll);
    }
    std::unique_lock lock(m_mutex);
    if (m_cv.wait_for(lock, stop, wait, [this] { return m_wakeups > 0; }))
        --m_wakeups;
}

void WorkerPool::wake(int workers) {
    {
        std::lock_guard lock(m_mutex);
        m_wakeups = std::min(m_options.workers, m_wakeups + workers);
    }
    m_cv.notify_all();
}

void WorkerPool::notify_due() {
    wake(m_options.workers);
}

bool WorkerPool::may_move(const ShootEvent& event) const {
    const auto waiting =
        event.runtime_id ? m_waiting_at.find(*event.runtime_id) : m_waiting_at.end();
    return waiting == m_waiting_at.end() || may_move_at(event, waiting->second);
}

void WorkerPool::on_shoot_events(const std::vector<ShootEvent>& events) {
    m_events += events.size();
    bool queued = false;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& e : events) {
            if (!e.runtime_id || e.runtime_id->empty())
                continue;
            m_last_event[*e.runtime_id] = {++m_event_sequence, e};
            if (std::find(m_in_pass.begin(), m_in_pass.end(), *e.runtime_id) != m_in_pass.end())
                continue; // judged when that pass ends (redo_if_event_missed)
            if (!may_move(e)) {
                ++m_events_ignored;
                continue;
            }
            m_pending_due.insert(*e.runtime_id);
            queued = true;
        }
        if (queued)
            forget_old_events();
    }
    if (queued)
        m_flush_cv.notify_one();
}

void WorkerPool::flush_events(std::stop_token stop) {
    for (;;) {
        std::vector<std::string> runtime_ids;
        {
            std::unique_lock lock(m_mutex);
            m_flush_cv.wait(lock, stop, [this] { return !m_pending_due.empty(); });
            if (stop.stop_requested())
                return; // what is left is made due by the next start's catch-up
            runtime_ids.assign(m_pending_due.begin(), m_pending_due.end());
            m_pending_due.clear();
        }
        try {
            const int touched = m_store.make_due(runtime_ids, m_clock.now());
            if (touched > 0)
                wake(touched);
        } catch (const std::exception& e) {
            ++m_store_errors;
            log(LogLevel::Warning, std::string("making operations due after shoot events: ") +
                                       e.what() + "; trying again");
            std::unique_lock lock(m_mutex);
            m_pending_due.insert(runtime_ids.begin(), runtime_ids.end());
            m_flush_cv.wait_for(lock, stop, m_options.busy_poll, [] { return false; });
        }
    }
}

void WorkerPool::redo_if_event_missed(const std::string& runtime_id, std::uint64_t since,
                                      const std::string& stage) {
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_last_event.find(runtime_id);
        if (it == m_last_event.end() || it->second.sequence <= since)
            return;
        // Judged again against the stage the pass ended at.
        if (!may_move_at(it->second.event, stage))
            return;
    }
    // The event's make_due came before our save, which wrote the stage's own next_run_at over
    // it: the pass may have read the shoot before the change.
    try {
        if (m_store.make_due({runtime_id}, m_clock.now()) > 0)
            wake(1);
    } catch (const std::exception& e) {
        log(LogLevel::Warning, "runtime " + runtime_id + ": " + e.what() +
                                   "; its operation runs again at its scheduled time");
    }
}

// Called with m_mutex held. An event only matters to passes that began before it.
void WorkerPool::forget_old_events() {
    if (m_last_event.size() < std::max(k_min_event_memory, m_prune_at))
        return;
    const std::uint64_t oldest = *std::min_element(m_pass_since.begin(), m_pass_since.end());
    std::erase_if(m_last_event,
                  [oldest](const auto& entry) { return entry.second.sequence <= oldest; });
    m_prune_at = 2 * m_last_event.size();
}

WorkerPoolStats WorkerPool::stats() const {
    WorkerPoolStats s;
    s.passes = m_passes;
    s.succeeded = m_succeeded;
    s.failed = m_failed;
    s.lease_lost = m_lease_lost;
    s.store_errors = m_store_errors;
    s.events = m_events;
    s.events_ignored = m_events_ignored;
    return s;
}

void WorkerPool::log(LogLevel level, const std::string& message) const {
    m_executor.ports().write_log(level, message);
}

} // namespace kprov::engine
