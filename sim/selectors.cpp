#include "selectors.hpp"

#include <algorithm>
#include <cctype>

namespace kprov::sim {

namespace {

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return "";
    std::size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

/// Splits on commas that are not inside parentheses.
std::vector<std::string> split_terms(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : text) {
        if (c == '(')
            ++depth;
        if (c == ')')
            --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(trim(cur));
    return out;
}

bool valid_key(const std::string& k) {
    if (k.empty())
        return false;
    for (char c : k) {
        auto u = static_cast<unsigned char>(c);
        if (!std::isalnum(u) && c != '-' && c != '_' && c != '.' && c != '/')
            return false;
    }
    return true;
}

std::string label_value(const Json& labels, const std::string& key, bool& present) {
    present = labels.is_object() && labels.contains(key) && labels[key].is_string();
    return present ? labels[key].get<std::string>() : std::string();
}

} // namespace

LabelSelector LabelSelector::parse(const std::string& text) {
    LabelSelector sel;
    if (trim(text).empty())
        return sel;
    auto fail = [&](const std::string& term) {
        return bad_request("unable to parse requirement: invalid label selector \"" + text +
                           "\" near \"" + term + "\"");
    };
    for (const auto& term : split_terms(text)) {
        if (term.empty())
            throw fail(term);
        Term t;
        if (term[0] == '!') {
            t.key = trim(term.substr(1));
            t.op = Op::NotExists;
        } else if (auto p = term.find("!="); p != std::string::npos) {
            t.key = trim(term.substr(0, p));
            t.op = Op::NotEquals;
            t.values.push_back(trim(term.substr(p + 2)));
        } else if (auto q = term.find("=="); q != std::string::npos) {
            t.key = trim(term.substr(0, q));
            t.op = Op::Equals;
            t.values.push_back(trim(term.substr(q + 2)));
        } else if (auto r = term.find('='); r != std::string::npos) {
            t.key = trim(term.substr(0, r));
            t.op = Op::Equals;
            t.values.push_back(trim(term.substr(r + 1)));
        } else if (auto open = term.find('('); open != std::string::npos) {
            std::string head = trim(term.substr(0, open));
            std::size_t close = term.rfind(')');
            if (close == std::string::npos || close < open || !trim(term.substr(close + 1)).empty())
                throw fail(term);
            std::size_t sp = head.find_last_of(" \t");
            if (sp == std::string::npos)
                throw fail(term);
            std::string op = trim(head.substr(sp + 1));
            t.key = trim(head.substr(0, sp));
            if (op == "in")
                t.op = Op::In;
            else if (op == "notin")
                t.op = Op::NotIn;
            else
                throw fail(term);
            std::string inner = term.substr(open + 1, close - open - 1);
            std::string cur;
            for (char c : inner + ",") {
                if (c == ',') {
                    t.values.push_back(trim(cur));
                    cur.clear();
                } else {
                    cur += c;
                }
            }
        } else {
            t.key = term;
            t.op = Op::Exists;
        }
        if (!valid_key(t.key))
            throw fail(term);
        sel.m_terms.push_back(std::move(t));
    }
    return sel;
}

bool LabelSelector::matches(const Json& labels) const {
    for (const auto& t : m_terms) {
        bool present = false;
        std::string v = label_value(labels, t.key, present);
        bool ok = true;
        switch (t.op) {
        case Op::Equals:
            ok = present && v == t.values[0];
            break;
        case Op::NotEquals:
            ok = !present || v != t.values[0];
            break;
        case Op::In:
            ok = present && std::find(t.values.begin(), t.values.end(), v) != t.values.end();
            break;
        case Op::NotIn:
            ok = !present || std::find(t.values.begin(), t.values.end(), v) == t.values.end();
            break;
        case Op::Exists:
            ok = present;
            break;
        case Op::NotExists:
            ok = !present;
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

FieldSelector FieldSelector::parse(const std::string& text,
                                   const std::map<std::string, std::string>& fields) {
    FieldSelector sel;
    if (trim(text).empty())
        return sel;
    for (const auto& term : split_terms(text)) {
        Term t;
        std::string label;
        if (auto p = term.find("!="); p != std::string::npos) {
            label = trim(term.substr(0, p));
            t.equals = false;
            t.value = trim(term.substr(p + 2));
        } else if (auto q = term.find("=="); q != std::string::npos) {
            label = trim(term.substr(0, q));
            t.equals = true;
            t.value = trim(term.substr(q + 2));
        } else if (auto r = term.find('='); r != std::string::npos) {
            label = trim(term.substr(0, r));
            t.equals = true;
            t.value = trim(term.substr(r + 1));
        } else {
            throw bad_request("invalid selector: '" + text + "'; can't understand '" + term + "'");
        }
        auto it = fields.find(label);
        if (it == fields.end())
            throw bad_request("field label not supported: " + label);
        t.pointer = it->second;
        sel.m_terms.push_back(std::move(t));
    }
    return sel;
}

bool FieldSelector::matches(const Json& object) const {
    for (const auto& t : m_terms) {
        Json::json_pointer ptr(t.pointer);
        std::string v;
        if (object.contains(ptr) && object.at(ptr).is_string())
            v = object.at(ptr).get<std::string>();
        if ((v == t.value) != t.equals)
            return false;
    }
    return true;
}

} // namespace kprov::sim
