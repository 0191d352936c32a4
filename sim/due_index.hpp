#pragma once
// The keys (shoots, runtime clusters) that have work pending, ordered by when it falls due: the
// simulator looks before every request, so finding what is due must not scan them all. Each
// owner keeps the time a key is filed under (its Slot) beside the key's record, so filing
// again needs no lookup. Not thread-safe.

#include <chrono>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace kprov::sim {

template <class Key, class Time = std::chrono::system_clock::time_point> class DueIndex {
public:
    /// Where a key is filed: its due time, nullopt when it is not filed.
    using Slot = std::optional<Time>;

    /// Files `key` under `due` (nullopt: not at all); `slot` is where it is filed now and is
    /// updated.
    void file(const Key& key, Slot& slot, Slot due) {
        if (due == slot)
            return;
        if (slot)
            m_order.erase({*slot, key});
        if (due)
            m_order.insert({*due, key});
        slot = due;
    }

    /// The keys due at or before `now`, earliest first: a copy, because handling one files it
    /// again.
    std::vector<Key> due_by(Time now) const {
        std::vector<Key> keys;
        for (auto it = m_order.begin(); it != m_order.end() && it->first <= now; ++it)
            keys.push_back(it->second);
        return keys;
    }

    /// The earliest due time; nullopt when nothing is filed.
    Slot next() const {
        if (m_order.empty())
            return std::nullopt;
        return m_order.begin()->first;
    }

private:
    std::set<std::pair<Time, Key>> m_order;
};

} // namespace kprov::sim
