#include "api/http_server.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace kprov::api::http {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t k_listener = 0;
constexpr std::uint64_t k_wakeup = 1;
constexpr std::size_t k_read_chunk = 64 * 1024;
// How long a connection that was answered and shut down reads on before it is closed.
constexpr std::chrono::seconds k_linger{2};
// Pipelined requests are not read on while this much output waits for the client.
constexpr std::size_t k_max_pending_output = 1024 * 1024;

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool is_token_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// Whether a comma-separated header value holds `token` (case-insensitive).
bool has_token(std::string_view value, std::string_view token) {
    while (!value.empty()) {
        const auto comma = value.find(',');
        if (iequals(trim(value.substr(0, comma)), token))
            return true;
        if (comma == std::string_view::npos)
            break;
        value.remove_prefix(comma + 1);
    }
    return false;
}

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

// --- parsing ---------------------------------------------------------------------------------

/// One request's head as parsed from the front of a connection's buffer.
struct Head {
    Request request;
    std::size_t head_bytes = 0;     // request line and headers, with the blank line
    std::size_t content_length = 0; // body bytes after the head
    bool keep_alive = true;
    bool http10 = false;
    bool expect_continue = false;
};

/// Why a request is refused before the handler sees it.
struct Refusal {
    int status = 0;
    std::string message;
};

enum class Parsed { Incomplete, Complete, Refused };

Parsed parse_head(std::string_view buffer, const ServerOptions& options, Head& head,
                  Refusal& refusal) {
    const auto refuse = [&](int status, std::string message) {
        refusal = {status, std::move(message)};
        return Parsed::Refused;
    };
    const auto end = buffer.find("\r\n\r\n");
    if (end == std::string_view::npos)
        return buffer.size() > options.max_header_bytes
                   ? refuse(431, "request header fields too large")
                   : Parsed::Incomplete;
    if (end + 4 > options.max_header_bytes)
        return refuse(431, "request header fields too large");
    head = Head{};
    head.head_bytes = end + 4;
    std::string_view rest = buffer.substr(0, end + 2); // every line ends in CRLF

    // Request line: method SP target SP version.
    const auto line_end = rest.find("\r\n");
    const std::string_view line = rest.substr(0, line_end);
    rest.remove_prefix(line_end + 2);
    const auto sp1 = line.find(' ');
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return refuse(400, "malformed request line");
    Request& req = head.request;
    req.method = line.substr(0, sp1);
    req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    if (req.method.empty() || !std::all_of(req.method.begin(), req.method.end(), is_token_char))
        return refuse(400, "malformed request method");
    if (req.target.empty() || req.target.front() != '/' ||
        std::any_of(req.target.begin(), req.target.end(),
                    [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }))
        return refuse(400, "malformed request target");
    if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || !std::isdigit(version[5]) ||
        version[6] != '.' || !std::isdigit(version[7]))
        return refuse(400, "malformed HTTP version");
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return refuse(505, "HTTP version not supported");
    head.http10 = version == "HTTP/1.0";
    head.keep_alive = !head.http10;
    const auto question = req.target.find('?');
    req.path = req.target.substr(0, question);
    req.query =
        question == std::string_view::npos ? std::string_view() : req.target.substr(question + 1);

    // Header fields: name ":" OWS value OWS.
    std::optional<std::size_t> length;
    while (!rest.empty()) {
        const auto eol = rest.find("\r\n");
        const std::string_view field = rest.substr(0, eol);
        rest.remove_prefix(eol + 2);
        const auto colon = field.find(':');
        if (colon == 0 || colon == std::string_view::npos ||
            !std::all_of(field.begin(), field.begin() + static_cast<std::ptrdiff_t>(colon),
                         is_token_char))
            return refuse(400, "malformed header field");
        const std::string_view name = field.substr(0, colon);
        const std::string_view value = trim(field.substr(colon + 1));
        if (std::any_of(value.begin(), value.end(), [](char c) {
                return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
            }))
            return refuse(400, "malformed header field");
        req.headers.emplace_back(name, value);
        if (iequals(name, "Content-Length")) {
            std::size_t n = 0;
            const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() ||
                (length && *length != n))
                return refuse(400, "malformed Content-Length");
            length = n;
        } else if (iequals(name, "Transfer-Encoding")) {
            return refuse(411, "request bodies must be sent with Content-Length");
        } else if (iequals(name, "Connection")) {
            if (has_token(value, "close"))
                head.keep_alive = false;
            else if (has_token(value, "keep-alive"))
                head.keep_alive = true;
        } else if (iequals(name, "Expect")) {
            head.expect_continue = iequals(value, "100-continue");
        }
    }
    head.content_length = length.value_or(0);
    if (head.content_length > options.max_body_bytes)
        return refuse(413, "request body larger than " + std::to_string(options.max_body_bytes) +
                               " bytes");
    if (buffer.size() < head.head_bytes + head.content_length)
        return Parsed::Incomplete;
    req.body = buffer.substr(head.head_bytes, head.content_length);
    return Parsed::Complete;
}

