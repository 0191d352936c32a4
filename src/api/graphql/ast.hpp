#pragma once
// The syntax tree of GraphQL documents: executable documents (operations and fragments) and type
// system documents (SDL). Plain values owned by their parents; locations are 1-based.

#include "api/graphql/graphql.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql::ast {

enum class ValueKind : std::uint8_t {
    Variable,
    Int,
    Float,
    String,
    Boolean,
    Null,
    Enum,
    List,
    Object
};

/// A literal (or a variable) as written.
struct Value {
    ValueKind kind = ValueKind::Null;
    SourceLocation loc;
    std::string text;              // variable or enum name, number as written, decoded string
    bool boolean = false;          // Boolean
    bool block = false;            // String written as a block string
    std::vector<Value> items;      // List items; Object field values
    std::vector<std::string> keys; // Object field names, parallel to items
    std::vector<SourceLocation> key_locs;
};

/// A type reference: a named type wrapped, outermost first, in 'L' (list) and 'N' (non-null).
/// "[String!]!" is {name "String", mods "NLN"}.
struct TypeRef {
    std::string name;
    std::string mods;
    SourceLocation loc;
};

struct Argument {
    std::string name;
    SourceLocation loc;
    Value value;
};

struct Directive {
    std::string name;
    SourceLocation loc;
    std::vector<Argument> arguments;
};

struct Selection {
    enum class Kind : std::uint8_t { Field, FragmentSpread, InlineFragment };
    Kind kind = Kind::Field;
    SourceLocation loc;
    std::string alias;          // Field: empty when not aliased
    std::string name;           // Field name, or the spread fragment's name
    std::string type_condition; // InlineFragment: empty when absent
    SourceLocation type_condition_loc;
    std::vector<Argument> arguments;
    std::vector<Directive> directives;
    bool has_selection_set = false;
    std::vector<Selection> selections;

    std::string_view response_key() const { return alias.empty() ? name : alias; }
};

struct VariableDefinition {
    std::string name;
    SourceLocation loc;
    TypeRef type;
    std::optional<Value> default_value;
    std::vector<Directive> directives;
};

enum class OperationKind : std::uint8_t { Query, Mutation, Subscription };

struct Operation {
    OperationKind kind = OperationKind::Query;
    std::string name; // empty: anonymous
    SourceLocation loc;
    std::vector<VariableDefinition> variables;
    std::vector<Directive> directives;
    std::vector<Selection> selections;
};

struct Fragment {
    std::string name;
    SourceLocation loc;
    std::string type_condition;
    SourceLocation type_condition_loc;
    std::vector<Directive> directives;
    std::vector<Selection> selections;
};

struct Document {
    std::vector<Operation> operations;
    std::vector<Fragment> fragments;
    std::size_t alias_count = 0;

    const Fragment* fragment(std::string_view name) const;
};

// --- Type system definitions (SDL) ------------------------------------------------------------

struct InputValueDefinition {
    std::string description;
    std::string name;
    SourceLocation loc;
    TypeRef type;
    std::optional<Value> default_value;
    std::vector<Directive> directives;
};

struct FieldDefinition {
    std::string description;
    std::string name;
    SourceLocation loc;
    std::vector<InputValueDefinition> arguments;
    TypeRef type;
    std::vector<Directive> directives;
};

struct EnumValueDefinition {
    std::string description;
    std::string name;
    SourceLocation loc;
    std::vector<Directive> directives;
};

enum class TypeKind : std::uint8_t { Scalar, Object, Interface, Union, Enum, InputObject };

struct TypeDefinition {
    TypeKind kind = TypeKind::Scalar;
    bool extension = false;
    std::string description;
    std::string name;
    SourceLocation loc;
    std::vector<TypeRef> interfaces; // Object, Interface
    std::vector<Directive> directives;
    std::vector<FieldDefinition> fields;            // Object, Interface
    std::vector<InputValueDefinition> input_fields; // InputObject
    std::vector<EnumValueDefinition> enum_values;   // Enum
    std::vector<TypeRef> members;                   // Union
};

struct DirectiveDefinition {
    std::string description;
    std::string name;
    SourceLocation loc;
    std::vector<InputValueDefinition> arguments;
    bool repeatable = false;
    std::vector<std::string> locations;
    std::vector<SourceLocation> location_locs;
};

struct SchemaDefinition {
    bool extension = false;
    std::string description;
    SourceLocation loc;
    std::vector<std::pair<std::string, TypeRef>> roots; // "query" -> Query
};

struct TypeSystemDocument {
    std::vector<TypeDefinition> types;
    std::vector<DirectiveDefinition> directives;
    std::vector<SchemaDefinition> schemas;
};

/// The literal as GraphQL source ("{a: [1, 2], b: ENUM}"); strings escaped.
std::string print_value(const Value& value);
/// "[String!]!".
std::string print_type(std::string_view name, std::string_view mods);
inline std::string print_type(const TypeRef& type) {
    return print_type(type.name, type.mods);
}

} // namespace kprov::api::graphql::ast
