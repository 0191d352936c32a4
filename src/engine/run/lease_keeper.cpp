#include "engine/run/lease_keeper.hpp"

#include "engine/error.hpp"

#include <algorithm>

namespace kprov::engine {

struct LeaseKeeper::Entry {
    Entry(std::string operation, std::string holder, std::optional<Timestamp> expiry)
        : operation_id(std::move(operation))
        , owner(std::move(holder))
        , expires_at(expiry) {}

    const std::string operation_id;
    const std::string owner;

    std::mutex mutex; ///< guards the members below; never held during a store call
    std::optional<Timestamp> expires_at;
    bool lost = false;
    bool warned = false; ///< a failed renewal was logged since the last good one
};

LeaseKeeper::LeaseKeeper(Store& store, const Clock& clock, std::chrono::milliseconds ttl,
                         LogSink log)
    : m_store(store)
    , m_clock(clock)
    , m_ttl(std::max(ttl, std::chrono::milliseconds(3)))
    , m_log(std::move(log)) {}

LeaseKeeper::~LeaseKeeper() {
    if (m_thread.joinable()) {
        m_thread.request_stop();
        m_changed.notify_all();
        m_thread.join();
    }
}

LeaseKeeper::Hold LeaseKeeper::keep(const std::string& operation_id, const std::string& owner,
                                    std::optional<Timestamp> expires_at) {
    auto entry = std::make_shared<Entry>(operation_id, owner, expires_at);
    {
        std::lock_guard lock(m_mutex);
        m_entries.push_back(entry);
        if (!m_thread.joinable())
            m_thread = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
    }
    m_changed.notify_all();
    return Hold(*this, std::move(entry));
}

void LeaseKeeper::forget(const std::shared_ptr<Entry>& entry) {
    std::lock_guard lock(m_mutex);
    std::erase(m_entries, entry);
}

void LeaseKeeper::renew_all() {
    std::vector<std::shared_ptr<Entry>> entries;
    {
        std::lock_guard lock(m_mutex);
        entries = m_entries;
    }
    for (const auto& entry : entries) {
        {
            std::lock_guard lock(entry->mutex);
            if (entry->lost)
                continue;
        }
        renew(*entry, m_clock.now());
    }
}

bool LeaseKeeper::lost(const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    for (const auto& entry : m_entries)
        if (entry->operation_id == operation_id) {
            std::lock_guard entry_lock(entry->mutex);
            return entry->lost;
        }
    return false;
}

void LeaseKeeper::settle(Entry& entry, Timestamp now, bool renewed) {
    {
        std::lock_guard lock(entry.mutex);
        if (renewed) {
            entry.expires_at = now + std::chrono::duration_cast<Timestamp::duration>(m_ttl);
            entry.warned = false;
            return;
        }
        entry.lost = true;
    }
    log(LogLevel::Debug, "operation " + entry.operation_id + ": the lease of " + entry.owner +
                             " was taken over or had expired");
}

void LeaseKeeper::renew(Entry& entry, Timestamp now) {
    try {
        settle(entry, now, m_store.renew(entry.operation_id, entry.owner, now, m_ttl));
        return;
    } catch (const std::exception& e) {
        {
            // A failing store leaves the lease as it was: lost only once it has run out.
            std::lock_guard lock(entry.mutex);
            if (!entry.expires_at || now >= *entry.expires_at)
                entry.lost = true;
            if (std::exchange(entry.warned, true))
                return;
        }
        log(LogLevel::Warning, "operation " + entry.operation_id + ": cannot renew the lease of " +
                                   entry.owner + ": " + e.what());
    }
}

void LeaseKeeper::log(LogLevel level, const std::string& message) const {
    if (m_log)
        m_log(level, message);
}

void LeaseKeeper::run(std::stop_token stop) {
    std::unique_lock lock(m_mutex);
    while (!stop.stop_requested()) {
        if (m_entries.empty()) {
            m_changed.wait(lock, stop, [&] { return !m_entries.empty(); });
            continue;
        }
        // A lease kept a moment ago is renewed early at the next beat: one extra write.
        m_changed.wait_for(lock, stop, interval(), [] { return false; });
        if (stop.stop_requested())
            break;
        lock.unlock();
        renew_all();
        lock.lock();
    }
}

// --- Hold ----------------------------------------------------------------------------------

LeaseKeeper::Hold::Hold(LeaseKeeper& keeper, std::shared_ptr<Entry> entry)
    : m_keeper(&keeper)
    , m_entry(std::move(entry)) {}

LeaseKeeper::Hold::Hold(Hold&& other) noexcept
    : m_keeper(other.m_keeper)
    , m_entry(std::move(other.m_entry)) {}

LeaseKeeper::Hold& LeaseKeeper::Hold::operator=(Hold&& other) noexcept {
    if (this != &other) {
        if (m_entry)
            m_keeper->forget(m_entry);
        m_keeper = other.m_keeper;
        m_entry = std::move(other.m_entry);
    }
    return *this;
}

LeaseKeeper::Hold::~Hold() {
    if (m_entry)
        m_keeper->forget(m_entry);
}

bool LeaseKeeper::Hold::lost() const {
    std::lock_guard lock(m_entry->mutex);
    return m_entry->lost;
}

void LeaseKeeper::Hold::renew_if_needed(Timestamp now) {
    {
        std::lock_guard lock(m_entry->mutex);
        if (!m_entry->lost && m_entry->expires_at &&
            *m_entry->expires_at - now > m_keeper->m_ttl / 2)
            return;
    }
    if (!lost()) // a failing store ends the pass here (StoreError)
        m_keeper->settle(
            *m_entry, now,
            m_keeper->m_store.renew(m_entry->operation_id, m_entry->owner, now, m_keeper->m_ttl));
    if (lost())
        throw LeaseLost("operation " + m_entry->operation_id + ": lease of " + m_entry->owner +
                        " lost");
}

} // namespace kprov::engine
