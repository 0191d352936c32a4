// The HTTP(S) front of the simulator: cpp-httplib setup, authentication, fault injection,
// request counters, routing to the Gardener API, the runtime clusters, the KCP, Director and
// /sim, and the ticker that drives the shoot lifecycle, the Kyma installers and the KLM. The only
// file that sees cpp-httplib.

#include "kubeconfig.hpp"
#include "sim.hpp"
#include "world.hpp"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <httplib.h>
#include <thread>

namespace kprov::sim {

struct Simulator::Impl {
    SimOptions opts;
    std::optional<Pki> pki;
    std::string token;
    std::string kcp_token;
    std::unique_ptr<World> world;
    Faults faults;
    Stats stats;
    Director director;
    std::unique_ptr<httplib::Server> server;
    int port = 0;
    std::string url;
    std::thread listen_thread;
    std::thread ticker_thread;

    std::mutex tick_mu;
    std::condition_variable tick_cv;
    bool stopping = false;
    bool woken = false;

    std::mutex state_mu;
    std::condition_variable state_cv;
    bool started = false;
    bool stopped = false;
    bool finished = false;

    explicit Impl(SimOptions o)
        : opts(std::move(o))
        , faults(opts.fail_rate, opts.latency_ms,
                 opts.random_seed
                     ? opts.random_seed
                     : static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()))
        , director(opts.director) {}

    void wake_ticker() {
        {
            std::lock_guard lock(tick_mu);
            woken = true;
        }
        tick_cv.notify_all();
    }

    void tick_loop() {
        while (true) {
            std::optional<TimePoint> due;
            try {
                std::lock_guard lock(world->mu);
                world->shoots.advance(Clock::now());
                world->clusters.advance(Clock::now());
                due = world->shoots.next_due();
                world->kcp.advance(world->clusters, world->runtime_base, Clock::now());
                for (auto d : {world->clusters.next_due(), world->kcp.next_due()})
                    if (d && (!due || *d < *due))
                        due = d;
            } catch (const std::exception& e) {
                // A lifecycle bug must not end the process; the next tick tries again.
                std::fprintf(stderr, "kprov-sim: lifecycle error: %s\n", e.what());
            }
            std::unique_lock lock(tick_mu);
            TimePoint limit = Clock::now() + std::chrono::seconds(1);
            TimePoint until = due ? std::min(*due, limit) : limit;
            tick_cv.wait_until(lock, until, [&] { return stopping || woken; });
            woken = false;
            if (stopping)
                return;
        }
    }

    /// The authenticated user, or nullopt for a request to refuse with 401.
    std::optional<std::string>
    authenticate(const ApiRequest& req,
                 const std::function<bool(const std::string&)>& token_ok) const {
        if (req.client_cert)
            return std::string("kprov-sim-client-certificate");
        std::string auth = req.header("authorization");
        if (auth.empty())
            return opts.tls ? std::nullopt : std::optional<std::string>("kprov-sim-anonymous");
        if (auth.rfind("Bearer ", 0) == 0 && token_ok(auth.substr(7)))
            return std::string("kprov-sim-user");
        return std::nullopt;
    }

    ApiResponse route(const ApiRequest& req) {
        const std::string& path = req.path;
        if (path == "/oauth2/token")
            return director.token(req);
        if (path == "/director/graphql")
            return director.graphql(req);
        if (path.rfind("/clusters/", 0) == 0) {
            std::size_t slash = path.find('/', 10);
            std::string id =
                path.substr(10, slash == std::string::npos ? std::string::npos : slash - 10);
            std::string rest = slash == std::string::npos ? "/" : path.substr(slash);
            ApiResponse r;
            {
                std::lock_guard lock(world->mu);
                auto user = authenticate(
                    req, [&](const std::string& t) { return world->clusters.token_valid(id, t); });
                if (!user)
                    throw unauthorized();
                world->clusters.advance(Clock::now(), id);
                r = world->clusters.handle(id, rest, req);
            }
            if (req.method != "GET")
                wake_ticker(); // the Kyma installer may have something new to act on
            return r;
        }
        if (path == "/kcp" || path.rfind("/kcp/", 0) == 0)
            return route_kcp(req);
        auto user = authenticate(req, [&](const std::string& t) { return t == token; });
        if (!user)
            throw unauthorized();
        ApiResponse r;
        {
            std::lock_guard lock(world->mu);
            world->shoots.advance(Clock::now());
            r = world->handle_gardener(req, *user);
        }
        if (req.method != "GET")
            wake_ticker();
        return r;
    }

