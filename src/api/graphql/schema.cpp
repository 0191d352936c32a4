#include "api/graphql/schema.hpp"

#include "api/graphql/parser.hpp"
#include "api/graphql/values.hpp"

#include <algorithm>
#include <set>

namespace kprov::api::graphql {

SchemaError::SchemaError(const std::string& message, SourceLocation where_)
    : std::runtime_error(message)
    , where(where_) {}

namespace {

template <typename T> const T* find_named(const std::vector<T>& items, std::string_view name) {
    for (const auto& item : items)
        if (item.name == name)
            return &item;
    return nullptr;
}

constexpr const char* k_prelude =
#include "api/graphql/prelude.graphql.inc"
    ;

} // namespace

const InputValueDef* FieldDef::argument(std::string_view arg_name) const {
    return find_named(arguments, arg_name);
}
const InputValueDef* DirectiveDef::argument(std::string_view arg_name) const {
    return find_named(arguments, arg_name);
}
bool DirectiveDef::allowed_on(std::string_view location) const {
    return std::find(locations.begin(), locations.end(), location) != locations.end();
}
const FieldDef* TypeDef::field(std::string_view field_name) const {
    return find_named(fields, field_name);
}
const InputValueDef* TypeDef::input_field(std::string_view field_name) const {
    return find_named(input_fields, field_name);
}
const EnumValueDef* TypeDef::enum_value(std::string_view value_name) const {
    return find_named(enum_values, value_name);
}
bool TypeDef::is_possible_type(std::string_view object_type) const {
    if (kind == TypeKind::Object)
        return name == object_type;
    return std::find(possible_types.begin(), possible_types.end(), object_type) !=
           possible_types.end();
}

const TypeDef* Schema::type(std::string_view name) const {
    const auto it = m_by_name.find(name);
    return it == m_by_name.end() ? nullptr : it->second;
}

const DirectiveDef* Schema::directive(std::string_view name) const {
    return find_named(m_directives, name);
}

const TypeDef* Schema::root(ast::OperationKind kind) const {
    switch (kind) {
    case ast::OperationKind::Query:
        return m_query;
    case ast::OperationKind::Mutation:
        return m_mutation;
    case ast::OperationKind::Subscription:
        return m_subscription;
    }
    return nullptr;
}

const FieldDef* Schema::field(const TypeDef& parent, std::string_view name) const {
    if (name.size() > 2 && name[0] == '_' && name[1] == '_') {
        if (name == "__typename" && parent.is_composite())
            return &m_typename_field;
        if (&parent == m_query) {
            if (name == "__schema")
                return &m_schema_field;
            if (name == "__type")
                return &m_type_field;
        }
    }
    if (parent.kind != TypeKind::Object && parent.kind != TypeKind::Interface)
        return nullptr;
    return parent.field(name);
}

bool Schema::is_subtype(const TypeDef& sub, const TypeDef& super) const {
    if (&sub == &super)
        return true;
    return super.is_abstract() && super.is_possible_type(sub.name);
}

bool Schema::overlap(const TypeDef& a, const TypeDef& b) const {
    if (&a == &b)
        return true;
    if (a.is_abstract()) {
        if (b.is_abstract()) {
            for (const auto& t : a.possible_types)
                if (b.is_possible_type(t))
                    return true;
            return false;
        }
        return a.is_possible_type(b.name);
    }
    return b.is_abstract() && b.is_possible_type(a.name);
}

namespace {

class Builder {
public:
    explicit Builder(Schema& schema, std::vector<std::unique_ptr<TypeDef>>& types,
                     std::map<std::string, const TypeDef*, std::less<>>& by_name,
                     std::vector<DirectiveDef>& directives)
        : m_schema(schema)
        , m_types(types)
        , m_by_name(by_name)
        , m_directives(directives) {}

