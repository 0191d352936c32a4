#pragma once
// Fault injection (error rates, chosen status codes with Retry-After, latency, cut
// connections) and the request counters behind GET /sim/stats. Both are thread-safe.

#include "api.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kprov::sim {

/// One rule of POST /sim/faults. A request matches when its method, path prefix and resource
/// (each if given) match; a matching request is hit with probability `rate`; `count` hits at most
/// (-1: no limit), after which the rule is spent.
struct FaultRule {
    double rate = 1.0;
    int status = 500;            ///< 0: no error (latency or drop only)
    int retry_after_seconds = 0; ///< Retry-After header and details.retryAfterSeconds
    int count = -1;
    std::string path_prefix;
    std::string method;
    std::string resource; ///< plural resource name ("configmaps"), on any API and cluster
    int latency_ms = 0;
    bool drop = false; ///< cut the connection instead of answering

    /// Throws ApiError 400 for unknown keys or wrong types.
    static FaultRule from_json(const Json& j);
    Json to_json() const;
};

/// What to do to one request.
struct FaultDecision {
    int latency_ms = 0;
    std::optional<ApiError> error;
    bool drop = false;
};

class Faults {
public:
    Faults(double fail_rate, int latency_ms, std::uint64_t seed);
    /// Decides, and consumes rule counts, for one API request; `resource` is the plural
    /// resource name the path addresses ("" for none).
    FaultDecision decide(const std::string& method, const std::string& path,
                         const std::string& resource = "");
    /// Adds a rule; returns its id.
    int add(const FaultRule& rule);
    void clear();
    void set_fail_rate(double p);
    void set_latency_ms(int ms);
    Json to_json() const;

private:
    struct Entry {
        int id;
        FaultRule rule;
    };
    mutable std::mutex m_mu;
    double m_fail_rate;
    int m_latency_ms;
    std::mt19937_64 m_rng;
    std::vector<Entry> m_rules;
    int m_next_id = 1;
};

/// Request counters keyed by "<VERB> <path template>" and by response code.
class Stats {
public:
    void count(const std::string& key);
    void count_status(int code);
    /// {"requests": {...}, "total": n, "responses": {"200": n, ...}}
    Json to_json() const;
    /// Keeps a write request (any verb but GET) as received: the last 64, bodies cut at 1 MiB.
    void record_write(const std::string& verb, const std::string& path, const std::string& body);
    /// [{"verb", "path", "body"}, ...], oldest first.
    Json writes_json() const;
    void reset();

private:
    struct Write {
        std::string verb;
        std::string path;
        std::string body;
    };
    mutable std::mutex m_mu;
    std::deque<Write> m_writes;
    std::map<std::string, std::uint64_t> m_requests;
    std::map<int, std::uint64_t> m_codes;
    std::uint64_t m_total = 0;
};

} // namespace kprov::sim
