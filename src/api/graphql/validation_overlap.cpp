// OverlappingFieldsCanBeMerged, ported from graphql-js's algorithm: fields that share a response
// key must be the same field with the same arguments (unless their parents are different object
// types), return compatible shapes, and have sub-selections that merge in turn. Field maps are
// cached per selection set and fragment pairs are compared once.

#include "api/graphql/validation_rules.hpp"

#include <map>
#include <set>
#include <tuple>

namespace kprov::api::graphql {
namespace {

using json = nlohmann::json;

struct FieldEntry {
    const TypeDef* parent;
    const ast::Selection* node;
    const FieldDef* def;
};

using FieldMap = std::vector<std::pair<std::string_view, std::vector<FieldEntry>>>;

struct FieldsAndFragments {
    FieldMap fields;
    std::vector<std::string_view> fragments;
};

struct Reason {
    std::string text;
    std::vector<std::string> sub_keys;
    std::vector<Reason> subs;
};

struct Conflict {
    std::string key;
    Reason reason;
    std::vector<SourceLocation> locs1;
    std::vector<SourceLocation> locs2;
};

std::string reason_message(const Reason& r) {
    if (r.subs.empty())
        return r.text;
    std::string out;
    for (std::size_t i = 0; i < r.subs.size(); ++i) {
        if (i)
            out += " and ";
        out += "subfields \"" + r.sub_keys[i] + "\" conflict because " + reason_message(r.subs[i]);
    }
    return out;
}

bool same_arguments(const ast::Selection& a, const ast::Selection& b) {
    if (a.arguments.size() != b.arguments.size())
        return false;
    for (const auto& x : a.arguments) {
        bool found = false;
        for (const auto& y : b.arguments)
            if (x.name == y.name) {
                found = ast::print_value(x.value) == ast::print_value(y.value);
                break;
            }
        if (!found)
            return false;
    }
    return true;
}

class OverlapChecker {
public:
    OverlapChecker(const Schema& schema, const ast::Document& doc)
        : m_schema(schema)
        , m_doc(doc) {}

    void run(json& errors) {
        for (const auto& op : m_doc.operations)
            walk(op.selections, m_schema.root(op.kind), errors);
        for (const auto& f : m_doc.fragments)
            walk(f.selections, m_schema.type(f.type_condition), errors);
    }

private:
    const Schema& m_schema;
    const ast::Document& m_doc;
    std::map<const void*, FieldsAndFragments> m_cache;
    std::map<std::pair<std::string_view, std::string_view>, bool> m_compared_pairs;

    void walk(const std::vector<ast::Selection>& sels, const TypeDef* parent, json& errors) {
        std::vector<Conflict> conflicts;
        within(parent, sels, conflicts);
        for (const auto& c : conflicts) {
            std::vector<SourceLocation> locs = c.locs1;
            locs.insert(locs.end(), c.locs2.begin(), c.locs2.end());
            report(errors,
                   "Fields \"" + c.key + "\" conflict because " + reason_message(c.reason) +
                       ". Use different aliases on the fields to fetch both if this was "
                       "intentional.",
                   std::move(locs));
        }
        for (const auto& s : sels) {
            if (s.kind == ast::Selection::Kind::Field && s.has_selection_set) {
                const FieldDef* def = parent ? m_schema.field(*parent, s.name) : nullptr;
                const TypeDef* t = def ? m_schema.type(def->type.name) : nullptr;
                walk(s.selections, t && t->is_composite() ? t : nullptr, errors);
            } else if (s.kind == ast::Selection::Kind::InlineFragment) {
                walk(s.selections,
                     s.type_condition.empty() ? parent : m_schema.type(s.type_condition), errors);
            }
        }
    }

    void collect(const TypeDef* parent, const std::vector<ast::Selection>& sels,
                 FieldsAndFragments& out) {
        for (const auto& s : sels) {
            switch (s.kind) {
            case ast::Selection::Kind::Field: {
                const FieldDef* def = parent ? m_schema.field(*parent, s.name) : nullptr;
                const std::string_view key = s.response_key();
                auto it = out.fields.begin();
                while (it != out.fields.end() && it->first != key)
                    ++it;
                if (it == out.fields.end())
                    out.fields.push_back({key, {{parent, &s, def}}});
                else
                    it->second.push_back({parent, &s, def});
                break;
            }
            case ast::Selection::Kind::FragmentSpread:
                if (std::find(out.fragments.begin(), out.fragments.end(), s.name) ==
                    out.fragments.end())
                    out.fragments.push_back(s.name);
                break;
            case ast::Selection::Kind::InlineFragment:
                collect(s.type_condition.empty() ? parent : m_schema.type(s.type_condition),
                        s.selections, out);
                break;
            }
        }
    }

    const FieldsAndFragments& fields_of(const TypeDef* parent,
                                        const std::vector<ast::Selection>& sels) {
        const auto it = m_cache.find(&sels);
        if (it != m_cache.end())
            return it->second;
        FieldsAndFragments f;
        collect(parent, sels, f);
        return m_cache.emplace(&sels, std::move(f)).first->second;
    }

    const FieldsAndFragments* fragment_fields(std::string_view name) {
        const ast::Fragment* f = m_doc.fragment(name);
        return f ? &fields_of(m_schema.type(f->type_condition), f->selections) : nullptr;
    }

    void within(const TypeDef* parent, const std::vector<ast::Selection>& sels,
                std::vector<Conflict>& conflicts) {
        const FieldsAndFragments& ff = fields_of(parent, sels);
        for (const auto& [key, fields] : ff.fields)
            for (std::size_t i = 0; i < fields.size(); ++i)
                for (std::size_t j = i + 1; j < fields.size(); ++j)
                    find_conflict(false, key, fields[i], fields[j], conflicts);
        for (std::size_t i = 0; i < ff.fragments.size(); ++i) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, false, ff.fields, ff.fragments[i]);
            for (std::size_t j = i + 1; j < ff.fragments.size(); ++j)
                between_fragments(conflicts, false, ff.fragments[i], ff.fragments[j]);
        }
    }

