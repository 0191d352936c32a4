#include "api/graphql/execution.hpp"

#include "api/graphql/introspection.hpp"
#include "api/graphql/json_text.hpp"
#include "api/graphql/lexer.hpp"
#include "api/graphql/values.hpp"

#include <algorithm>
#include <utility>

namespace kprov::api::graphql {

using json = nlohmann::json;

json error_json(const std::string& message, const std::vector<SourceLocation>& locations) {
    json e = json::object();
    e["message"] = sanitize_utf8(message); // resolvers' messages and client names may be anything
    if (!locations.empty()) {
        json locs = json::array();
        for (const auto& l : locations)
            locs.push_back({{"line", l.line}, {"column", l.column}});
        e["locations"] = std::move(locs);
    }
    return e;
}

bool coerce_variables(const Schema& schema, const ast::Operation& operation, const json& raw,
                      json& out, json& errors) {
    out = json::object();
    bool ok = true;
    for (const auto& def : operation.variables) {
        const TypeView type(def.type);
        const std::string shown = "Variable \"$" + def.name + "\"";
        const auto it = raw.is_object() ? raw.find(def.name) : raw.end();
        if (!raw.is_object() || it == raw.end()) {
            if (def.default_value) {
                json v;
                if (coerce_literal(schema, *def.default_value, type, nullptr, v))
                    out[def.name] = std::move(v);
            } else if (type.non_null()) {
                errors.push_back(error_json(shown + " of required type \"" + type.print() +
                                                "\" was not provided.",
                                            {def.loc}));
                ok = false;
            }
            continue;
        }
        if (it->is_null() && type.non_null()) {
            errors.push_back(error_json(
                shown + " of non-null type \"" + type.print() + "\" must not be null.", {def.loc}));
            ok = false;
            continue;
        }
        std::string error;
        std::string path;
        json v;
        if (!coerce_input(schema, *it, type, v, error, path)) {
            errors.push_back(error_json(
                shown + " got invalid value " + inspect(*it) +
                    (path.empty() ? "" : " at \"" + def.name + path + "\"") + "; " + error,
                {def.loc}));
            ok = false;
            continue;
        }
        out[def.name] = std::move(v);
    }
    return ok;
}

namespace {

// The field nodes of one response key (more than one when a query repeats a field or a fragment
// selects it again); `more` stays empty, so unallocated, in the common case.
struct Fields {
    const ast::Selection* front;
    std::vector<const ast::Selection*> more;

    template <typename F> void each(F&& f) const {
        f(*front);
        for (const auto* s : more)
            f(*s);
    }
};
using Groups = std::vector<std::pair<std::string_view, Fields>>;

/// Thrown when the answer outgrows its limit; execute_operation() catches it.
struct TooLarge {};

class Executor {
public:
    Executor(const Schema& schema, const Resolvers& resolvers, const ast::Document& document,
             const json& variables, std::any& state, json& errors, std::string& out,
             std::size_t max_bytes)
        : m_schema(schema)
        , m_resolvers(resolvers)
        , m_doc(document)
        , m_vars(variables)
        , m_state(state)
        , m_errors(errors)
        , m_out(out)
        , m_max_bytes(max_bytes) {}

    void run(const ast::Operation& op) {
        const TypeDef* root = m_schema.root(op.kind);
        if (!root) {
            m_errors.push_back(
                error_json("Schema is not configured to execute this operation.", {op.loc}));
            m_out += "null";
            return;
        }
        Groups groups;
        std::vector<std::string_view> visited;
        collect(*root, op.selections, groups, visited);
        const std::size_t start = m_out.size();
        // Single-threaded, so mutation root fields already run serially, in document order.
        if (!selection_set(*root, ValueRef(), groups))
            null_since(start);
    }

private:
    struct PathItem {
        std::string_view key;
        std::size_t index;
        bool is_index;
    };

    const Schema& m_schema;
    const Resolvers& m_resolvers;
    const ast::Document& m_doc;
    const json& m_vars;
    std::any& m_state;
    json& m_errors;
    std::string& m_out; // the response text so far; a failed value is cut back to null
    std::vector<PathItem> m_path;
    std::size_t m_max_bytes;
    std::size_t m_error_bytes = 0; // about what m_errors will take as text

    // Checked before each field and list item, so an answer too large stops growing (and stops
    // calling resolvers) soon after it crosses the limit.
    void check_size() const {
        if (m_out.size() + m_error_bytes > m_max_bytes)
            throw TooLarge{};
    }

    // A leaf value that serialize_leaf would return unchanged, written without copying it:
    // false when it needs serialize_leaf's conversion (or its error).
    bool write_leaf_as_is(const TypeDef& type, ValueRef value) {
        if (const std::string* text = value.string()) {
            const bool fits = type.kind == TypeKind::Enum ? type.enum_value(*text) != nullptr
                                                          : type.scalar == ScalarKind::String ||
                                                                type.scalar == ScalarKind::ID;
            if (fits)
                append_json_string(m_out, *text);
            return fits;
        }
        if (const bool* b = value.boolean(); b && type.scalar == ScalarKind::Boolean) {
            m_out += *b ? "true" : "false";
            return true;
        }
        return false;
    }

