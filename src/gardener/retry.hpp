#pragma once
// Retry policy of the Kubernetes client: capped exponential backoff with full jitter.

#include <chrono>

namespace kprov::gardener {

/// How often and how long a request is retried after 429, 5xx or a connection error.
struct RetryPolicy {
    /// Tries in all, the first one included; 1 means no retry.
    int max_attempts = 5;
    /// The cap of the first wait; it doubles with each retry up to `max_backoff`.
    std::chrono::milliseconds initial_backoff{200};
    std::chrono::milliseconds max_backoff{10'000};
    /// No retry starts when it would end later than this after the first try began.
    std::chrono::milliseconds max_total{60'000};
};

/// The upper bound of the wait before retry number `retry` (0 = before the second try):
/// min(max_backoff, initial_backoff * 2^retry).
std::chrono::milliseconds backoff_cap(const RetryPolicy& policy, int retry);

/// A wait drawn uniformly from [0, backoff_cap(policy, retry)] ("full jitter"). Thread-safe.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry);

/// The wait a server asked for (Retry-After, retryAfterSeconds) in milliseconds, saturated:
/// negative gives zero, anything beyond `policy.max_total` gives max_total, so that no value
/// overflows.
std::chrono::milliseconds retry_after_delay(const RetryPolicy& policy,
                                            std::chrono::seconds requested);

} // namespace kprov::gardener
