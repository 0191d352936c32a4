// The HTTP server's connections, loops and listener on Boost.Asio, with Beast parsing request
// heads. Each connection lives on one loop's io_context (one thread), so its state needs no lock;
// workers hand their answers back by posting to that io_context.

#include "api/http/http_internal.hpp"
#include "engine/error.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <cstring>
#include <sys/socket.h>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

namespace kprov::api::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using TlsStream = asio::ssl::stream<tcp::socket>;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;
using detail::plain;

constexpr std::size_t k_read_chunk = 4096;
// A connection's read buffer grown past this by a big header is given back once it is idle.
constexpr std::size_t k_kept_buffer = 16 * 1024;
// How long a connection that was answered and is being closed reads on (or waits for the TLS
// close_notify) so the client sees the answer rather than a reset.
constexpr std::chrono::seconds k_linger{2};
// Pipelined answers are written once this much is queued, or after this many.
constexpr std::size_t k_max_pending_output = 256 * 1024;
constexpr int k_max_batch = 16;
constexpr std::string_view k_continue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view k_busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                    "Retry-After: 1\r\nConnection: close\r\n\r\n";

/// What the loop knows of a connection.
class Connection {
public:
    virtual ~Connection() = default;
    virtual void abort() = 0; ///< closes the socket: pending operations end, then the connection
    Clock::time_point deadline = Clock::time_point::max();
    bool idle = false; ///< no request in progress: a stop closes it at once
};

struct Loop {
    std::unordered_set<Connection*> connections; // before context: outlives its handlers
    asio::io_context context{1};
    asio::steady_timer sweeper{context};
    std::thread thread;
    bool stopping = false;
    Clock::time_point stop_deadline;
    std::array<char, 4096> discard{}; // what lingering connections read, thrown away
};

/// Everything of a server that its connections and loops see.
struct State {
    Handler handler;
    ServerOptions options;
    std::optional<asio::ssl::context> tls; // before loops: streams refer to it
    detail::WorkerPool workers;
    detail::WorkerPool probes; // one thread: probes never queue behind workers' requests
    detail::Budget budget{0};
    std::vector<std::unique_ptr<Loop>> loops;
    std::optional<tcp::acceptor> acceptor;
    std::optional<asio::steady_timer> accept_pause;
    std::size_t next_loop = 0;
    std::atomic<bool> stopping{false};
    std::mutex stop_mutex;
    bool started = false;
    bool stopped = false;
    std::mutex clients_mutex;
    std::size_t open = 0;
    std::unordered_map<std::string, std::size_t> per_client;

    std::chrono::milliseconds tick() const;
    void accept_next();
    void admit(tcp::socket socket, Loop& loop);
    void sweep(Loop& loop);
    void begin_stop(Loop& loop);
};

/// A connection's place in the caps, given back when the connection ends.
class ClientSlot {
public:
    ClientSlot(State& server, std::string address)
        : m_server(&server)
        , m_address(std::move(address)) {}
    ClientSlot(ClientSlot&& other) noexcept
        : m_server(std::exchange(other.m_server, nullptr))
        , m_address(std::move(other.m_address)) {}
    ClientSlot& operator=(ClientSlot&&) = delete;
    ~ClientSlot() {
        if (!m_server)
            return;
        const std::lock_guard lock(m_server->clients_mutex);
        --m_server->open;
        if (const auto it = m_server->per_client.find(m_address); --it->second == 0)
            m_server->per_client.erase(it);
    }
    const std::string& address() const { return m_address; }

private:
    State* m_server;
    std::string m_address;
};

template <class Stream>
class Session final : public Connection, public std::enable_shared_from_this<Session<Stream>> {
public:
    Session(State& server, Loop& loop, Stream stream, ClientSlot slot)
        : m_server(server)
        , m_options(server.options)
        , m_loop(loop)
        , m_stream(std::move(stream))
        , m_slot(std::move(slot))
        , m_reader(server.options.max_header_bytes) {
        m_loop.connections.insert(this);
    }
    ~Session() override {
        m_loop.connections.erase(this);
        m_server.budget.give_back(m_buffer_charge + m_body_charge);
        if (m_loop.stopping && m_loop.connections.empty())
            m_loop.sweeper.cancel(); // the last one: the loop need not wait for its next tick
    }

