// The answer cache on its own: generations that move with the store's change counter as each
// thread sees it, answers that never outlive a change, the byte budget. Over real HTTP and a
// real SQLite store in serve_test.cpp.

#include "api/answer_cache.hpp"
#include "api/lru_map.hpp"

#include <array>
#include <atomic>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kprov::api {
namespace {

// A store's change counter the test moves by hand, as commits would.
struct FakeCounter {
    std::atomic<std::uint64_t> value{7};
    std::atomic<bool> fails{false};
    int store_tag = 0; // its address names the store

    AnswerCache::VersionOf version_of() {
        return [this]() -> std::optional<StoreVersion> {
            if (fails)
                throw std::runtime_error("database is locked");
            return StoreVersion{&store_tag, value.load()};
        };
    }
};

constexpr std::size_t k_budget = 64 * 1024;

TEST(AnswerCache, ServesAnAnswerUntilTheStoreChanges) {
    FakeCounter store;
    AnswerCache cache(k_budget, store.version_of());
    const auto first = cache.generation();
    ASSERT_TRUE(first);
    EXPECT_FALSE(cache.find("POST\ntenant-a\n\n{...}", *first));
    cache.insert("POST\ntenant-a\n\n{...}", *first, R"({"data":1})");

    const auto same = cache.generation();
    EXPECT_EQ(same, first) << "nothing changed";
    EXPECT_EQ(cache.find("POST\ntenant-a\n\n{...}", *same), R"({"data":1})");
    EXPECT_FALSE(cache.find("POST\ntenant-b\n\n{...}", *same)) << "another request";

    ++store.value; // a commit
    const auto after = cache.generation();
    ASSERT_TRUE(after);
    EXPECT_NE(after, first);
    EXPECT_FALSE(cache.find("POST\ntenant-a\n\n{...}", *after));
    // The entry from before the change is gone, not only hidden.
    EXPECT_FALSE(cache.find("POST\ntenant-a\n\n{...}", *first));
    EXPECT_EQ(cache.stats().entries, 0U);
}

TEST(AnswerCache, DropsAnAnswerComputedUnderAGenerationThatHasMovedOn) {
    FakeCounter store;
    AnswerCache cache(k_budget, store.version_of());
    const auto began = cache.generation();
    ++store.value;
    const auto now = cache.generation(); // another request saw the commit meanwhile
    cache.insert("key", *began, "old answer");
    EXPECT_EQ(cache.stats().entries, 0U);
    EXPECT_FALSE(cache.find("key", *now));
}

// Each thread compares the counter with the one it saw last, so a commit is noticed by every
// thread's next request, whichever thread noticed it first.
TEST(AnswerCache, EveryThreadNoticesACommitAtItsNextRequest) {
    FakeCounter store;
    AnswerCache cache(k_budget, store.version_of());
    std::optional<std::uint64_t> other_before, other_after;
    const auto on_other_thread = [&](std::optional<std::uint64_t>& out) {
        std::thread([&] { out = cache.generation(); }).join();
    };
    // Each thread of this test is new, so its first look moves the generation too; what
    // matters is that no look after a commit returns a generation from before it.
    const auto mine_before = cache.generation();
    on_other_thread(other_before);
    cache.insert("key", *other_before, "before");
    ++store.value;
    on_other_thread(other_after);
    const auto mine_after = cache.generation();
    ASSERT_TRUE(mine_before && other_before && other_after && mine_after);
    EXPECT_GT(*other_after, *other_before);
    EXPECT_GT(*mine_after, *other_before);
    EXPECT_FALSE(cache.find("key", *mine_after));

    // A second cache does not inherit what this thread saw for the first.
    AnswerCache second(k_budget, store.version_of());
    const auto g = second.generation();
    second.insert("key", *g, "x");
    EXPECT_EQ(second.find("key", *g), "x");
}

TEST(AnswerCache, AnotherStoreOnTheSameThreadIsAChange) {
    FakeCounter a, b;
    b.value = a.value.load(); // equal counters of two stores mean nothing
    bool use_b = false;
    AnswerCache cache(k_budget, [&]() -> std::optional<StoreVersion> {
        return use_b ? b.version_of()() : a.version_of()();
    });
    const auto g = cache.generation();
    cache.insert("key", *g, "x");
    use_b = true;
    const auto h = cache.generation();
    EXPECT_NE(g, h);
    EXPECT_FALSE(cache.find("key", *h));
}

// Runtime versions the test moves by hand, counting how often the cache asks.
struct FakeRuntimeVersions {
    std::map<std::string, std::uint64_t> versions;
    int asked = 0;
    bool fails = false;

