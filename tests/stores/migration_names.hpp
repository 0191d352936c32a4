#pragma once
// What a store records after migrating from scratch, computed from the embedded migrations so
// the tests keep up when a migration is added.

#include "stores/migrations.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kprov::testing {

/// "0001_original_schema", "0002_kprov_engine", ...: what MigrationReport::applied lists.
inline std::vector<std::string> migration_names(std::string_view dialect) {
    std::vector<std::string> names;
    for (const auto& m : stores::migrations_for(dialect))
        names.push_back(m.name);
    return names;
}

/// 1, 2, ...: the versions, ascending.
inline std::vector<int> migration_versions(std::string_view dialect) {
    std::vector<int> versions;
    for (const auto& m : stores::migrations_for(dialect))
        versions.push_back(m.version);
    return versions;
}

/// "1 0001_original_schema", ...: version and name as schema_version rows.
inline std::vector<std::string> recorded_names(std::string_view dialect) {
    std::vector<std::string> rows;
    for (const auto& m : stores::migrations_for(dialect))
        rows.push_back(std::to_string(m.version) + " " + m.name);
    return rows;
}

} // namespace kprov::testing
