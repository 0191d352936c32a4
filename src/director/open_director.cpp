#include "director/open_director.hpp"

#include "director/director_client.hpp"
#include "engine/error.hpp"

#include <algorithm>
#include <filesystem>

namespace kprov::director {

std::unique_ptr<engine::Director> open_director(const config::Effective& config,
                                                std::string& warning,
                                                std::shared_ptr<spdlog::logger> log) {
    const config::Settings& s = config.settings;
    if (!s.runtime_registration_enabled && !s.runtime_deregistration_enabled)
        return nullptr;
    const auto entry =
        std::find_if(config.entries.begin(), config.entries.end(),
                     [](const config::Entry& e) { return e.key == "director.oauth_path"; });
    const bool path_given =
        entry != config.entries.end() && entry->origin != config::Origin::Default;
    std::error_code ec;
    if (!path_given && !std::filesystem::exists(s.director_oauth_path, ec)) {
        warning = "APP_RUNTIME_REGISTRATION_ENABLED / APP_RUNTIME_DEREGISTRATION_ENABLED are on "
                  "but the Director OAuth file " +
                  s.director_oauth_path +
                  " does not exist: runtimes are not registered in Director (set "
                  "APP_DIRECTOR_OAUTH_PATH or the config key director.oauth_path, or turn both "
                  "off to silence this)";
        return nullptr;
    }
    DirectorClientOptions options;
    options.url = s.director_url;
    options.skip_cert_verification = s.skip_director_cert_verification;
    options.log = std::move(log);
    return std::make_unique<DirectorClient>(read_oauth_credentials(s.director_oauth_path),
                                            std::move(options));
}

engine::DirectorOptions director_options(const config::Settings& settings,
                                         const engine::Director* port) {
    engine::DirectorOptions options;
    // Without a client (open_director warned why) the flags are off: the engine decides by
    // them alone, and its ports must match them (engine::check_ports).
    options.registration_enabled = settings.runtime_registration_enabled && port != nullptr;
    options.deregistration_enabled = settings.runtime_deregistration_enabled && port != nullptr;
    return options;
}

} // namespace kprov::director
