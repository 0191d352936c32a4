#pragma once
// A small GraphQL reader for the Director operations kprov sends (registerRuntime, runtime,
// runtimes, updateRuntime, requestOneTimeTokenForRuntime, unregisterRuntime). It reads a whole
// executable document (comments, commas, aliases, arguments with inline literals or $variables,
// variable definitions with defaults, nested selections, directives skipped) but no fragments.
// kprov's own GraphQL parser lives in src/api; this one stays contained here on purpose.

#include "api.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace kprov::sim {

/// One top-level field of the operation.
struct GqlField {
    std::string response_key; ///< the alias if given, else the name
    std::string name;
    Json args = Json::object();         ///< argument values as JSON; enum values become strings
    std::vector<std::string> selection; ///< names of the first-level sub-fields
    std::vector<GqlField> children;     ///< the sub-fields themselves, with theirs
};

struct GqlOperation {
    std::string type; ///< "query" or "mutation"
    std::vector<GqlField> fields;
};

/// A document that cannot be read; what() says where.
class GqlSyntaxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads `document`, picks the operation named `operation_name` (or the only one) and resolves
/// variables from `variables`. Throws GqlSyntaxError.
GqlOperation parse_graphql(const std::string& document, const Json& variables,
                           const std::string& operation_name);

} // namespace kprov::sim
