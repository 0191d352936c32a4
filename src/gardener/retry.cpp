#include "gardener/retry.hpp"

#include <algorithm>
#include <mutex>
#include <random>

namespace kprov::gardener {

std::chrono::milliseconds backoff_cap(const RetryPolicy& policy, int retry) {
    const auto cap = policy.max_backoff.count();
    auto value = std::max<std::chrono::milliseconds::rep>(policy.initial_backoff.count(), 0);
    for (int i = 0; i < retry && value < cap; ++i)
        value *= 2;
    return std::chrono::milliseconds(std::min(value, cap));
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry) {
    static std::mutex mutex;
    static std::mt19937_64 engine{std::random_device{}()};
    const auto cap = backoff_cap(policy, retry).count();
    if (cap <= 0)
        return std::chrono::milliseconds(0);
    std::uniform_int_distribution<std::chrono::milliseconds::rep> pick(0, cap);
    std::lock_guard lock(mutex);
    return std::chrono::milliseconds(pick(engine));
}

std::chrono::milliseconds retry_after_delay(const RetryPolicy& policy,
                                            std::chrono::seconds requested) {
    const auto limit = std::max(policy.max_total, std::chrono::milliseconds(0));
    if (requested.count() <= 0)
        return std::chrono::milliseconds(0);
    // Compare in seconds first: converting a huge count to milliseconds would overflow.
    if (requested >= std::chrono::ceil<std::chrono::seconds>(limit))
        return limit;
    return std::min(std::chrono::milliseconds(requested), limit);
}

} // namespace kprov::gardener
