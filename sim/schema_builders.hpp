#pragma once
// Short constructors for the field tables (shoot_schema.cpp, cluster_schemas.cpp), so that a
// table reads as one line per field.

#include "schema.hpp"

#include <string>
#include <utility>
#include <vector>

namespace kprov::sim::fields {

inline Field scalar(std::string name, FieldType type, std::string doc) {
    Field f;
    f.name = std::move(name);
    f.type = type;
    f.description = std::move(doc);
    return f;
}
inline Field str(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::String, std::move(doc));
}
inline Field flag(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::Bool, std::move(doc));
}
inline Field i32(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::Int32, std::move(doc));
}
inline Field i64(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::Int64, std::move(doc));
}
inline Field int_or_str(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::IntOrString, std::move(doc));
}
inline Field time(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::Time, std::move(doc));
}
inline Field raw(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::Raw, std::move(doc));
}
inline Field string_map(std::string name, std::string doc) {
    return scalar(std::move(name), FieldType::StringMap, std::move(doc));
}
/// A list of strings (atomic: replaced as a whole).
inline Field strings(std::string name, std::string doc) {
    Field f = scalar(std::move(name), FieldType::Array, std::move(doc));
    f.items = FieldType::String;
    return f;
}
/// An object whose unknown properties are rejected.
inline Field obj(std::string name, std::string go_type, std::string doc, std::vector<Field> fs) {
    Field f = scalar(std::move(name), FieldType::Object, std::move(doc));
    f.go_type = std::move(go_type);
    f.fields = std::move(fs);
    return f;
}
/// An object that keeps properties the table does not enumerate.
inline Field open_obj(std::string name, std::string go_type, std::string doc,
                      std::vector<Field> fs = {}) {
    Field f = obj(std::move(name), std::move(go_type), std::move(doc), std::move(fs));
    f.open = true;
    return f;
}
/// A list of objects; with a `key`, merged item by item on it (strategic merge patch, SSA).
inline Field list(std::string name, std::string go_type, std::string key, std::string doc,
                  std::vector<Field> fs, bool open = false) {
    Field f = obj(std::move(name), std::move(go_type), std::move(doc), std::move(fs));
    f.type = FieldType::Array;
    f.items = FieldType::Object;
    f.list_key = std::move(key);
    f.open = open;
    return f;
}
inline Field required(Field f) {
    f.required = true;
    return f;
}
/// metadata: the ObjectMeta fields clients set and read.
Field object_meta();

} // namespace kprov::sim::fields
