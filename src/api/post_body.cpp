#include "api/post_body.hpp"

#include "api/graphql/json_text.hpp"

namespace kprov::api {
namespace {

class Reader {
public:
    explicit Reader(std::string_view text)
        : m_text(text) {}

    void skip_space() {
        while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' ||
                                        m_text[m_at] == '\n' || m_text[m_at] == '\r'))
            ++m_at;
    }
    bool eat(char c) {
        skip_space();
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    bool at_end() {
        skip_space();
        return m_at == m_text.size();
    }
    bool at(char c) {
        skip_space();
        return m_at < m_text.size() && m_text[m_at] == c;
    }

    // A string of printable ASCII and the short escapes; false for anything else.
    bool string(std::string& out) {
        if (!eat('"'))
            return false;
        while (m_at < m_text.size()) {
            // A run of plain characters at once.
            std::size_t end = m_at;
            while (end < m_text.size() && m_text[end] >= 0x20 && m_text[end] <= 0x7e &&
                   m_text[end] != '"' && m_text[end] != '\\')
                ++end;
            out.append(m_text.substr(m_at, end - m_at));
            m_at = end;
            if (m_at == m_text.size())
                return false;
            const char c = m_text[m_at++];
            if (c == '"')
                return true;
            if (c != '\\')
                return false; // a control character or beyond ASCII
            if (m_at == m_text.size())
                return false;
            const auto unescaped = graphql::short_escape_value(m_text[m_at++]);
            if (!unescaped)
                return false; // \u and anything else: left to the full parser
            out += *unescaped;
        }
        return false;
    }

    // An object whose members are all strings that string() reads ({"id": "..."}, what most
    // clients send as variables), as JSON; a member given twice keeps the last value, as
    // nlohmann's parser does. False, with nothing consumed, for anything else.
    bool string_object(nlohmann::json& out) {
        const std::size_t start = m_at;
        nlohmann::json object = nlohmann::json::object();
        bool ok = eat('{');
        if (ok && !at('}')) {
            do {
                std::string key;
                std::string value;
                ok = string(key) && eat(':') && string(value);
                if (ok)
                    object[std::move(key)] = std::move(value);
            } while (ok && eat(','));
        }
        if (ok && eat('}')) {
            out = std::move(object);
            return true;
        }
        m_at = start;
        return false;
    }

    // The text of the next value (an object, array, string or literal), unchecked: the caller
    // parses it.
    bool value_text(std::string_view& out) {
        skip_space();
        const std::size_t start = m_at;
        int depth = 0;
        bool in_string = false;
        for (; m_at < m_text.size(); ++m_at) {
            const char c = m_text[m_at];
            if (in_string) {
                if (c == '\\')
                    ++m_at;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"') {
                in_string = true;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (depth == 0)
                    break; // the end of the enclosing object
                --depth;
            } else if (c == ',' && depth == 0) {
                break;
            }
        }
        std::size_t end = m_at;
        while (end > start && (m_text[end - 1] == ' ' || m_text[end - 1] == '\t' ||
                               m_text[end - 1] == '\n' || m_text[end - 1] == '\r'))
            --end;
        if (depth != 0 || in_string || end == start)
            return false;
        out = m_text.substr(start, end - start);
        return true;
    }

private:
    std::string_view m_text;
    std::size_t m_at = 0;
};

} // namespace

std::optional<PostBody> read_post_body(std::string_view body) {
    Reader in(body);
    PostBody out;
    bool has_query = false;
    bool has_variables = false;
    bool has_name = false;
    if (!in.eat('{'))
        return std::nullopt;
    if (!in.at('}')) {
        do {
            std::string key;
            if (!in.string(key) || !in.eat(':'))
                return std::nullopt;
            if (key == "query" && !has_query) {
                has_query = true;
                if (!in.string(out.query))
                    return std::nullopt;
            } else if (key == "operationName" && !has_name) {
                has_name = true;
                std::string_view text;
                if (in.at('"')) {
                    std::string name;
                    if (!in.string(name))
                        return std::nullopt;
                    out.operation_name = std::move(name);
                } else if (!in.value_text(text) || text != "null") {
                    return std::nullopt;
                }
            } else if (key == "variables" && !has_variables) {
                has_variables = true;
                if (in.string_object(out.variables))
                    continue;
                std::string_view text;
                if (!in.value_text(text))
                    return std::nullopt;
                out.variables = nlohmann::json::parse(text, nullptr, false);
                if (out.variables.is_discarded())
                    return std::nullopt;
            } else {
                return std::nullopt;
            }
        } while (in.eat(','));
    }
    if (!in.eat('}') || !in.at_end() || !has_query)
        return std::nullopt;
    return out;
}

} // namespace kprov::api
