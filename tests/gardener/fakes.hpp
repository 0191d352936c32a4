#pragma once
// Test doubles for the Kubernetes client: a scripted HttpTransport and a clock whose sleeps
// take no real time.

#include "gardener/kubeconfig.hpp"
#include "net/clock.hpp"
#include "net/http_transport.hpp"

#include <deque>
#include <functional>
#include <gtest/gtest.h>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kprov::gardener::testing {

/// now() moves only when someone sleeps (unless `advance_on_sleep` is false); every sleep is
/// recorded.
class FakeClock : public net::Clock {
public:
    explicit FakeClock(bool advance_on_sleep = true)
        : m_advance(advance_on_sleep) {}

    time_point now() override {
        std::lock_guard lock(m_mutex);
        return m_now;
    }
    bool sleep_for(duration d, const std::stop_token& stop = {}) override {
        std::lock_guard lock(m_mutex);
        m_sleeps.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(d));
        if (m_advance && d > duration::zero())
            m_now += d;
        return !stop.stop_requested();
    }
    void advance(duration d) {
        std::lock_guard lock(m_mutex);
        m_now += d;
    }
    std::vector<std::chrono::milliseconds> sleeps() {
        std::lock_guard lock(m_mutex);
        return m_sleeps;
    }

private:
    std::mutex m_mutex;
    bool m_advance;
    time_point m_now{std::chrono::hours(1)};
    std::vector<std::chrono::milliseconds> m_sleeps;
};

/// Answers requests from a script, one step per request, and records every request.
class FakeTransport : public net::HttpTransport {
public:
    using Step = std::function<net::HttpResponse(const net::HttpRequest&)>;

    void then(Step step) {
        std::lock_guard lock(m_mutex);
        m_steps.push_back(std::move(step));
    }
    /// An answer with `status` and `body`.
    void reply(int status, std::string body = "{}",
               std::multimap<std::string, std::string> headers = {}) {
        then([=](const net::HttpRequest&) {
            net::HttpResponse response;
            response.status = status;
            response.body = body;
            response.headers = headers;
            return response;
        });
    }
    /// No answer.
    void fail(net::TransportError::Kind kind, bool request_sent, std::string message = "boom") {
        then([=](const net::HttpRequest&) -> net::HttpResponse {
            throw net::TransportError(kind, request_sent, message);
        });
    }
    /// A 200 streamed in `chunks`; then a clean end, or `end_error` when given.
    void stream(std::vector<std::string> chunks,
                std::optional<net::TransportError::Kind> end_error = std::nullopt) {
        then([=](const net::HttpRequest& request) {
            net::HttpResponse response;
            response.status = 200;
            for (const auto& chunk : chunks)
                if (!request.on_body(chunk))
                    return response;
            if (end_error)
                throw net::TransportError(*end_error, true, "stream dropped");
            return response;
        });
    }

    net::HttpResponse perform(const net::HttpRequest& request) override {
        Step step;
        {
            std::lock_guard lock(m_mutex);
            m_requests.push_back(request);
            if (m_steps.empty()) {
                ADD_FAILURE() << "unexpected request " << request.method << " " << request.url;
                net::HttpResponse response;
                response.status = 599;
                return response;
            }
            step = std::move(m_steps.front());
            m_steps.pop_front();
        }
        return step(request);
    }

    std::vector<net::HttpRequest> requests() {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }
    std::size_t remaining() {
        std::lock_guard lock(m_mutex);
        return m_steps.size();
    }

private:
    std::mutex m_mutex;
    std::deque<Step> m_steps;
    std::vector<net::HttpRequest> m_requests;
};

inline constexpr const char* k_secret_token = "s3cr3t-t0ken-value";

/// A kubeconfig for https://api.test with a bearer token.
inline Kubeconfig test_kubeconfig() {
    Kubeconfig config;
    config.source = "test";
    config.context = "test";
    config.server = "https://api.test";
    config.token = k_secret_token;
    return config;
}

/// The value of header `name` in `request`, or "" when absent.
inline std::string header_of(const net::HttpRequest& request, const std::string& name) {
    for (const auto& [key, value] : request.headers)
        if (key == name)
            return value;
    return {};
}

/// A Kubernetes Status body.
inline std::string status_body(int code, const std::string& reason, const std::string& message) {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
           message + R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
}

} // namespace kprov::gardener::testing