    void add(const ast::TypeSystemDocument& doc, bool prelude) {
        for (const auto& def : doc.types)
            if (!def.extension)
                define(def, prelude);
        for (const auto& def : doc.types)
            if (def.extension)
                extend(def);
        for (const auto& def : doc.directives) {
            if (m_schema.directive(def.name))
                throw SchemaError("There can be only one directive named \"@" + def.name + "\".",
                                  def.loc);
            DirectiveDef d;
            d.name = def.name;
            d.description = def.description;
            d.repeatable = def.repeatable;
            d.arguments = input_values(def.arguments);
            static const std::set<std::string_view> k_locations = {"QUERY",
                                                                   "MUTATION",
                                                                   "SUBSCRIPTION",
                                                                   "FIELD",
                                                                   "FRAGMENT_DEFINITION",
                                                                   "FRAGMENT_SPREAD",
                                                                   "INLINE_FRAGMENT",
                                                                   "VARIABLE_DEFINITION",
                                                                   "SCHEMA",
                                                                   "SCALAR",
                                                                   "OBJECT",
                                                                   "FIELD_DEFINITION",
                                                                   "ARGUMENT_DEFINITION",
                                                                   "INTERFACE",
                                                                   "UNION",
                                                                   "ENUM",
                                                                   "ENUM_VALUE",
                                                                   "INPUT_OBJECT",
                                                                   "INPUT_FIELD_DEFINITION"};
            for (std::size_t i = 0; i < def.locations.size(); ++i)
                if (!k_locations.count(def.locations[i]))
                    throw SchemaError("Unknown directive location \"" + def.locations[i] + "\".",
                                      def.location_locs[i]);
            d.locations = def.locations;
            m_directives.push_back(std::move(d));
        }
    }

    void check_references(const std::vector<const ast::TypeSystemDocument*>& docs) {
        for (const auto* doc : docs) {
            for (const auto& def : doc->types) {
                for (const auto& f : def.fields) {
                    require(f.type, false, "field \"" + def.name + "." + f.name + "\"");
                    for (const auto& a : f.arguments)
                        require(a.type, true,
                                "argument \"" + def.name + "." + f.name + "(" + a.name + ":)\"");
                }
                for (const auto& f : def.input_fields)
                    require(f.type, true, "input field \"" + def.name + "." + f.name + "\"");
                for (const auto& m : def.members) {
                    const TypeDef* t = require(m, false, "union \"" + def.name + "\"");
                    if (t->kind != TypeKind::Object)
                        throw SchemaError("Union type \"" + def.name +
                                              "\" can only include Object types, it cannot "
                                              "include \"" +
                                              m.name + "\".",
                                          m.loc);
                }
                for (const auto& i : def.interfaces) {
                    const TypeDef* t = require(i, false, "type \"" + def.name + "\"");
                    if (t->kind != TypeKind::Interface)
                        throw SchemaError("Type \"" + def.name +
                                              "\" must only implement Interface types, it cannot "
                                              "implement \"" +
                                              i.name + "\".",
                                          i.loc);
                }
            }
            for (const auto& def : doc->directives)
                for (const auto& a : def.arguments)
                    require(a.type, true, "argument \"@" + def.name + "(" + a.name + ":)\"");
        }
    }

private:
    Schema& m_schema;
    std::vector<std::unique_ptr<TypeDef>>& m_types;
    std::map<std::string, const TypeDef*, std::less<>>& m_by_name;
    std::vector<DirectiveDef>& m_directives;

    TypeDef* mutable_type(std::string_view name) {
        for (auto& t : m_types)
            if (t->name == name)
                return t.get();
        return nullptr;
    }

    const TypeDef* require(const ast::TypeRef& ref, bool input, const std::string& where) {
        const TypeDef* t = m_schema.type(ref.name);
        if (!t)
            throw SchemaError("Unknown type \"" + ref.name + "\" in " + where + ".", ref.loc);
        if (input && !t->is_input())
            throw SchemaError("The type of " + where + " must be an input type, but \"" + ref.name +
                                  "\" is not.",
                              ref.loc);
        if (!input && !t->is_output())
            throw SchemaError("The type of " + where + " must be an output type, but \"" +
                                  ref.name + "\" is not.",
                              ref.loc);
        return t;
    }

    static void deprecation(const std::vector<ast::Directive>& directives, bool& deprecated,
                            std::string& reason) {
        for (const auto& d : directives) {
            if (d.name != "deprecated")
                continue;
            deprecated = true;
            reason = "No longer supported";
            for (const auto& a : d.arguments)
                if (a.name == "reason" && a.value.kind == ast::ValueKind::String)
                    reason = a.value.text;
        }
    }

    static std::vector<InputValueDef>
    input_values(const std::vector<ast::InputValueDefinition>& defs) {
        std::vector<InputValueDef> out;
        std::set<std::string_view> seen;
        for (const auto& def : defs) {
            if (!seen.insert(def.name).second)
                throw SchemaError("There can be only one input value named \"" + def.name + "\".",
                                  def.loc);
            InputValueDef v;
            v.name = def.name;
            v.description = def.description;
            v.type = def.type;
            v.default_literal = def.default_value;
            deprecation(def.directives, v.deprecated, v.deprecation_reason);
            out.push_back(std::move(v));
        }
        return out;
    }

