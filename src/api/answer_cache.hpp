#pragma once
// Answers to GraphQL requests that only read the store, kept until what they show changes.
//
// Clients poll: the Kyma Environment Broker asks for the same operation's or runtime's status
// again and again while nothing has changed. An answer is kept under the request's text (its
// method, tenant and sub-account headers, and body or URL query) and the store's generation,
// a number that grows whenever any connection of any process has committed since; a request
// whose text and generation match gets the kept answer without parsing, reading the store or
// executing anything. So a kept answer is never older than what the store held when the
// request began. (Past a commit, the runtime's version decides: below.)
//
// The generation comes from engine::Store::change_counter of the store the calling thread
// reads (for SQLite, PRAGMA data_version: about a microsecond, no table read). Each thread
// remembers the counter it saw last; when it sees another, it moves the generation on. Every
// thread's first look after a commit sees a moved counter, so after any commit no request is
// given an answer computed under an earlier generation without a second check:
//
// An answer that shows one runtime is kept with that runtime's version as read with its rows
// (engine::Store::runtime_version). Once the generation has moved, such an answer is reused
// when the runtime's version still stands (one primary-key read), and is then good for the
// new generation; so a commit to one runtime costs the others' kept answers one check, not
// their reuse. Versions only grow, so an answer is never older than its runtime's rows.
//
// Only answers that the server marks reusable are kept: queries (not mutations), executed
// without errors, whose resolvers read nothing but the store (so never a kubeconfig or a
// hibernation status, which come from Gardener). Thread-safe.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::api {

/// Which store a thread reads, and its change counter: counters of different stores are not
/// comparable.
struct StoreVersion {
    const void* store = nullptr;
    std::uint64_t counter = 0;
    bool operator==(const StoreVersion&) const = default;
};

/// The runtime a kept answer shows and its version as read with the rows the answer shows.
struct RuntimeVersion {
    std::string runtime_id;
    std::uint64_t version = 0;
    bool operator==(const RuntimeVersion&) const = default;
};

class AnswerCache {
public:
    /// The change counter of the store the calling thread reads; nullopt when it cannot tell
    /// (then nothing is kept). Called concurrently.
    using VersionOf = std::function<std::optional<StoreVersion>()>;
    /// A runtime's version now (engine::Store::runtime_version); nullopt when it cannot tell.
    /// Called concurrently.
    using RuntimeVersionOf = std::function<std::optional<std::uint64_t>(const std::string&)>;

    /// Keeps answers (with their keys) up to `budget_bytes`, the least recently used going
    /// first; 0 keeps none. Without `runtime_version_of` every commit retires every answer.
    AnswerCache(std::size_t budget_bytes, VersionOf version_of,
                RuntimeVersionOf runtime_version_of = {});
    ~AnswerCache();
    AnswerCache(const AnswerCache&) = delete;
    AnswerCache& operator=(const AnswerCache&) = delete;

    /// The generation a request begins under; nullopt when nothing may be kept (no budget, or
    /// the store cannot tell its changes). Asks the store: call it once per request, before
    /// anything is read.
    std::optional<std::uint64_t> generation();

    /// The answer kept for `key` that is good under `generation`, nullopt when there is none.
    /// May read the version of the runtime a kept answer shows.
    std::optional<std::string> find(std::string_view key, std::uint64_t generation);

    /// Keeps `answer` for `key`, computed by a request that began under `generation`;
    /// `shows`: the one runtime it shows and that runtime's version as read with its rows.
    void insert(std::string_view key, std::uint64_t generation, std::string_view answer,
                std::optional<RuntimeVersion> shows = std::nullopt);

    struct Stats {
        std::size_t entries = 0;
        std::size_t bytes = 0; ///< what the entries count against the budget
    };
    Stats stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace kprov::api
