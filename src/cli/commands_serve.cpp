// kprov serve: the original's GraphQL API, with the engine's workers, the shoot watch, metrics
// and health, in one process until SIGINT or SIGTERM (ARCHITECTURE.md, serve).

#include "api/graphql/graphql.hpp"
#include "api/metrics.hpp"
#include "api/resolvers.hpp"
#include "api/server.hpp"
#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/engine_daemon.hpp"

#include <atomic>
#include <ostream>
#include <spdlog/logger.h>
#include <thread>

namespace kprov::cli {
namespace {

api::ServerOptions server_options(const config::Settings& settings, const ServeArgs& args) {
    api::ServerOptions options;
    options.address = args.address.value_or(settings.address);
    options.metrics_address = args.metrics_address.value_or(settings.metrics_address);
    options.api_endpoint = settings.api_endpoint;
    options.playground_endpoint = settings.playground_api_endpoint;
    options.playground = settings.playground;
    options.token = settings.api_token;
    options.tls_cert_file = settings.tls_cert_file;
    options.tls_key_file = settings.tls_key_file;
    // Threads for requests that may block (with TLS: one per keep-alive client).
    options.threads = static_cast<int>(std::max(32U, 8 * std::thread::hardware_concurrency()));
    options.answer_cache_bytes = static_cast<std::size_t>(settings.answer_cache_mb) << 20;
    return options;
}

// Connections the queries read through, beside the engine's. A SQLite store is one connection
// under a mutex, so a few more let reads run side by side (WAL); a PostgreSQL store already
// pools its connections.
class ReadStores {
public:
    ReadStores(Context& ctx, stores::StoreBackend& main) {
        if (main.dialect() == "sqlite")
            for (int i = 0; i < k_sqlite_readers; ++i)
                m_stores.push_back(open_configured_store(ctx));
        else
            m_main = &main;
    }
    /// One of the stores: the same one for a thread each time (the API's event loops each
    /// keep theirs, with its statements and pages warm), the threads spread over them in turn.
    /// Thread-safe.
    engine::Store& next() {
        if (m_main)
            return *m_main;
        thread_local const std::size_t mine = m_next.fetch_add(1, std::memory_order_relaxed);
        return *m_stores[mine % m_stores.size()];
    }

private:
    static constexpr int k_sqlite_readers = 4;
    std::vector<std::unique_ptr<stores::StoreBackend>> m_stores;
    stores::StoreBackend* m_main = nullptr;
    std::atomic<std::size_t> m_next{0};
};

// Whether `host` (an address serve listens on) is reachable from this machine only.
bool is_loopback(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Safe by default (the original had no authentication, and ran inside the cluster): without a
// token, serve listens only on loopback, where the Host header is checked against the
// listener's names, unless told that something in front of it authenticates.
void check_exposure(const config::Settings& settings, const ServeArgs& args,
                    api::ServerOptions& options, spdlog::logger& log) {
    if (options.token)
        return;
    const std::string host = api::split_address(options.address).first;
    if (is_loopback(host)) {
        options.check_host = true;
        log.warn("serving without KPROV_API_TOKEN: every process on this machine can call the "
                 "API, and so read any runtime's admin kubeconfig; set KPROV_API_TOKEN to "
                 "require \"Authorization: Bearer <token>\"");
        return;
    }
    if (!args.insecure_no_auth && !settings.insecure_no_auth)
        throw ConfigError("refusing to serve without KPROV_API_TOKEN on " + options.address +
                          ", which other hosts can reach: anyone there could read every "
                          "runtime's admin kubeconfig. Set KPROV_API_TOKEN (clients then send "
                          "\"Authorization: Bearer <token>\"), listen on 127.0.0.1, or pass "
                          "--insecure-no-auth (KPROV_INSECURE_NO_AUTH=true) when something in "
                          "front of kprov authenticates");
    log.warn("serving without KPROV_API_TOKEN on {} (--insecure-no-auth): anyone who reaches it "
             "can read every runtime's admin kubeconfig",
             options.address);
}

std::shared_ptr<const api::graphql::Schema> load_api_schema() {
    try {
        return api::graphql::load_schema(api::provisioner_schema_sdl());
    } catch (const api::graphql::SchemaError& e) {
        throw Error(std::string("the built-in GraphQL schema is broken (a kprov bug): ") +
                    e.what() + " at line " + std::to_string(e.where.line));
    }
}

} // namespace

int cmd_serve(Context& ctx, const ServeArgs& args) {
    // Before any thread exists: threads inherit the mask.
    const BlockedStopSignals signals;
    EngineAccess access(ctx, "serve");
    const auto& settings = ctx.config().settings;

    // 1. The engine: workers run an executor over a store that counts what they write.
    api::Metrics metrics(access.store(), access.log());
    const GardenerRequestMetrics gardener_requests(access, metrics);
    const auto store = api::metered_store(access.store(), metrics);
    const auto executor = access.engine().executor_over(*store);
    EngineDaemon daemon(ctx, access, *executor, *store, args.workers);

    // 2. The API: schema and resolvers built once, shared by every request.
    const auto schema = load_api_schema();
    ReadStores readers(ctx, access.store());
    api::ResolverDeps deps;
    deps.store = &access.store();
    deps.read_store = [&readers]() -> engine::Store& {
        return readers.next();
    };
    deps.service = &access.service();
    deps.options = &access.options();
    deps.on_started = [&daemon] {
        daemon.notify_due();
    };
    const auto resolvers = api::provisioner_resolvers(deps);
    auto options = server_options(settings, args);
    check_exposure(settings, args, options, *access.logger());
    options.queries_on_loop = access.store().dialect() == "sqlite";
    options.store_version = [&readers]() -> std::optional<api::StoreVersion> {
        auto& reader = readers.next();
        const auto counter = reader.change_counter();
        if (!counter)
            return std::nullopt;
        return api::StoreVersion{&reader, *counter};
    };
    options.runtime_version = [&readers](const std::string& runtime_id) {
        return readers.next().runtime_version(runtime_id);
    };
    // One line per request: at info where a collector reads JSON, at debug in text.
    options.access_log = access.log();
    options.log = access.log();
    options.access_log_level =
        settings.log_format == "json" ? engine::LogLevel::Info : engine::LogLevel::Debug;
    api::ApiServer server(*schema, resolvers, metrics, store_readiness(access.store()),
                          std::move(options));
    server.bind();

    // 3. Run; the URLs go to stdout once the listeners are bound.
    daemon.start();
    std::optional<WorkersGauge> workers_gauge;
    workers_gauge.emplace(metrics, daemon.options().workers);
    server.start();
    ctx.out() << "api " << server.base_url() << settings.api_endpoint << "\n";
    if (server.metrics_port() > 0) {
        const auto host =
            api::split_address(args.metrics_address.value_or(settings.metrics_address)).first;
        ctx.out() << "metrics http://" << (host == "0.0.0.0" ? "127.0.0.1" : host) << ":"
                  << server.metrics_port() << "/metrics\n";
    }
    ctx.out().flush();
    const auto& log = access.logger();
    log->info("serving the GraphQL API on {}{} ({} workers, store {}, Gardener project {})",
              server.base_url(), settings.api_endpoint, daemon.options().workers,
              access.store().redacted_url(), settings.gardener_project);

    const char* signal = daemon.wait_for_stop(signals);

    // 4. Graceful stop: no new connections; requests in flight are answered; then the engine
    //    stops claiming, passes in flight end and release their leases.
    log->info("{}: stopping; requests and passes in flight finish", signal);
    server.stop();
    workers_gauge.reset();
    daemon.stop();
    daemon.log_stats();
    log->info("stopped");
    return k_exit_ok;
}

} // namespace kprov::cli
