// The validator: one walk over each operation and fragment (fields, arguments, directives,
// fragments, values), then the document-wide rules (names, fragment use and cycles, variables).

#include "api/graphql/validation.hpp"

#include "api/graphql/validation_rules.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace kprov::api::graphql {
namespace {

using json = nlohmann::json;

/// What one operation or fragment uses, for the document-wide rules.
struct Definition {
    std::vector<VariableUsage> usages;
    std::vector<const ast::Selection*> spreads; // direct fragment spreads
};

const char* operation_location(ast::OperationKind kind) {
    switch (kind) {
    case ast::OperationKind::Query:
        return "QUERY";
    case ast::OperationKind::Mutation:
        return "MUTATION";
    case ast::OperationKind::Subscription:
        return "SUBSCRIPTION";
    }
    return "QUERY";
}

const char* operation_word(ast::OperationKind kind) {
    switch (kind) {
    case ast::OperationKind::Query:
        return "query";
    case ast::OperationKind::Mutation:
        return "mutation";
    case ast::OperationKind::Subscription:
        return "subscription";
    }
    return "query";
}

class Validator {
public:
    Validator(const Schema& schema, const ast::Document& doc, ValidationStats* stats)
        : m_schema(schema)
        , m_doc(doc)
        , m_stats(stats) {}

    json run() {
        try {
            operations();
            fragments();
            for (const auto& op : m_doc.operations)
                operation_variables(op);
            fragment_use();
            fragment_cycles();
            if (m_errors.empty())
                check_overlapping_fields(m_schema, m_doc, m_errors, m_stats);
        } catch (const ValidationAborted&) {
            // The cap was hit: the errors end with the one that says so.
        }
        return m_errors.take();
    }

private:
    const Schema& m_schema;
    const ast::Document& m_doc;
    ValidationStats* m_stats;
    ValidationErrors m_errors;
    std::vector<Definition> m_operation_info;
    std::map<std::string_view, Definition> m_fragment_info;

    void error(const std::string& message, const std::vector<SourceLocation>& locations) {
        m_errors.add(message, locations);
    }

    // --- Operations and fragments -------------------------------------------------------

    void operations() {
        const auto anonymous = std::count_if(m_doc.operations.begin(), m_doc.operations.end(),
                                             [](const auto& op) { return op.name.empty(); });
        std::unordered_map<std::string_view, const ast::Operation*> named;
        for (std::size_t i = 0; i < m_doc.operations.size(); ++i) {
            const ast::Operation& op = m_doc.operations[i];
            if (op.name.empty() && anonymous > 0 && m_doc.operations.size() > 1)
                error("This anonymous operation must be the only defined operation.", {op.loc});
            if (!op.name.empty())
                if (const auto [it, fresh] = named.try_emplace(op.name, &op); !fresh)
                    error("There can be only one operation named \"" + op.name + "\".",
                          {it->second->loc, op.loc});
            Definition info;
            const TypeDef* root = m_schema.root(op.kind);
            if (!root)
                error(std::string("Schema is not configured to execute ") +
                          operation_word(op.kind) + " operation.",
                      {op.loc});
            variable_definitions(op, info);
            directives(op.directives, operation_location(op.kind), info);
            if (op.kind == ast::OperationKind::Subscription && root)
                single_root_field(op);
            selections(op.selections, root, info);
            m_operation_info.push_back(std::move(info));
        }
    }

    void single_root_field(const ast::Operation& op) {
        std::size_t fields = 0;
        for (const auto& s : op.selections)
            fields += s.kind == ast::Selection::Kind::Field ? 1 : 2;
        if (fields > 1)
            error(op.name.empty()
                      ? "Anonymous Subscription must select only one top level field."
                      : "Subscription \"" + op.name + "\" must select only one top level field.",
                  {op.loc});
    }

    void variable_definitions(const ast::Operation& op, Definition& info) {
        std::unordered_map<std::string_view, SourceLocation> first;
        for (const ast::VariableDefinition& v : op.variables) {
            if (const auto [it, fresh] = first.try_emplace(v.name, v.loc); !fresh)
                error("There can be only one variable named \"$" + v.name + "\".",
                      {it->second, v.loc});
            const TypeDef* t = m_schema.type(v.type.name);
            if (!t) {
                unknown_type(v.type.name, v.type.loc);
            } else if (!t->is_input()) {
                error("Variable \"$" + v.name + "\" cannot be non-input type \"" +
                          ast::print_type(v.type) + "\".",
                      {v.type.loc});
            } else if (v.default_value) {
                std::vector<VariableUsage> ignored;
                check_value(m_schema, *v.default_value, TypeView(v.type), false, ignored, m_errors);
            }
            directives(v.directives, "VARIABLE_DEFINITION", info);
        }
    }

