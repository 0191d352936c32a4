#include "cli/render.hpp"

#include "cli/yaml_output.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
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

Json operation_status_json(const engine::Operation& op,
                           const std::optional<std::string>& compass_runtime_id) {
    Json status;
    status["id"] = op.id;
    status["operation"] = engine::to_api(op.type);
    status["state"] = engine::to_api(op.state);
    status["message"] = op.message;
    status["runtimeID"] = op.cluster_id;
    status["compassRuntimeID"] = compass_runtime_id ? Json(*compass_runtime_id) : Json(nullptr);
    status["lastError"] = {{"errMessage", op.last_error.message},
                           {"reason", op.last_error.reason},
                           {"component", op.last_error.component}};
    return status;
}

void print_document(std::ostream& out, const Json& document, OutputFormat format) {
    if (format == OutputFormat::Yaml)
        out << json_to_yaml(document.dump());
    else
        // Messages quote remote answers: bytes that are not UTF-8 must not fail the output.
        out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void print_operation(std::ostream& out, const engine::Operation& op, OutputFormat format) {
    switch (format) {
    case OutputFormat::Json:
    case OutputFormat::Yaml:
        print_document(out, operation_status_json(op), format);
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
        {"state", std::string(engine::to_api(op.state))},
        {"message", op.message},
    };
    if (!op.last_error.empty())
        rows.emplace_back("error", op.last_error.message);
    if (format == OutputFormat::Wide) {
        rows.emplace_back("stage", op.stage);
        rows.emplace_back("started", format_rfc3339(op.start_timestamp));
        rows.emplace_back("ended", op.end_timestamp ? format_rfc3339(*op.end_timestamp) : "");
    }
    print_key_values(out, rows);
}

} // namespace kprov::cli
