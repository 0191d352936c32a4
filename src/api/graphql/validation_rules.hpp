#pragma once
// Pieces the validator shares between its files: value checks (ValuesOfCorrectType), type
// comparison and the OverlappingFieldsCanBeMerged rule.

#include "api/graphql/validation.hpp"
#include "api/graphql/values.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::api::graphql {

/// Thrown by ValidationErrors once the cap is hit; validate() catches it.
struct ValidationAborted {};

/// The errors of one validation, capped as graphql-js caps them: after k_max errors the next
/// one becomes "Too many validation errors, error limit reached. Validation aborted." and add()
/// throws ValidationAborted, so that no rule does any work past the cap.
class ValidationErrors {
public:
    static constexpr std::size_t k_max = 100;

    /// Appends {"message", "locations"}; throws ValidationAborted instead of adding the 101st.
    void add(const std::string& message, const std::vector<SourceLocation>& locations);
    /// Appends the "Too many validation errors" error and throws ValidationAborted: for a rule
    /// that cut its own search short.
    [[noreturn]] void abort();
    bool empty() const { return m_errors.empty(); }
    std::size_t size() const { return m_errors.size(); }
    nlohmann::json take() { return std::move(m_errors); }

private:
    nlohmann::json m_errors = nlohmann::json::array();
};

/// A variable used where a value of `type` is expected (type.name empty: not known).
struct VariableUsage {
    std::string_view name;
    SourceLocation loc;
    std::string type_name;
    std::string mods;
    bool location_has_default = false;
};

/// errors.add(message, locations).
void report(ValidationErrors& errors, const std::string& message,
            const std::vector<SourceLocation>& locations);

/// ValuesOfCorrectType and UniqueInputFieldNames for a literal at a position of `type`; the
/// variables it uses are appended to `usages`.
void check_value(const Schema& schema, const ast::Value& value, TypeView type,
                 bool location_has_default, std::vector<VariableUsage>& usages,
                 ValidationErrors& errors);

/// The variables a literal of unknown type uses.
void collect_variables(const ast::Value& value, std::vector<VariableUsage>& usages);

/// Whether a value of type `sub` may be used where `super` is expected.
bool is_type_subtype(const Schema& schema, TypeView sub, TypeView super);

/// OverlappingFieldsCanBeMerged over every operation and fragment of the document; counts its
/// work in `stats` when given.
void check_overlapping_fields(const Schema& schema, const ast::Document& document,
                              ValidationErrors& errors, ValidationStats* stats);

} // namespace kprov::api::graphql