    ApiResponse route_kcp(const ApiRequest& req) {
        ApiResponse r;
        {
            std::lock_guard lock(world->mu);
            if (!authenticate(req, [&](const std::string& t) { return t == kcp_token; }))
                throw unauthorized();
            // What fell due is applied first; the ticker makes the full passes (it is woken
            // after every write), so a read stays cheap with many Kymas.
            TimePoint now = Clock::now();
            if (auto due = world->kcp.next_due(); due && *due <= now)
                world->kcp.advance(world->clusters, world->runtime_base, now);
            r = world->kcp.handle(req.path.size() > 4 ? req.path.substr(4) : "/", req);
        }
        if (req.method != "GET")
            wake_ticker(); // the KLM may have something new to act on
        return r;
    }

    ApiResponse dispatch(const ApiRequest& req) {
        if (req.path == "/sim" || req.path.rfind("/sim/", 0) == 0) {
            Services services{*world, faults, stats, director, [this] {
                                  wake_ticker();
                              }};
            return handle_control(services, req);
        }
        if (req.path == "/healthz" || req.path == "/readyz" || req.path == "/livez") {
            ApiResponse r;
            r.body = "ok";
            r.content_type = "text/plain";
            return r;
        }
        stats.count(stats_key(req));
        if (req.method != "GET")
            stats.record_write(req.method, req.path, req.body);
        auto resource_path = parse_request_path(req.path);
        FaultDecision fault =
            faults.decide(req.method, req.path, resource_path ? resource_path->resource : "");
        if (fault.latency_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(fault.latency_ms));
        if (fault.drop) {
            ApiResponse r;
            r.drop_connection = true;
            return r;
        }
        if (fault.error)
            throw *fault.error;
        return route(req);
    }

