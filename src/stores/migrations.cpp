#include "stores/migrations.hpp"

#include "engine/error.hpp"

#include <algorithm>

namespace kprov::stores {

std::vector<Migration> migrations_for(std::string_view dialect) {
    std::vector<Migration> out;
    const std::string prefix = std::string(dialect) + "/";
    for (const auto& file : embedded_migrations()) {
        if (file.path.substr(0, prefix.size()) != prefix)
            continue;
        std::string_view base = file.path.substr(prefix.size());
        const auto digits = base.find_first_not_of("0123456789");
        if (digits == 0 || digits == std::string_view::npos || base[digits] != '_' ||
            !base.ends_with(".sql"))
            throw StoreError("migration file name " + std::string(file.path) +
                             " is not NNNN_name.sql");
        Migration m;
        m.version = std::stoi(std::string(base.substr(0, digits)));
        m.name = std::string(base.substr(0, base.size() - 4));
        m.sql = file.sql;
        out.push_back(std::move(m));
    }
    std::sort(out.begin(), out.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].version == out[i - 1].version)
            throw StoreError("two migrations share version " + std::to_string(out[i].version) +
                             ": " + out[i - 1].name + " and " + out[i].name);
    return out;
}

int latest_version(std::string_view dialect) {
    const auto all = migrations_for(dialect);
    return all.empty() ? 0 : all.back().version;
}

} // namespace kprov::stores
