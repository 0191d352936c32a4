#include "stores/postgres_rows.hpp"

#include "engine/error.hpp"
#include "engine/model.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace kprov::stores::pg {
namespace {

struct ToParam {
    std::optional<std::string> operator()(std::monostate) const { return std::nullopt; }
    std::optional<std::string> operator()(const std::string& s) const { return s; }
    std::optional<std::string> operator()(std::int64_t i) const { return std::to_string(i); }
    std::optional<std::string> operator()(bool b) const { return b ? "true" : "false"; }
};

} // namespace

bool PqxxRow::is_null(int column) const {
    return m_row[column].is_null();
}

std::string PqxxRow::text(int column) const {
    const auto& f = m_row[column];
    return std::string(f.c_str(), f.size());
}

std::int64_t PqxxRow::integer(int column) const {
    return m_row[column].as<std::int64_t>();
}

bool PqxxRow::boolean(int column) const {
    return m_row[column].as<bool>();
}

Params params_of(const std::vector<ColumnValue>& columns) {
    return params_of({}, columns);
}

Params params_of(Params head, const std::vector<ColumnValue>& columns) {
    for (const auto& c : columns)
        head.push_back(std::visit(ToParam{}, c.value));
    return head;
}

std::string assignments(const std::vector<ColumnValue>& columns, std::size_t first) {
    std::string out;
    for (const auto& c : columns) {
        if (!out.empty())
            out += ", ";
        out += std::string(c.column) + " = $" + std::to_string(first++);
    }
    return out;
}

pqxx::result insert_row(pqxx::transaction_base& tx, const std::string& table,
                        const std::vector<ColumnValue>& columns, const std::string& suffix) {
    return insert_rows(tx, table, {columns}, suffix);
}

pqxx::result insert_rows(pqxx::transaction_base& tx, const std::string& table,
                         const std::vector<std::vector<ColumnValue>>& rows,
                         const std::string& suffix) {
    std::string names;
    for (const auto& c : rows.front())
        names += (names.empty() ? "" : ", ") + std::string(c.column);
    std::string values;
    Params params;
    for (const auto& row : rows) {
        values += values.empty() ? "(" : ", (";
        for (std::size_t i = 0; i < row.size(); ++i)
            values += (i ? ", $" : "$") + std::to_string(params.size() + i + 1);
        values += ')';
        params = params_of(std::move(params), row);
    }
    return exec(tx,
                "INSERT INTO " + table + " (" + names + ") VALUES " + values +
                    (suffix.empty() ? "" : " " + suffix),
                params);
}

bool is_uuid(const std::string& s) {
    if (s.size() != 36)
        return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i])))
            return false;
    }
    return true;
}

void runtime_not_found(const std::string& runtime_id) {
    throw NotFound("runtime " + runtime_id + " does not exist");
}

std::vector<std::string> ascending_ids(std::size_t n) {
    std::vector<std::string> ids(n);
    std::generate(ids.begin(), ids.end(), engine::new_uuid);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::string uuid_array(const std::vector<std::string>& ids) {
    std::string out = "{";
    for (const auto& id : ids)
        out += (out.size() > 1 ? "," : "") + id;
    return out + "}";
}

std::string compact_json(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? text : j.dump();
}

} // namespace kprov::stores::pg
