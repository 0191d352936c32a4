#pragma once
// The lease heartbeat: keeps the leases of running passes alive however long one stage call
// takes (a Gardener call may take a minute with its retries, against a 30 s lease).
//
// While a pass runs, a background thread renews its lease every third of the lease duration,
// so that it never comes near expiring. A renewal the store refuses (another worker holds the
// operation now, or the lease had run out) marks the lease lost; so does a store that keeps
// failing until the lease has expired. A pass looks at that before each stage and stops there
// without writing; its final save is fenced by the store in any case.
//
// One thread per keeper, started with the first lease it keeps. Thread-safe.

#include "engine/engine_options.hpp"
#include "engine/store.hpp"
#include "engine/util/time.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kprov::engine {

class LeaseKeeper {
    struct Entry;

public:
    LeaseKeeper(Store& store, const Clock& clock, std::chrono::milliseconds ttl, LogSink log);
    ~LeaseKeeper();
    LeaseKeeper(const LeaseKeeper&) = delete;
    LeaseKeeper& operator=(const LeaseKeeper&) = delete;

    /// One kept lease; the heartbeat lets go of it when the hold ends.
    class Hold {
    public:
        Hold(Hold&&) noexcept;
        Hold& operator=(Hold&&) noexcept;
        ~Hold();

        /// True once a renewal was refused, or the lease expired while the store failed.
        bool lost() const;
        /// Renews the lease at once when less than half of it is left at `now` (the heartbeat
        /// usually did already). Throws LeaseLost when the store refuses, StoreError when it
        /// fails.
        void renew_if_needed(Timestamp now);

    private:
        friend class LeaseKeeper;
        Hold(LeaseKeeper& keeper, std::shared_ptr<Entry> entry);
        LeaseKeeper* m_keeper;
        std::shared_ptr<Entry> m_entry;
    };

    /// Keeps the lease of `owner` on `operation_id`, known to last until `expires_at` (nullopt:
    /// unknown, renewed at the first chance), until the returned hold ends.
    Hold keep(const std::string& operation_id, const std::string& owner,
              std::optional<Timestamp> expires_at);

    /// One heartbeat now: renews every kept lease that is not lost. The background thread
    /// calls this every ttl / 3; tests call it to make a heartbeat happen at a chosen moment.
    void renew_all();

    /// Whether the kept lease of `operation_id` is lost; false when none is kept.
    bool lost(const std::string& operation_id);

    /// How long the heartbeat waits between two renewals of a lease.
    std::chrono::milliseconds interval() const { return m_ttl / 3; }

private:
    /// Renews one lease in the background: a refusal loses it, a store failure only once it
    /// has run out.
    void renew(Entry& entry, Timestamp now);
    /// Records the store's answer to a renewal.
    void settle(Entry& entry, Timestamp now, bool renewed);
    void log(LogLevel level, const std::string& message) const;
    void forget(const std::shared_ptr<Entry>& entry);
    void run(std::stop_token stop);

    Store& m_store;
    const Clock& m_clock;
    const std::chrono::milliseconds m_ttl;
    LogSink m_log;

    std::mutex m_mutex; ///< guards the members below
    std::condition_variable_any m_changed;
    std::vector<std::shared_ptr<Entry>> m_entries;
    std::jthread m_thread; ///< started by the first keep(); last member, stopped first
};

} // namespace kprov::engine
