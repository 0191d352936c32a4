#include "api/graphql/values.hpp"

#include "api/graphql/lexer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kprov::api::graphql {
namespace {

using json = nlohmann::json;

constexpr std::int64_t k_int_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t k_int_max = std::numeric_limits<std::int32_t>::max();

bool parse_int_literal(std::string_view text, std::int64_t& out) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

bool parse_float_literal(std::string_view text, double& out) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(out);
}

/// An integral JSON number within 32 bits.
bool json_int(const json& in, std::int64_t& out) {
    if (in.is_number_integer() && !in.is_number_unsigned()) {
        out = in.get<std::int64_t>();
    } else if (in.is_number_unsigned()) {
        const auto u = in.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(k_int_max))
            return false;
        out = static_cast<std::int64_t>(u);
    } else if (in.is_number_float()) {
        const double d = in.get<double>();
        if (!std::isfinite(d) || std::trunc(d) != d || d < static_cast<double>(k_int_min) ||
            d > static_cast<double>(k_int_max))
            return false;
        out = static_cast<std::int64_t>(d);
    } else {
        return false;
    }
    return out >= k_int_min && out <= k_int_max;
}

/// A variable's value of a leaf type.
bool parse_leaf_value(const TypeDef& type, const json& in, json& out, std::string& error) {
    if (type.kind == TypeKind::Enum) {
        if (!in.is_string()) {
            error = "Enum \"" + type.name + "\" cannot represent non-string value: " + inspect(in) +
                    ".";
            return false;
        }
        if (!type.enum_value(in.get_ref<const std::string&>())) {
            error = "Value " + inspect(in) + " does not exist in \"" + type.name + "\" enum.";
            return false;
        }
        out = in;
        return true;
    }
    switch (type.scalar) {
    case ScalarKind::Int: {
        std::int64_t v = 0;
        if (!json_int(in, v)) {
            error = (in.is_number() ? "Int cannot represent non 32-bit signed integer value: "
                                    : "Int cannot represent non-integer value: ") +
                    inspect(in);
            return false;
        }
        out = v;
        return true;
    }
    case ScalarKind::Float:
        if (!in.is_number()) {
            error = "Float cannot represent non numeric value: " + inspect(in);
            return false;
        }
        out = in.get<double>();
        return true;
    case ScalarKind::String:
        if (!in.is_string()) {
            error = "String cannot represent a non string value: " + inspect(in);
            return false;
        }
        out = in;
        return true;
    case ScalarKind::Boolean:
        if (!in.is_boolean()) {
            error = "Boolean cannot represent a non boolean value: " + inspect(in);
            return false;
        }
        out = in;
        return true;
    case ScalarKind::ID:
        if (in.is_string()) {
            out = in;
            return true;
        }
        if (in.is_number_integer()) {
            out = in.dump();
            return true;
        }
        error = "ID cannot represent value: " + inspect(in);
        return false;
    case ScalarKind::Custom:
    case ScalarKind::None:
        out = in;
        return true;
    }
    return false;
}

bool is_missing_variable(const ast::Value& v, const json* variables) {
    return v.kind == ast::ValueKind::Variable &&
           (!variables || !variables->is_object() || !variables->contains(v.text));
}

} // namespace

namespace {
// Bounded in depth and length: the value may be anything a client sent.
void inspect_into(std::string& out, const json& value, int depth) {
    if (out.size() > 200)
        return;
    if (value.is_array() || value.is_object()) {
        const bool array = value.is_array();
        out += array ? '[' : '{';
        if (depth > 8 && !value.empty()) {
            out += "...";
        } else {
            bool first = true;
            for (const auto& [key, item] : value.items()) {
                if (!first)
                    out += ',';
                first = false;
                if (!array)
                    out += json(key).dump() + ":";
                inspect_into(out, item, depth + 1);
                if (out.size() > 200)
                    break;
            }
        }
        out += array ? ']' : '}';
        return;
    }
    out += value.dump(-1, ' ', false, json::error_handler_t::replace);
}
} // namespace

std::string inspect(const json& value) {
    std::string s;
    inspect_into(s, value, 0);
    if (s.size() > 200)
        s = s.substr(0, 197) + "...";
    return sanitize_utf8(s);
}

