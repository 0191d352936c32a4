// The Boost-free half of the HTTP server: Request's accessors, status texts, response
// serialization, the worker pool and the byte budget.

#include "api/http/http_internal.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>

namespace kprov::api::http {
namespace detail {
namespace {

std::string url_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (unsigned byte = 0;
                   s[i] == '%' && i + 2 < s.size() &&
                   std::from_chars(&s[i + 1], &s[i + 3], byte, 16).ptr == &s[i + 3]) {
            out += static_cast<char>(byte);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

/// "Date: ..." for the current second, formatted once per second per thread.
std::string_view date_line() {
    thread_local std::time_t cached_second = 0;
    thread_local char line[64];
    thread_local std::size_t length = 0;
    const std::time_t now = std::time(nullptr);
    if (now != cached_second) {
        cached_second = now;
        std::tm tm{};
        gmtime_r(&now, &tm);
        length = std::strftime(line, sizeof line, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    }
    return {line, length};
}

void append_number(std::string& out, std::size_t n) {
    char buffer[24];
    out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, n).ptr);
}

} // namespace

void serialize(const Response& res, bool keep_alive, bool http10, bool head_only,
               std::string& out) {
    out += "HTTP/1.1 ";
    append_number(out, static_cast<std::size_t>(res.status));
    out += ' ';
    out += reason_phrase(res.status);
    out += "\r\nContent-Type: ";
    out += res.content_type;
    out += "\r\nContent-Length: ";
    append_number(out, res.body.size());
    out += "\r\n";
    out += date_line();
    if (!keep_alive)
        out += "Connection: close\r\n";
    else if (http10)
        out += "Connection: keep-alive\r\n";
    for (const auto& [name, value] : res.headers) {
        out += name;
        out += ": ";
        out += value;
        out += "\r\n";
    }
    out += "\r\n";
    if (!head_only)
        out += res.body;
}

Response plain(int status, std::string message) {
    Response res;
    res.status = status;
    res.body = std::move(message);
    return res;
}

namespace {

void run_task(const std::function<void()>& task) {
    try {
        task();
    } catch (...) {
        // A task's own failure is its business: the thread serves the next one.
    }
}

} // namespace

void WorkerPool::start(int threads) {
    const std::lock_guard lock(m_mutex);
    for (int i = 0; i < threads; ++i)
        m_threads.emplace_back([this] { run(); });
}

void WorkerPool::post(std::function<void()> task) {
    {
        const std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            m_tasks.push_back(std::move(task));
            m_ready.notify_one();
            return;
        }
    }
    run_task(task);
}

bool WorkerPool::try_post(std::function<void()>& task, std::size_t max_queued) {
    {
        const std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            if (m_tasks.size() >= max_queued)
                return false;
            m_tasks.push_back(std::move(task));
            m_ready.notify_one();
            return true;
        }
    }
    run_task(task);
    return true;
}

void WorkerPool::stop() {
    std::vector<std::thread> threads;
    {
        const std::lock_guard lock(m_mutex);
        m_stopped = true;
        threads.swap(m_threads);
    }
    // Never started: one thread still runs what was queued before stop.
    if (threads.empty())
        threads.emplace_back([this] { run(); });
    m_ready.notify_all();
    for (auto& t : threads)
        t.join();
}

void WorkerPool::run() {
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_ready.wait(lock, [this] { return m_stopped || !m_tasks.empty(); });
            if (m_tasks.empty())
                return;
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        run_task(task);
    }
}

bool Budget::take(std::size_t n) {
    if (m_used.fetch_add(n, std::memory_order_relaxed) + n <= m_limit)
        return true;
    m_used.fetch_sub(n, std::memory_order_relaxed);
    return false;
}

} // namespace detail

std::optional<std::string_view> Request::header(std::string_view name) const {
    for (const auto& [n, v] : headers)
        if (iequals_ascii(n, name))
            return v;
    return std::nullopt;
}

std::optional<std::string> Request::query_param(std::string_view name) const {
    std::string_view rest = query;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        const auto eq = pair.find('=');
        if (detail::url_decode(pair.substr(0, eq)) == name)
            return eq == std::string_view::npos ? std::string()
                                                : detail::url_decode(pair.substr(eq + 1));
        if (amp == std::string_view::npos)
            break;
        rest.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

std::string_view reason_phrase(int status) {
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 411:
        return "Length Required";
    case 413:
        return "Payload Too Large";
    case 421:
        return "Misdirected Request";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "";
    }
}

} // namespace kprov::api::http
