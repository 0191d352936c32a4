#pragma once
// The field tables of the kinds kprov-sim serves: one tree per kind, read both by decoding
// (JSON types, unknown fields) and by the OpenAPI documents (openapi.hpp), so what the sim
// accepts and what it publishes cannot drift apart.

#include "api.hpp"

#include <string>
#include <vector>

namespace kprov::sim {

enum class FieldType {
    String,
    Bool,
    Int32,
    Int64,
    IntOrString, ///< 3 or "30%"
    Quantity,    ///< "2Gi" or 2
    Time,        ///< RFC 3339 string
    Object,      ///< `fields` are its properties
    Array,       ///< of `items`; with `fields`, of objects with those properties
    StringMap,   ///< map[string]string (labels, annotations, ConfigMap data)
    Raw,         ///< an embedded object of any shape (providerConfig)
    ObjectMeta,  ///< metadata: the shared ObjectMeta definition
};

/// One field of a kind, with what decoding checks and what OpenAPI publishes about it.
struct Field {
    std::string name;
    FieldType type = FieldType::String;
    std::string description;
    std::vector<Field> fields;           ///< properties of an Object, or of each item of an Array
    FieldType items = FieldType::Object; ///< the item type of an Array
    std::string go_type;  ///< the Go struct of an Object (or of an Array's items): "Worker"
    std::string list_key; ///< an Array merged item by item on this key (strategic merge, SSA)
    bool required = false;
    /// Unknown properties are kept (x-kubernetes-preserve-unknown-fields) instead of being
    /// rejected as the fieldValidation parameter says.
    bool open = false;
};

/// The field table of a kind: `root` is an Object whose fields are the top-level keys.
struct KindSchema {
    ResourceInfo info;
    Field root;
};

/// Throws ApiError 400 "cannot unmarshal <json> into Go struct field <Struct>.<path> of type
/// <type>" for the first field of `obj` whose JSON type `schema` does not allow (null is
/// allowed everywhere, as Go's decoder does).
void check_field_types(const Json& obj, const KindSchema& schema);

/// A property the field table does not know.
struct UnknownField {
    std::string path;    ///< dotted, as the API server names it: "spec.provider.workers[0].foo"
    std::string pointer; ///< the JSON pointer of the same field
};

/// The properties of `obj` that `schema` does not know, in closed objects only (not below an
/// `open` or Raw field); empty when there are none.
std::vector<UnknownField> unknown_fields(const Json& obj, const KindSchema& schema);

/// The Shoot field table (core.gardener.cloud/v1beta1).
const KindSchema& shoot_schema();

/// The field table of any kind the sim serves: the Shoot table for shoots, else
/// cluster_kind_schema().
KindSchema schema_for(const ResourceInfo& info);

/// The field table of a runtime cluster's kind (Namespace, ConfigMap, ...): its known fields,
/// spec and status kept open where the sim does not enumerate them.
KindSchema cluster_kind_schema(const ResourceInfo& info);

} // namespace kprov::sim
