#include "cli/render.hpp"

#include "cli/yaml_output.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kprov::cli {

using Json = nlohmann::ordered_json;

void print_key_values(std::ostream& out,
                      const std::vector<std::pair<std::string, std::string>>& rows) {
    std::size_t width = 0;
    for (const auto& [key, value] : rows)
        width = std::max(width, key.size());
    for (const auto& [key, value] : rows)
        out << std::left << std::setw(static_cast<int>(width) + 2) << key << value << '\n';
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

void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<Cell>>& rows, bool colour,
                 const std::string& indent) {
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
        ctx.err() << "kprov: warning: " << warning << '\n';
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

void print_document(std::ostream& out, const Json& document, OutputFormat format) {
    if (format == OutputFormat::Yaml)
        out << json_to_yaml(document.dump());
    else
        // Messages quote remote answers: bytes that are not UTF-8 must not fail the output.
        out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void print_operation(std::ostream& out, const engine::Operation& op, OutputFormat format,
                     const std::optional<std::string>& compass_runtime_id) {
    switch (format) {
    case OutputFormat::Json:
    case OutputFormat::Yaml:
        print_document(out, operation_status_json(op, compass_runtime_id), format);
        return;
    case OutputFormat::Name:
        out << op.id << '\n';
        return;
    case OutputFormat::Table:
    case OutputFormat::Wide:
        break;
    }
    std::vector<std::pair<std::string, std::string>> rows = {
        {"runtime", op.cluster_id},
        {"operation", op.id},
        {"type", std::string(engine::to_api(op.type))},
        {"state", coloured(std::string(engine::to_api(op.state)), op.state, use_colour(out))},
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
    print_key_values(out, rows);
}

} // namespace kprov::cli
