// OverlappingFieldsCanBeMerged, after graphql-js's algorithm: fields that share a response key
// must be the same field with the same arguments (unless their parents are different object
// types), return compatible shapes, and have sub-selections that merge in turn. Field maps are
// cached per selection set and fragment comparisons are made once.
//
// graphql-js compares every pair of fields with one response key, so a document that repeats a
// field n times costs n² comparisons (and, when they conflict, n² errors). Here the work stays
// linear in the document:
// - fields with one parent type, name and arguments form a class. Directives take no part in the
//   rule, so they do not split a class. A member that is a copy of an earlier one (the same
//   text, sub-selections included) is dropped: comparing it adds no conflict its original lacks.
// - a class of at most k_max_pairwise distinct members is compared member by member, as
//   graphql-js does, so that its messages are graphql-js's; a larger class is compared as one
//   field whose selection set is the union of its members' (the same documents pass; a conflict
//   between two of its members is reported where their subfields meet).
// - response keys are found by hash; a field map is compared with a fragment, and a fragment with
//   another, once (graphql-js memoizes the latter).
// - the search ends after k_max_conflicts conflicts: validation is then aborted.
// In a valid document a response key has at most one class per parent type, so the comparisons
// are bounded by the schema rather than by the document.

#include "api/graphql/validation_rules.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace kprov::api::graphql {
namespace {

using json = nlohmann::json;

constexpr std::size_t k_max_pairwise = 8;
constexpr std::size_t k_max_conflicts = ValidationErrors::k_max;

using SelectionSets = std::vector<const std::vector<ast::Selection>*>;

/// One field to compare: a class member, or a large class as a whole.
struct Unit {
    const TypeDef* parent;
    const FieldDef* def;
    const ast::Selection* node; // the (first) field: name, arguments and location
    SelectionSets sets;         // its selection sets (the members' union for a large class)
};

struct FieldClass {
    std::vector<const ast::Selection*> members; // distinct ones, in document order
    const TypeDef* parent;
    const FieldDef* def;
    std::vector<Unit> units;
};

struct KeyGroup {
    std::string_view key;
    std::vector<FieldClass> classes;
};

struct FieldsAndFragments {
    std::vector<KeyGroup> groups;
    std::unordered_map<std::string_view, std::size_t> group_index;
    std::vector<std::string_view> fragments;

