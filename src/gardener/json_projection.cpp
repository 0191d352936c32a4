#include "gardener/json_projection.hpp"

namespace kprov::gardener {
namespace {

using nlohmann::json;
using Node = JsonProjection::Node;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A cursor over the text. Every method returns false, leaving the cursor anywhere, when the
// text breaks JSON's grammar at that point.
class Scanner {
public:
    explicit Scanner(std::string_view text)
        : m_p(text.data())
        , m_end(text.data() + text.size()) {}

    bool at_end() {
        skip_space();
        return m_p == m_end;
    }

    // The value at the cursor, projected along `node`, into `out`.
    bool value(const Node& node, json& out) {
        skip_space();
        if (!node.members.empty() && m_p != m_end && *m_p == '{')
            return object(node, out);
        const char* start = m_p;
        if (!skip_value())
            return false;
        out = json::parse(start, m_p, nullptr, false);
        return !out.is_discarded();
    }

private:
    const char* m_p;
    const char* m_end;

    void skip_space() {
        while (m_p != m_end && is_space(*m_p))
            ++m_p;
    }

    bool take(char c) {
        skip_space();
        if (m_p == m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }

    // An object along `node`: members on a path are projected further, the others skipped.
    bool object(const Node& node, json& out) {
        ++m_p; // '{'
        out = json::object();
        if (take('}'))
            return true;
        std::string key;
        do {
            if (!member_name(key))
                return false;
            const auto it = node.members.find(key);
            if (it == node.members.end()) {
                if (!skip_value())
                    return false;
            } else {
                json& slot = out[key]; // a repeated name: the last one wins, as in nlohmann
                slot = nullptr;
                if (!value(it->second, slot))
                    return false;
            }
        } while (take(','));
        return take('}');
    }

    // `"name" :`, the name decoded into `out`.
    bool member_name(std::string& out) {
        skip_space();
        const char* start = m_p;
        bool escaped = false;
        if (!skip_string(&escaped))
            return false;
        if (!escaped) {
            out.assign(start + 1, m_p - 1);
        } else {
            const json decoded = json::parse(start, m_p, nullptr, false);
            if (!decoded.is_string())
                return false;
            out = decoded.get<std::string>();
        }
        return take(':');
    }

    // A string at the cursor: no raw control characters, only JSON's escapes.
    bool skip_string(bool* escaped = nullptr) {
        if (m_p == m_end || *m_p != '"')
            return false;
        ++m_p;
        while (m_p != m_end) {
            const char c = *m_p++;
            if (c == '"')
                return true;
            if (static_cast<unsigned char>(c) < 0x20)
                return false;
            if (c != '\\')
                continue;
            if (escaped)
                *escaped = true;
            if (m_p == m_end)
                return false;
            const char e = *m_p++;
            if (e == 'u') {
                // UTF-16 surrogates come in pairs: a high one, then \u and a low one.
                const int unit = hex4();
                if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF))
                    return false;
                if (unit >= 0xD800 && unit <= 0xDBFF) {
                    if (m_end - m_p < 2 || m_p[0] != '\\' || m_p[1] != 'u')
                        return false;
                    m_p += 2;
                    const int low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        return false;
                }
            } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                       e != 'r' && e != 't') {
                return false;
            }
        }
        return false;
    }

    // Four hex digits at the cursor as a number; -1 if they are not there.
    int hex4() {
        int value = 0;
        for (int i = 0; i < 4; ++i, ++m_p) {
            if (m_p == m_end || !is_hex(*m_p))
                return -1;
            const char c = *m_p;
            value = value * 16 + (is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return value;
    }

    bool skip_digits() {
        const char* start = m_p;
        while (m_p != m_end && is_digit(*m_p))
            ++m_p;
        return m_p != start;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    bool skip_number() {
        if (m_p != m_end && *m_p == '-')
            ++m_p;
        if (m_p == m_end)
            return false;
        if (*m_p == '0')
            ++m_p;
        else if (!skip_digits())
            return false;
        if (m_p != m_end && *m_p == '.') {
            ++m_p;
            if (!skip_digits())
                return false;
        }
        if (m_p != m_end && (*m_p == 'e' || *m_p == 'E')) {
            ++m_p;
            if (m_p != m_end && (*m_p == '+' || *m_p == '-'))
                ++m_p;
            if (!skip_digits())
                return false;
        }
        return true;
    }

    bool skip_word(std::string_view word) {
        if (static_cast<std::size_t>(m_end - m_p) < word.size() ||
            std::string_view(m_p, word.size()) != word)
            return false;
        m_p += word.size();
        return true;
    }

    bool skip_scalar() {
        switch (*m_p) {
        case '"':
            return skip_string();
        case 't':
            return skip_word("true");
        case 'f':
            return skip_word("false");
        case 'n':
            return skip_word("null");
        default:
            return skip_number();
        }
    }

    // One whole value, nested ones included, without recursion: `closers` holds the bracket
    // each open array or object still needs.
    bool skip_value() {
        std::string closers;
        for (;;) {
            skip_space();
            if (m_p == m_end)
                return false;
            if (*m_p == '{' || *m_p == '[') {
                const char closer = *m_p == '{' ? '}' : ']';
                ++m_p;
                if (take(closer)) {
                    // empty: a complete value
                } else {
                    closers.push_back(closer);
                    if (closer == '}' && !skip_member_name())
                        return false;
                    continue;
                }
            } else if (!skip_scalar()) {
                return false;
            }
            // A value ended: close what it ends, or go on to the next element.
            for (;;) {
                if (closers.empty())
                    return true;
                if (take(',')) {
                    if (closers.back() == '}' && !skip_member_name())
                        return false;
                    break;
                }
                if (!take(closers.back()))
                    return false;
                closers.pop_back();
            }
        }
    }

    bool skip_member_name() {
        skip_space();
        return skip_string() && take(':');
    }
};

void add_path(Node& root, std::string_view path) {
    Node* node = &root;
    while (!path.empty()) {
        const auto dot = path.find('.');
        const std::string_view name = path.substr(0, dot);
        node = &node->members[std::string(name)];
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
}

json project_node(const Node& node, const json& value) {
    if (node.members.empty() || !value.is_object())
        return value;
    json out = json::object();
    for (const auto& [name, child] : node.members)
        if (const auto it = value.find(name); it != value.end())
            out[name] = project_node(child, *it);
    return out;
}

} // namespace

JsonProjection::JsonProjection(const std::vector<std::string>& paths) {
    for (const auto& p : paths)
        add_path(m_root, p);
}

std::optional<nlohmann::json> JsonProjection::parse(std::string_view text) const {
    Scanner scanner(text);
    json out;
    if (!scanner.value(m_root, out) || !scanner.at_end())
        return std::nullopt;
    return out;
}

nlohmann::json JsonProjection::project(const nlohmann::json& value) const {
    return project_node(m_root, value);
}

} // namespace kprov::gardener
