#include "cli/version_lifecycle.hpp"

#include "cli/access.hpp"
#include "cli/engine_access.hpp"
#include "engine/error.hpp"
#include "engine/input/landscape_check.hpp"
#include "gardener/kubeconfig.hpp"
#include "gardener/landscape_port.hpp"

namespace kprov::cli {

std::string VersionLifecycle::text(Timestamp now) const {
    std::string out(engine::to_text(classification));
    if (expires)
        out += (*expires < now ? " " : ", expires ") + format_rfc3339(*expires);
    return out;
}

VersionLifecycles::VersionLifecycles(Context& ctx, std::optional<std::chrono::milliseconds> quick) {
    if (!gardener_configured(ctx))
        return;
    m_log = std::make_unique<LogScope>(ctx);
    if (quick) {
        try {
            const auto& settings = ctx.config().settings;
            gardener::ClientOptions options;
            options.connect_timeout = *quick;
            options.request_timeout = *quick;
            options.retry.max_attempts = 1;
            options.log = m_log->logger();
            m_client = std::make_shared<gardener::GardenerClient>(
                gardener::load_kubeconfig(settings.gardener_kubeconfig_path),
                settings.gardener_project, options);
        } catch (const Error&) {
            return; // status answers from the store when Gardener cannot be asked
        }
    } else {
        m_client =
            open_gardener(ctx, {.on_request = {}, .answer_within = {}, .log = m_log->logger()});
    }
    m_landscape = std::make_unique<gardener::GardenerLandscape>(
        [client = m_client.get()]() -> gardener::GardenerClient& { return *client; });
}

VersionLifecycles::~VersionLifecycles() = default;

std::optional<VersionLifecycle> VersionLifecycles::of(const engine::GardenerConfig& g,
                                                      bool strict) {
    if (!m_landscape)
        return std::nullopt;
    const auto ref = engine::cloud_profile_of(g);
    const std::string key = ref.kind + "/" + ref.name;
    auto it = m_profiles.find(key);
    if (it == m_profiles.end()) {
        std::optional<engine::CloudProfile> profile;
        try {
            profile = m_landscape->cloud_profile(ref);
        } catch (const Error&) {
            if (strict)
                throw;
            return std::nullopt;
        }
        it = m_profiles.emplace(key, std::move(profile)).first;
    }
    if (!it->second)
        return std::nullopt;
    const Timestamp now = SystemClock().now();
    for (const auto& v : it->second->spec.kubernetes_versions)
        if (v.version == g.kubernetes_version)
            return VersionLifecycle{engine::effective_classification(v, now), engine::expiry_of(v)};
    return std::nullopt;
}

} // namespace kprov::cli