    void fields_and_fragment(std::vector<Conflict>& conflicts, std::set<std::string_view>& compared,
                             bool exclusive, const FieldMap& fields, std::string_view fragment) {
        if (!compared.insert(fragment).second)
            return;
        const FieldsAndFragments* ff = fragment_fields(fragment);
        if (!ff || &ff->fields == &fields)
            return;
        between(conflicts, exclusive, fields, ff->fields);
        for (const auto& name : ff->fragments)
            fields_and_fragment(conflicts, compared, exclusive, fields, name);
    }

    void between_fragments(std::vector<Conflict>& conflicts, bool exclusive, std::string_view a,
                           std::string_view b) {
        if (a == b)
            return;
        const auto key = a < b ? std::make_pair(a, b) : std::make_pair(b, a);
        const auto seen = m_compared_pairs.find(key);
        if (seen != m_compared_pairs.end() && (exclusive || !seen->second))
            return;
        m_compared_pairs[key] = exclusive;
        const FieldsAndFragments* fa = fragment_fields(a);
        const FieldsAndFragments* fb = fragment_fields(b);
        if (!fa || !fb)
            return;
        between(conflicts, exclusive, fa->fields, fb->fields);
        for (const auto& name : fb->fragments)
            between_fragments(conflicts, exclusive, a, name);
        for (const auto& name : fa->fragments)
            between_fragments(conflicts, exclusive, name, b);
    }

    void between(std::vector<Conflict>& conflicts, bool exclusive, const FieldMap& a,
                 const FieldMap& b) {
        for (const auto& [key, fields_a] : a)
            for (const auto& [key_b, fields_b] : b)
                if (key == key_b)
                    for (const auto& fa : fields_a)
                        for (const auto& fb : fields_b)
                            find_conflict(exclusive, key, fa, fb, conflicts);
    }

    bool types_conflict(TypeView a, TypeView b) const {
        if (a.list())
            return b.list() ? types_conflict(a.inner(), b.inner()) : true;
        if (b.list())
            return true;
        if (a.non_null())
            return b.non_null() ? types_conflict(a.inner(), b.inner()) : true;
        if (b.non_null())
            return true;
        const TypeDef* ta = m_schema.type(a.name);
        const TypeDef* tb = m_schema.type(b.name);
        if ((ta && ta->is_leaf()) || (tb && tb->is_leaf()))
            return ta != tb;
        return false;
    }

    void find_conflict(bool parents_exclusive, std::string_view key, const FieldEntry& f1,
                       const FieldEntry& f2, std::vector<Conflict>& conflicts) {
        const bool exclusive =
            parents_exclusive ||
            (f1.parent != f2.parent && f1.parent && f2.parent &&
             f1.parent->kind == TypeKind::Object && f2.parent->kind == TypeKind::Object);
        Conflict c;
        c.key = std::string(key);
        c.locs1 = {f1.node->loc};
        c.locs2 = {f2.node->loc};
        if (!exclusive) {
            if (f1.node->name != f2.node->name) {
                c.reason.text =
                    "\"" + f1.node->name + "\" and \"" + f2.node->name + "\" are different fields";
                conflicts.push_back(std::move(c));
                return;
            }
            if (!same_arguments(*f1.node, *f2.node)) {
                c.reason.text = "they have differing arguments";
                conflicts.push_back(std::move(c));
                return;
            }
        }
        if (f1.def && f2.def && types_conflict(TypeView(f1.def->type), TypeView(f2.def->type))) {
            c.reason.text = "they return conflicting types \"" + ast::print_type(f1.def->type) +
                            "\" and \"" + ast::print_type(f2.def->type) + "\"";
            conflicts.push_back(std::move(c));
            return;
        }
        if (!f1.node->has_selection_set || !f2.node->has_selection_set)
            return;
        const TypeDef* t1 = f1.def ? m_schema.type(f1.def->type.name) : nullptr;
        const TypeDef* t2 = f2.def ? m_schema.type(f2.def->type.name) : nullptr;
        std::vector<Conflict> subs;
        sub_selections(subs, exclusive, t1, f1.node->selections, t2, f2.node->selections);
        if (subs.empty())
            return;
        for (auto& s : subs) {
            c.reason.sub_keys.push_back(s.key);
            c.reason.subs.push_back(std::move(s.reason));
            c.locs1.insert(c.locs1.end(), s.locs1.begin(), s.locs1.end());
            c.locs2.insert(c.locs2.end(), s.locs2.begin(), s.locs2.end());
        }
        conflicts.push_back(std::move(c));
    }

    void sub_selections(std::vector<Conflict>& conflicts, bool exclusive, const TypeDef* t1,
                        const std::vector<ast::Selection>& s1, const TypeDef* t2,
                        const std::vector<ast::Selection>& s2) {
        const FieldsAndFragments& a = fields_of(t1, s1);
        const FieldsAndFragments& b = fields_of(t2, s2);
        between(conflicts, exclusive, a.fields, b.fields);
        for (const auto& name : b.fragments) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, exclusive, a.fields, name);
        }
        for (const auto& name : a.fragments) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, exclusive, b.fields, name);
        }
        for (const auto& x : a.fragments)
            for (const auto& y : b.fragments)
                between_fragments(conflicts, exclusive, x, y);
    }
};

} // namespace

void check_overlapping_fields(const Schema& schema, const ast::Document& document, json& errors) {
    OverlapChecker(schema, document).run(errors);
}

} // namespace kprov::api::graphql
