#include "cli/context.hpp"

namespace kprov::cli {

const config::Effective& Context::config() {
    if (!m_config) {
        config::Sources sources;
        sources.config_file = m_global.config_file;
        auto flag = [&](const char* key, const std::optional<std::string>& value) {
            if (value)
                sources.flags[key] = *value;
        };
        flag("store", m_global.store);
        flag("gardener.kubeconfig_path", m_global.gardener_kubeconfig);
        flag("gardener.project", m_global.gardener_project);
        flag("tenant", m_global.tenant);
        flag("sub_account", m_global.sub_account);
        flag("log_level", m_global.log_level);
        flag("log.format", m_global.log_format);
        m_config = config::load(sources);
        if (!m_global.quiet)
            for (const auto& warning : m_config->warnings)
                err() << "kprov: warning: " << warning << '\n';
    }
    return *m_config;
}

} // namespace kprov::cli