    // What was written since `mark` becomes null (a failure propagated to a nullable place).
    void null_since(std::size_t mark) {
        m_out.resize(mark);
        m_out += "null";
    }

    bool null_since_mark(std::size_t mark) const {
        return m_out.size() - mark == 4 && m_out.compare(mark, 4, "null") == 0;
    }

    void error(const std::string& message, const Fields& fields, json extensions = nullptr) {
        json e = error_json(message, {fields.front->loc});
        json path = json::array();
        for (const auto& p : m_path) {
            if (p.is_index)
                path.push_back(p.index);
            else
                path.push_back(p.key);
        }
        m_error_bytes += message.size() + 64 + 16 * m_path.size();
        e["path"] = std::move(path);
        if (extensions.is_object()) {
            m_error_bytes += extensions.dump().size();
            e["extensions"] = std::move(extensions);
        }
        m_errors.push_back(std::move(e));
    }

    bool directive_if(const ast::Directive& d, bool& value) const {
        for (const auto& a : d.arguments) {
            if (a.name != "if")
                continue;
            json v;
            if (!coerce_literal(m_schema, a.value, TypeView("Boolean", "N"), &m_vars, v))
                return false;
            value = v.get<bool>();
            return true;
        }
        return false;
    }

    bool included(const std::vector<ast::Directive>& directives) const {
        for (const auto& d : directives) {
            bool v = false;
            if (d.name == "skip" && directive_if(d, v) && v)
                return false;
            if (d.name == "include" && directive_if(d, v) && !v)
                return false;
        }
        return true;
    }

    bool applies(const TypeDef& type, const std::string& condition) const {
        if (condition.empty())
            return true;
        const TypeDef* t = m_schema.type(condition);
        return t && m_schema.is_subtype(type, *t);
    }

    void collect(const TypeDef& type, const std::vector<ast::Selection>& selections, Groups& groups,
                 std::vector<std::string_view>& visited) {
        for (const auto& s : selections) {
            if (!included(s.directives))
                continue;
            switch (s.kind) {
            case ast::Selection::Kind::Field: {
                const std::string_view key = s.response_key();
                auto it = std::find_if(groups.begin(), groups.end(),
                                       [&](const auto& g) { return g.first == key; });
                if (it == groups.end())
                    groups.emplace_back(key, Fields{&s, {}});
                else
                    it->second.more.push_back(&s);
                break;
            }
            case ast::Selection::Kind::InlineFragment:
                if (applies(type, s.type_condition))
                    collect(type, s.selections, groups, visited);
                break;
            case ast::Selection::Kind::FragmentSpread: {
                if (std::find(visited.begin(), visited.end(), s.name) != visited.end())
                    break;
                visited.push_back(s.name);
                const ast::Fragment* f = m_doc.fragment(s.name);
                if (f && applies(type, f->type_condition))
                    collect(type, f->selections, groups, visited);
                break;
            }
            }
        }
    }

    bool selection_set(const TypeDef& type, ValueRef parent, const Groups& groups) {
        m_out += '{';
        bool first = true;
        for (const auto& [key, fields] : groups) {
            if (!first)
                m_out += ',';
            first = false;
            check_size();
            append_json_string(m_out, key);
            m_out += ':';
            m_path.push_back({key, 0, false});
            const bool ok = field(type, parent, fields);
            m_path.pop_back();
            if (!ok)
                return false;
        }
        m_out += '}';
        return true;
    }

    bool argument_values(const std::vector<InputValueDef>& defs,
                         const std::vector<ast::Argument>& given, json& out, std::string& problem) {
        out = json::object();
        for (const auto& def : defs) {
            const TypeView type(def.type);
            const ast::Argument* arg = nullptr;
            for (const auto& a : given)
                if (a.name == def.name)
                    arg = &a;
            const bool missing_variable = arg && arg->value.kind == ast::ValueKind::Variable &&
                                          !m_vars.contains(arg->value.text);
            if (!arg || missing_variable) {
                if (def.default_literal) {
                    out[def.name] = def.default_value;
                } else if (type.non_null()) {
                    problem = "Argument \"" + def.name + "\" of required type \"" + type.print() +
                              "\" was " +
                              (arg ? "provided the variable \"$" + arg->value.text +
                                         "\" which was not provided a runtime value."
                                   : std::string("not provided."));
                    return false;
                }
                continue;
            }
            if (arg->value.kind == ast::ValueKind::Variable && type.non_null() &&
                m_vars[arg->value.text].is_null()) {
                problem = "Argument \"" + def.name + "\" of non-null type \"" + type.print() +
                          "\" must not be null.";
                return false;
            }
            json v;
            if (!coerce_literal(m_schema, arg->value, type, &m_vars, v)) {
                problem = "Argument \"" + def.name + "\" has invalid value " +
                          ast::print_value(arg->value) + ".";
                return false;
            }
            out[def.name] = std::move(v);
        }
        return true;
    }