// --- responses -------------------------------------------------------------------------------

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

Response internal_error() {
    Response res;
    res.status = 500;
    res.body = "internal server error";
    return res;
}

// --- threads ---------------------------------------------------------------------------------

class WorkerPool {
public:
    void start(int threads) {
        for (int i = 0; i < threads; ++i)
            m_threads.emplace_back([this] { run(); });
    }
    void post(std::function<void()> task) {
        {
            const std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_ready.notify_one();
    }
    /// Runs what is queued, then ends the threads.
    void stop() {
        {
            const std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_ready.notify_all();
        for (auto& t : m_threads)
            t.join();
        m_threads.clear();
    }

private:
    void run() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(m_mutex);
                m_ready.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
                if (m_tasks.empty())
                    return;
                task = std::move(m_tasks.front());
                m_tasks.pop_front();
            }
            task();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_threads;
    bool m_stopping = false;
};

class Fd {
public:
    explicit Fd(int fd = -1)
        : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    void reset(int fd = -1) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

[[noreturn]] void throw_errno(const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what);
}

} // namespace

// --- Request ---------------------------------------------------------------------------------

std::optional<std::string_view> Request::header(std::string_view name) const {
    for (const auto& [n, v] : headers)
        if (iequals(n, name))
            return v;
    return std::nullopt;
}