    void start() {
        if constexpr (std::is_same_v<Stream, TlsStream>) {
            idle = true;
            deadline = Clock::now() + m_options.handshake_timeout;
            m_stream.async_handshake(asio::ssl::stream_base::server,
                                     [self = this->shared_from_this()](error_code ec) {
                                         if (!ec)
                                             self->next_request();
                                     });
        } else {
            next_request();
        }
    }

    void abort() override {
        error_code ignored;
        beast::get_lowest_layer(m_stream).close(ignored);
    }

private:
    using Next = void (Session::*)();

    void next_request() {
        m_reader.reset();
        m_started = m_in.size() > 0;
        if (m_started)
            m_header_deadline =
                Clock::now() + std::min(m_options.header_timeout, m_options.io_timeout);
        parse_head();
    }

    void read_more() {
        if (!m_started && m_in.size() == 0 && m_in.capacity() > k_kept_buffer) {
            m_in.shrink_to_fit();
            m_server.budget.give_back(m_buffer_charge);
            m_buffer_charge = 0;
        }
        idle = !m_started;
        deadline = m_started ? m_header_deadline : Clock::now() + m_options.idle_timeout;
        if (idle && m_loop.stopping)
            return abort();
        const auto space = m_in.prepare(k_read_chunk);
        if (m_in.capacity() > m_buffer_charge) {
            if (!m_server.budget.take(m_in.capacity() - m_buffer_charge))
                return refuse(503, "the server is busy, retry later");
            m_buffer_charge = m_in.capacity();
        }
        m_stream.async_read_some(space,
                                 [self = this->shared_from_this()](error_code ec, std::size_t n) {
                                     self->on_read(ec, n);
                                 });
    }

    void on_read(error_code ec, std::size_t n) {
        if (ec)
            return; // closed, reset or timed out: what was half sent is dropped
        m_in.commit(n);
        m_batch = 0;
        if (!m_started) {
            m_started = true;
            m_header_deadline =
                Clock::now() + std::min(m_options.header_timeout, m_options.io_timeout);
        }
        parse_head();
    }

    void parse_head() {
        std::size_t used = 0;
        const auto status =
            m_reader.put({static_cast<const char*>(m_in.data().data()), m_in.data().size()}, used);
        m_in.consume(used);
        if (status == detail::HeadReader::Status::NeedMore)
            return m_out.empty() ? read_more() : flush_then(&Session::read_more);
        if (status == detail::HeadReader::Status::Refused)
            return refuse(m_reader.head().refusal, m_reader.head().refusal_message);
        head_done();
    }

    void head_done() {
        idle = false;
        const detail::Head& head = m_reader.head();
        Request& req = m_request;
        head.fill(req);
        req.body = {};
        req.remote = m_slot.address();
        m_http10 = head.version == 10;
        m_keep_alive = head.keep_alive;
        m_head_only = req.method == "HEAD";
        const std::uint64_t length = head.content_length;
        if (length > m_options.max_body_bytes)
            return refuse(413, "request body larger than " +
                                   std::to_string(m_options.max_body_bytes) + " bytes");
        if (++m_requests >= m_options.max_requests_per_connection)
            m_keep_alive = false;
        if (m_options.authorize) {
            std::optional<Response> refused;
            try {
                refused = m_options.authorize(req);
            } catch (...) {
                refused = plain(500, "internal server error");
            }
            if (refused) {
                m_response = std::move(*refused);
                m_keep_alive = false;
                return answer();
            }
        }
        m_body.clear();
        if (length == 0)
            return dispatch();
        if (!m_server.budget.take(length)) {
            Response busy = plain(503, "the server is busy, retry later");
            busy.headers.emplace_back("Retry-After", "1");
            m_response = std::move(busy);
            m_keep_alive = false;
            return answer();
        }
        m_body_charge = length;
        m_body.resize(length);
        const std::size_t have = std::min<std::size_t>(m_in.size(), length);
        std::memcpy(m_body.data(), m_in.data().data(), have);
        m_in.consume(have);
        m_body_have = have;
        if (have == length)
            return dispatch();
        deadline = Clock::now() + m_options.io_timeout;
        if (head.expect_continue && !m_http10) {
            m_out.append(k_continue);
            return flush_then(&Session::read_body);
        }
        read_body();
    }