    const KeyGroup* group(std::string_view key) const {
        const auto it = group_index.find(key);
        return it == group_index.end() ? nullptr : &groups[it->second];
    }
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

void print_arguments(std::string& out, const std::vector<ast::Argument>& arguments) {
    std::vector<const ast::Argument*> sorted;
    for (const auto& a : arguments)
        sorted.push_back(&a);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    out += '(';
    for (const auto* a : sorted)
        out += a->name + ':' + ast::print_value(a->value) + ',';
    out += ')';
}

/// The selection as text that is equal exactly when two selections are copies.
void print_selection(std::string& out, const ast::Selection& s) {
    out += static_cast<char>('0' + static_cast<int>(s.kind));
    out += s.alias + ':' + s.name + '|' + s.type_condition;
    print_arguments(out, s.arguments);
    for (const auto& d : s.directives) {
        out += '@' + d.name;
        print_arguments(out, d.arguments);
    }
    if (s.has_selection_set) {
        out += '{';
        for (const auto& child : s.selections)
            print_selection(out, child);
        out += '}';
    }
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
    OverlapChecker(const Schema& schema, const ast::Document& doc, ValidationStats* stats)
        : m_schema(schema)
        , m_doc(doc)
        , m_stats(stats ? *stats : m_own_stats) {}

    void run(ValidationErrors& errors) {
        for (const auto& op : m_doc.operations)
            walk(m_schema.root(op.kind), {&op.selections}, errors);
        for (const auto& f : m_doc.fragments)
            walk(m_schema.type(f.type_condition), {&f.selections}, errors);
    }

private:
    const Schema& m_schema;
    const ast::Document& m_doc;
    ValidationStats m_own_stats;
    ValidationStats& m_stats;
    std::map<const void*, FieldsAndFragments> m_cache;
    std::map<std::pair<std::string_view, std::string_view>, bool> m_compared_pairs;
    std::map<std::pair<const void*, std::string_view>, bool> m_compared_with_fields;
    std::unordered_map<const ast::Selection*, std::string> m_printed;
    std::size_t m_conflicts = 0;

    bool stopped() const { return m_conflicts >= k_max_conflicts; }

    void walk(const TypeDef* parent, const SelectionSets& sets, ValidationErrors& errors) {
        std::vector<Conflict> conflicts;
        within(parent, sets, conflicts);
        for (const auto& c : conflicts) {
            std::vector<SourceLocation> locs = c.locs1;
            locs.insert(locs.end(), c.locs2.begin(), c.locs2.end());
            report(errors,
                   "Fields \"" + c.key + "\" conflict because " + reason_message(c.reason) +
                       ". Use different aliases on the fields to fetch both if this was "
                       "intentional.",
                   locs);
        }
        if (stopped())
            errors.abort();
        // Each field's selection set in turn: a copy's only once, a large class's as one.
        for (const auto& group : fields_of(parent, sets).groups)
            for (const auto& c : group.classes)
                for (const auto& u : c.units) {
                    if (!u.node->has_selection_set)
                        continue;
                    const TypeDef* t = u.def ? m_schema.type(u.def->type.name) : nullptr;
                    walk(t && t->is_composite() ? t : nullptr, u.sets, errors);
                }
    }

    const std::string& printed(const ast::Selection& s) {
        auto [it, fresh] = m_printed.try_emplace(&s);
        if (fresh)
            print_selection(it->second, s);
        return it->second;
    }

    struct Collector {
        FieldsAndFragments out;
        std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> class_index;
        std::unordered_set<std::string_view> fragments;
        std::map<std::pair<std::size_t, std::size_t>, std::unordered_set<std::string_view>>
            copies; // printed members of the classes that have more than one
    };

    void collect(const TypeDef* parent, const std::vector<ast::Selection>& sels, Collector& c) {
        for (const auto& s : sels) {
            switch (s.kind) {
            case ast::Selection::Kind::Field:
                add_field(parent, s, c);
                break;
            case ast::Selection::Kind::FragmentSpread:
                if (c.fragments.insert(s.name).second)
                    c.out.fragments.push_back(s.name);
                break;
            case ast::Selection::Kind::InlineFragment:
                collect(s.type_condition.empty() ? parent : m_schema.type(s.type_condition),
                        s.selections, c);
                break;
            }
        }
    }

    void add_field(const TypeDef* parent, const ast::Selection& s, Collector& c) {
        ++m_stats.fields_collected;
        const std::string_view key = s.response_key();
        const auto [g, new_group] = c.out.group_index.try_emplace(key, c.out.groups.size());
        if (new_group)
            c.out.groups.push_back({key, {}});
        KeyGroup& group = c.out.groups[g->second];
        std::string class_key = std::to_string(reinterpret_cast<std::uintptr_t>(parent)) + '|' +
                                std::string(key) + '|' + s.name;
        print_arguments(class_key, s.arguments);
        const auto [k, new_class] =
            c.class_index.try_emplace(std::move(class_key), g->second, group.classes.size());
        if (new_class) {
            const FieldDef* def = parent ? m_schema.field(*parent, s.name) : nullptr;
            group.classes.push_back({{&s}, parent, def, {}});
            return;
        }
        FieldClass& cls = group.classes[k->second.second];
        auto& seen = c.copies[k->second];
        if (seen.empty())
            seen.insert(printed(*cls.members.front()));
        if (seen.insert(printed(s)).second)
            cls.members.push_back(&s);
    }

    const FieldsAndFragments& fields_of(const TypeDef* parent, const SelectionSets& sets) {
        // One set is known by its address; a union by its list's, which a Unit owns.
        const void* id = sets.size() == 1 ? static_cast<const void*>(sets.front())
                                          : static_cast<const void*>(&sets);
        const auto it = m_cache.find(id);
        if (it != m_cache.end())
            return it->second;
        Collector c;
        for (const auto* sels : sets)
            collect(parent, *sels, c);
        for (auto& group : c.out.groups)
            for (auto& cls : group.classes) {
                if (cls.members.size() <= k_max_pairwise) {
                    for (const auto* m : cls.members)
                        cls.units.push_back({cls.parent, cls.def, m, {&m->selections}});
                    continue;
                }
                Unit all{cls.parent, cls.def, cls.members.front(), {}};
                for (const auto* m : cls.members)
                    all.sets.push_back(&m->selections);
                cls.units.push_back(std::move(all));
            }
        return m_cache.emplace(id, std::move(c.out)).first->second;
    }

    const FieldsAndFragments* fragment_fields(std::string_view name) {
        const ast::Fragment* f = m_doc.fragment(name);
        return f ? &fields_of(m_schema.type(f->type_condition), {&f->selections}) : nullptr;
    }

    void within(const TypeDef* parent, const SelectionSets& sets,
                std::vector<Conflict>& conflicts) {
        const FieldsAndFragments& ff = fields_of(parent, sets);
        for (const auto& group : ff.groups)
            for (std::size_t i = 0; i < group.classes.size() && !stopped(); ++i) {
                const auto& units = group.classes[i].units;
                for (std::size_t a = 0; a < units.size(); ++a)
                    for (std::size_t b = a + 1; b < units.size(); ++b)
                        find_conflict(false, group.key, units[a], units[b], conflicts);
                for (std::size_t j = i + 1; j < group.classes.size() && !stopped(); ++j)
                    between_classes(false, group.key, group.classes[i], group.classes[j],
                                    conflicts);
            }
        for (std::size_t i = 0; i < ff.fragments.size() && !stopped(); ++i) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, false, ff, ff.fragments[i]);
            for (std::size_t j = i + 1; j < ff.fragments.size() && !stopped(); ++j)
                between_fragments(conflicts, false, ff.fragments[i], ff.fragments[j]);
        }
    }

