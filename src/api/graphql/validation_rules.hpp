#pragma once
// Pieces the validator shares between its files: value checks (ValuesOfCorrectType), type
// comparison and the OverlappingFieldsCanBeMerged rule.

#include "api/graphql/validation.hpp"
#include "api/graphql/values.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::api::graphql {

/// A variable used where a value of `type` is expected (type.name empty: not known).
struct VariableUsage {
    std::string_view name;
    SourceLocation loc;
    std::string type_name;
    std::string mods;
    bool location_has_default = false;
};

/// Appends {"message", "locations"} to `errors`.
void report(nlohmann::json& errors, const std::string& message,
            std::vector<SourceLocation> locations);

/// ValuesOfCorrectType and UniqueInputFieldNames for a literal at a position of `type`; the
/// variables it uses are appended to `usages`.
void check_value(const Schema& schema, const ast::Value& value, TypeView type,
                 bool location_has_default, std::vector<VariableUsage>& usages,
                 nlohmann::json& errors);

/// The variables a literal of unknown type uses.
void collect_variables(const ast::Value& value, std::vector<VariableUsage>& usages);

/// Whether a value of type `sub` may be used where `super` is expected.
bool is_type_subtype(const Schema& schema, TypeView sub, TypeView super);

/// OverlappingFieldsCanBeMerged over every operation and fragment of the document.
void check_overlapping_fields(const Schema& schema, const ast::Document& document,
                              nlohmann::json& errors);

} // namespace kprov::api::graphql
