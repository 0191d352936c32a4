// ValuesOfCorrectType, UniqueInputFieldNames, type comparison and "did you mean".

#include "api/graphql/execution.hpp"
#include "api/graphql/validation_rules.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace kprov::api::graphql {

using json = nlohmann::json;

void ValidationErrors::add(const std::string& message,
                           const std::vector<SourceLocation>& locations) {
    if (m_errors.size() >= k_max)
        abort();
    m_errors.push_back(error_json(message, locations));
}

void ValidationErrors::abort() {
    m_errors.push_back(
        error_json("Too many validation errors, error limit reached. Validation aborted.", {}));
    throw ValidationAborted{};
}

void report(ValidationErrors& errors, const std::string& message,
            const std::vector<SourceLocation>& locations) {
    errors.add(message, locations);
}

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// graphql-js's lexical distance: optimal string alignment, case changes alone cost 1.
std::size_t lexical_distance(std::string_view a_in, std::string_view b_in) {
    if (a_in == b_in)
        return 0;
    const std::string a = lower(a_in);
    const std::string b = lower(b_in);
    if (a == b)
        return 1;
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

void collect_into(const ast::Value& value, std::vector<VariableUsage>& usages) {
    if (value.kind == ast::ValueKind::Variable)
        usages.push_back({value.text, value.loc, {}, {}, false});
    for (const auto& item : value.items)
        collect_into(item, usages);
}

void check(const Schema& schema, const ast::Value& value, TypeView type, const std::string& shown,
           bool location_has_default, std::vector<VariableUsage>& usages,
           ValidationErrors& errors) {
    using K = ast::ValueKind;
    if (value.kind == K::Variable) {
        usages.push_back({value.text, value.loc, std::string(type.name), std::string(type.mods),
                          location_has_default});
        return;
    }
    if (type.non_null()) {
        if (value.kind == K::Null) {
            report(errors, "Expected value of type \"" + shown + "\", found null.", {value.loc});
            return;
        }
        check(schema, value, type.inner(), shown, false, usages, errors);
        return;
    }
    if (value.kind == K::Null)
        return;
    if (type.list()) {
        const TypeView item = type.inner();
        if (value.kind == K::List) {
            for (const auto& v : value.items)
                check(schema, v, item, item.print(), false, usages, errors);
        } else {
            check(schema, value, item, item.print(), false, usages, errors);
        }
        return;
    }
    const TypeDef* t = schema.type(type.name);
    if (!t || !t->is_input()) {
        collect_into(value, usages);
        return;
    }
    // A literal of the wrong shape: reported, and searched for the variables it uses.
    auto wrong_shape = [&] {
        report(errors,
               "Expected value of type \"" + shown + "\", found " + ast::print_value(value) + ".",
               {value.loc});
        collect_into(value, usages);
    };
    if (t->kind == TypeKind::InputObject) {
        if (value.kind != K::Object) {
            wrong_shape();
            return;
        }
        std::unordered_map<std::string_view, std::size_t> first; // a key's first index
        for (std::size_t i = 0; i < value.keys.size(); ++i) {
            const std::string& key = value.keys[i];
            if (const auto [it, fresh] = first.try_emplace(key, i); !fresh)
                report(errors, "There can be only one input field named \"" + key + "\".",
                       {value.key_locs[it->second], value.key_locs[i]});
            const InputValueDef* field = t->input_field(key);
            if (!field) {
                std::vector<std::string_view> names;
                for (const auto& f : t->input_fields)
                    names.push_back(f.name);
                report(errors,
                       "Field \"" + key + "\" is not defined by type \"" + t->name + "\"." +
                           did_you_mean(key, names),
                       {value.key_locs[i]});
                collect_into(value.items[i], usages);
                continue;
            }
            const TypeView field_type(field->type);
            check(schema, value.items[i], field_type, field_type.print(),
                  field->default_literal.has_value(), usages, errors);
        }
        for (const auto& field : t->input_fields) {
            const bool required =
                !field.type.mods.empty() && field.type.mods[0] == 'N' && !field.default_literal;
            if (required &&
                std::find(value.keys.begin(), value.keys.end(), field.name) == value.keys.end())
                report(errors,
                       "Field \"" + t->name + "." + field.name + "\" of required type \"" +
                           ast::print_type(field.type) + "\" was not provided.",
                       {value.loc});
        }
        return;
    }
    if (value.kind == K::List || value.kind == K::Object) {
        if (t->scalar == ScalarKind::Custom)
            collect_into(value, usages);
        else
            wrong_shape();
        return;
    }
    std::string problem;
    if (!leaf_literal_ok(*t, value, problem)) {
        if (t->kind == TypeKind::Enum && value.kind == K::Enum) {
            std::vector<std::string_view> names;
            for (const auto& v : t->enum_values)
                names.push_back(v.name);
            problem += did_you_mean(value.text, names, "the enum value ");
        }
        report(errors,
               "Expected value of type \"" + shown + "\", found " + ast::print_value(value) +
                   (problem.empty() ? "." : "; " + problem),
               {value.loc});
    }
}

} // namespace

std::string did_you_mean(std::string_view input, const std::vector<std::string_view>& options,
                         std::string_view prefix) {
    const std::size_t threshold = input.size() * 4 / 10 + 1;
    std::vector<std::pair<std::size_t, std::string_view>> close;
    for (const auto& o : options) {
        const std::size_t d = lexical_distance(input, o);
        if (d <= threshold)
            close.emplace_back(d, o);
    }
    if (close.empty())
        return {};
    std::sort(close.begin(), close.end());
    if (close.size() > 5)
        close.resize(5);
    std::string out = " Did you mean " + std::string(prefix);
    for (std::size_t i = 0; i < close.size(); ++i) {
        if (i > 0)
            out += close.size() > 2 ? ", " : " ";
        if (i > 0 && i + 1 == close.size())
            out += "or ";
        out += "\"" + std::string(close[i].second) + "\"";
    }
    return out + "?";
}

void check_value(const Schema& schema, const ast::Value& value, TypeView type,
                 bool location_has_default, std::vector<VariableUsage>& usages,
                 ValidationErrors& errors) {
    check(schema, value, type, type.print(), location_has_default, usages, errors);
}

void collect_variables(const ast::Value& value, std::vector<VariableUsage>& usages) {
    collect_into(value, usages);
}

bool is_type_subtype(const Schema& schema, TypeView sub, TypeView super) {
    if (sub.name == super.name && sub.mods == super.mods)
        return true;
    if (super.non_null())
        return sub.non_null() && is_type_subtype(schema, sub.inner(), super.inner());
    if (sub.non_null())
        return is_type_subtype(schema, sub.inner(), super);
    if (super.list())
        return sub.list() && is_type_subtype(schema, sub.inner(), super.inner());
    if (sub.list())
        return false;
    const TypeDef* a = schema.type(sub.name);
    const TypeDef* b = schema.type(super.name);
    return a && b && schema.is_subtype(*a, *b);
}

} // namespace kprov::api::graphql
