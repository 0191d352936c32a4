#pragma once
// Pieces of the HTTP server (http_server.hpp) that need no Boost: response serialization, the
// worker pool, the buffered-bytes budget and the TLS settings. Included by src/api/http/*.cpp
// only.

#include "api/http/http_server.hpp"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

typedef struct ssl_ctx_st SSL_CTX;

namespace kprov::api::http::detail {

/// Appends `res` as an HTTP/1.1 response to `out` (Content-Type, Content-Length, Date,
/// Connection when it is not the version's default, the handler's headers); without the body
/// for a HEAD request.
void serialize(const Response& res, bool keep_alive, bool http10, bool head_only, std::string& out);

/// A plain-text response of `status` with `message` as its body.
Response plain(int status, std::string message);

/// One request's head, copied out of the read buffer: `text` holds the method, the target and
/// every header name and value back to back.
struct Head {
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> spans; // into text: method, target, fields
    int version = 11;
    bool keep_alive = true;
    bool expect_continue = false;
    std::uint64_t content_length = 0;
    int refusal = 0; // the status a refused head is answered with, and why
    std::string refusal_message;

    /// Points `req`'s method, target, path, query and headers into `text`.
    void fill(Request& req) const;
};

/// Beast's request parser for the request line and headers only (the connection reads bodies
/// itself). One per connection; not thread-safe.
class HeadReader {
public:
    enum class Status {
        NeedMore, ///< the head is not in yet: append to the input and put() it again
        Done,     ///< head() is complete
        Refused,  ///< head().refusal and refusal_message say why (400, 411, 431, 505)
    };
    explicit HeadReader(std::size_t max_header_bytes);
    ~HeadReader();
    HeadReader(const HeadReader&) = delete;
    HeadReader& operator=(const HeadReader&) = delete;

    /// Begins a new request.
    void reset();
    /// Parses the front of `in` (all the unconsumed input); `used` is what it took.
    Status put(std::string_view in, std::size_t& used);
    const Head& head() const { return m_head; }

private:
    class Parser;
    Head m_head;
    std::size_t m_max_header_bytes;
    std::unique_ptr<Parser> m_parser;
};

/// Threads that run tasks in order of posting. Thread-safe.
class WorkerPool {
public:
    void start(int threads);
    /// Queues `task`; once stopped, runs it on the calling thread.
    void post(std::function<void()> task);
    /// As post(), but false (and `task` dropped) when `max_queued` tasks already wait.
    bool try_post(std::function<void()>& task, std::size_t max_queued);
    /// Runs what is queued, then ends the threads. Idempotent.
    void stop();

private:
    void run();

    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_threads;
    bool m_stopped = false;
};

/// Bytes that connections may hold at once. Thread-safe.
class Budget {
public:
    explicit Budget(std::size_t limit)
        : m_limit(limit) {}
    /// Takes `n` bytes; false (taking none) when they do not fit.
    bool take(std::size_t n);
    void give_back(std::size_t n) { m_used.fetch_sub(n, std::memory_order_relaxed); }
    std::size_t used() const { return m_used.load(std::memory_order_relaxed); }

private:
    const std::size_t m_limit;
    std::atomic<std::size_t> m_used{0};
};

/// Loads the certificate chain and key into `ctx` and restricts it to TLS 1.2+ with AEAD,
/// forward-secret suites, no compression and no renegotiation. Throws ConfigError naming the
/// files when they cannot be read or do not match.
void configure_tls(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file);

} // namespace kprov::api::http::detail