    static void add_fields(TypeDef& type, const std::vector<ast::FieldDefinition>& defs) {
        for (const auto& def : defs) {
            if (type.field(def.name))
                throw SchemaError("Field \"" + type.name + "." + def.name +
                                      "\" can only be defined once.",
                                  def.loc);
            FieldDef f;
            f.name = def.name;
            f.description = def.description;
            f.type = def.type;
            f.arguments = input_values(def.arguments);
            deprecation(def.directives, f.deprecated, f.deprecation_reason);
            type.fields.push_back(std::move(f));
        }
    }

    static void add_members(TypeDef& type, const ast::TypeDefinition& def) {
        for (const auto& i : def.interfaces)
            type.interfaces.push_back(i.name);
        for (const auto& m : def.members)
            type.possible_types.push_back(m.name);
        for (const auto& v : def.enum_values) {
            if (type.enum_value(v.name))
                throw SchemaError("Enum value \"" + type.name + "." + v.name +
                                      "\" can only be defined once.",
                                  v.loc);
            EnumValueDef e;
            e.name = v.name;
            e.description = v.description;
            deprecation(v.directives, e.deprecated, e.deprecation_reason);
            type.enum_values.push_back(std::move(e));
        }
        for (auto& f : input_values(def.input_fields)) {
            if (type.input_field(f.name))
                throw SchemaError("Input field \"" + type.name + "." + f.name +
                                      "\" can only be defined once.",
                                  def.loc);
            type.input_fields.push_back(std::move(f));
        }
        add_fields(type, def.fields);
        for (const auto& d : def.directives)
            if (d.name == "specifiedBy")
                for (const auto& a : d.arguments)
                    if (a.name == "url")
                        type.specified_by_url = a.value.text;
    }

    void define(const ast::TypeDefinition& def, bool prelude) {
        if (m_by_name.count(def.name))
            throw SchemaError("There can be only one type named \"" + def.name + "\".", def.loc);
        if (!prelude && def.name.size() > 1 && def.name[0] == '_' && def.name[1] == '_')
            throw SchemaError("Name \"" + def.name +
                                  "\" must not begin with \"__\", which is reserved by GraphQL "
                                  "introspection.",
                              def.loc);
        auto type = std::make_unique<TypeDef>();
        type->kind = def.kind;
        type->name = def.name;
        type->description = def.description;
        if (def.kind == TypeKind::Scalar) {
            static const std::pair<std::string_view, ScalarKind> k_builtin[] = {
                {"Int", ScalarKind::Int},
                {"Float", ScalarKind::Float},
                {"String", ScalarKind::String},
                {"Boolean", ScalarKind::Boolean},
                {"ID", ScalarKind::ID}};
            type->scalar = ScalarKind::Custom;
            if (prelude)
                for (const auto& [name, kind] : k_builtin)
                    if (name == def.name)
                        type->scalar = kind;
        }
        add_members(*type, def);
        m_by_name.emplace(type->name, type.get());
        m_types.push_back(std::move(type));
    }