    // Straight into the body's own buffer: the rest of a body is never copied twice.
    void read_body() {
        asio::async_read(m_stream,
                         asio::buffer(m_body.data() + m_body_have, m_body.size() - m_body_have),
                         [self = this->shared_from_this()](error_code ec, std::size_t) {
                             if (!ec)
                                 self->dispatch();
                         });
    }

    void dispatch() {
        m_request.body = m_body;
        reset_response();
        Handled handled = Handled::Answered;
        try {
            handled = m_server.handler(m_request, m_response, true);
        } catch (...) {
            m_response = plain(500, "internal server error");
        }
        if (handled == Handled::Answered)
            return answer();
        m_probe = handled == Handled::Probe;
        m_out.empty() ? to_worker() : flush_then(&Session::to_worker);
    }

    void to_worker() {
        deadline = Clock::time_point::max(); // a worker answers it
        reset_response();
        std::function<void()> task = [self = this->shared_from_this()] {
            try {
                self->m_server.handler(self->m_request, self->m_response, false);
            } catch (...) {
                self->m_response = plain(500, "internal server error");
            }
            asio::post(self->m_loop.context, [self] { self->answer(); });
        };
        auto& pool = m_probe ? m_server.probes : m_server.workers;
        if (pool.try_post(task, m_server.options.max_queued_requests))
            return;
        m_response = plain(503, "every worker is busy and the queue is full: try again later");
        m_response.headers.emplace_back("Retry-After", "1");
        answer();
    }

    void reset_response() {
        m_response.status = 200;
        m_response.content_type = "text/plain";
        m_response.body.clear();
        m_response.headers.clear();
    }

    void answer() {
        m_server.budget.give_back(m_body_charge);
        m_body_charge = 0;
        m_request.body = {};
        if (m_body.capacity() > k_kept_buffer)
            std::string().swap(m_body);
        const bool keep_alive = m_keep_alive && !m_loop.stopping;
        detail::serialize(m_response, keep_alive, m_http10, m_head_only, m_out);
        if (!keep_alive)
            return flush_then(&Session::finish);
        if (++m_batch >= k_max_batch || m_out.size() >= k_max_pending_output)
            return flush_then(&Session::next_request);
        next_request();
    }

    void refuse(int status, std::string message) {
        m_response = plain(status, std::move(message));
        m_keep_alive = false;
        m_http10 = false;
        m_head_only = false;
        answer();
    }

    void flush_then(Next next) {
        idle = false;
        deadline = Clock::now() + m_options.io_timeout;
        asio::async_write(m_stream, asio::buffer(m_out),
                          [self = this->shared_from_this(), next](error_code ec, std::size_t) {
                              self->m_out.clear();
                              if (!ec)
                                  ((*self).*next)();
                          });
    }

    // After the last answer: the client gets an orderly end, not a reset over unread bytes.
    void finish() {
        idle = true;
        deadline = Clock::now() + k_linger;
        if (m_loop.stopping)
            return abort();
        if constexpr (std::is_same_v<Stream, TlsStream>) {
            m_stream.async_shutdown([self = this->shared_from_this()](error_code) {});
        } else {
            error_code ignored;
            m_stream.shutdown(tcp::socket::shutdown_send, ignored);
            linger();
        }
    }