std::optional<std::string> Request::query_param(std::string_view name) const {
    std::string_view rest = query;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        const auto eq = pair.find('=');
        if (url_decode(pair.substr(0, eq)) == name)
            return eq == std::string_view::npos ? std::string() : url_decode(pair.substr(eq + 1));
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
    case 422:
        return "Unprocessable Entity";
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

// --- the server ------------------------------------------------------------------------------

namespace {

struct Connection {
    Fd fd;
    std::string in;  // received and not yet answered
    std::string out; // to send, from out_sent on
    std::size_t out_sent = 0;
    bool blocked = false;       // a request is with a worker
    bool continue_sent = false; // "100 Continue" for the request being read
    bool close_after_write = false;
    bool peer_closed = false; // the client sent its last byte
    bool lingering = false;   // answered and shut down for writing: discarding until EOF
    int requests = 0;
    bool registered = false;  // with epoll
    std::uint32_t events = 0; // what epoll reports for it
    Clock::time_point since;  // last progress: idle, reading or writing
};

/// A Blocking request's answer, going back to its loop.
struct Finished {
    std::uint64_t connection;
    Response response;
    bool keep_alive;
    bool http10;
    bool head_only;
};

class Loop {
public:
    Loop(const std::atomic<bool>& stopping, const Handler& handler, const ServerOptions& options,
         WorkerPool& workers);
    void start() {
        m_thread = std::thread([this] { run(); });
    }
    void join() {
        if (m_thread.joinable())
            m_thread.join();
    }
    /// From any thread.
    void wake() {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(m_wakeup.get(), &one, sizeof one);
    }
    void adopt(int fd) {
        {
            const std::lock_guard lock(m_mutex);
            m_adopted.push_back(fd);
        }
        wake();
    }
    void finished(Finished f) {
        {
            const std::lock_guard lock(m_mutex);
            m_finished.push_back(std::move(f));
        }
        wake();
    }
    void listen_on(int fd) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = k_listener;
        if (epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
            throw_errno("epoll_ctl");
        m_listener = fd;
    }
    void set_peers(std::vector<std::unique_ptr<Loop>>* loops) { m_peers = loops; }

private:
    void run();
    void accept_all();
    void take_adopted();
    void take_finished();
    void on_event(std::uint64_t id, std::uint32_t events);
    void read_from(std::uint64_t id, Connection& c);
    void process(std::uint64_t id, Connection& c);
    void answer_now(Connection& c, const Head& head, const Response& res);
    void refuse(Connection& c, const Refusal& refusal);
    void flush(Connection& c);
    void update_events(std::uint64_t id, Connection& c);
    void close(std::uint64_t id);
    /// Closes a connection whose answer is sent. A client may still be sending (a body over
    /// the limit): closing with unread data would reset the connection, and the client could
    /// lose the answer or die of SIGPIPE, so the server shuts down its side and reads on.
    void finish(std::uint64_t id, Connection& c);
    void sweep();
    bool idle(const Connection& c) const {
        return !c.blocked && c.in.empty() && c.out_sent == c.out.size();
    }

    const std::atomic<bool>& m_server_stopping;
    const Handler& m_handler;
    const ServerOptions& m_options;
    WorkerPool& m_workers;
    Fd m_epoll;
    Fd m_wakeup;
    int m_listener = -1;
    std::vector<std::unique_ptr<Loop>>* m_peers = nullptr;
    std::size_t m_next_peer = 0;
    std::thread m_thread;
    std::unordered_map<std::uint64_t, Connection> m_connections;
    std::vector<char> m_read_buffer = std::vector<char>(k_read_chunk);
    std::uint64_t m_next_id = 2;
    std::mutex m_mutex; // guards the two queues below
    std::vector<int> m_adopted;
    std::vector<Finished> m_finished;
    bool m_stopping = false;
    bool m_accept_paused = false; // the listener is out of epoll for a tick
    Clock::time_point m_stop_deadline;
    Clock::time_point m_last_sweep;
};

} // namespace

struct Server::Impl {
    Handler handler;
    ServerOptions options;
    WorkerPool workers;
    Fd listener;
    std::vector<std::unique_ptr<Loop>> loops;
    std::atomic<bool> stopping{false};
    bool started = false;
    bool stopped = false;
    std::mutex stop_mutex;
};

namespace {

Loop::Loop(const std::atomic<bool>& stopping, const Handler& handler, const ServerOptions& options,
           WorkerPool& workers)
    : m_server_stopping(stopping)
    , m_handler(handler)
    , m_options(options)
    , m_workers(workers)
    , m_epoll(epoll_create1(EPOLL_CLOEXEC))
    , m_wakeup(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (m_epoll.get() < 0 || m_wakeup.get() < 0)
        throw_errno("epoll/eventfd");
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = k_wakeup;
    if (epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, m_wakeup.get(), &ev) != 0)
        throw_errno("epoll_ctl");
}

void Loop::run() {
    epoll_event events[128];
    const auto tick = std::min(
        {std::chrono::milliseconds(250), m_options.idle_timeout / 4, m_options.io_timeout / 4});
    const int timeout_ms = std::max(1, static_cast<int>(tick.count()));
    for (;;) {
        const int n = epoll_wait(m_epoll.get(), events, 128, timeout_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; ++i) {
            const auto id = events[i].data.u64;
            if (id == k_listener) {
                accept_all();
            } else if (id == k_wakeup) {
                std::uint64_t count = 0;
                [[maybe_unused]] const auto r = ::read(m_wakeup.get(), &count, sizeof count);
                take_adopted();
                take_finished();
            } else {
                on_event(id, events[i].events);
            }
        }
        if (!m_stopping && m_server_stopping.load()) {
            m_stopping = true;
            m_stop_deadline = Clock::now() + m_options.io_timeout;
            if (m_listener >= 0 && !m_accept_paused)
                epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, m_listener, nullptr);
            m_accept_paused = false;
            m_last_sweep = {};
        }
        const auto now = Clock::now();
        if (now - m_last_sweep >= tick) {
            m_last_sweep = now;
            sweep();
            if (m_accept_paused && !m_stopping) {
                epoll_event ev{};
                ev.events = EPOLLIN;
                ev.data.u64 = k_listener;
                m_accept_paused = epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, m_listener, &ev) != 0;
            }
        }
        if (m_stopping && (m_connections.empty() || now >= m_stop_deadline))
            break;
    }
    m_connections.clear();
    const std::lock_guard lock(m_mutex);
    for (const int fd : m_adopted)
        ::close(fd);
    m_adopted.clear();
}