bool leaf_literal_ok(const TypeDef& type, const ast::Value& literal, std::string& error) {
    using K = ast::ValueKind;
    if (type.kind == TypeKind::Enum) {
        if (literal.kind != K::Enum) {
            error = "Enum \"" + type.name +
                    "\" cannot represent non-enum value: " + ast::print_value(literal) + ".";
            return false;
        }
        if (!type.enum_value(literal.text)) {
            error = "Value \"" + literal.text + "\" does not exist in \"" + type.name + "\" enum.";
            return false;
        }
        return true;
    }
    switch (type.scalar) {
    case ScalarKind::Int: {
        if (literal.kind != K::Int) {
            error = "Int cannot represent non-integer value: " + ast::print_value(literal);
            return false;
        }
        std::int64_t v = 0;
        if (!parse_int_literal(literal.text, v) || v < k_int_min || v > k_int_max) {
            error = "Int cannot represent non 32-bit signed integer value: " + literal.text;
            return false;
        }
        return true;
    }
    case ScalarKind::Float: {
        double d = 0;
        if ((literal.kind != K::Int && literal.kind != K::Float) ||
            !parse_float_literal(literal.text, d)) {
            error = "Float cannot represent non numeric value: " + ast::print_value(literal);
            return false;
        }
        return true;
    }
    case ScalarKind::String:
        if (literal.kind != K::String) {
            error = "String cannot represent a non string value: " + ast::print_value(literal);
            return false;
        }
        return true;
    case ScalarKind::Boolean:
        if (literal.kind != K::Boolean) {
            error = "Boolean cannot represent a non boolean value: " + ast::print_value(literal);
            return false;
        }
        return true;
    case ScalarKind::ID:
        if (literal.kind != K::String && literal.kind != K::Int) {
            error = "ID cannot represent a non-string and non-integer value: " +
                    ast::print_value(literal);
            return false;
        }
        return true;
    case ScalarKind::Custom:
    case ScalarKind::None:
        return true;
    }
    return false;
}

json untyped_literal(const ast::Value& literal, const json* variables) {
    using K = ast::ValueKind;
    switch (literal.kind) {
    case K::Variable:
        if (is_missing_variable(literal, variables))
            return nullptr;
        return (*variables)[literal.text];
    case K::Int: {
        std::int64_t v = 0;
        if (parse_int_literal(literal.text, v))
            return v;
        double d = 0;
        return parse_float_literal(literal.text, d) ? json(d) : json(literal.text);
    }
    case K::Float: {
        double d = 0;
        return parse_float_literal(literal.text, d) ? json(d) : json(literal.text);
    }
    case K::String:
    case K::Enum:
        return literal.text;
    case K::Boolean:
        return literal.boolean;
    case K::Null:
        return nullptr;
    case K::List: {
        json out = json::array();
        for (const auto& item : literal.items)
            out.push_back(untyped_literal(item, variables));
        return out;
    }
    case K::Object: {
        json out = json::object();
        for (std::size_t i = 0; i < literal.items.size(); ++i)
            if (!is_missing_variable(literal.items[i], variables))
                out[literal.keys[i]] = untyped_literal(literal.items[i], variables);
        return out;
    }
    }
    return nullptr;
}

bool coerce_literal(const Schema& schema, const ast::Value& literal, TypeView type,
                    const json* variables, json& out) {
    using K = ast::ValueKind;
    if (literal.kind == K::Variable) {
        if (is_missing_variable(literal, variables))
            return false;
        const json& v = (*variables)[literal.text];
        if (v.is_null() && type.non_null())
            return false;
        out = v; // already coerced to the variable's type, which validation matched with this one
        return true;
    }
    if (type.non_null()) {
        if (literal.kind == K::Null)
            return false;
        return coerce_literal(schema, literal, type.inner(), variables, out);
    }
    if (literal.kind == K::Null) {
        out = nullptr;
        return true;
    }
    if (type.list()) {
        const TypeView item_type = type.inner();
        if (literal.kind != K::List) {
            json item;
            if (!coerce_literal(schema, literal, item_type, variables, item))
                return false;
            out = json::array({std::move(item)});
            return true;
        }
        out = json::array();
        for (const auto& item : literal.items) {
            if (is_missing_variable(item, variables)) {
                if (item_type.non_null())
                    return false;
                out.push_back(nullptr);
                continue;
            }
            json v;
            if (!coerce_literal(schema, item, item_type, variables, v))
                return false;
            out.push_back(std::move(v));
        }
        return true;
    }
    const TypeDef* t = schema.type(type.name);
    if (!t)
        return false;
    if (t->kind == TypeKind::InputObject) {
        if (literal.kind != K::Object)
            return false;
        out = json::object();
        for (const auto& field : t->input_fields) {
            const ast::Value* given = nullptr;
            for (std::size_t i = 0; i < literal.keys.size(); ++i)
                if (literal.keys[i] == field.name)
                    given = &literal.items[i];
            if (!given || is_missing_variable(*given, variables)) {
                if (field.default_literal)
                    out[field.name] = field.default_value;
                else if (!field.type.mods.empty() && field.type.mods[0] == 'N')
                    return false;
                continue;
            }
            json v;
            if (!coerce_literal(schema, *given, TypeView(field.type), variables, v))
                return false;
            out[field.name] = std::move(v);
        }
        for (const auto& key : literal.keys)
            if (!t->input_field(key))
                return false;
        return true;
    }
    if (t->kind == TypeKind::Scalar && t->scalar == ScalarKind::Custom) {
        out = untyped_literal(literal, variables);
        return true;
    }
    std::string ignored;
    if (!t->is_leaf() || !leaf_literal_ok(*t, literal, ignored))
        return false;
    switch (literal.kind) {
    case K::Int:
    case K::Float: {
        std::int64_t i = 0;
        double d = 0;
        if (t->scalar == ScalarKind::ID)
            out = literal.text;
        else if (t->scalar == ScalarKind::Int && parse_int_literal(literal.text, i))
            out = i;
        else if (parse_float_literal(literal.text, d))
            out = d;
        else
            return false;
        return true;
    }
    case K::Boolean:
        out = literal.boolean;
        return true;
    default:
        out = literal.text; // String, ID, enum
        return true;
    }
}

