#pragma once
// Rendering results for -o table|wide|json|yaml|name (ARCHITECTURE.md, CLI contract). JSON and
// YAML carry the GraphQL API's field names, in the API's order, so they stay stable.

#include "cli/context.hpp"
#include "engine/model.hpp"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kprov::cli {

enum class OutputFormat { Table, Wide, Json, Yaml, Name };

/// The -o flag; Table when it is not given.
OutputFormat output_format(const Context& ctx);

/// The GraphQL OperationStatus of `op`: id, operation ("Provision", "DeprovisionNoInstall",
/// ...), state ("InProgress", "Succeeded", "Failed"), message, runtimeID, compassRuntimeID
/// (null when not given: registration is off) and lastError, always an object
/// {errMessage, reason, component} with empty strings when there is no error.
nlohmann::ordered_json
operation_status_json(const engine::Operation& op,
                      const std::optional<std::string>& compass_runtime_id = {});

/// `document` as indented JSON (Json) or a YAML document (Yaml), ending in a newline. Other
/// formats are the caller's.
void print_document(std::ostream& out, const nlohmann::ordered_json& document, OutputFormat format);

/// Rows of "key  value", the keys padded to one width (the table format of single records).
void print_key_values(std::ostream& out,
                      const std::vector<std::pair<std::string, std::string>>& rows);

/// One operation: -o json/yaml its OperationStatus, -o name its id, table one "key  value"
/// line each for runtime, operation, type, state, message and (when set) error; wide adds
/// stage, started and ended.
void print_operation(std::ostream& out, const engine::Operation& op, OutputFormat format);

} // namespace kprov::cli