    void unknown_type(const std::string& name, SourceLocation loc) {
        std::vector<std::string_view> names;
        for (const auto& t : m_schema.types())
            names.push_back(t->name);
        error("Unknown type \"" + name + "\"." + did_you_mean(name, names), {loc});
    }

    /// The composite type a fragment conditions on; null (reported) when there is none.
    const TypeDef* condition(const std::string& type_name, SourceLocation loc,
                             const std::string& fragment_name) {
        const TypeDef* t = m_schema.type(type_name);
        if (!t) {
            unknown_type(type_name, loc);
            return nullptr;
        }
        if (!t->is_composite()) {
            error((fragment_name.empty() ? std::string("Fragment")
                                         : "Fragment \"" + fragment_name + "\"") +
                      " cannot condition on non composite type \"" + type_name + "\".",
                  {loc});
            return nullptr;
        }
        return t;
    }

    void fragments() {
        std::unordered_map<std::string_view, SourceLocation> first;
        for (const ast::Fragment& f : m_doc.fragments) {
            if (const auto [it, fresh] = first.try_emplace(f.name, f.loc); !fresh)
                error("There can be only one fragment named \"" + f.name + "\".",
                      {it->second, f.loc});
            Definition info;
            const TypeDef* t = condition(f.type_condition, f.type_condition_loc, f.name);
            directives(f.directives, "FRAGMENT_DEFINITION", info);
            selections(f.selections, t, info);
            m_fragment_info.emplace(f.name, std::move(info));
        }
    }

    // --- Selections ---------------------------------------------------------------------

    void selections(const std::vector<ast::Selection>& sels, const TypeDef* parent,
                    Definition& info) {
        for (const auto& s : sels) {
            switch (s.kind) {
            case ast::Selection::Kind::Field:
                directives(s.directives, "FIELD", info);
                field(s, parent, info);
                break;
            case ast::Selection::Kind::InlineFragment: {
                directives(s.directives, "INLINE_FRAGMENT", info);
                const TypeDef* t = parent;
                if (!s.type_condition.empty()) {
                    t = condition(s.type_condition, s.type_condition_loc, {});
                    if (t && parent && !m_schema.overlap(*parent, *t))
                        error("Fragment cannot be spread here as objects of type \"" +
                                  parent->name + "\" can never be of type \"" + t->name + "\".",
                              {s.loc});
                }
                selections(s.selections, t, info);
                break;
            }
            case ast::Selection::Kind::FragmentSpread: {
                directives(s.directives, "FRAGMENT_SPREAD", info);
                const ast::Fragment* f = m_doc.fragment(s.name);
                if (!f) {
                    error("Unknown fragment \"" + s.name + "\".", {s.loc});
                    break;
                }
                info.spreads.push_back(&s);
                const TypeDef* t = m_schema.type(f->type_condition);
                if (t && t->is_composite() && parent && !m_schema.overlap(*parent, *t))
                    error("Fragment \"" + s.name +
                              "\" cannot be spread here as objects of type \"" + parent->name +
                              "\" can never be of type \"" + t->name + "\".",
                          {s.loc});
                break;
            }
            }
        }
    }

    void field(const ast::Selection& s, const TypeDef* parent, Definition& info) {
        const FieldDef* def = parent ? m_schema.field(*parent, s.name) : nullptr;
        if (parent && !def) {
            std::vector<std::string_view> names;
            for (const auto& f : parent->fields)
                names.push_back(f.name);
            error("Cannot query field \"" + s.name + "\" on type \"" + parent->name + "\"." +
                      did_you_mean(s.name, names),
                  {s.loc});
        }
        arguments(s.arguments, def ? &def->arguments : nullptr,
                  def ? "field \"" + parent->name + "." + s.name + "\"" : std::string(), info);
        if (def)
            required_arguments(s.arguments, def->arguments, "Field \"" + s.name + "\" argument",
                               s.loc);
        const TypeDef* t = def ? m_schema.type(def->type.name) : nullptr;
        if (t && t->is_leaf() && s.has_selection_set)
            error("Field \"" + s.name + "\" must not have a selection since type \"" +
                      ast::print_type(def->type) + "\" has no subfields.",
                  {s.loc});
        if (t && !t->is_leaf() && !s.has_selection_set)
            error("Field \"" + s.name + "\" of type \"" + ast::print_type(def->type) +
                      "\" must have a selection of subfields. Did you mean \"" + s.name +
                      " { ... }\"?",
                  {s.loc});
        if (s.has_selection_set)
            selections(s.selections, t && t->is_composite() ? t : nullptr, info);
    }

