#pragma once
// Helpers for the config tests: a fake environment, temporary config files, and loading that
// expects a ConfigError.

#include "config/settings.hpp"
#include "support/test_databases.hpp"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <string>

namespace kprov::config::testing {

using Env = std::map<std::string, std::string>;

/// Sources reading `env` instead of the process environment, so no test sees the real HOME.
inline Sources sources_with(Env env, std::map<std::string, std::string> flags = {},
                            std::optional<std::string> config_file = std::nullopt) {
    Sources sources;
    sources.getenv = [env = std::move(env)](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    sources.flags = std::move(flags);
    sources.config_file = std::move(config_file);
    return sources;
}

using kprov::testing::TempDir;

/// load(sources), which must throw ConfigError; returns its message ("" and a test failure if it
/// did not throw).
std::string load_error(const Sources& sources);

/// The entry for `key`; a test failure and a thrown std::out_of_range if there is none.
const Entry& entry_of(const Effective& effective, const std::string& key);

} // namespace kprov::config::testing
