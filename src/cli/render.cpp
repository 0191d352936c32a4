#include "cli/render.hpp"

#include "cli/yaml_output.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/util/time.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kprov::cli {

using Json = nlohmann::ordered_json;

namespace {

// A backslash, `kind` and `digits` hex digits of `value`: \x1b, \u009b.
void append_escape(std::string& out, char kind, unsigned value, int digits) {
    static const char k_hex[] = "0123456789abcdef";
    out += '\\';
    out += kind;
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        out += k_hex[(value >> shift) & 0xFu];
}

// U+202A-U+202E and U+2066-U+2069 reorder what follows them on screen ("Trojan source").
bool bidi_control(std::string_view sequence) {
    if (sequence.size() != 3 || static_cast<unsigned char>(sequence[0]) != 0xE2)
        return false;
    const auto b1 = static_cast<unsigned char>(sequence[1]);
    const auto b2 = static_cast<unsigned char>(sequence[2]);
    return (b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);
}

} // namespace

std::string visible(std::string_view text, bool keep_newlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto b = static_cast<unsigned char>(text[i]);
        const std::size_t n = utf8_length_at(text, i);
        if (n == 0) {
            append_escape(out, 'x', b, 2);
            ++i;
            continue;
        }
        const auto sequence = text.substr(i, n);
        i += n;
        if (b == '\n' && keep_newlines)
            out += '\n';
        else if (b < 0x20 || b == 0x7F)
            append_escape(out, 'x', b, 2);
        else if (b == 0xC2 && static_cast<unsigned char>(sequence[1]) < 0xA0) // C1: U+0080-009F
            append_escape(out, 'u', static_cast<unsigned char>(sequence[1]), 4);
        else if (bidi_control(sequence))
            append_escape(out, 'u',
                          0x2000u + ((static_cast<unsigned char>(sequence[1]) & 0x3Fu) << 6) +
                              (static_cast<unsigned char>(sequence[2]) & 0x3Fu),
                          4);
        else
            out += sequence;
    }
    return out;
}

void print_key_values(std::ostream& out, const std::vector<std::pair<std::string, Cell>>& rows,
                      bool colour) {
    std::size_t width = 0;
    for (const auto& [key, value] : rows)
        width = std::max(width, key.size());
    for (const auto& [key, value] : rows) {
        const auto text = visible(value.text);
        out << std::left << std::setw(static_cast<int>(width) + 2) << key
            << (value.state ? coloured(text, *value.state, colour) : text) << '\n';
    }
}

bool use_colour(const std::ostream& out) {
    if (&out != &std::cout || isatty(STDOUT_FILENO) != 1)
        return false;
    const char* no_colour = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return (no_colour == nullptr || *no_colour == '\0') &&
           (term == nullptr || std::string_view(term) != "dumb");
}

std::string coloured(const std::string& text, engine::OperationState state, bool colour) {
    if (!colour)
        return text;
    const char* code = state == engine::OperationState::Succeeded ? "32"
                       : state == engine::OperationState::Failed  ? "31"
                                                                  : "33";
    return std::string("\033[") + code + "m" + text + "\033[0m";
}

std::string relative_time(Timestamp t, Timestamp now) {
    using namespace std::chrono;
    const auto delta = duration_cast<seconds>(now - t).count();
    const long long magnitude = delta < 0 ? -delta : delta;
    std::string amount;
    if (magnitude < 2)
        return "just now";
    if (magnitude < 60)
        amount = std::to_string(magnitude) + "s";
    else if (magnitude < 3600)
        amount = std::to_string(magnitude / 60) + "m";
    else if (magnitude < 48 * 3600)
        amount = std::to_string(magnitude / 3600) + "h";
    else
        amount = std::to_string(magnitude / 86400) + "d";
    return delta < 0 ? "in " + amount : amount + " ago";
}

