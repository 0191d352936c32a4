#include "config/engine_options.hpp"

#include "engine/error.hpp"

#include <fstream>
#include <sstream>

namespace kprov::config {

engine::ConversionOptions conversion_options(const Settings& settings) {
    engine::ConversionOptions options;
    options.gardener_project = settings.gardener_project;
    options.default_enable_kubernetes_version_auto_update =
        settings.default_enable_kubernetes_version_auto_update;
    options.default_enable_machine_image_version_auto_update =
        settings.default_enable_machine_image_version_auto_update;
    return options;
}

engine::ShootOptions shoot_options(const Settings& settings) {
    engine::ShootOptions options;
    options.project = settings.gardener_project;
    options.legacy_api = settings.gardener_legacy_api;
    options.audit_policy_config_map = settings.audit_logs_policy_config_map;
    const auto& path = settings.maintenance_window_config_path;
    if (!path.empty()) {
        std::ifstream in(path);
        if (!in)
            throw ConfigError("APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH=\"" + path +
                              "\" cannot be read");
        std::ostringstream text;
        text << in.rdbuf();
        try {
            options.maintenance_windows = engine::parse_maintenance_windows(text.str());
        } catch (const ValidationError& e) {
            throw ConfigError("maintenance window file " + path + ": " + e.what());
        }
    }
    return options;
}

} // namespace kprov::config
