#include "config_testing.hpp"

#include "engine/error.hpp"

#include <fstream>
#include <stdexcept>

namespace kprov::config::testing {

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