std::size_t terminal_columns(const std::ostream& out) {
    if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
        char* end = nullptr;
        const long value = std::strtol(columns, &end, 10);
        if (*end == '\0' && value > 0 && value < 100000)
            return static_cast<std::size_t>(value);
    }
    winsize size{};
    if (&out == &std::cout && isatty(STDOUT_FILENO) == 1 &&
        ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

void fit_table(const std::vector<std::string>& headers, std::vector<std::vector<Cell>>& rows,
               std::size_t column, std::size_t width) {
    constexpr std::size_t k_separator = 3; // print_table's
    constexpr std::string_view k_ellipsis = "...";
    std::size_t others = 0;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        if (i == column)
            continue;
        std::size_t w = headers[i].size();
        for (const auto& row : rows)
            if (i < row.size())
                w = std::max(w, visible(row[i].text).size());
        others += w + (i + 1 < headers.size() ? k_separator : 0);
    }
    const std::size_t floor = std::max<std::size_t>(headers[column].size(), 8);
    const std::size_t used = others + (column + 1 < headers.size() ? k_separator : 0);
    const std::size_t room = std::max(floor, width > used ? width - used : 0);
    for (auto& row : rows)
        if (column < row.size() && row[column].text.size() > room)
            row[column].text =
                row[column].text.substr(0, room - k_ellipsis.size()) + std::string(k_ellipsis);
}

void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<Cell>>& given_rows, bool colour,
                 const std::string& indent) {
    std::vector<std::vector<Cell>> rows = given_rows;
    for (auto& row : rows)
        for (auto& cell : row)
            cell.text = visible(cell.text);
    std::vector<std::size_t> widths(headers.size(), 0);
    for (std::size_t i = 0; i < headers.size(); ++i)
        widths[i] = headers[i].size();
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], row[i].text.size());
    auto line = [&](const std::vector<Cell>& cells) {
        std::string text = indent;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const Cell& cell = cells[i];
            text += cell.state ? coloured(cell.text, *cell.state, colour) : cell.text;
            if (i + 1 < cells.size())
                text += std::string(widths[i] - cell.text.size() + 3, ' ');
        }
        out << text << '\n';
    };
    std::vector<Cell> header_cells;
    for (const auto& header : headers)
        header_cells.push_back({header});
    line(header_cells);
    for (const auto& row : rows)
        line(row);
}

void print_warnings(Context& ctx, const std::vector<std::string>& warnings) {
    if (ctx.global().quiet)
        return;
    for (const auto& warning : warnings)
        ctx.err() << "kprov: warning: " << visible(warning, true) << '\n';
}

OutputFormat output_format(const Context& ctx) {
    const auto& format = ctx.global().output;
    if (!format || *format == "table")
        return OutputFormat::Table;
    if (*format == "wide")
        return OutputFormat::Wide;
    if (*format == "json")
        return OutputFormat::Json;
    if (*format == "yaml")
        return OutputFormat::Yaml;
    return OutputFormat::Name;
}

namespace {

// Deeper than any document kprov builds from valid input (inputs nest up to
// k_max_input_nesting, and a result wraps them in a few levels): only a store written by an
// older kprov or by another program holds such values.
constexpr std::size_t k_max_output_nesting = k_max_input_nesting + 16;
const char* const k_cut_marker = "(nested deeper than 80 levels: not shown)";
static_assert(k_max_output_nesting == 80, "k_cut_marker names the limit");

// Messages quote remote answers: bytes that are not UTF-8 must not fail the output.
std::string scalar_text(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool nests_deeper_than(const Json& value, std::size_t limit) {
    std::vector<std::pair<const Json*, std::size_t>> todo = {{&value, 0}};
    while (!todo.empty()) {
        const auto [v, depth] = todo.back();
        todo.pop_back();
        if (!v->is_structured())
            continue;
        if (depth + 1 > limit)
            return true;
        for (const auto& item : *v)
            todo.emplace_back(&item, depth + 1);
    }
    return false;
}

// nlohmann's layout (indent 2), with containers below `depth` k_max_output_nesting replaced by
// k_cut_marker; the recursion is bounded by that depth.
void write_cut(std::string& out, const Json& value, std::size_t depth) {
    if (!value.is_structured()) {
        out += scalar_text(value);
        return;
    }
    if (depth >= k_max_output_nesting) {
        out += scalar_text(Json(k_cut_marker));
        return;
    }
    const bool object = value.is_object();
    if (value.empty()) {
        out += object ? "{}" : "[]";
        return;
    }
    const std::string inner((depth + 1) * 2, ' ');
    out += object ? "{\n" : "[\n";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        out += first ? "" : ",\n";
        first = false;
        out += inner;
        if (object)
            out += scalar_text(Json(it.key())) + ": ";
        write_cut(out, *it, depth + 1);
    }
    out += "\n" + std::string(depth * 2, ' ') + (object ? "}" : "]");
}

// `document` as JSON text (indented by 2, or compact for the YAML renderer); a value nested
// too deeply to render safely (dump and the YAML emitter recurse) is cut with a marker.
std::string document_text(const Json& document, int indent) {
    if (!nests_deeper_than(document, k_max_output_nesting))
        return document.dump(indent, ' ', false, Json::error_handler_t::replace);
    std::string out;
    write_cut(out, document, 0);
    return out;
}

} // namespace

