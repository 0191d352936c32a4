#pragma once
// Validation of an executable document against a schema: the spec's rules (October 2021), each
// error worded as graphql-js words it and located.

#include "api/graphql/schema.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

/// The document's errors as a JSON array of {"message", "locations"}; empty when it is valid.
nlohmann::json validate(const Schema& schema, const ast::Document& document);

/// " Did you mean \"a\", \"b\" or \"c\"?" for the options close to `input`; "" when none is.
std::string did_you_mean(std::string_view input, const std::vector<std::string_view>& options,
                         std::string_view prefix = "");

} // namespace kprov::api::graphql
