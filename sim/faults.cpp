#include "faults.hpp"

#include <algorithm>

namespace kprov::sim {

FaultRule FaultRule::from_json(const Json& j) {
    static const std::vector<std::string> known = {"rate",      "status",     "retryAfterSeconds",
                                                   "count",     "pathPrefix", "method",
                                                   "latencyMs", "drop",       "resource"};
    for (const auto& [k, v] : j.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
            throw bad_request("fault rule: unknown key \"" + k + "\"");
    FaultRule r;
    r.rate = json_field(j, "rate", 1.0);
    r.status = json_field(j, "status", j.contains("latencyMs") || j.contains("drop") ? 0 : 500);
    r.retry_after_seconds = json_field(j, "retryAfterSeconds", 0);
    r.count = json_field(j, "count", -1);
    r.path_prefix = json_field(j, "pathPrefix", std::string());
    r.method = json_field(j, "method", std::string());
    r.resource = json_field(j, "resource", std::string());
    r.latency_ms = json_field(j, "latencyMs", 0);
    r.drop = json_field(j, "drop", false);
    if (r.rate < 0 || r.rate > 1)
        throw bad_request("fault rule: rate must be between 0 and 1");
    if (r.status != 0 && (r.status < 400 || r.status > 599))
        throw bad_request("fault rule: status must be an HTTP error code (400-599) or 0");
    return r;
}

Json FaultRule::to_json() const {
    return {{"rate", rate},
            {"status", status},
            {"retryAfterSeconds", retry_after_seconds},
            {"count", count},
            {"pathPrefix", path_prefix},
            {"method", method},
            {"resource", resource},
            {"latencyMs", latency_ms},
            {"drop", drop}};
}

Faults::Faults(double fail_rate, int latency_ms, std::uint64_t seed)
    : m_fail_rate(fail_rate)
    , m_latency_ms(latency_ms)
    , m_rng(seed) {}

FaultDecision Faults::decide(const std::string& method, const std::string& path,
                             const std::string& resource) {
    std::lock_guard lock(m_mu);
    FaultDecision d;
    d.latency_ms = m_latency_ms;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (auto it = m_rules.begin(); it != m_rules.end(); ++it) {
        FaultRule& r = it->rule;
        if (!r.method.empty() && r.method != method)
            continue;
        if (!r.path_prefix.empty() && path.rfind(r.path_prefix, 0) != 0)
            continue;
        if (!r.resource.empty() && r.resource != resource)
            continue;
        if (r.count == 0 || unit(m_rng) >= r.rate)
            continue;
        if (r.count > 0 && --r.count == 0) {
            // Spent: keep the decision, drop the rule.
            FaultRule spent = r;
            m_rules.erase(it);
            d.latency_ms += spent.latency_ms;
            d.drop = spent.drop;
            if (spent.status != 0)
                d.error = injected_error(spent.status, spent.retry_after_seconds);
            return d;
        }
        d.latency_ms += r.latency_ms;
        d.drop = r.drop;
        if (r.status != 0)
            d.error = injected_error(r.status, r.retry_after_seconds);
        return d;
    }
    if (m_fail_rate > 0 && unit(m_rng) < m_fail_rate)
        d.error = injected_error(unit(m_rng) < 0.5 ? 500 : 503, 0);
    return d;
}

int Faults::add(const FaultRule& rule) {
    std::lock_guard lock(m_mu);
    m_rules.push_back({m_next_id, rule});
    return m_next_id++;
}

void Faults::clear() {
    std::lock_guard lock(m_mu);
    m_rules.clear();
}

void Faults::set_fail_rate(double p) {
    std::lock_guard lock(m_mu);
    m_fail_rate = p;
}

void Faults::set_latency_ms(int ms) {
    std::lock_guard lock(m_mu);
    m_latency_ms = ms;
}

Json Faults::to_json() const {
    std::lock_guard lock(m_mu);
    Json rules = Json::array();
    for (const auto& e : m_rules) {
        Json r = e.rule.to_json();
        r["id"] = e.id;
        rules.push_back(r);
    }
    return {{"failRate", m_fail_rate}, {"latencyMs", m_latency_ms}, {"rules", rules}};
}

void Stats::count(const std::string& key) {
    std::lock_guard lock(m_mu);
    ++m_requests[key];
    ++m_total;
}

void Stats::count_status(int code) {
    std::lock_guard lock(m_mu);
    ++m_codes[code];
}

Json Stats::to_json() const {
    std::lock_guard lock(m_mu);
    Json req = Json::object();
    for (const auto& [k, v] : m_requests)
        req[k] = v;
    Json codes = Json::object();
    for (const auto& [k, v] : m_codes)
        codes[std::to_string(k)] = v;
    return {{"requests", req}, {"total", m_total}, {"responses", codes}};
}

void Stats::record_write(const std::string& verb, const std::string& path,
                         const std::string& body) {
    constexpr std::size_t k_kept = 64;
    constexpr std::size_t k_max_body = 1 << 20;
    std::lock_guard lock(m_mu);
    m_writes.push_back({verb, path, body.substr(0, k_max_body)});
    if (m_writes.size() > k_kept)
        m_writes.pop_front();
}

Json Stats::writes_json() const {
    std::lock_guard lock(m_mu);
    Json writes = Json::array();
    for (const auto& w : m_writes)
        writes.push_back({{"verb", w.verb}, {"path", w.path}, {"body", w.body}});
    return writes;
}

void Stats::reset() {
    std::lock_guard lock(m_mu);
    m_writes.clear();
    m_requests.clear();
    m_codes.clear();
    m_total = 0;
}

} // namespace kprov::sim