    bool field(const TypeDef& type, ValueRef parent, const Fields& fields) {
        const ast::Selection& node = *fields.front;
        if (node.name == "__typename") {
            append_json_string(m_out, type.name);
            return true;
        }
        const FieldDef* def = m_schema.field(type, node.name);
        if (!def) { // validation rules this out; keep going if a caller skipped it
            m_out += "null";
            return true;
        }
        const TypeView field_type(def->type);
        // Most fields take no arguments: they share one empty object instead of allocating one.
        static const json k_no_arguments = json::object();
        json own_args;
        const json& args = def->arguments.empty() ? k_no_arguments : own_args;
        std::string problem;
        Value resolved;
        ValueRef value; // what was resolved, or the parent's member, read without a copy
        bool failed = false;
        if (!def->arguments.empty() &&
            !argument_values(def->arguments, node.arguments, own_args, problem)) {
            error(problem, fields);
            failed = true;
        } else if (is_introspection_field(m_schema, type.name, node.name)) {
            // Introspection objects are JSON all the way down.
            static const json k_null;
            resolved = resolve_introspection(m_schema, type.name, node.name,
                                             parent.as_json() ? *parent.as_json() : k_null, args);
            value = resolved;
        } else if (const Resolver* r = m_resolvers.find(type.name, node.name)) {
            try {
                const FieldContext ctx{parent, args, type.name, node.name, m_state};
                resolved = (*r)(ctx);
                value = resolved;
            } catch (const FieldError& e) {
                error(e.what(), fields, e.extensions);
                failed = true;
            } catch (const std::exception& e) {
                error(e.what(), fields);
                failed = true;
            } catch (...) {
                error("Internal error while resolving " + type.name + "." + node.name + ".",
                      fields);
                failed = true;
            }
        } else {
            value = parent.member(node.name);
        }
        const std::size_t mark = m_out.size();
        if (!failed && complete(type, *def, field_type, fields, value))
            return true;
        if (field_type.non_null())
            return false;
        null_since(mark);
        return true;
    }

    /// False when an error was raised at this position; the nearest nullable one absorbs it.
    bool complete(const TypeDef& parent_type, const FieldDef& def, TypeView type,
                  const Fields& fields, ValueRef value) {
        if (type.non_null()) {
            const std::size_t mark = m_out.size();
            if (!complete(parent_type, def, type.inner(), fields, value))
                return false;
            if (null_since_mark(mark)) {
                error("Cannot return null for non-nullable field " + parent_type.name + "." +
                          def.name + ".",
                      fields);
                return false;
            }
            return true;
        }
        if (value.is_null()) {
            m_out += "null";
            return true;
        }
        if (type.list()) {
            if (!value.is_list()) {
                error("Expected Iterable, but did not find one for field \"" + parent_type.name +
                          "." + def.name + "\".",
                      fields);
                return false;
            }
            const TypeView item_type = type.inner();
            m_out += '[';
            for (std::size_t i = 0; i < value.size(); ++i) {
                if (i > 0)
                    m_out += ',';
                check_size();
                m_path.push_back({{}, i, true});
                const std::size_t mark = m_out.size();
                const bool ok = complete(parent_type, def, item_type, fields, value.item(i));
                m_path.pop_back();
                if (!ok) {
                    if (item_type.non_null())
                        return false;
                    null_since(mark);
                }
            }
            m_out += ']';
            return true;
        }
        const TypeDef* t = def.named_type;
        if (!t)
            return false;
        if (t->is_leaf()) {
            if (write_leaf_as_is(*t, value))
                return true;
            std::string problem;
            json out;
            if (serialize_leaf(*t, value.to_json(), out, problem)) {
                append_json(m_out, out);
                return true;
            }
            error(problem, fields);
            return false;
        }
        const TypeDef* object = t;
        if (t->is_abstract()) {
            const ValueRef type_name = value.member("__typename");
            object = type_name.string() ? m_schema.type(*type_name.string()) : nullptr;
            if (!object || object->kind != TypeKind::Object || !t->is_possible_type(object->name)) {
                error("Abstract type \"" + t->name +
                          "\" must resolve to an Object type at runtime for field \"" +
                          parent_type.name + "." + def.name + "\"; the value's \"__typename\" " +
                          (type_name.is_null() ? std::string("is missing")
                                               : "is " + inspect(type_name.to_json())) +
                          ".",
                      fields);
                return false;
            }
        }
        Groups groups;
        groups.reserve(fields.front->selections.size());
        std::vector<std::string_view> visited;
        fields.each(
            [&](const ast::Selection& f) { collect(*object, f.selections, groups, visited); });
        return selection_set(*object, value, groups);
    }
};

} // namespace

bool execute_operation(const Schema& schema, const Resolvers& resolvers,
                       const ast::Document& document, const ast::Operation& operation,
                       const json& variables, std::any& request_state, json& errors,
                       std::string& out, std::size_t max_bytes) {
    try {
        Executor(schema, resolvers, document, variables, request_state, errors, out, max_bytes)
            .run(operation);
        return true;
    } catch (const TooLarge&) {
        return false;
    }
}

} // namespace kprov::api::graphql
