#include "cli/label_selector.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

namespace kprov::cli {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

bool is_key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '/' ||
           c == '-';
}

bool is_value_char(char c) {
    return !is_space(c) && c != ',' && c != '(' && c != ')' && c != '=' && c != '!' &&
           static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
}

// A cursor over the selector's text that reports what it expected where.
class Parser {
public:
    explicit Parser(std::string_view text)
        : m_text(text) {}

    LabelSelector parse() {
        LabelSelector out;
        do {
            out.push_back(requirement());
            skip_spaces();
        } while (take(','));
        if (!at_end())
            fail("expected ',' or the end of the selector");
        return out;
    }

private:
    LabelRequirement requirement() {
        skip_spaces();
        LabelRequirement r;
        if (take('!')) {
            skip_spaces();
            r.key = key();
            r.op = LabelRequirement::Op::NotExists;
            return r;
        }
        r.key = key();
        skip_spaces();
        if (at_end() || peek() == ',') {
            r.op = LabelRequirement::Op::Exists;
            return r;
        }
        if (take('=')) {
            take('=');
            r.op = LabelRequirement::Op::Equals;
            r.values.push_back(value());
        } else if (take('!')) {
            if (!take('='))
                fail("expected '!=' after the key");
            r.op = LabelRequirement::Op::NotEquals;
            r.values.push_back(value());
        } else if (take_word("notin")) {
            r.op = LabelRequirement::Op::NotIn;
            r.values = value_set();
        } else if (take_word("in")) {
            r.op = LabelRequirement::Op::In;
            r.values = value_set();
        } else {
            fail("expected '=', '==', '!=', 'in', 'notin', ',' or the end after key \"" + r.key +
                 "\"");
        }
        return r;
    }

    std::string key() {
        const std::size_t start = m_pos;
        while (!at_end() && is_key_char(peek()))
            ++m_pos;
        if (m_pos == start)
            fail("expected a label key (letters, digits and ._/-)");
        return std::string(m_text.substr(start, m_pos - start));
    }

    // A value may be empty, as kubectl's `key=` (the label is the empty string).
    std::string value() {
        skip_spaces();
        const std::size_t start = m_pos;
        while (!at_end() && is_value_char(peek()))
            ++m_pos;
        return std::string(m_text.substr(start, m_pos - start));
    }

    std::vector<std::string> value_set() {
        skip_spaces();
        if (!take('('))
            fail("expected '(' to start the set of values");
        std::vector<std::string> values;
        do {
            values.push_back(value());
            skip_spaces();
        } while (take(','));
        if (!take(')'))
            fail("expected ',' or ')' in the set of values");
        if (values.size() == 1 && values.front().empty())
            fail("expected at least one value in the set");
        return values;
    }

    // `word` followed by a space or '(' (so that a key such as "index" is not "in" + "dex").
    bool take_word(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        const std::size_t after = m_pos + word.size();
        if (after < m_text.size() && !is_space(m_text[after]) && m_text[after] != '(')
            return false;
        m_pos = after;
        return true;
    }

    bool take(char c) {
        if (at_end() || peek() != c)
            return false;
        ++m_pos;
        return true;
    }

    void skip_spaces() {
        while (!at_end() && is_space(peek()))
            ++m_pos;
    }

    bool at_end() const { return m_pos >= m_text.size(); }
    char peek() const { return m_text[m_pos]; }

    [[noreturn]] void fail(const std::string& expected) const {
        throw InvalidSelector("at character " + std::to_string(m_pos + 1) + ": " + expected);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

// The label's value as selectors compare it; nullopt when the runtime has no such label.
std::optional<std::string> label_text(const nlohmann::json& labels, const std::string& key) {
    if (!labels.is_object())
        return std::nullopt;
    const auto it = labels.find(key);
    if (it == labels.end())
        return std::nullopt;
    return it->is_string() ? it->get<std::string>() : it->dump();
}

bool holds(const LabelRequirement& r, const std::optional<std::string>& value) {
    const auto listed = [&] {
        return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    };
    switch (r.op) {
    case LabelRequirement::Op::Exists:
        return value.has_value();
    case LabelRequirement::Op::NotExists:
        return !value.has_value();
    case LabelRequirement::Op::Equals:
    case LabelRequirement::Op::In:
        return listed();
    case LabelRequirement::Op::NotEquals:
    case LabelRequirement::Op::NotIn:
        // As kubectl: a runtime without the label is not "team=orders", so it matches.
        return !listed();
    }
    return false;
}

} // namespace

LabelSelector parse_label_selector(std::string_view text) {
    return Parser(text).parse();
}

bool selector_matches(const LabelSelector& selector, const std::string& labels_json) {
    if (selector.empty())
        return true;
    const auto labels = nlohmann::json::parse(labels_json, nullptr, /*allow_exceptions=*/false);
    return std::all_of(selector.begin(), selector.end(), [&](const LabelRequirement& r) {
        return holds(r, label_text(labels, r.key));
    });
}

std::vector<std::pair<std::string, std::string>>
equality_requirements(const LabelSelector& selector, LabelSelector& rest) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : selector) {
        if (r.op == LabelRequirement::Op::Equals)
            out.emplace_back(r.key, r.values.front());
        else
            rest.push_back(r);
    }
    return out;
}

} // namespace kprov::cli
