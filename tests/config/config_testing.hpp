#pragma once
// Helpers for the config tests: a fake environment, temporary config files, and loading that
// expects a ConfigError.

#include "config/settings.hpp"

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

/// A directory removed with everything in it when the object goes.
class TempDir {
public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "kprov-config-XXXXXX");
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }

    /// Writes `text` to `relative` under the directory (creating parents); returns the full path.
    std::string write(const std::string& relative, const std::string& text) const;

private:
    std::filesystem::path m_path;
};

/// load(sources), which must throw ConfigError; returns its message ("" and a test failure if it
/// did not throw).
std::string load_error(const Sources& sources);

/// The entry for `key`; a test failure and a thrown std::out_of_range if there is none.
const Entry& entry_of(const Effective& effective, const std::string& key);

} // namespace kprov::config::testing