    void extend(const ast::TypeDefinition& def) {
        TypeDef* type = mutable_type(def.name);
        if (!type)
            throw SchemaError("Cannot extend type \"" + def.name + "\" because it is not defined.",
                              def.loc);
        if (type->kind != def.kind)
            throw SchemaError("Cannot extend non-matching type \"" + def.name + "\".", def.loc);
        add_members(*type, def);
    }
};

FieldDef meta_field(std::string name, std::string type, std::string mods, std::string description) {
    FieldDef f;
    f.name = std::move(name);
    f.description = std::move(description);
    f.type.name = std::move(type);
    f.type.mods = std::move(mods);
    return f;
}

} // namespace

std::shared_ptr<const Schema> load_schema(std::string_view sdl) {
    auto schema = std::make_shared<Schema>();
    static const ast::TypeSystemDocument prelude = parse_type_system(k_prelude);
    ast::TypeSystemDocument doc;
    try {
        doc = parse_type_system(sdl);
    } catch (const SyntaxError& e) {
        throw SchemaError(e.what(), e.where);
    }
    Builder builder(*schema, schema->m_types, schema->m_by_name, schema->m_directives);
    builder.add(prelude, true);
    builder.add(doc, false);
    builder.check_references({&prelude, &doc});

    // As in graphql-js, a built-in scalar that nothing references is not part of the schema.
    std::set<std::string_view> referenced;
    auto reference = [&](const std::vector<InputValueDef>& values) {
        for (const auto& v : values)
            referenced.insert(v.type.name);
    };
    for (const auto& t : schema->m_types) {
        reference(t->input_fields);
        for (const auto& f : t->fields) {
            referenced.insert(f.type.name);
            reference(f.arguments);
        }
    }
    for (const auto& d : schema->m_directives)
        reference(d.arguments);
    std::erase_if(schema->m_types, [&](const std::unique_ptr<TypeDef>& t) {
        const bool unused = t->kind == TypeKind::Scalar && t->scalar != ScalarKind::Custom &&
                            !referenced.count(t->name);
        if (unused)
            schema->m_by_name.erase(t->name);
        return unused;
    });

    // Roots: the schema definition's, else the conventional names.
    std::map<std::string, std::string> roots = {
        {"query", "Query"}, {"mutation", "Mutation"}, {"subscription", "Subscription"}};
    bool explicit_roots = false;
    for (const auto& s : doc.schemas) {
        if (!s.extension) {
            if (explicit_roots)
                throw SchemaError("Must provide only one schema definition.", s.loc);
            explicit_roots = true;
            roots.clear();
            schema->m_description = s.description;
        }
        for (const auto& [op, ref] : s.roots) {
            const TypeDef* t = schema->type(ref.name);
            if (!t || t->kind != TypeKind::Object)
                throw SchemaError("The " + op + " root type \"" + ref.name +
                                      "\" must be a defined object type.",
                                  ref.loc);
            roots[op] = ref.name;
        }
    }
    auto root = [&](const char* op) -> const TypeDef* {
        const auto it = roots.find(op);
        if (it == roots.end())
            return nullptr;
        const TypeDef* t = schema->type(it->second);
        return t && t->kind == TypeKind::Object ? t : nullptr;
    };
    schema->m_query = root("query");
    schema->m_mutation = root("mutation");
    schema->m_subscription = root("subscription");
    if (!schema->m_query)
        throw SchemaError("The schema has no query root type.", {1, 1});

    // Interfaces learn their implementations; objects must declare the interfaces' fields.
    for (auto& t : schema->m_types)
        for (const auto& i : t->interfaces) {
            auto* iface = const_cast<TypeDef*>(schema->type(i));
            if (t->kind == TypeKind::Object)
                iface->possible_types.push_back(t->name);
            for (const auto& f : iface->fields)
                if (!t->field(f.name))
                    throw SchemaError("Interface field \"" + i + "." + f.name +
                                          "\" expected but \"" + t->name +
                                          "\" does not provide it.",
                                      {1, 1});
        }

    // Defaults become JSON once, here.
    auto coerce_defaults = [&](std::vector<InputValueDef>& values, const std::string& owner) {
        for (auto& v : values)
            if (v.default_literal && !coerce_literal(*schema, *v.default_literal, TypeView(v.type),
                                                     nullptr, v.default_value))
                throw SchemaError("The default of \"" + owner + "." + v.name + "\" is not a " +
                                      ast::print_type(v.type) + ".",
                                  v.default_literal->loc);
    };
    for (auto& t : schema->m_types) {
        coerce_defaults(t->input_fields, t->name);
        for (auto& f : t->fields)
            coerce_defaults(f.arguments, t->name + "." + f.name);
    }
    for (auto& d : schema->m_directives)
        coerce_defaults(d.arguments, "@" + d.name);

    schema->m_typename_field =
        meta_field("__typename", "String", "N", "The name of the object's type.");
    schema->m_schema_field = meta_field("__schema", "__Schema", "N", "The schema of this service.");
    schema->m_type_field = meta_field("__type", "__Type", "", "The type of the given name.");
    InputValueDef name_arg;
    name_arg.name = "name";
    name_arg.type.name = "String";
    name_arg.type.mods = "N";
    schema->m_type_field.arguments.push_back(std::move(name_arg));

    // check_references made sure every field's type exists.
    for (auto& t : schema->m_types)
        for (auto& f : t->fields)
            f.named_type = schema->type(f.type.name);
    for (FieldDef* f : {&schema->m_typename_field, &schema->m_schema_field, &schema->m_type_field})
        f->named_type = schema->type(f->type.name);
    return schema;
}

} // namespace kprov::api::graphql
