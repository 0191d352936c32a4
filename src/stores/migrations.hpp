#pragma once
// The numbered schema migrations under schemas/sql/<dialect>/NNNN_name.sql, embedded in the
// binary at build time (cmake/embed_sql.cmake).

#include <string>
#include <string_view>
#include <vector>

namespace kprov::stores {

/// One file as embedded: path relative to schemas/sql ("postgres/0001_original_schema.sql").
struct EmbeddedMigration {
    std::string_view path;
    std::string_view sql;
};

/// Every embedded file, in path order. Defined in the generated embedded_migrations.cpp.
const std::vector<EmbeddedMigration>& embedded_migrations();

/// One migration of a dialect.
struct Migration {
    int version = 0;  ///< NNNN from the file name
    std::string name; ///< the rest of the file name without ".sql"
    std::string_view sql;
};

/// The migrations of "postgres" or "sqlite", ascending by version. Throws StoreError if two
/// files share a version or a name does not start with digits and '_' (a build mistake).
std::vector<Migration> migrations_for(std::string_view dialect);

/// The highest version this build knows for the dialect.
int latest_version(std::string_view dialect);

/// What `migrate` did.
struct MigrationReport {
    int from_version = 0;
    int to_version = 0;
    std::vector<std::string> applied; ///< "0002_kprov_engine", ...
};

} // namespace kprov::stores
