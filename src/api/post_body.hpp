#pragma once
// The body of a GraphQL POST ({"query": ..., "variables": ..., "operationName": ...}) read
// without building a JSON tree of the whole of it: the query text is most of the body, and
// nlohmann::json's parser cost more than the rest of a small query's answer.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::api {

struct PostBody {
    std::string query;
    nlohmann::json variables;      ///< null when absent or null
    nlohmann::json operation_name; ///< null when absent or null
};

/// The body when it is a JSON object of at most these three members, each once, "query" a
/// string, "operationName" a string or null (strings of printable ASCII and the short escapes),
/// "variables" any JSON value. nullopt for anything else, valid or not: the caller then parses
/// the body in full, so that every body is judged by one JSON parser.
std::optional<PostBody> read_post_body(std::string_view body);

} // namespace kprov::api