    /// KnownArgumentNames, UniqueArgumentNames and the arguments' values.
    void arguments(const std::vector<ast::Argument>& given, const std::vector<InputValueDef>* defs,
                   const std::string& owner, Definition& info) {
        std::unordered_map<std::string_view, SourceLocation> first;
        for (const ast::Argument& a : given) {
            if (const auto [it, fresh] = first.try_emplace(a.name, a.loc); !fresh)
                error("There can be only one argument named \"" + a.name + "\".",
                      {it->second, a.loc});
            const InputValueDef* def = nullptr;
            if (defs)
                for (const auto& d : *defs)
                    if (d.name == a.name)
                        def = &d;
            if (defs && !def) {
                std::vector<std::string_view> names;
                for (const auto& d : *defs)
                    names.push_back(d.name);
                error("Unknown argument \"" + a.name + "\" on " + owner + "." +
                          did_you_mean(a.name, names),
                      {a.loc});
            }
            if (def)
                check_value(m_schema, a.value, TypeView(def->type),
                            def->default_literal.has_value(), info.usages, m_errors);
            else
                collect_variables(a.value, info.usages);
        }
    }

    void required_arguments(const std::vector<ast::Argument>& given,
                            const std::vector<InputValueDef>& defs, const std::string& owner,
                            SourceLocation loc) {
        for (const auto& d : defs) {
            if (d.type.mods.empty() || d.type.mods[0] != 'N' || d.default_literal)
                continue;
            const bool present = std::any_of(given.begin(), given.end(),
                                             [&](const auto& a) { return a.name == d.name; });
            if (!present)
                error(owner + " \"" + d.name + "\" of type \"" + ast::print_type(d.type) +
                          "\" is required, but it was not provided.",
                      {loc});
        }
    }

    void directives(const std::vector<ast::Directive>& given, const char* location,
                    Definition& info) {
        std::unordered_map<std::string_view, SourceLocation> first;
        for (const ast::Directive& d : given) {
            const DirectiveDef* def = m_schema.directive(d.name);
            if (!def) {
                error("Unknown directive \"@" + d.name + "\".", {d.loc});
                arguments(d.arguments, nullptr, {}, info);
                continue;
            }
            if (!def->allowed_on(location))
                error("Directive \"@" + d.name + "\" may not be used on " + location + ".",
                      {d.loc});
            if (!def->repeatable)
                if (const auto [it, fresh] = first.try_emplace(d.name, d.loc); !fresh)
                    error("The directive \"@" + d.name +
                              "\" can only be used once at this location.",
                          {it->second, d.loc});
            arguments(d.arguments, &def->arguments, "directive \"@" + d.name + "\"", info);
            required_arguments(d.arguments, def->arguments,
                               "Directive \"@" + d.name + "\" argument", d.loc);
        }
    }

    // --- Document-wide rules ------------------------------------------------------------

    /// The fragments an operation reaches, each once.
    std::vector<std::string_view> reachable(const Definition& start) const {
        std::vector<std::string_view> out;
        std::unordered_set<std::string_view> seen;
        std::vector<const Definition*> todo = {&start};
        while (!todo.empty()) {
            const Definition* d = todo.back();
            todo.pop_back();
            for (const auto* spread : d->spreads) {
                if (!seen.insert(spread->name).second)
                    continue;
                out.push_back(spread->name);
                const auto it = m_fragment_info.find(spread->name);
                if (it != m_fragment_info.end())
                    todo.push_back(&it->second);
            }
        }
        return out;
    }