    void between_classes(bool exclusive, std::string_view key, const FieldClass& a,
                         const FieldClass& b, std::vector<Conflict>& conflicts) {
        for (const auto& ua : a.units)
            for (const auto& ub : b.units) {
                if (stopped())
                    return;
                find_conflict(exclusive, key, ua, ub, conflicts);
            }
    }

    /// Whether the comparison `key` was made before in a way that covers this one (one that
    /// did not assume exclusive parents finds everything one that does would); marks it made.
    template <typename Key>
    static bool compared_before(std::map<Key, bool>& made, const Key& key, bool exclusive) {
        const auto seen = made.find(key);
        if (seen != made.end() && (exclusive || !seen->second))
            return true;
        made[key] = exclusive;
        return false;
    }

    void fields_and_fragment(std::vector<Conflict>& conflicts, std::set<std::string_view>& compared,
                             bool exclusive, const FieldsAndFragments& fields,
                             std::string_view fragment) {
        if (stopped() || !compared.insert(fragment).second)
            return;
        if (compared_before(m_compared_with_fields, {&fields, fragment}, exclusive))
            return;
        const FieldsAndFragments* ff = fragment_fields(fragment);
        if (!ff || ff == &fields)
            return;
        between(conflicts, exclusive, fields, *ff);
        for (const auto& name : ff->fragments)
            fields_and_fragment(conflicts, compared, exclusive, fields, name);
    }

