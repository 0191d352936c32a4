#pragma once
// Rendering results for -o table|wide|json|yaml|name (ARCHITECTURE.md, CLI contract). JSON and
// YAML carry the GraphQL API's field names, in the API's order, so they stay stable.

#include "cli/context.hpp"
#include "engine/model.hpp"
#include "engine/status_json.hpp"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprov::cli {

enum class OutputFormat { Table, Wide, Json, Yaml, Name };

/// The -o flag; Table when it is not given.
OutputFormat output_format(const Context& ctx);

/// Each warning as "kprov: warning: <warning>" on stderr; nothing with -q.
void print_warnings(Context& ctx, const std::vector<std::string>& warnings);

/// An operation as the commands print it with -o json|yaml: the GraphQL OperationStatus
/// (engine::operation_status_json) followed by what the API does not carry: stage,
/// startTimestamp and endTimestamp (RFC 3339; null while the operation runs). The GraphQL
/// answers stay as the contract has them.
nlohmann::ordered_json operation_json(const engine::Operation& op,
                                      const std::optional<std::string>& compass_runtime_id);

/// `document` as indented JSON (Json) or a YAML document (Yaml), ending in a newline. Other
/// formats are the caller's.
void print_document(std::ostream& out, const nlohmann::ordered_json& document, OutputFormat format);

/// `text` safe to print on a terminal: control characters (C0, DEL, C1), bidirectional
/// overrides and bytes that are not UTF-8 written as escapes ("\x1b", "\u009b", "\u202e",
/// "\xff"), so that a value cannot move the cursor, retitle the window or hide text. Line feeds
/// stay as they are when `keep_newlines` (messages of several lines), else become "\n".
std::string visible(std::string_view text, bool keep_newlines = false);

/// Whether to colour what goes to `out`: only std::cout on a terminal, never with NO_COLOR set
/// (to anything but "") or TERM=dumb (https://no-color.org).
bool use_colour(const std::ostream& out);

/// `text` in the colour of `state` (InProgress yellow, Succeeded green, Failed red) when
/// `colour`, else `text` itself.
std::string coloured(const std::string& text, engine::OperationState state, bool colour);

/// How long before `now` `t` was, as tables show it: "just now", "42s ago", "3m ago",
/// "5h ago", "12d ago"; "in 3m" for a time in the future.
std::string relative_time(Timestamp t, Timestamp now);

/// A table cell: its text, and the state whose colour it takes (none: plain).
struct Cell {
    Cell(std::string cell_text, std::optional<engine::OperationState> cell_state = std::nullopt)
        : text(std::move(cell_text))
        , state(cell_state) {}
    Cell(const char* cell_text)
        : text(cell_text) {}
    std::string text;
    std::optional<engine::OperationState> state;
};

/// A JSON value as the store holds it (a runtime's labels), for a document: a discarded value
/// when the text is not JSON (as nlohmann's non-throwing parse gives it); the text
/// "(nested deeper than 64 levels: not shown)" instead of a value nested more deeply than any
/// reader accepts (stored by an older kprov or another program), as copying and dumping it
/// would recurse once per level.
nlohmann::ordered_json stored_json(const std::string& text);

/// Rows of "key  value", the keys padded to one width (the table format of single records);
/// values made visible() and coloured by their state when `colour`.
void print_key_values(std::ostream& out, const std::vector<std::pair<std::string, Cell>>& rows,
                      bool colour = false);

/// Rows under upper-case `headers`, columns padded to their widest cell (colour codes do not
/// count), separated by three spaces; the last column is not padded. `indent` prefixes every
/// line. Cells are made visible() first.
void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<Cell>>& rows, bool colour,
                 const std::string& indent = "");

/// How many columns the user's terminal has: $COLUMNS when it is a number, else the width of
/// the terminal `out` is (std::cout on one), else 80.
std::size_t terminal_columns(const std::ostream& out);

/// Shortens the cells of `column` (ending them in "...") so that print_table's lines of
/// `headers` and `rows` fit in `width` columns, as far as that column can give (never below its
/// header's width or 8 characters).
void fit_table(const std::vector<std::string>& headers, std::vector<std::vector<Cell>>& rows,
               std::size_t column, std::size_t width);

/// One operation: -o json/yaml its OperationStatus, -o name its id, table one "key  value"
/// line each for runtime, operation, type, state, message and (when set) error; wide adds
/// stage, started and ended.
/// `compass_runtime_id`: see compass_runtime_id() in cli/access.hpp.
void print_operation(std::ostream& out, const engine::Operation& op, OutputFormat format,
                     const std::optional<std::string>& compass_runtime_id = {});

} // namespace kprov::cli