    void operation_variables(const ast::Operation& op) {
        const Definition& own =
            m_operation_info[static_cast<std::size_t>(&op - &m_doc.operations[0])];
        std::vector<const VariableUsage*> usages;
        for (const auto& u : own.usages)
            usages.push_back(&u);
        for (const auto& name : reachable(own)) {
            const auto it = m_fragment_info.find(name);
            if (it != m_fragment_info.end())
                for (const auto& u : it->second.usages)
                    usages.push_back(&u);
        }
        const std::string in_op = op.name.empty() ? "" : " by operation \"" + op.name + "\"";
        std::unordered_map<std::string_view, const ast::VariableDefinition*> defined;
        for (const auto& v : op.variables)
            defined.try_emplace(v.name, &v);
        std::set<std::string_view> reported;
        std::unordered_set<std::string_view> used;
        for (const auto* u : usages) {
            used.insert(u->name);
            const auto found = defined.find(u->name);
            if (found == defined.end()) {
                if (reported.insert(u->name).second)
                    error("Variable \"$" + std::string(u->name) + "\" is not defined" + in_op + ".",
                          {u->loc, op.loc});
                continue;
            }
            const ast::VariableDefinition* def = found->second;
            if (u->type_name.empty() || !m_schema.type(def->type.name))
                continue;
            TypeView var_type(def->type);
            const TypeView loc_type(u->type_name, u->mods);
            if (loc_type.non_null() && !var_type.non_null()) {
                const bool has_default =
                    def->default_value && def->default_value->kind != ast::ValueKind::Null;
                if (!has_default && !u->location_has_default) {
                    position_error(*def, *u);
                    continue;
                }
                if (!is_type_subtype(m_schema, var_type, loc_type.inner()))
                    position_error(*def, *u);
                continue;
            }
            if (!is_type_subtype(m_schema, var_type, loc_type))
                position_error(*def, *u);
        }
        for (const auto& v : op.variables) {
            if (!used.count(v.name))
                error("Variable \"$" + v.name + "\" is never used" +
                          (op.name.empty() ? "" : " in operation \"" + op.name + "\"") + ".",
                      {v.loc});
        }
    }

    void position_error(const ast::VariableDefinition& def, const VariableUsage& u) {
        error("Variable \"$" + def.name + "\" of type \"" + ast::print_type(def.type) +
                  "\" used in position expecting type \"" + ast::print_type(u.type_name, u.mods) +
                  "\".",
              {def.loc, u.loc});
    }

    void fragment_use() {
        std::set<std::string_view> used;
        for (const auto& info : m_operation_info)
            for (const auto& name : reachable(info))
                used.insert(name);
        for (const auto& f : m_doc.fragments)
            if (!used.count(f.name))
                error("Fragment \"" + f.name + "\" is never used.", {f.loc});
    }

    // NoFragmentCycles, as graphql-js walks it: each cycle reported once, with its path.
    std::set<std::string_view> m_visited;
    std::vector<const ast::Selection*> m_spread_path;
    std::map<std::string_view, std::size_t> m_path_index;

    void fragment_cycles() {
        for (const auto& f : m_doc.fragments)
            if (!m_visited.count(f.name))
                detect_cycle(f.name);
    }

    void detect_cycle(std::string_view name) {
        if (!m_visited.insert(name).second)
            return;
        const auto info = m_fragment_info.find(name);
        if (info == m_fragment_info.end() || info->second.spreads.empty())
            return;
        m_path_index[name] = m_spread_path.size();
        for (const auto* spread : info->second.spreads) {
            const auto cycle = m_path_index.find(spread->name);
            m_spread_path.push_back(spread);
            if (cycle == m_path_index.end()) {
                if (m_doc.fragment(spread->name))
                    detect_cycle(spread->name);
            } else {
                std::string via;
                std::vector<SourceLocation> locs;
                for (std::size_t i = cycle->second; i < m_spread_path.size(); ++i) {
                    locs.push_back(m_spread_path[i]->loc);
                    if (i + 1 < m_spread_path.size())
                        via += (via.empty() ? " via \"" : ", \"") + m_spread_path[i]->name + "\"";
                }
                error("Cannot spread fragment \"" + spread->name + "\" within itself" + via + ".",
                      locs);
            }
            m_spread_path.pop_back();
        }
        m_path_index.erase(name);
    }
};

} // namespace

json validate(const Schema& schema, const ast::Document& document, ValidationStats* stats) {
    return Validator(schema, document, stats).run();
}

} // namespace kprov::api::graphql
