#pragma once
// Input coercion (literals and variables into the JSON the resolvers get) and output
// serialization of leaf values, per the spec's rules for Int, Float, String, Boolean, ID, enums,
// input objects (defaults applied), lists (a single value becomes a one-item list) and custom
// scalars (any JSON value).

#include "api/graphql/schema.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kprov::api::graphql {

/// The type at `mods[index...]` around `name`: what the coercion functions walk.
struct TypeView {
    std::string_view name;
    std::string_view mods;

    explicit TypeView(const ast::TypeRef& ref)
        : name(ref.name)
        , mods(ref.mods) {}
    TypeView(std::string_view n, std::string_view m)
        : name(n)
        , mods(m) {}
    bool non_null() const { return !mods.empty() && mods[0] == 'N'; }
    bool list() const { return !mods.empty() && mods[0] == 'L'; }
    bool wrapped() const { return !mods.empty(); }
    TypeView inner() const { return {name, mods.substr(1)}; }
    TypeView nullable() const { return non_null() ? inner() : *this; }
    std::string print() const { return ast::print_type(name, mods); }
};

/// The value of a literal of input type `type` (graphql-js's valueFromAST): false when it does not
/// fit, or names a variable that `variables` (the coerced variables; may be null) lacks where
/// the type demands a value.
bool coerce_literal(const Schema& schema, const ast::Value& literal, TypeView type,
                    const nlohmann::json* variables, nlohmann::json& out);

/// The JSON of a literal taken without a type (custom scalars); missing variables are dropped
/// from objects and become null in lists.
nlohmann::json untyped_literal(const ast::Value& literal, const nlohmann::json* variables);

/// A variable's value coerced to `type` (graphql-js's coerceInputValue). On failure false, with
/// `error` naming what is wrong and `path` (".a[0].b") where.
bool coerce_input(const Schema& schema, const nlohmann::json& in, TypeView type,
                  nlohmann::json& out, std::string& error, std::string& path);

/// Whether a literal of a leaf type fits; on failure `error` says why (may stay empty).
bool leaf_literal_ok(const TypeDef& type, const ast::Value& literal, std::string& error);

/// A resolver's value of a leaf type as the response shows it; false with `error` when it
/// cannot be shown as that type.
bool serialize_leaf(const TypeDef& type, const nlohmann::json& in, nlohmann::json& out,
                    std::string& error);

/// A JSON value shown in a message (graphql-js's inspect): strings quoted, objects compact.
std::string inspect(const nlohmann::json& value);

} // namespace kprov::api::graphql
