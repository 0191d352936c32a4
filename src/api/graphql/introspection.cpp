#include "api/graphql/introspection.hpp"

namespace kprov::api::graphql {
namespace {

using json = nlohmann::json;

json type_handle(std::string_view name, std::string_view mods = {}) {
    return {{"__type", name}, {"__mods", mods}};
}

json type_handle(const ast::TypeRef& ref) {
    return type_handle(ref.name, ref.mods);
}

json nullable_string(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

json input_value(const InputValueDef& v) {
    return {{"name", v.name},
            {"description", nullable_string(v.description)},
            {"type", type_handle(v.type)},
            {"defaultValue",
             v.default_literal ? json(ast::print_value(*v.default_literal)) : json(nullptr)},
            {"isDeprecated", v.deprecated},
            {"deprecationReason", v.deprecated ? json(v.deprecation_reason) : json(nullptr)}};
}

bool include_deprecated(const json& arguments) {
    const auto it = arguments.find("includeDeprecated");
    return it != arguments.end() && it->is_boolean() && it->get<bool>();
}

json input_values(const std::vector<InputValueDef>& values, const json& arguments) {
    const bool all = include_deprecated(arguments);
    json out = json::array();
    for (const auto& v : values)
        if (all || !v.deprecated)
            out.push_back(input_value(v));
    return out;
}

const char* kind_name(TypeKind kind) {
    switch (kind) {
    case TypeKind::Scalar:
        return "SCALAR";
    case TypeKind::Object:
        return "OBJECT";
    case TypeKind::Interface:
        return "INTERFACE";
    case TypeKind::Union:
        return "UNION";
    case TypeKind::Enum:
        return "ENUM";
    case TypeKind::InputObject:
        return "INPUT_OBJECT";
    }
    return "SCALAR";
}

json resolve_type_field(const Schema& schema, std::string_view field, const json& parent,
                        const json& arguments) {
    const std::string name = parent.value("__type", "");
    const std::string mods = parent.value("__mods", "");
    if (!mods.empty()) {
        if (field == "kind")
            return mods[0] == 'N' ? "NON_NULL" : "LIST";
        if (field == "ofType")
            return type_handle(name, std::string_view(mods).substr(1));
        return nullptr;
    }
    const TypeDef* t = schema.type(name);
    if (!t)
        return nullptr;
    if (field == "kind")
        return kind_name(t->kind);
    if (field == "name")
        return t->name;
    if (field == "description")
        return nullable_string(t->description);
    if (field == "specifiedByURL")
        return nullable_string(t->specified_by_url);
    if (field == "ofType")
        return nullptr;
    if (field == "fields") {
        if (t->kind != TypeKind::Object && t->kind != TypeKind::Interface)
            return nullptr;
        const bool all = include_deprecated(arguments);
        json out = json::array();
        for (const auto& f : t->fields) {
            if (f.deprecated && !all)
                continue;
            json args = json::array();
            for (const auto& a : f.arguments)
                args.push_back(input_value(a));
            out.push_back(
                {{"name", f.name},
                 {"description", nullable_string(f.description)},
                 {"args", std::move(args)},
                 {"type", type_handle(f.type)},
                 {"isDeprecated", f.deprecated},
                 {"deprecationReason", f.deprecated ? json(f.deprecation_reason) : json(nullptr)}});
        }
        return out;
    }
    if (field == "interfaces") {
        if (t->kind != TypeKind::Object && t->kind != TypeKind::Interface)
            return nullptr;
        json out = json::array();
        for (const auto& i : t->interfaces)
            out.push_back(type_handle(i));
        return out;
    }
    if (field == "possibleTypes") {
        if (!t->is_abstract())
            return nullptr;
        json out = json::array();
        for (const auto& p : t->possible_types)
            out.push_back(type_handle(p));
        return out;
    }
    if (field == "enumValues") {
        if (t->kind != TypeKind::Enum)
            return nullptr;
        const bool all = include_deprecated(arguments);
        json out = json::array();
        for (const auto& v : t->enum_values)
            if (all || !v.deprecated)
                out.push_back({{"name", v.name},
                               {"description", nullable_string(v.description)},
                               {"isDeprecated", v.deprecated},
                               {"deprecationReason",
                                v.deprecated ? json(v.deprecation_reason) : json(nullptr)}});
        return out;
    }
    if (field == "inputFields") {
        if (t->kind != TypeKind::InputObject)
            return nullptr;
        return input_values(t->input_fields, arguments);
    }
    return nullptr;
}

json resolve_schema_field(const Schema& schema, std::string_view field) {
    if (field == "description")
        return nullable_string(schema.description());
    if (field == "types") {
        json out = json::array();
        for (const auto& t : schema.types())
            out.push_back(type_handle(t->name));
        return out;
    }
    auto root = [](const TypeDef* t) {
        return t ? type_handle(t->name) : json(nullptr);
    };
    if (field == "queryType")
        return root(schema.query_type());
    if (field == "mutationType")
        return root(schema.mutation_type());
    if (field == "subscriptionType")
        return root(schema.subscription_type());
    if (field == "directives") {
        json out = json::array();
        for (const auto& d : schema.directives())
            out.push_back({{"name", d.name},
                           {"description", nullable_string(d.description)},
                           {"isRepeatable", d.repeatable},
                           {"locations", d.locations},
                           {"__args", d.name}});
        return out;
    }
    return nullptr;
}

} // namespace

bool is_introspection_field(const Schema& schema, std::string_view type_name,
                            std::string_view field_name) {
    if (type_name.size() > 2 && type_name[0] == '_' && type_name[1] == '_')
        return true;
    return (field_name == "__schema" || field_name == "__type") && schema.query_type() &&
           schema.query_type()->name == type_name;
}

json resolve_introspection(const Schema& schema, std::string_view type_name,
                           std::string_view field_name, const json& parent, const json& arguments) {
    if (field_name == "__schema")
        return json::object();
    if (field_name == "__type") {
        const auto it = arguments.find("name");
        if (it == arguments.end() || !it->is_string() ||
            !schema.type(it->get_ref<const std::string&>()))
            return nullptr;
        return type_handle(it->get_ref<const std::string&>());
    }
    if (type_name == "__Schema")
        return resolve_schema_field(schema, field_name);
    if (type_name == "__Type")
        return resolve_type_field(schema, field_name, parent, arguments);
    if (type_name == "__Directive" && field_name == "args") {
        const DirectiveDef* d = schema.directive(parent.value("__args", ""));
        return d ? input_values(d->arguments, arguments) : json::array();
    }
    if ((type_name == "__Field") && field_name == "args") {
        const auto it = parent.find("args");
        if (it == parent.end())
            return json::array();
        if (include_deprecated(arguments))
            return *it;
        json out = json::array();
        for (const auto& a : *it)
            if (!a.value("isDeprecated", false))
                out.push_back(a);
        return out;
    }
    if (!parent.is_object())
        return nullptr;
    const auto it = parent.find(field_name);
    return it == parent.end() ? json(nullptr) : *it;
}

} // namespace kprov::api::graphql
