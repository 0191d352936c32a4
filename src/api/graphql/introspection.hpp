#pragma once
// The resolvers of introspection: __schema, __type and the fields of the __ types. Values of
// __Type are small handles ({"__type": name, "__mods": wrappers}); __Field, __InputValue,
// __EnumValue and __Directive values are plain JSON objects built on demand.

#include "api/graphql/schema.hpp"

#include <nlohmann/json.hpp>
#include <string_view>

namespace kprov::api::graphql {

/// Whether introspection resolves `type_name.field_name` (the __ types, Query.__schema and
/// Query.__type).
bool is_introspection_field(const Schema& schema, std::string_view type_name,
                            std::string_view field_name);

/// The value of an introspection field; `parent` is the enclosing introspection value.
nlohmann::json resolve_introspection(const Schema& schema, std::string_view type_name,
                                     std::string_view field_name, const nlohmann::json& parent,
                                     const nlohmann::json& arguments);

} // namespace kprov::api::graphql