    static ApiRequest convert(const httplib::Request& hr, const std::string& base_url, bool tls) {
        ApiRequest req;
        req.method = hr.method;
        req.path = hr.path;
        for (const auto& [k, v] : hr.params)
            req.query.emplace(k, v);
        for (const auto& [k, v] : hr.headers) {
            std::string key = k;
            std::transform(key.begin(), key.end(), key.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            req.headers[key] = v;
        }
        req.body = hr.body;
        req.base_url = base_url;
        req.client_cert = tls && peer_has_verified_cert(hr.ssl);
        return req;
    }

    void handle(const httplib::Request& hr, httplib::Response& res) {
        ApiRequest req = convert(hr, url, opts.tls);
        ApiResponse r;
        try {
            r = dispatch(req);
        } catch (const ApiError& e) {
            r = ApiResponse::json(e.code(), e.status());
            r.headers = e.headers;
        } catch (const std::exception& e) {
            r = ApiResponse::json(500, internal_error(e.what()).status());
        }
        if (req.path.rfind("/sim", 0) != 0)
            stats.count_status(r.status);
        res.status = r.status;
        for (const auto& [k, v] : r.headers)
            res.set_header(k, v);
        if (r.drop_connection) {
            res.set_header("Connection", "close");
            res.set_content_provider(
                1024, "application/json",
                [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
            return;
        }
        if (r.stream) {
            auto stream = r.stream;
            // cpp-httplib compresses "application/json" for clients that accept gzip or br
            // (Go's transport always does) and would hold the events in the compressor until
            // the stream ends; with a parameter the type is left alone. kube-apiserver uses the
            // same parameter for its protobuf watches.
            res.set_chunked_content_provider(
                "application/json;stream=watch",
                [stream](std::size_t, httplib::DataSink& sink) {
                    std::string out;
                    bool abort = false;
                    bool more = stream->next(out, abort);
                    if (!out.empty() && !sink.write(out.data(), out.size()))
                        return false;
                    if (!more) {
                        if (abort)
                            return false;
                        sink.done();
                    }
                    return true;
                },
                [stream](bool) {
                    if (stream->release)
                        stream->release();
                });
            return;
        }
        res.set_content(r.body, r.content_type);
    }
};

Simulator::Simulator(SimOptions opts)
    : m(std::make_unique<Impl>(std::move(opts))) {
    m->token = m->opts.token.empty() ? "sim-" + random_token(32) : m->opts.token;
    m->kcp_token = m->opts.kcp_token.empty() ? "kcp-" + random_token(32) : m->opts.kcp_token;
}

Simulator::~Simulator() {
    stop();
}

void Simulator::start() {
    Impl& s = *m;
    // A client that hangs up makes a TLS write raise SIGPIPE, which would end the process.
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
        std::signal(SIGPIPE, SIG_IGN);
    if (s.opts.tls) {
        s.pki = Pki::generate({s.opts.host});
        const Pki& pki = *s.pki;
        s.server = std::make_unique<httplib::SSLServer>(
            [&pki](SSL_CTX& ctx) { return configure_server_ctx(ctx, pki.server(), pki.ca_pem()); });
    } else {
        s.server = std::make_unique<httplib::Server>();
    }
    if (!s.server->is_valid())
        throw std::runtime_error("kprov-sim: cannot set up the " +
                                 std::string(s.opts.tls ? "HTTPS" : "HTTP") + " server");
    s.world = std::make_unique<World>(s.opts, s.pki ? s.pki->ca_pem() : "");
    httplib::Server& svr = *s.server;
    svr.set_tcp_nodelay(true);
    int threads = std::max(4, s.opts.threads);
    svr.new_task_queue = [threads] {
        return new httplib::ThreadPool(static_cast<std::size_t>(threads));
    };
    svr.set_keep_alive_max_count(1000);
    svr.set_keep_alive_timeout(2);
    svr.set_read_timeout(30);
    svr.set_write_timeout(30);
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
        m->handle(req, res);
    };
    svr.Get(".*", handler)
        .Post(".*", handler)
        .Put(".*", handler)
        .Patch(".*", handler)
        .Delete(".*", handler);
    if (s.opts.port == 0) {
        s.port = svr.bind_to_any_port(s.opts.host);
    } else {
        s.port = svr.bind_to_port(s.opts.host, s.opts.port) ? s.opts.port : -1;
    }
    if (s.port <= 0)
        throw std::runtime_error("kprov-sim: cannot listen on " + s.opts.host + ":" +
                                 std::to_string(s.opts.port));
    std::string host = s.opts.host;
    if (host == "0.0.0.0" || host == "::" || host.empty())
        host = "127.0.0.1";
    if (host.find(':') != std::string::npos)
        host = "[" + host + "]";
    s.url =
        std::string(s.opts.tls ? "https" : "http") + "://" + host + ":" + std::to_string(s.port);
    s.world->runtime_base = s.url + "/clusters/";
    s.world->kcp.set_removal_hook(
        [&s](const std::string& kyma_path) { s.stats.record_write("REMOVED", kyma_path, ""); });
    s.listen_thread = std::thread([&svr] { svr.listen_after_bind(); });
    // Server::stop() does nothing until the listen loop runs: wait for it, or a stop() right
    // after start() would leave the listen thread in accept() for good.
    for (int i = 0; i < 5000 && !svr.is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    s.ticker_thread = std::thread([&s] { s.tick_loop(); });
    std::lock_guard lock(s.state_mu);
    s.started = true;
}

void Simulator::stop() {
    Impl& s = *m;
    {
        std::lock_guard lock(s.state_mu);
        if (!s.started || s.stopped)
            return;
        s.stopped = true;
    }
    {
        std::lock_guard lock(s.tick_mu);
        s.stopping = true;
    }
    s.tick_cv.notify_all();
    if (s.ticker_thread.joinable())
        s.ticker_thread.join();
    s.world->hub.shutdown();
    {
        std::lock_guard lock(s.world->mu);
        s.world->clusters.shutdown();
        s.world->kcp.shutdown();
        s.world->garden_watches.shutdown();
    }
    s.server->stop();
    if (s.listen_thread.joinable())
        s.listen_thread.join();
    {
        std::lock_guard lock(s.state_mu);
        s.finished = true;
    }
    s.state_cv.notify_all();
}

void Simulator::wait() {
    std::unique_lock lock(m->state_mu);
    m->state_cv.wait(lock, [&] { return m->finished; });
}

std::string Simulator::url() const {
    return m->url;
}

int Simulator::port() const {
    return m->port;
}

const std::string& Simulator::token() const {
    return m->token;
}

std::string Simulator::ca_pem() const {
    return m->pki ? m->pki->ca_pem() : "";
}

std::string Simulator::gardener_kubeconfig() const {
    KubeconfigSpec kc;
    kc.name = "kprov-sim";
    kc.server = m->url;
    kc.ca_pem = ca_pem();
    kc.token = m->token;
    if (!m->opts.project.empty())
        kc.namespace_ = "garden-" + m->opts.project;
    return make_kubeconfig(kc);
}

const std::string& Simulator::kcp_token() const {
    return m->kcp_token;
}

std::string Simulator::kcp_kubeconfig() const {
    KubeconfigSpec kc;
    kc.name = "kprov-sim-kcp";
    kc.server = m->url + "/kcp";
    kc.ca_pem = ca_pem();
    kc.token = m->kcp_token;
    kc.namespace_ = Klm::k_namespace;
    return make_kubeconfig(kc);
}

CertPair Simulator::client_certificate(const std::string& common_name) const {
    if (!m->pki)
        throw std::logic_error("kprov-sim: client certificates need --tls");
    return m->pki->issue_client(common_name, {"system:masters"});
}

} // namespace kprov::sim
