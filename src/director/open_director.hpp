#pragma once
// The Director client a kprov process uses, built from its settings (APP_DIRECTOR_URL,
// APP_DIRECTOR_OAUTH_PATH, APP_SKIP_DIRECTOR_CERT_VERIFICATION,
// APP_RUNTIME_(DE)REGISTRATION_ENABLED), and the engine's DirectorOptions over it.

#include "config/settings.hpp"
#include "engine/engine_options.hpp"
#include "engine/ports.hpp"

#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace kprov::director {

/// The Director client for `config`, or nullptr when neither registration nor deregistration is
/// on. The director.yaml file is needed only then. When it is missing at its default path
/// (./dev/director.yaml, not set by anyone) kprov runs without Director and `warning` says so;
/// a file that was named explicitly and cannot be read, or that is malformed, is a ConfigError.
/// The client logs to `log` (DirectorClientOptions::log).
std::unique_ptr<engine::Director> open_director(const config::Effective& config,
                                                std::string& warning,
                                                std::shared_ptr<spdlog::logger> log = {});

/// The engine's Director options: the flags of `settings`, each on only when `port` (what
/// open_director returned, may be null) is there to serve it.
engine::DirectorOptions director_options(const config::Settings& settings,
                                         const engine::Director* port);

} // namespace kprov::director
