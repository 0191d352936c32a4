#pragma once
// A map from strings to values that keeps at most a budget's worth of entries, dropping the
// least recently used first. Each entry says what it costs (1 for a count, its bytes for a
// size). Not thread-safe: its owners lock around it.

#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace kprov::api {

template <typename V> class LruMap {
public:
    explicit LruMap(std::size_t budget)
        : m_budget(budget) {}

    /// The value of `key`, which becomes the most recently used; nullptr when absent. Valid
    /// until the next put() or erase().
    V* find(std::string_view key) {
        const auto it = m_index.find(key);
        if (it == m_index.end())
            return nullptr;
        m_order.splice(m_order.begin(), m_order, it->second);
        return &it->second->value;
    }

    /// Adds `key` (replacing what it held) as the most recently used, then drops the least
    /// recently used entries until the costs fit the budget. An entry that alone costs more
    /// than the budget is not kept.
    void put(std::string_view key, V value, std::size_t cost) {
        erase(key);
        if (cost > m_budget)
            return;
        m_order.push_front(Entry{std::string(key), std::move(value), cost});
        m_index.emplace(m_order.front().key, m_order.begin());
        m_used += cost;
        while (m_used > m_budget)
            drop(std::prev(m_order.end()));
    }

    void erase(std::string_view key) {
        if (const auto it = m_index.find(key); it != m_index.end())
            drop(it->second);
    }

    std::size_t size() const { return m_order.size(); }
    /// The sum of the entries' costs.
    std::size_t used() const { return m_used; }

private:
    struct Entry {
        std::string key;
        V value;
        std::size_t cost;
    };
    using Iterator = typename std::list<Entry>::iterator;

    void drop(Iterator entry) {
        m_used -= entry->cost;
        m_index.erase(std::string_view(entry->key));
        m_order.erase(entry);
    }

    std::size_t m_budget;
    std::size_t m_used = 0;
    std::list<Entry> m_order;                               // most recently used first
    std::unordered_map<std::string_view, Iterator> m_index; // keys: m_order's
};

} // namespace kprov::api