bool coerce_input(const Schema& schema, const json& in, TypeView type, json& out,
                  std::string& error, std::string& path) {
    if (type.non_null()) {
        if (in.is_null()) {
            error = "Expected non-nullable type \"" + type.print() + "\" not to be null.";
            return false;
        }
        return coerce_input(schema, in, type.inner(), out, error, path);
    }
    if (in.is_null()) {
        out = nullptr;
        return true;
    }
    if (type.list()) {
        const TypeView item_type = type.inner();
        if (!in.is_array()) {
            json item;
            if (!coerce_input(schema, in, item_type, item, error, path))
                return false;
            out = json::array({std::move(item)});
            return true;
        }
        out = json::array();
        for (std::size_t i = 0; i < in.size(); ++i) {
            const std::size_t mark = path.size();
            path += "[" + std::to_string(i) + "]";
            json v;
            if (!coerce_input(schema, in[i], item_type, v, error, path))
                return false;
            path.resize(mark);
            out.push_back(std::move(v));
        }
        return true;
    }
    const TypeDef* t = schema.type(type.name);
    if (!t) {
        error = "Unknown type \"" + std::string(type.name) + "\".";
        return false;
    }
    if (t->kind != TypeKind::InputObject)
        return parse_leaf_value(*t, in, out, error);
    if (!in.is_object()) {
        error = "Expected type \"" + t->name + "\" to be an object.";
        return false;
    }
    out = json::object();
    for (const auto& field : t->input_fields) {
        const auto it = in.find(field.name);
        if (it == in.end()) {
            if (field.default_literal) {
                out[field.name] = field.default_value;
            } else if (!field.type.mods.empty() && field.type.mods[0] == 'N') {
                error = "Field \"" + field.name + "\" of required type \"" +
                        ast::print_type(field.type) + "\" was not provided.";
                return false;
            }
            continue;
        }
        const std::size_t mark = path.size();
        path += "." + field.name;
        json v;
        if (!coerce_input(schema, *it, TypeView(field.type), v, error, path))
            return false;
        path.resize(mark);
        out[field.name] = std::move(v);
    }
    for (const auto& [key, value] : in.items())
        if (!t->input_field(key)) {
            error = "Field \"" + key + "\" is not defined by type \"" + t->name + "\".";
            return false;
        }
    return true;
}

bool serialize_leaf(const TypeDef& type, const json& in, json& out, std::string& error) {
    if (type.kind == TypeKind::Enum) {
        if (in.is_string() && type.enum_value(in.get_ref<const std::string&>())) {
            out = in;
            return true;
        }
        error = "Enum \"" + type.name + "\" cannot represent value: " + inspect(in);
        return false;
    }
    switch (type.scalar) {
    case ScalarKind::Int: {
        std::int64_t v = 0;
        if (in.is_boolean()) {
            out = in.get<bool>() ? 1 : 0;
            return true;
        }
        if (json_int(in, v)) {
            out = v;
            return true;
        }
        error = (in.is_number() ? "Int cannot represent non 32-bit signed integer value: "
                                : "Int cannot represent non-integer value: ") +
                inspect(in);
        return false;
    }
    case ScalarKind::Float:
        if (in.is_number() && std::isfinite(in.get<double>())) {
            out = in.get<double>();
            return true;
        }
        if (in.is_boolean()) {
            out = in.get<bool>() ? 1.0 : 0.0;
            return true;
        }
        error = "Float cannot represent non numeric value: " + inspect(in);
        return false;
    case ScalarKind::String:
    case ScalarKind::ID:
        if (in.is_string()) {
            out = in;
            return true;
        }
        if (in.is_number() || (in.is_boolean() && type.scalar == ScalarKind::String)) {
            out = in.dump();
            return true;
        }
        error = std::string(type.scalar == ScalarKind::ID ? "ID" : "String") +
                " cannot represent value: " + inspect(in);
        return false;
    case ScalarKind::Boolean:
        if (in.is_boolean()) {
            out = in;
            return true;
        }
        if (in.is_number()) {
            out = in.get<double>() != 0;
            return true;
        }
        error = "Boolean cannot represent a non boolean value: " + inspect(in);
        return false;
    case ScalarKind::Custom:
    case ScalarKind::None:
        out = in;
        return true;
    }
    return false;
}

} // namespace kprov::api::graphql