    void between_fragments(std::vector<Conflict>& conflicts, bool exclusive, std::string_view a,
                           std::string_view b) {
        if (a == b || stopped())
            return;
        if (compared_before(m_compared_pairs, a < b ? std::pair(a, b) : std::pair(b, a), exclusive))
            return;
        const FieldsAndFragments* fa = fragment_fields(a);
        const FieldsAndFragments* fb = fragment_fields(b);
        if (!fa || !fb)
            return;
        between(conflicts, exclusive, *fa, *fb);
        for (const auto& name : fb->fragments)
            between_fragments(conflicts, exclusive, a, name);
        for (const auto& name : fa->fragments)
            between_fragments(conflicts, exclusive, name, b);
    }

    void between(std::vector<Conflict>& conflicts, bool exclusive, const FieldsAndFragments& a,
                 const FieldsAndFragments& b) {
        for (const auto& group_a : a.groups) {
            const KeyGroup* group_b = b.group(group_a.key);
            if (!group_b)
                continue;
            for (const auto& ca : group_a.classes)
                for (const auto& cb : group_b->classes) {
                    if (stopped())
                        return;
                    between_classes(exclusive, group_a.key, ca, cb, conflicts);
                }
        }
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

    void add(std::vector<Conflict>& conflicts, Conflict c) {
        ++m_conflicts;
        conflicts.push_back(std::move(c));
    }

    void find_conflict(bool parents_exclusive, std::string_view key, const Unit& f1, const Unit& f2,
                       std::vector<Conflict>& conflicts) {
        if (stopped())
            return;
        ++m_stats.field_comparisons;
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
                add(conflicts, std::move(c));
                return;
            }
            if (!same_arguments(*f1.node, *f2.node)) {
                c.reason.text = "they have differing arguments";
                add(conflicts, std::move(c));
                return;
            }
        }
        if (f1.def && f2.def && types_conflict(TypeView(f1.def->type), TypeView(f2.def->type))) {
            c.reason.text = "they return conflicting types \"" + ast::print_type(f1.def->type) +
                            "\" and \"" + ast::print_type(f2.def->type) + "\"";
            add(conflicts, std::move(c));
            return;
        }
        if (!f1.node->has_selection_set || !f2.node->has_selection_set)
            return;
        const TypeDef* t1 = f1.def ? m_schema.type(f1.def->type.name) : nullptr;
        const TypeDef* t2 = f2.def ? m_schema.type(f2.def->type.name) : nullptr;
        std::vector<Conflict> subs;
        sub_selections(subs, exclusive, t1, f1.sets, t2, f2.sets);
        if (subs.empty())
            return;
        for (auto& s : subs) {
            c.reason.sub_keys.push_back(s.key);
            c.reason.subs.push_back(std::move(s.reason));
            c.locs1.insert(c.locs1.end(), s.locs1.begin(), s.locs1.end());
            c.locs2.insert(c.locs2.end(), s.locs2.begin(), s.locs2.end());
        }
        add(conflicts, std::move(c));
    }

    void sub_selections(std::vector<Conflict>& conflicts, bool exclusive, const TypeDef* t1,
                        const SelectionSets& s1, const TypeDef* t2, const SelectionSets& s2) {
        const FieldsAndFragments& a = fields_of(t1, s1);
        const FieldsAndFragments& b = fields_of(t2, s2);
        between(conflicts, exclusive, a, b);
        for (const auto& name : b.fragments) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, exclusive, a, name);
        }
        for (const auto& name : a.fragments) {
            std::set<std::string_view> compared;
            fields_and_fragment(conflicts, compared, exclusive, b, name);
        }
        for (const auto& x : a.fragments)
            for (const auto& y : b.fragments) {
                if (stopped())
                    return;
                between_fragments(conflicts, exclusive, x, y);
            }
    }
};

} // namespace

void check_overlapping_fields(const Schema& schema, const ast::Document& document,
                              ValidationErrors& errors, ValidationStats* stats) {
    OverlapChecker(schema, document, stats).run(errors);
}

} // namespace kprov::api::graphql
