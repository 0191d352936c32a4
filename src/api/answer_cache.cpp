#include "api/answer_cache.hpp"

#include "api/lru_map.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <vector>

namespace kprov::api {
namespace {

// What an entry costs beyond its key and answer: list and hash nodes, the string headers.
constexpr std::size_t k_entry_overhead = 128;
// Budgets from this size on are split over shards, each with its own lock, so that the event
// loops rarely wait for each other; smaller ones (tests) stay one LRU.
constexpr std::size_t k_shard_from = std::size_t{1} << 20;
constexpr std::size_t k_shards = 8;

std::atomic<std::uint64_t> g_next_cache_id{1};

struct Kept {
    std::uint64_t generation;
    std::string answer;
    std::optional<RuntimeVersion> shows;
};

struct Shard {
    explicit Shard(std::size_t budget)
        : entries(budget) {}
    mutable std::mutex mutex;
    LruMap<Kept> entries;
};

} // namespace

struct AnswerCache::Impl {
    Impl(std::size_t budget, VersionOf version, RuntimeVersionOf runtime_version)
        : version_of(std::move(version))
        , runtime_version_of(std::move(runtime_version)) {
        const std::size_t count = budget >= k_shard_from ? k_shards : 1;
        for (std::size_t i = 0; i < count; ++i)
            shards.push_back(std::make_unique<Shard>(budget / count));
        enabled = budget > 0 && this->version_of != nullptr;
    }

    Shard& shard_of(std::string_view key) {
        return *shards[shards.size() == 1 ? 0 : std::hash<std::string_view>()(key) % shards.size()];
    }

    const std::uint64_t id = g_next_cache_id.fetch_add(1, std::memory_order_relaxed);
    VersionOf version_of;
    RuntimeVersionOf runtime_version_of;
    bool enabled = false;
    std::atomic<std::uint64_t> generation{0};
    std::vector<std::unique_ptr<Shard>> shards;
};

AnswerCache::AnswerCache(std::size_t budget_bytes, VersionOf version_of,
                         RuntimeVersionOf runtime_version_of)
    : m_impl(std::make_unique<Impl>(budget_bytes, std::move(version_of),
                                    std::move(runtime_version_of))) {}

AnswerCache::~AnswerCache() = default;

std::optional<std::uint64_t> AnswerCache::generation() {
    auto& impl = *m_impl;
    if (!impl.enabled)
        return std::nullopt;
    std::optional<StoreVersion> now;
    try {
        now = impl.version_of();
    } catch (const std::exception&) {
        return std::nullopt; // the store fails: the request runs, and reports it
    }
    if (!now)
        return std::nullopt;
    // What this thread saw last, and for which cache (ids are never reused, addresses are).
    struct Seen {
        std::uint64_t cache = 0;
        StoreVersion version;
    };
    thread_local Seen seen;
    if (seen.cache != impl.id || seen.version != *now) {
        seen = {impl.id, *now};
        return impl.generation.fetch_add(1, std::memory_order_acq_rel) + 1;
    }
    return impl.generation.load(std::memory_order_acquire);
}

std::optional<std::string> AnswerCache::find(std::string_view key, std::uint64_t generation) {
    auto& impl = *m_impl;
    auto& shard = impl.shard_of(key);
    RuntimeVersion shows;
    std::string answer;
    {
        const std::lock_guard lock(shard.mutex);
        Kept* kept = shard.entries.find(key);
        if (!kept)
            return std::nullopt;
        if (kept->generation == generation)
            return kept->answer;
        if (!kept->shows || !impl.runtime_version_of) {
            shard.entries.erase(key); // from before a change: never good again
            return std::nullopt;
        }
        shows = *kept->shows;
        answer = kept->answer;
    }
    // The store has changed since the answer was kept: has its runtime? (Not under the lock:
    // this reads the store.)
    std::optional<std::uint64_t> now;
    try {
        now = impl.runtime_version_of(shows.runtime_id);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const std::lock_guard lock(shard.mutex);
    Kept* kept = shard.entries.find(key);
    const bool still_kept = kept && kept->shows == shows;
    if (!now || *now != shows.version) {
        if (still_kept)
            shard.entries.erase(key);
        return std::nullopt;
    }
    // The runtime's rows are as the answer shows them, at a moment after `generation` began:
    // good for every request of this generation.
    if (still_kept)
        kept->generation = std::max(kept->generation, generation);
    return answer;
}

void AnswerCache::insert(std::string_view key, std::uint64_t generation, std::string_view answer,
                         std::optional<RuntimeVersion> shows) {
    auto& impl = *m_impl;
    if (!impl.enabled)
        return;
    // Computed under a generation that has moved on: only its runtime's version can vouch for
    // it, and without one no request will ask for it.
    if (generation != impl.generation.load(std::memory_order_acquire) &&
        !(shows && impl.runtime_version_of))
        return;
    auto& shard = impl.shard_of(key);
    const std::lock_guard lock(shard.mutex);
    shard.entries.put(key, Kept{generation, std::string(answer), std::move(shows)},
                      key.size() + answer.size() + k_entry_overhead);
}

AnswerCache::Stats AnswerCache::stats() const {
    Stats stats;
    for (const auto& shard : m_impl->shards) {
        const std::lock_guard lock(shard->mutex);
        stats.entries += shard->entries.size();
        stats.bytes += shard->entries.used();
    }
    return stats;
}

} // namespace kprov::api