    void linger() {
        m_stream.async_read_some(asio::buffer(m_loop.discard),
                                 [self = this->shared_from_this()](error_code ec, std::size_t) {
                                     if (!ec)
                                         self->linger();
                                 });
    }

    State& m_server;
    const ServerOptions& m_options;
    Loop& m_loop;
    Stream m_stream;
    ClientSlot m_slot;
    beast::flat_buffer m_in;
    detail::HeadReader m_reader;
    Request m_request;
    std::string m_body;
    Response m_response;
    std::string m_out;
    std::size_t m_buffer_charge = 0; // budget bytes held for m_in
    std::size_t m_body_charge = 0;   // and for m_body
    std::size_t m_body_have = 0;     // body bytes already in m_body
    Clock::time_point m_header_deadline;
    int m_requests = 0;
    int m_batch = 0;      // answers queued since the last read
    bool m_probe = false; // the request in progress goes to the probe thread
    bool m_started = false;
    bool m_keep_alive = true;
    bool m_http10 = false;
    bool m_head_only = false;
};

} // namespace

struct Server::Impl : State {};

namespace {

[[noreturn]] void throw_system(const error_code& ec, const std::string& what) {
    throw std::system_error(ec.value(), std::generic_category(), what);
}

} // namespace

std::chrono::milliseconds State::tick() const {
    const auto& o = options;
    const auto shortest =
        std::min({std::chrono::milliseconds(250), o.idle_timeout / 4, o.io_timeout / 4,
                  o.header_timeout / 4, o.handshake_timeout / 4});
    return std::max(shortest, std::chrono::milliseconds(1));
}

// Connections go to the loops in turn, so every core serves some.
void State::accept_next() {
    Loop& target = *loops[next_loop++ % loops.size()];
    acceptor->async_accept(target.context, [this, &target](error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || stopping)
            return;
        if (ec) {
            // Out of descriptors (EMFILE, ENFILE, ENOBUFS): accepting again at once would fail
            // again at once; the listener rests a little instead.
            accept_pause->expires_after(tick());
            accept_pause->async_wait([this](error_code waited) {
                if (!waited && !stopping)
                    accept_next();
            });
            return;
        }
        admit(std::move(socket), target);
        accept_next();
    });
}

void State::admit(tcp::socket socket, Loop& loop) {
    error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec)
        return;
    std::string address = remote.address().to_string();
    bool admitted = false;
    {
        const std::lock_guard lock(clients_mutex);
        auto& from_client = per_client[address];
        admitted =
            open < options.max_connections && from_client < options.max_connections_per_client;
        if (admitted) {
            ++open;
            ++from_client;
        } else if (from_client == 0) {
            per_client.erase(address);
        }
    }
    if (!admitted) {
        // Over a cap: no state, no timer, one non-blocking write at most.
        if (!tls) [[maybe_unused]]
            const auto n = ::send(socket.native_handle(), k_busy.data(), k_busy.size(),
                                  MSG_DONTWAIT | MSG_NOSIGNAL);
        socket.close(ec);
        return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    ClientSlot slot(*this, std::move(address));
    asio::post(loop.context, [this, &loop, socket = std::move(socket),
                              slot = std::move(slot)]() mutable {
        if (loop.stopping)
            return;
        if (tls)
            std::make_shared<Session<TlsStream>>(*this, loop, TlsStream(std::move(socket), *tls),
                                                 std::move(slot))
                ->start();
        else
            std::make_shared<Session<tcp::socket>>(*this, loop, std::move(socket), std::move(slot))
                ->start();
    });
}

void State::sweep(Loop& loop) {
    const auto now = Clock::now();
    const bool ending = loop.stopping && now >= loop.stop_deadline;
    std::vector<Connection*> expired;
    for (Connection* c : loop.connections)
        if (ending || now >= c->deadline || (loop.stopping && c->idle))
            expired.push_back(c);
    for (Connection* c : expired)
        c->abort();
    if (loop.stopping && (ending || loop.connections.empty()))
        return; // no more ticks: the loop's run() ends with its last connection
    loop.sweeper.expires_after(tick());
    loop.sweeper.async_wait([this, &loop](error_code ec) {
        if (!ec)
            sweep(loop);
    });
}

