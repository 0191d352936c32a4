#pragma once
// The schema as the validator, the executor and introspection see it: built once by load_schema
// from SDL plus the built-in prelude (scalars, @skip/@include/@deprecated/@specifiedBy and the
// introspection types), immutable afterwards, so one Schema serves any number of threads.

#include "api/graphql/ast.hpp"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

using TypeKind = ast::TypeKind;

/// How a scalar reads and writes values. Custom scalars take any JSON value.
enum class ScalarKind : std::uint8_t { None, Int, Float, String, Boolean, ID, Custom };

struct InputValueDef {
    std::string name;
    std::string description;
    ast::TypeRef type;
    std::optional<ast::Value> default_literal;
    nlohmann::json default_value; // coerced default; meaningful only with default_literal
    bool deprecated = false;
    std::string deprecation_reason;
};

struct TypeDef;

struct FieldDef {
    std::string name;
    std::string description;
    std::vector<InputValueDef> arguments;
    ast::TypeRef type;
    bool deprecated = false;
    std::string deprecation_reason;
    /// The TypeDef `type` names, set by load_schema (the executor's per-field lookup).
    const TypeDef* named_type = nullptr;

    const InputValueDef* argument(std::string_view arg_name) const;
};

struct EnumValueDef {
    std::string name;
    std::string description;
    bool deprecated = false;
    std::string deprecation_reason;
};

struct TypeDef {
    TypeKind kind = TypeKind::Scalar;
    ScalarKind scalar = ScalarKind::None;
    std::string name;
    std::string description;
    std::string specified_by_url;
    std::vector<FieldDef> fields;            // Object, Interface
    std::vector<InputValueDef> input_fields; // InputObject
    std::vector<std::string> interfaces;     // Object, Interface
    std::vector<std::string> possible_types; // Union members; an Interface's implementations
    std::vector<EnumValueDef> enum_values;   // Enum

    const FieldDef* field(std::string_view field_name) const;
    const InputValueDef* input_field(std::string_view field_name) const;
    const EnumValueDef* enum_value(std::string_view value_name) const;
    bool is_possible_type(std::string_view object_type) const;
    bool is_composite() const {
        return kind == TypeKind::Object || kind == TypeKind::Interface || kind == TypeKind::Union;
    }
    bool is_abstract() const { return kind == TypeKind::Interface || kind == TypeKind::Union; }
    bool is_leaf() const { return kind == TypeKind::Scalar || kind == TypeKind::Enum; }
    bool is_input() const { return is_leaf() || kind == TypeKind::InputObject; }
    bool is_output() const { return kind != TypeKind::InputObject; }
};

struct DirectiveDef {
    std::string name;
    std::string description;
    std::vector<InputValueDef> arguments;
    std::vector<std::string> locations; // "FIELD", "QUERY", ...
    bool repeatable = false;

    const InputValueDef* argument(std::string_view arg_name) const;
    bool allowed_on(std::string_view location) const;
};

class Schema {
public:
    const TypeDef* type(std::string_view name) const;
    /// Every named type, the prelude's included, in definition order.
    const std::vector<std::unique_ptr<TypeDef>>& types() const { return m_types; }
    const DirectiveDef* directive(std::string_view name) const;
    const std::vector<DirectiveDef>& directives() const { return m_directives; }
    const TypeDef* query_type() const { return m_query; }
    const TypeDef* mutation_type() const { return m_mutation; }
    const TypeDef* subscription_type() const { return m_subscription; }
    const std::string& description() const { return m_description; }
    const TypeDef* root(ast::OperationKind kind) const;

    /// A field of `parent`, including __typename on every composite type and __schema/__type on
    /// the query type; null when there is none.
    const FieldDef* field(const TypeDef& parent, std::string_view name) const;

    /// Whether a value of type `sub` may stand where `super` is expected (same type, or an
    /// object type that is a possible type of the abstract `super`).
    bool is_subtype(const TypeDef& sub, const TypeDef& super) const;
    /// Whether some object type is a possible type of both.
    bool overlap(const TypeDef& a, const TypeDef& b) const;

private:
    friend std::shared_ptr<const Schema> load_schema(std::string_view sdl);

    std::vector<std::unique_ptr<TypeDef>> m_types;
    std::map<std::string, const TypeDef*, std::less<>> m_by_name;
    std::vector<DirectiveDef> m_directives;
    const TypeDef* m_query = nullptr;
    const TypeDef* m_mutation = nullptr;
    const TypeDef* m_subscription = nullptr;
    std::string m_description;
    FieldDef m_typename_field;
    FieldDef m_schema_field;
    FieldDef m_type_field;
};

/// The TypeDef a reference names; null for an unknown name.
inline const TypeDef* named(const Schema& schema, const ast::TypeRef& ref) {
    return schema.type(ref.name);
}

} // namespace kprov::api::graphql
