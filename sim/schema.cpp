#include "schema.hpp"

#include <algorithm>

namespace kprov::sim {

namespace {

const char* json_kind(const Json& v) {
    if (v.is_string())
        return "string";
    if (v.is_boolean())
        return "bool";
    if (v.is_number())
        return "number";
    if (v.is_array())
        return "array";
    if (v.is_object())
        return "object";
    return "null";
}

// The type as Go's encoding/json names it in its error, which clients log verbatim.
const char* go_type(FieldType t) {
    switch (t) {
    case FieldType::String:
    case FieldType::Time:
        return "string";
    case FieldType::Bool:
        return "bool";
    case FieldType::Int32:
        return "int32";
    case FieldType::Int64:
        return "int64";
    case FieldType::IntOrString:
        return "intstr.IntOrString";
    case FieldType::Quantity:
        return "resource.Quantity";
    case FieldType::Object:
    case FieldType::ObjectMeta:
        return "struct";
    case FieldType::Array:
        return "slice";
    case FieldType::StringMap:
        return "map[string]string";
    case FieldType::Raw:
        return "runtime.RawExtension";
    }
    return "?";
}

bool has_type(const Json& v, FieldType t) {
    switch (t) {
    case FieldType::String:
    case FieldType::Time:
        return v.is_string();
    case FieldType::Bool:
        return v.is_boolean();
    case FieldType::Int32:
    case FieldType::Int64:
        return v.is_number_integer();
    case FieldType::IntOrString:
        return v.is_number_integer() || v.is_string();
    case FieldType::Quantity:
        return v.is_number() || v.is_string();
    case FieldType::Object:
    case FieldType::ObjectMeta:
    case FieldType::StringMap:
        return v.is_object();
    case FieldType::Array:
        return v.is_array();
    case FieldType::Raw:
        return true;
    }
    return false;
}

[[noreturn]] void type_error(const ResourceInfo& info, const Json& v, const std::string& field,
                             const char* type) {
    const std::string& kind = info.kind;
    throw bad_request(kind + " in version \"" + info.version + "\" cannot be handled as a " + kind +
                      ": json: cannot unmarshal " + json_kind(v) + " into Go struct field " +
                      field + " of type " + type);
}

// `owner` is the Go struct holding the value, `path` its dotted JSON path without indices.
void check_value(const ResourceInfo& kind, const Json& v, const Field& f, FieldType type,
                 const std::string& owner, const std::string& path) {
    if (v.is_null())
        return;
    if (!has_type(v, type))
        type_error(kind, v, owner + "." + path, go_type(type));
    if (type == FieldType::StringMap) {
        for (const auto& [k, item] : v.items())
            if (!item.is_null() && !item.is_string())
                type_error(kind, item, owner + "." + path, "string");
    } else if (type == FieldType::Array) {
        for (const auto& item : v)
            check_value(kind, item, f, f.items, owner, path);
    } else if (type == FieldType::Object || type == FieldType::ObjectMeta) {
        std::string struct_name = f.go_type.empty() ? owner : f.go_type;
        for (const auto& sub : f.fields)
            if (auto it = v.find(sub.name); it != v.end())
                check_value(kind, *it, sub, sub.type, struct_name, path + "." + sub.name);
    }
}

std::string escape_pointer(const std::string& key) {
    std::string out;
    for (char c : key)
        out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

void collect_unknown(const Json& v, const Field& f, FieldType type, const std::string& path,
                     const std::string& pointer, std::vector<UnknownField>& out) {
    if (f.open || type == FieldType::Raw || type == FieldType::ObjectMeta)
        return;
    if (type == FieldType::Array && v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i)
            collect_unknown(v[i], f, f.items, path + "[" + std::to_string(i) + "]",
                            pointer + "/" + std::to_string(i), out);
        return;
    }
    if (type != FieldType::Object || !v.is_object())
        return;
    for (const auto& [k, item] : v.items()) {
        auto known = std::find_if(f.fields.begin(), f.fields.end(),
                                  [&](const Field& sub) { return sub.name == k; });
        std::string sub_path = path.empty() ? k : path + "." + k;
        std::string sub_pointer = pointer + "/" + escape_pointer(k);
        if (known == f.fields.end())
            out.push_back({sub_path, sub_pointer});
        else
            collect_unknown(item, *known, known->type, sub_path, sub_pointer, out);
    }
}

} // namespace

void check_field_types(const Json& obj, const KindSchema& schema) {
    const Field& root = schema.root;
    for (const auto& f : root.fields)
        if (auto it = obj.find(f.name); it != obj.end())
            check_value(schema.info, *it, f, f.type, root.go_type, f.name);
}

std::vector<UnknownField> unknown_fields(const Json& obj, const KindSchema& schema) {
    std::vector<UnknownField> out;
    collect_unknown(obj, schema.root, FieldType::Object, "", "", out);
    return out;
}

} // namespace kprov::sim
