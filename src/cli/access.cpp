#include "cli/access.hpp"

#include "cli/render.hpp"
#include "director/open_director.hpp"
#include "engine/error.hpp"
#include "engine/registration.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"

#include <mutex>
#include <set>

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
    options.create = use == StoreUse::Create;
    return stores::open_store(settings.store_url, options);
}

std::shared_ptr<gardener::GardenerClient> open_gardener(Context& ctx) {
    const auto& settings = ctx.config().settings;
    gardener::ClientOptions options;
    options.qps = settings.gardener_qps;
    options.burst = settings.gardener_burst;
    return std::make_shared<gardener::GardenerClient>(
        gardener::load_kubeconfig(settings.gardener_kubeconfig_path), settings.gardener_project,
        options);
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
