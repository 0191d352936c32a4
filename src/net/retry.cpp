#include "net/retry.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <mutex>
#include <random>
#include <spdlog/logger.h>

namespace kprov::net {

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

std::optional<std::chrono::seconds> parse_retry_after(std::string_view header_value) {
    const char* begin = header_value.data();
    const char* end = begin + header_value.size();
    while (begin != end && (*begin == ' ' || *begin == '\t'))
        ++begin;
    while (end != begin && (end[-1] == ' ' || end[-1] == '\t'))
        --end;
    const bool negative = begin != end && *begin == '-';
    std::chrono::seconds::rep seconds = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, seconds);
    if (ptr == begin || ptr != end)
        return std::nullopt;
    if (ec == std::errc::result_out_of_range)
        return negative ? std::chrono::seconds(0) : std::chrono::seconds::max();
    if (ec != std::errc())
        return std::nullopt;
    return std::chrono::seconds(std::max<std::chrono::seconds::rep>(seconds, 0));
}

void log_retry(spdlog::logger& log, std::string_view what, std::chrono::milliseconds delay,
               std::string_view note) {
    log.debug("{}: retrying in {}ms ({})", what, delay.count(), note);
}

} // namespace kprov::net
