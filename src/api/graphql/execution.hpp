#pragma once
// Executing a validated operation: variables coerced, fields collected (@skip/@include,
// fragments), arguments coerced, resolvers called (root mutation fields one after another),
// values completed with the spec's non-null propagation, written as JSON text as they complete.
// Errors go to a JSON array in the response's shape.

#include "api/graphql/schema.hpp"

#include <any>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::api::graphql {

/// {"message", "locations"} (locations omitted when empty).
nlohmann::json error_json(const std::string& message, const std::vector<SourceLocation>& locations);

/// The operation's variables coerced from the request's `raw` values (defaults applied). False
/// with one error per bad variable appended to `errors` when they do not fit.
bool coerce_variables(const Schema& schema, const ast::Operation& operation,
                      const nlohmann::json& raw, nlohmann::json& out, nlohmann::json& errors);

/// Appends the operation's "data" to `out` as JSON text, fields in the order the operation
/// selects them ("null" when a non-null root field failed); field errors appended to `errors`.
/// False, with `out` and `errors` incomplete, when the text and the errors grew beyond
/// `max_bytes`: execution stops at the first field that finds them too large (no further
/// resolver runs).
bool execute_operation(const Schema& schema, const Resolvers& resolvers,
                       const ast::Document& document, const ast::Operation& operation,
                       const nlohmann::json& variables, std::any& request_state,
                       nlohmann::json& errors, std::string& out, std::size_t max_bytes);

} // namespace kprov::api::graphql