void Loop::accept_all() {
    for (;;) {
        const int fd = accept4(m_listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            // Out of descriptors (EMFILE, ENFILE, ENOBUFS): the listener would be reported
            // ready at once, again and again; it rests until the next sweep instead.
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                errno != ECONNABORTED && !m_accept_paused) {
                epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, m_listener, nullptr);
                m_accept_paused = true;
            }
            return;
        }
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // Connections go to the loops in turn, so every core serves some.
        auto& peers = *m_peers;
        Loop& target = *peers[m_next_peer++ % peers.size()];
        if (&target == this) {
            {
                const std::lock_guard lock(m_mutex);
                m_adopted.push_back(fd);
            }
            take_adopted();
        } else {
            target.adopt(fd);
        }
    }
}

void Loop::take_adopted() {
    std::vector<int> fds;
    {
        const std::lock_guard lock(m_mutex);
        fds.swap(m_adopted);
    }
    for (const int fd : fds) {
        if (m_stopping) {
            ::close(fd);
            continue;
        }
        const std::uint64_t id = m_next_id++;
        Connection& c = m_connections[id];
        c.fd.reset(fd);
        c.since = Clock::now();
        update_events(id, c);
    }
}

void Loop::take_finished() {
    std::vector<Finished> done;
    {
        const std::lock_guard lock(m_mutex);
        done.swap(m_finished);
    }
    for (auto& f : done) {
        const auto it = m_connections.find(f.connection);
        if (it == m_connections.end())
            continue; // closed meanwhile
        Connection& c = it->second;
        c.blocked = false;
        // Serialized here, not on the worker: a stop since then closes the connection.
        const bool keep_alive = f.keep_alive && !m_stopping;
        serialize(f.response, keep_alive, f.http10, f.head_only, c.out);
        c.close_after_write = c.close_after_write || !keep_alive;
        c.since = Clock::now();
        process(f.connection, c); // pipelined requests behind it, then the write
    }
}

void Loop::on_event(std::uint64_t id, std::uint32_t events) {
    const auto it = m_connections.find(id);
    if (it == m_connections.end())
        return;
    Connection& c = it->second;
    if ((events & EPOLLERR) || ((events & EPOLLHUP) && !(events & EPOLLIN))) {
        close(id);
        return;
    }
    if (events & EPOLLOUT) {
        flush(c);
        if (c.close_after_write && c.out_sent == c.out.size()) {
            finish(id, c);
            return;
        }
    }
    if (events & EPOLLIN)
        read_from(id, c);
    else
        update_events(id, c);
}

