#include "config_testing.hpp"

#include "engine/error.hpp"

#include <fstream>
#include <stdexcept>

namespace kprov::config::testing {

std::string TempDir::write(const std::string& relative, const std::string& text) const {
    const auto file = m_path / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
}

std::string load_error(const Sources& sources) {
    try {
        load(sources);
    } catch (const ConfigError& e) {
        return e.what();
    }
    ADD_FAILURE() << "load() accepted a configuration it should refuse";
    return "";
}

const Entry& entry_of(const Effective& effective, const std::string& key) {
    for (const auto& entry : effective.entries)
        if (entry.key == key)
            return entry;
    ADD_FAILURE() << "no entry for " << key;
    throw std::out_of_range(key);
}

} // namespace kprov::config::testing
