#pragma once
// Validation of an executable document against a schema: the spec's rules (October 2021), each
// error worded as graphql-js words it and located.

#include "api/graphql/schema.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

/// The work validation did, for tests that check it grows linearly (never timed).
struct ValidationStats {
    std::size_t fields_collected = 0;  // field nodes put into the overlap rule's field maps
    std::size_t field_comparisons = 0; // pairs of fields the overlap rule compared
};

/// The document's errors as a JSON array of {"message", "locations"}; empty when it is valid.
/// At most 100 errors: when there are more, a 101st says "Too many validation errors, error
/// limit reached. Validation aborted." and validation stops there. Counts its work in `stats`
/// when given.
nlohmann::json validate(const Schema& schema, const ast::Document& document,
                        ValidationStats* stats = nullptr);

/// " Did you mean \"a\", \"b\" or \"c\"?" for the options close to `input`; "" when none is.
std::string did_you_mean(std::string_view input, const std::vector<std::string_view>& options,
                         std::string_view prefix = "");

} // namespace kprov::api::graphql