Json stored_json(const std::string& text) {
    // The parser does not recurse; the callback keeps a too deep value from being built.
    bool cut = false;
    const Json::parser_callback_t bound = [&](int depth, Json::parse_event_t event, Json&) {
        const bool opens =
            event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
        if (opens && static_cast<std::size_t>(depth) >= k_max_input_nesting)
            cut = true;
        return !cut;
    };
    Json value = Json::parse(text, bound, false);
    if (cut)
        return "(nested deeper than " + std::to_string(k_max_input_nesting) + " levels: not shown)";
    return value;
}

namespace {

// An operation's lastError as the CLI prints it: null when the operation has no error. (The
// GraphQL API keeps the original's object of empty strings.) Walked without recursion: labels
// nest as deep as their input.
Json with_null_empty_errors(Json document) {
    std::vector<Json*> pending = {&document};
    while (!pending.empty()) {
        Json* node = pending.back();
        pending.pop_back();
        if (node->is_object()) {
            if (auto it = node->find("lastError");
                it != node->end() && it->is_object() && it->value("errMessage", "").empty() &&
                it->value("reason", "").empty() && it->value("component", "").empty())
                *it = nullptr;
            for (auto& item : node->items())
                if (item.value().is_structured())
                    pending.push_back(&item.value());
        } else if (node->is_array()) {
            for (auto& value : *node)
                if (value.is_structured())
                    pending.push_back(&value);
        }
    }
    return document;
}

} // namespace

void print_document(std::ostream& out, const Json& document, OutputFormat format) {
    const Json shown = with_null_empty_errors(document);
    if (format == OutputFormat::Yaml)
        out << json_to_yaml(document_text(shown, -1));
    else
        out << document_text(shown, 2) << '\n';
}

Json operation_json(const engine::Operation& op,
                    const std::optional<std::string>& compass_runtime_id) {
    Json out = engine::operation_status_json(op, compass_runtime_id);
    out["stage"] = op.stage;
    out["startTimestamp"] = format_rfc3339(op.start_timestamp);
    out["endTimestamp"] =
        op.end_timestamp ? Json(format_rfc3339(*op.end_timestamp)) : Json(nullptr);
    return out;
}

void print_operation(std::ostream& out, const engine::Operation& op, OutputFormat format,
                     const std::optional<std::string>& compass_runtime_id) {
    switch (format) {
    case OutputFormat::Json:
    case OutputFormat::Yaml:
        print_document(out, operation_json(op, compass_runtime_id), format);
        return;
    case OutputFormat::Name:
        out << op.id << '\n';
        return;
    case OutputFormat::Table:
    case OutputFormat::Wide:
        break;
    }
    std::vector<std::pair<std::string, Cell>> rows = {
        {"runtime", op.cluster_id},
        {"operation", op.id},
        {"type", std::string(engine::to_api(op.type))},
        {"state", Cell{std::string(engine::to_api(op.state)), op.state}},
        {"message", op.message},
    };
    if (!op.last_error.empty())
        rows.emplace_back("error", op.last_error.message);
    if (format == OutputFormat::Wide) {
        rows.emplace_back("stage", op.stage);
        const Timestamp now = SystemClock().now();
        rows.emplace_back("started", relative_time(op.start_timestamp, now));
        rows.emplace_back("ended", op.end_timestamp ? relative_time(*op.end_timestamp, now) : "");
    }
    print_key_values(out, rows, use_colour(out));
}

} // namespace kprov::cli