    AnswerCache::RuntimeVersionOf version_of() {
        return [this](const std::string& id) -> std::optional<std::uint64_t> {
            ++asked;
            if (fails)
                throw std::runtime_error("database is locked");
            const auto it = versions.find(id);
            return it == versions.end() ? std::nullopt : std::optional(it->second);
        };
    }
};

TEST(AnswerCache, ReusesAnAnswerAcrossCommitsWhileItsRuntimesVersionStands) {
    FakeCounter store;
    FakeRuntimeVersions runtimes;
    runtimes.versions = {{"rt-1", 5}, {"rt-2", 9}};
    AnswerCache cache(k_budget, store.version_of(), runtimes.version_of());
    const auto g1 = *cache.generation();
    cache.insert("status rt-1", g1, "answer 1", RuntimeVersion{"rt-1", 5});
    cache.insert("status rt-2", g1, "answer 2", RuntimeVersion{"rt-2", 9});
    cache.insert("introspection", g1, "schema"); // shows no runtime
    EXPECT_EQ(cache.find("status rt-1", g1), "answer 1");
    EXPECT_EQ(runtimes.asked, 0) << "the store stood still: nothing to check";

    // A commit to rt-2 only.
    ++store.value;
    runtimes.versions["rt-2"] = 10;
    const auto g2 = *cache.generation();
    EXPECT_EQ(cache.find("status rt-1", g2), "answer 1");
    EXPECT_EQ(runtimes.asked, 1);
    EXPECT_EQ(cache.find("status rt-1", g2), "answer 1");
    EXPECT_EQ(runtimes.asked, 1) << "checked once, then good for the whole generation";
    EXPECT_FALSE(cache.find("status rt-2", g2)) << "its runtime changed";
    EXPECT_FALSE(cache.find("introspection", g2)) << "no runtime vouches for it";
    EXPECT_EQ(cache.stats().entries, 1U) << "the stale ones are dropped";

    // The runtime goes, or its version cannot be read: no answer.
    ++store.value;
    runtimes.versions.erase("rt-1");
    EXPECT_FALSE(cache.find("status rt-1", *cache.generation()));
    cache.insert("status rt-1", *cache.generation(), "answer 1", RuntimeVersion{"rt-1", 5});
    ++store.value;
    runtimes.fails = true;
    EXPECT_FALSE(cache.find("status rt-1", *cache.generation()));
}

TEST(AnswerCache, KeepsAnAnswerFromAnEarlierGenerationOnlyWhenARuntimeCanVouchForIt) {
    FakeCounter store;
    FakeRuntimeVersions runtimes;
    runtimes.versions = {{"rt-1", 5}};
    AnswerCache cache(k_budget, store.version_of(), runtimes.version_of());
    const auto began = *cache.generation();
    ++store.value; // a commit while the request ran (to another runtime)
    const auto now = *cache.generation();
    cache.insert("plain", began, "x");
    cache.insert("status rt-1", began, "answer 1", RuntimeVersion{"rt-1", 5});
    EXPECT_FALSE(cache.find("plain", now));
    EXPECT_EQ(cache.find("status rt-1", now), "answer 1");
}

// Many threads asking while another commits: no answer is ever older than what the store held
// when the request began. The store is modelled as a counter and per-runtime versions that a
// commit moves together; an answer names the version it was computed at.
TEST(AnswerCache, NoAnswerIsOlderThanTheStoreWhenTheRequestBeganUnderConcurrentCommits) {
    constexpr int k_runtimes = 4;
    std::mutex store_mutex; // one commit at a time, seen whole
    std::uint64_t counter = 1;
    std::array<std::uint64_t, k_runtimes> versions{};
    const int tag = 0;
    const auto read = [&](auto&& f) {
        const std::lock_guard lock(store_mutex);
        return f();
    };
    AnswerCache cache(
        k_budget,
        [&]() -> std::optional<StoreVersion> {
            return StoreVersion{&tag, read([&] { return counter; })};
        },
        [&](const std::string& id) -> std::optional<std::uint64_t> {
            return read([&] { return versions.at(std::stoul(id)); });
        });

    std::atomic<bool> stop{false};
    std::atomic<long> stale{0}, reused{0};
    std::thread committer([&] {
        for (unsigned i = 0; !stop; ++i) {
            read([&] {
                ++versions[i % k_runtimes];
                return ++counter;
            });
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> clients;
    for (int t = 0; t < 4; ++t)
        clients.emplace_back([&, t] {
            for (int i = 0; i < 20'000; ++i) {
                const int runtime = (i + t) % k_runtimes;
                const std::string key = "status " + std::to_string(runtime);
                const auto before = read([&] { return versions[runtime]; });
                const auto generation = cache.generation();
                ASSERT_TRUE(generation);
                if (const auto answer = cache.find(key, *generation)) {
                    ++reused;
                    if (std::stoull(*answer) < before)
                        ++stale;
                    continue;
                }
                const auto now = read([&] { return versions[runtime]; }); // "the rows"
                cache.insert(key, *generation, std::to_string(now),
                             RuntimeVersion{std::to_string(runtime), now});
            }
        });
    for (auto& client : clients)
        client.join();
    stop = true;
    committer.join();
    EXPECT_EQ(stale, 0);
    EXPECT_GT(reused, 0) << "the test must exercise reuse to mean anything";
}

TEST(AnswerCache, KeepsNothingWithoutABudgetOrAStoreThatCanTell) {
    FakeCounter store;
    EXPECT_FALSE(AnswerCache(0, store.version_of()).generation());
    EXPECT_FALSE(AnswerCache(k_budget, nullptr).generation());
    EXPECT_FALSE(AnswerCache(k_budget, [] { return std::optional<StoreVersion>(); }).generation());
    store.fails = true;
    EXPECT_FALSE(AnswerCache(k_budget, store.version_of()).generation())
        << "a store that fails cannot vouch for an answer";
}

TEST(AnswerCache, StaysWithinItsBudgetDroppingTheLeastRecentlyUsed) {
    FakeCounter store;
    const std::string answer(1000, 'a');
    AnswerCache cache(10 * 1024, store.version_of()); // room for about eight answers
    const auto g = *cache.generation();
    for (int i = 0; i < 8; ++i)
        cache.insert("key-" + std::to_string(i), g, answer);
    ASSERT_TRUE(cache.find("key-0", g)); // now the most recently used
    for (int i = 8; i < 20; ++i)
        cache.insert("key-" + std::to_string(i), g, answer);
    const auto stats = cache.stats();
    EXPECT_LE(stats.bytes, 10U * 1024);
    EXPECT_GE(stats.entries, 7U);
    EXPECT_FALSE(cache.find("key-1", g)) << "the oldest unused entry went first";
    EXPECT_TRUE(cache.find("key-19", g));

    cache.insert("huge", g, std::string(20 * 1024, 'x'));
    EXPECT_FALSE(cache.find("huge", g)) << "larger than the whole budget";
    EXPECT_TRUE(cache.find("key-19", g)) << "and it pushed nothing out";
}

TEST(LruMap, CountsCostsAndReplacesKeys) {
    LruMap<int> map(10);
    map.put("a", 1, 4);
    map.put("b", 2, 4);
    map.put("a", 3, 5); // replaced: a is now the most recent, 9 of 10 used
    EXPECT_EQ(map.size(), 2U);
    EXPECT_EQ(map.used(), 9U);
    ASSERT_NE(map.find("a"), nullptr);
    EXPECT_EQ(*map.find("a"), 3);
    map.put("c", 4, 3); // 12 > 10: b, the least recently used, goes
    EXPECT_EQ(map.find("b"), nullptr);
    EXPECT_EQ(map.used(), 8U);
    map.erase("a");
    EXPECT_EQ(map.size(), 1U);
    EXPECT_EQ(map.used(), 3U);
}

} // namespace
} // namespace kprov::api
