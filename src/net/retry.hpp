#pragma once
// Retries of the HTTP clients (Kubernetes, Director): the policy, capped exponential backoff
// with full jitter, Retry-After, and the one retry loop both clients run (with_retries).

#include "net/clock.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace spdlog {
class logger;
}

namespace kprov::net {

/// How often and how long a request is retried after 429, 5xx or a connection error.
struct RetryPolicy {
    /// Tries in all, the first one included; 1 means no retry.
    int max_attempts = 5;
    /// The cap of the first wait; it doubles with each retry up to `max_backoff`.
    std::chrono::milliseconds initial_backoff{200};
    std::chrono::milliseconds max_backoff{10'000};
    /// No retry starts when it would end later than this after the first try began.
    std::chrono::milliseconds max_total{60'000};
    /// Whether a failure to connect (refused, DNS, unreachable) or a timeout is retried (and
    /// reported as retryable). The fail-fast Gardener check says no: those do not heal within
    /// its few seconds, while a connection cut after it was made (EOF, reset) does.
    bool retry_connect_failures = true;
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

/// A Retry-After header in delta-seconds ("120"), saturated: a value beyond the range of
/// std::chrono::seconds gives its maximum, a negative one zero. nullopt for anything else
/// (empty, an HTTP-date, garbage).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view header_value);

/// Where a call stands, for the try being made.
struct RetryState {
    /// 1 for the first try; a free retry (below) gets the number of the try it repeats.
    int attempt = 1;
    /// Whether this call already had its free retry.
    bool free_retry_used = false;
};

/// A try that failed: the error to throw when no retry follows, and what may follow.
template <class Error> struct TryFailure {
    Error error;
    /// Whether sending the request again may succeed and is safe (a POST that may have arrived
    /// is not sent again).
    bool may_retry = false;
    /// The wait the server asked for, already bounded (retry_after_delay); nullopt: backoff.
    std::optional<std::chrono::milliseconds> wait;
    /// Try again at once, without counting a try: a credential was renewed. Granted once per
    /// call; asked for a second time it is ignored and the failure is judged as usual.
    bool free_retry = false;
    /// For the "retrying" debug line (a status code, a transport message); never a credential.
    std::string note;
};

/// What one try came to: the result, or a failure.
template <class Result, class Error> using TryOutcome = std::variant<Result, TryFailure<Error>>;

/// Logs "<what>: retrying in <N>ms (<note>)" to `log` at debug level.
void log_retry(spdlog::logger& log, std::string_view what, std::chrono::milliseconds delay,
               std::string_view note);

/// The one retry loop of kprov's HTTP clients. Calls `attempt(const RetryState&)`, which returns
/// a TryOutcome<Result, Error>, until it returns a result, which is returned. A failure is
/// retried after its `wait` (or backoff_delay()) when it may be, tries remain
/// (policy.max_attempts) and the retry would start within policy.max_total of the first try;
/// otherwise its error is thrown. Sleeps on `clock`; `what` names the call in `log` (the
/// caller's, from its options). Exceptions thrown by `attempt` pass through untouched.
template <class Attempt>
auto with_retries(const RetryPolicy& policy, Clock& clock, spdlog::logger& log,
                  std::string_view what, Attempt&& attempt) {
    const auto first_started = clock.now();
    RetryState state;
    for (;; ++state.attempt) {
        auto outcome = attempt(static_cast<const RetryState&>(state));
        if (outcome.index() == 0)
            return std::get<0>(std::move(outcome));
        auto& failure = std::get<1>(outcome);
        if (failure.free_retry && !state.free_retry_used) {
            state.free_retry_used = true;
            --state.attempt;
            continue;
        }
        const auto delay = failure.wait ? *failure.wait : backoff_delay(policy, state.attempt - 1);
        const bool in_time = clock.now() - first_started + delay <= policy.max_total;
        if (!failure.may_retry || state.attempt >= policy.max_attempts || !in_time)
            throw std::move(failure.error);
        log_retry(log, what, delay, failure.note);
        clock.sleep_for(delay);
    }
}

} // namespace kprov::net
