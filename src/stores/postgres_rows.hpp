#pragma once
// Internal to the PostgreSQL store: the glue between libpqxx and row_mapping.hpp (which holds
// the dialect-independent model <-> row mapping), plus a few PostgreSQL-only conventions.

#include "stores/postgres_pool.hpp"
#include "stores/row_mapping.hpp"

#include <cstddef>
#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace kprov::stores::pg {

/// A libpqxx result row seen as a RowView. Every value arrives as text (timestamps in the
/// session's ISO form, booleans as "t"/"f").
class PqxxRow final : public RowView {
public:
    explicit PqxxRow(pqxx::row row)
        : m_row(std::move(row)) {}
    bool is_null(int column) const override;
    std::string text(int column) const override;
    std::int64_t integer(int column) const override;
    bool boolean(int column) const override;

private:
    pqxx::row m_row;
};

/// The values of `columns` as parameters, in order.
Params params_of(const std::vector<ColumnValue>& columns);
/// `params_of(columns)` appended to `head`.
Params params_of(Params head, const std::vector<ColumnValue>& columns);

/// "a = $n, b = $n+1, ...": the SET list for `columns`, placeholders numbered from `first`.
std::string assignments(const std::vector<ColumnValue>& columns, std::size_t first);

/// INSERTs one row of `table` with `columns`.
pqxx::result insert_row(pqxx::transaction_base& tx, const std::string& table,
                        const std::vector<ColumnValue>& columns, const std::string& suffix = "");

/// INSERTs `rows` (not empty, each with the same columns in the same order) of `table` in one
/// statement.
pqxx::result insert_rows(pqxx::transaction_base& tx, const std::string& table,
                         const std::vector<std::vector<ColumnValue>>& rows,
                         const std::string& suffix = "");

/// `s` is a UUID in canonical text form. The uuid columns reject anything else, so lookups
/// treat other ids as absent instead of sending them to the server.
bool is_uuid(const std::string& s);

/// Throws NotFound for a runtime that does not exist.
[[noreturn]] void runtime_not_found(const std::string& runtime_id);

/// `n` new UUIDs in ascending order: child rows written with them read back in the caller's
/// order with `ORDER BY id`, so the original's tables need no ordinal column.
std::vector<std::string> ascending_ids(std::size_t n);

/// `ids` (each checked with is_uuid) as an array literal, for `$n::uuid[]`.
std::string uuid_array(const std::vector<std::string>& ids);

/// A jsonb column's text (which PostgreSQL prints as `{"a": 1}`) in the compact, key-sorted
/// form nlohmann::json::dump() writes, so JSON the engine wrote reads back byte for byte.
std::string compact_json(const std::string& text);

} // namespace kprov::stores::pg