void Loop::read_from(std::uint64_t id, Connection& c) {
    if (c.lingering) {
        ssize_t n = 0;
        while ((n = ::recv(c.fd.get(), m_read_buffer.data(), k_read_chunk, 0)) > 0) {
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            close(id);
        return;
    }
    bool eof = false;
    for (;;) {
        const std::size_t old = c.in.size();
        const ssize_t n = ::recv(c.fd.get(), m_read_buffer.data(), k_read_chunk, 0);
        if (n > 0) {
            c.in.append(m_read_buffer.data(), static_cast<std::size_t>(n));
            if (old == 0)
                c.since = Clock::now(); // a request's first bytes
            // Enough for one request at its limits: process() judges it before reading on,
            // so a client cannot fill the server's memory.
            if (static_cast<std::size_t>(n) < k_read_chunk ||
                c.in.size() >= m_options.max_header_bytes + m_options.max_body_bytes)
                break;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            eof = true;
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    // The client is gone or has half-closed: what it sent in full is still answered.
    c.peer_closed = c.peer_closed || eof;
    process(id, c);
}

void Loop::process(std::uint64_t id, Connection& c) {
    std::size_t consumed = 0;
    while (!c.blocked && !c.close_after_write && consumed < c.in.size() &&
           c.out.size() - c.out_sent < k_max_pending_output) {
        const std::string_view buffer = std::string_view(c.in).substr(consumed);
        Head head;
        Refusal refusal;
        const Parsed parsed = parse_head(buffer, m_options, head, refusal);
        if (parsed == Parsed::Refused) {
            refuse(c, refusal);
            consumed = c.in.size();
            break;
        }
        if (parsed == Parsed::Incomplete) {
            if (head.expect_continue && head.head_bytes > 0 && !c.continue_sent) {
                c.out += "HTTP/1.1 100 Continue\r\n\r\n";
                c.continue_sent = true;
            }
            break;
        }
        const std::size_t size = head.head_bytes + head.content_length;
        c.continue_sent = false;
        ++c.requests;
        if (c.requests >= m_options.max_requests_per_connection || m_stopping)
            head.keep_alive = false;
        Response res;
        Handled handled = Handled::Answered;
        try {
            handled = m_handler(head.request, res, true);
        } catch (...) {
            res = internal_error();
        }
        if (handled == Handled::Answered) {
            answer_now(c, head, res);
            consumed += size;
            continue;
        }
        // To a worker, with a copy of the request's bytes (the buffer moves on).
        c.blocked = true;
        auto bytes = std::make_shared<std::string>(buffer.substr(0, size));
        consumed += size;
        const bool keep_alive = head.keep_alive;
        const bool http10 = head.http10;
        const bool head_only = head.request.method == "HEAD";
        m_workers.post([this, id, bytes, keep_alive, http10, head_only] {
            Head again;
            Refusal unused;
            parse_head(*bytes, m_options, again, unused);
            Finished f{id, {}, keep_alive, http10, head_only};
            try {
                m_handler(again.request, f.response, false);
            } catch (...) {
                f.response = internal_error();
            }
            finished(std::move(f));
        });
    }
    c.in.erase(0, consumed);
    flush(c);
    if ((c.close_after_write || c.peer_closed) && !c.blocked && c.out_sent == c.out.size()) {
        finish(id, c);
        return;
    }
    update_events(id, c);
}

void Loop::answer_now(Connection& c, const Head& head, const Response& res) {
    serialize(res, head.keep_alive, head.http10, head.request.method == "HEAD", c.out);
    if (!head.keep_alive)
        c.close_after_write = true;
    c.since = Clock::now();
}

void Loop::refuse(Connection& c, const Refusal& refusal) {
    Response res;
    res.status = refusal.status;
    res.body = refusal.message;
    serialize(res, false, false, false, c.out);
    c.close_after_write = true;
}

void Loop::flush(Connection& c) {
    while (c.out_sent < c.out.size()) {
        const ssize_t n =
            ::send(c.fd.get(), c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
        if (n > 0) {
            c.out_sent += static_cast<std::size_t>(n);
            c.since = Clock::now();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        // The peer is gone: drop what cannot be sent.
        c.out_sent = c.out.size();
        c.close_after_write = true;
        c.in.clear();
        return;
    }
    c.out.clear();
    c.out_sent = 0;
}

void Loop::update_events(std::uint64_t id, Connection& c) {
    // A blocked connection leaves epoll until its answer is back: a hang-up meanwhile would
    // otherwise be reported over and over (level-triggered).
    if (c.blocked) {
        if (c.registered)
            epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
        c.registered = false;
        return;
    }
    std::uint32_t wanted = 0;
    if (c.lingering || (!c.close_after_write && !c.peer_closed &&
                        c.out.size() - c.out_sent < k_max_pending_output))
        wanted |= EPOLLIN;
    if (c.out_sent < c.out.size())
        wanted |= EPOLLOUT;
    if (c.registered && wanted == c.events)
        return;
    epoll_event ev{};
    ev.events = wanted;
    ev.data.u64 = id;
    if (epoll_ctl(m_epoll.get(), c.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd.get(), &ev) ==
        0) {
        c.registered = true;
        c.events = wanted;
    }
}

void Loop::close(std::uint64_t id) {
    const auto it = m_connections.find(id);
    if (it == m_connections.end())
        return;
    if (it->second.registered)
        epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, it->second.fd.get(), nullptr);
    m_connections.erase(it);
}

void Loop::finish(std::uint64_t id, Connection& c) {
    if (c.peer_closed || c.lingering) {
        close(id);
        return;
    }
    ::shutdown(c.fd.get(), SHUT_WR);
    c.lingering = true;
    c.in.clear();
    c.since = Clock::now();
    update_events(id, c);
}

void Loop::sweep() {
    const auto now = Clock::now();
    std::vector<std::uint64_t> expired;
    for (auto& [id, c] : m_connections) {
        if (c.blocked)
            continue; // a worker answers it
        if (c.lingering) {
            if (m_stopping || now - c.since >= k_linger)
                expired.push_back(id);
            continue;
        }
        if (m_stopping && idle(c)) {
            expired.push_back(id);
            continue;
        }
        const auto limit = idle(c) ? m_options.idle_timeout : m_options.io_timeout;
        if (now - c.since >= limit)
            expired.push_back(id);
    }
    for (const auto id : expired)
        close(id);
}

} // namespace

Server::Server(Handler handler, ServerOptions options)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->handler = std::move(handler);
    m_impl->options = options;
    if (m_impl->options.loops <= 0)
        m_impl->options.loops = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    m_impl->options.workers = std::max(1, m_impl->options.workers);
}

Server::~Server() {
    stop();
}

int Server::bind(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || !found)
        throw std::system_error(EADDRNOTAVAIL, std::generic_category(), "resolve " + host);
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, freeaddrinfo);
    Fd fd(socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0)
        throw_errno("socket");
    const int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), found->ai_addr, found->ai_addrlen) != 0)
        throw_errno("bind " + host + ":" + service);
    if (::listen(fd.get(), SOMAXCONN) != 0)
        throw_errno("listen");
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &length) != 0)
        throw_errno("getsockname");
    m_impl->listener = std::move(fd);
    return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

void Server::start() {
    auto& impl = *m_impl;
    if (impl.started || impl.listener.get() < 0)
        return;
    impl.started = true;
    for (int i = 0; i < impl.options.loops; ++i)
        impl.loops.push_back(
            std::make_unique<Loop>(impl.stopping, impl.handler, impl.options, impl.workers));
    for (auto& loop : impl.loops)
        loop->set_peers(&impl.loops);
    impl.loops.front()->listen_on(impl.listener.get());
    impl.workers.start(impl.options.workers);
    for (auto& loop : impl.loops)
        loop->start();
}

void Server::stop() {
    auto& impl = *m_impl;
    const std::lock_guard lock(impl.stop_mutex);
    if (impl.stopped)
        return;
    impl.stopped = true;
    impl.stopping = true;
    for (auto& loop : impl.loops)
        loop->wake();
    for (auto& loop : impl.loops)
        loop->join();
    impl.workers.stop();
    impl.loops.clear();
    impl.listener.reset();
}

} // namespace kprov::api::http