void State::begin_stop(Loop& loop) {
    loop.stopping = true;
    loop.stop_deadline = Clock::now() + options.io_timeout;
    if (&loop == loops.front().get()) {
        error_code ignored;
        acceptor->close(ignored);
        accept_pause->cancel();
    }
    loop.sweeper.cancel();
    sweep(loop);
}

Server::Server(Handler handler, ServerOptions options)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->handler = std::move(handler);
    m_impl->options = std::move(options);
    auto& o = m_impl->options;
    if (o.loops <= 0)
        o.loops = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    o.workers = std::max(1, o.workers);
    std::destroy_at(&m_impl->budget);
    std::construct_at(&m_impl->budget, o.max_buffered_bytes);
}

Server::~Server() {
    stop();
}

int Server::bind(const std::string& host, int port) {
    auto& impl = *m_impl;
    const auto& o = impl.options;
    if (o.tls_cert_file.has_value() != o.tls_key_file.has_value())
        throw ConfigError("TLS needs both a certificate and a key file; only the " +
                          std::string(o.tls_cert_file ? "certificate \"" + *o.tls_cert_file
                                                      : "key \"" + *o.tls_key_file) +
                          "\" is given");
    if (o.tls_cert_file) {
        impl.tls.emplace(asio::ssl::context::tls_server);
        detail::configure_tls(impl.tls->native_handle(), *o.tls_cert_file, *o.tls_key_file);
    }
    error_code ec;
    const auto address = asio::ip::make_address(host, ec);
    if (ec)
        throw std::system_error(EADDRNOTAVAIL, std::generic_category(), "resolve " + host);
    if (impl.loops.empty())
        for (int i = 0; i < o.loops; ++i)
            impl.loops.push_back(std::make_unique<Loop>());
    auto& context = impl.loops.front()->context;
    tcp::acceptor acceptor(context);
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
    const std::string where = host + ":" + std::to_string(port);
    if (acceptor.open(endpoint.protocol(), ec); ec)
        throw_system(ec, "socket");
    acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (acceptor.bind(endpoint, ec); ec)
        throw_system(ec, "bind " + where);
    if (acceptor.listen(asio::socket_base::max_listen_connections, ec); ec)
        throw_system(ec, "listen " + where);
    const int bound = acceptor.local_endpoint().port();
    impl.acceptor.emplace(std::move(acceptor));
    impl.accept_pause.emplace(context);
    return bound;
}

void Server::start() {
    auto& impl = *m_impl;
    if (impl.started || !impl.acceptor)
        return;
    impl.started = true;
    impl.accept_next();
    for (auto& loop : impl.loops)
        impl.sweep(*loop);
    impl.workers.start(impl.options.workers);
    impl.probes.start(1);
    for (auto& loop : impl.loops)
        loop->thread = std::thread([&context = loop->context] { context.run(); });
}

void Server::post(std::function<void()> task) {
    m_impl->workers.post(std::move(task));
}

void Server::stop() {
    auto& impl = *m_impl;
    const std::lock_guard lock(impl.stop_mutex);
    if (impl.stopped)
        return;
    impl.stopped = true;
    impl.stopping = true;
    for (auto& loop : impl.loops)
        asio::post(loop->context, [&impl, &loop = *loop] { impl.begin_stop(loop); });
    for (auto& loop : impl.loops)
        if (loop->thread.joinable())
            loop->thread.join();
    // Answers that come back now are dropped with the loops.
    impl.workers.stop();
    impl.probes.stop();
    impl.accept_pause.reset();
    impl.acceptor.reset();
    impl.loops.clear();
}

} // namespace kprov::api::http
