#include "cli/access.hpp"

#include "cli/render.hpp"
#include "director/open_director.hpp"
#include "engine/error.hpp"
#include "engine/stages/registration.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "net/retry.hpp"

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace kprov::cli {

std::unique_ptr<stores::StoreBackend> open_configured_store(Context& ctx, int connections,
                                                            StoreUse use) {
    const auto& settings = ctx.config().settings;
    stores::OpenOptions options;
    options.pool_size = connections;
    options.secret_key = settings.database.secret_key;
    options.refuse_legacy_secrets = settings.database.refuse_legacy_secrets;
    // `serve` opens several stores on one file: each warning is said once.
    options.warn = [&ctx](const std::string& warning) {
        static std::mutex mutex;
        static std::set<std::string> said;
        std::lock_guard lock(mutex);
        if (said.insert(warning).second)
            print_warnings(ctx, {warning});
    };
    options.schema = settings.store_url.rfind("sqlite://", 0) == 0 ? stores::SchemaCheck::Migrate
                                                                   : stores::SchemaCheck::Require;
    options.create = use == StoreUse::Create; // Peek: EngineAccess reads a missing one as empty
    return stores::open_store(settings.store_url, options);
}

std::string ways_to_set(std::string_view key) {
    const config::SettingSpec* spec = config::find_setting(key);
    if (spec == nullptr)
        return "config key " + std::string(key);
    std::string ways = config::flag_name(*spec) + ", ";
    if (!spec->env.empty())
        ways += std::string(spec->env) + " or ";
    return ways + "config key " + std::string(key);
}

namespace {

const config::Entry* entry_of(Context& ctx, std::string_view key) {
    for (const auto& entry : ctx.config().entries)
        if (entry.key == key)
            return &entry;
    return nullptr;
}

// "(set by APP_GARDENER_KUBECONFIG_PATH)", "(the default)": where a value came from.
std::string origin_of(Context& ctx, std::string_view key) {
    const config::Entry* entry = entry_of(ctx, key);
    if (entry == nullptr || entry->origin == config::Origin::Default || entry->source.empty())
        return "the default";
    return "set by " + entry->source;
}

// The Gardener kubeconfig as the settings name it; ConfigError naming the ways to set it.
gardener::Kubeconfig gardener_kubeconfig(Context& ctx) {
    const auto& path = ctx.config().settings.gardener_kubeconfig_path;
    const config::Entry* entry = entry_of(ctx, "gardener.kubeconfig_path");
    const bool unset = entry == nullptr || entry->origin == config::Origin::Default;
    try {
        return gardener::load_kubeconfig(path);
    } catch (const ConfigError& e) {
        if (unset)
            throw ConfigError("no Gardener kubeconfig set (the default " + path +
                              " cannot be used: " + e.what() + "): give " +
                              ways_to_set("gardener.kubeconfig_path"));
        throw ConfigError(std::string(e.what()) + " (the Gardener kubeconfig, " +
                          origin_of(ctx, "gardener.kubeconfig_path") + "; change " +
                          ways_to_set("gardener.kubeconfig_path") + ")");
    }
}

} // namespace

std::string configured_project(Context& ctx) {
    const config::Entry* entry = entry_of(ctx, "gardener.project");
    if (entry == nullptr || entry->origin == config::Origin::Default)
        throw ConfigError("no Gardener project set: give " + ways_to_set("gardener.project") +
                          " (shoots live in the namespace garden-<project>)");
    return ctx.config().settings.gardener_project;
}

std::shared_ptr<gardener::GardenerClient> open_gardener(Context& ctx, GardenerUse use) {
    const auto& settings = ctx.config().settings;
    gardener::ClientOptions options;
    options.on_request = std::move(use.on_request);
    options.log = std::move(use.log);
    options.qps = settings.gardener_qps;
    options.burst = settings.gardener_burst;
    if (use.answer_within) {
        options.connect_timeout = *use.answer_within;
        options.request_timeout = *use.answer_within;
        options.retry.max_attempts = 1;
    }
    auto kubeconfig = gardener_kubeconfig(ctx);
    return std::make_shared<gardener::GardenerClient>(std::move(kubeconfig),
                                                      settings.gardener_project, options);
}

bool gardener_configured(Context& ctx) {
    const config::Entry* entry = entry_of(ctx, "gardener.kubeconfig_path");
    return entry != nullptr && entry->origin != config::Origin::Default;
}

namespace {

// The waits between the Gardener check's tries: full jitter, 100 ms doubling up to 800 ms.
const net::RetryPolicy k_check_retry{8, std::chrono::milliseconds(100),
                                     std::chrono::milliseconds(800), std::chrono::seconds(4)};

} // namespace

void check_gardener_answers(Context& ctx, std::shared_ptr<spdlog::logger> log) {
    // One check per process and kubeconfig: `serve` and a bulk command ask once.
    static std::mutex mutex;
    static std::set<std::string> answered;
    const std::string path = ctx.config().settings.gardener_kubeconfig_path;
    std::lock_guard lock(mutex);
    if (answered.count(path) != 0)
        return;
    auto kubeconfig = gardener_kubeconfig(ctx);
    const std::string server = kubeconfig.server;
    gardener::ClientOptions options;
    options.connect_timeout = std::chrono::seconds(4);
    options.request_timeout = std::chrono::seconds(8);
    // One try per call: the loop below decides what a failure means.
    options.retry.max_attempts = 1;
    options.retry.retry_connect_failures = false;
    options.label = "gardener";
    options.component = "k8s client - gardener";
    options.log = std::move(log);
    gardener::GardenerClient client(std::move(kubeconfig), ctx.config().settings.gardener_project,
                                    options);
    const std::string change = "; change the kubeconfig (" +
                               origin_of(ctx, "gardener.kubeconfig_path") + ") with " +
                               ways_to_set("gardener.kubeconfig_path");
    // A connection cut after it was made (EOF, reset) is tried again, as client-go retries a
    // GET, up to k_tries within about 4 s; what cannot heal that soon (refused, DNS, TLS, a
    // timeout) fails at once. Any HTTP answer but 401/403, 429 and 5xx included, comes from a
    // Gardener that is there: the operation's own calls retry those.
    constexpr int k_tries = 8;
    for (int attempt = 1;; ++attempt) {
        try {
            // The cheapest request that needs the project's credentials: one shoot at most.
            client.kube().get(client.shoots_path() + "?limit=1");
            break;
        } catch (const RemoteError& e) {
            const int status = e.http_status();
            if (status == 401 || status == 403)
                throw ConfigError(
                    "Gardener at " + server + " refused the credentials of kubeconfig " + path +
                    " (HTTP " + std::to_string(status) +
                    (status == 403 ? ", no access to project " + client.project() : "") +
                    "); nothing was written" + change);
            if (status != 0)
                break;
            if (!e.retryable() || attempt == k_tries)
                throw ConfigError("Gardener at " + server + " (from kubeconfig " + path +
                                  ") does not answer: " + e.what() + "; nothing was written" +
                                  change);
            std::this_thread::sleep_for(net::backoff_delay(k_check_retry, attempt - 1));
        }
    }
    answered.insert(path);
}

CompassIds::CompassIds(Context& ctx) {
    try {
        std::string warning;
        m_port = director::open_director(ctx.config(), warning);
        m_director = director::director_options(ctx.config().settings, m_port.get());
    } catch (const std::exception&) {
        m_port.reset(); // m_director stays off
    }
}

CompassIds::~CompassIds() = default;

std::optional<std::string> CompassIds::operator()(const std::string& runtime_id) const {
    return engine::compass_runtime_id(m_director, runtime_id);
}

} // namespace kprov::cli
