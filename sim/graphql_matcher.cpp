#include "graphql_matcher.hpp"

#include <cctype>

namespace kprov::sim {

namespace {

enum class Tok { Punct, Name, Int, Float, String, End };

struct Token {
    Tok kind;
    std::string text;
    std::size_t line;
    std::size_t col;
};

class Lexer {
public:
    explicit Lexer(const std::string& s)
        : m_s(s) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        while (true) {
            skip_ignored();
            if (m_i >= m_s.size()) {
                out.push_back({Tok::End, "", m_line, col()});
                return out;
            }
            out.push_back(next());
        }
    }

private:
    std::size_t col() const { return m_i - m_line_start + 1; }

    [[noreturn]] void fail(const std::string& what) const {
        throw GqlSyntaxError("Syntax Error: " + what + " (line " + std::to_string(m_line) +
                             ", column " + std::to_string(col()) + ")");
    }

    void skip_ignored() {
        while (m_i < m_s.size()) {
            char c = m_s[m_i];
            if (c == '\n') {
                ++m_i;
                ++m_line;
                m_line_start = m_i;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '\xef' ||
                       c == '\xbb' || c == '\xbf') {
                ++m_i;
            } else if (c == '#') {
                while (m_i < m_s.size() && m_s[m_i] != '\n')
                    ++m_i;
            } else {
                return;
            }
        }
    }

    Token next() {
        Token t{Tok::Punct, "", m_line, col()};
        char c = m_s[m_i];
        if (m_s.compare(m_i, 3, "...") == 0) {
            m_i += 3;
            t.text = "...";
            return t;
        }
        if (std::string("!$()=:@[]{}|&").find(c) != std::string::npos) {
            ++m_i;
            t.text = std::string(1, c);
            return t;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            t.kind = Tok::Name;
            while (m_i < m_s.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '_'))
                t.text += m_s[m_i++];
            return t;
        }
        if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
            t.kind = Tok::Int;
            t.text += m_s[m_i++];
            while (m_i < m_s.size()) {
                char d = m_s[m_i];
                if (std::isdigit(static_cast<unsigned char>(d))) {
                    t.text += d;
                } else if (d == '.' || d == 'e' || d == 'E' ||
                           ((d == '+' || d == '-') && t.kind == Tok::Float &&
                            (t.text.back() == 'e' || t.text.back() == 'E'))) {
                    t.kind = Tok::Float;
                    t.text += d;
                } else {
                    break;
                }
                ++m_i;
            }
            if (t.text == "-")
                fail("invalid number");
            return t;
        }
        if (c == '"') {
            t.kind = Tok::String;
            t.text = m_s.compare(m_i, 3, "\"\"\"") == 0 ? block_string() : string();
            return t;
        }
        fail(std::string("unexpected character \"") + c + "\"");
    }

    std::string string() {
        std::string out;
        ++m_i;
        while (true) {
            if (m_i >= m_s.size() || m_s[m_i] == '\n')
                fail("unterminated string");
            char c = m_s[m_i++];
            if (c == '"')
                return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_i >= m_s.size())
                fail("unterminated string");
            char e = m_s[m_i++];
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                if (m_i + 4 > m_s.size())
                    fail("bad unicode escape");
                unsigned cp = static_cast<unsigned>(std::stoul(m_s.substr(m_i, 4), nullptr, 16));
                m_i += 4;
                append_utf8(out, cp);
                break;
            }
            default:
                fail(std::string("invalid escape \\") + e);
            }
        }
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    std::string block_string() {
        m_i += 3;
        std::size_t end = m_s.find("\"\"\"", m_i);
        if (end == std::string::npos)
            fail("unterminated block string");
        std::string raw = m_s.substr(m_i, end - m_i);
        for (char c : raw)
            if (c == '\n')
                ++m_line;
        m_i = end + 3;
        // Drop the leading and trailing blank lines, as the spec's block string value does.
        while (!raw.empty() && (raw.front() == '\n' || raw.front() == '\r'))
            raw.erase(raw.begin());
        while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back())))
            raw.pop_back();
        return raw;
    }

    const std::string& m_s;
    std::size_t m_i = 0;
    std::size_t m_line = 1;
    std::size_t m_line_start = 0;
};

class Parser {
public:
    Parser(std::vector<Token> toks, const Json& variables)
        : m_t(std::move(toks))
        , m_vars(variables.is_object() ? variables : Json::object()) {}

    GqlOperation document(const std::string& operation_name) {
        std::vector<GqlOperation> ops;
        std::vector<std::string> names;
        while (peek().kind != Tok::End) {
            std::string name;
            GqlOperation op = operation(name);
            ops.push_back(std::move(op));
            names.push_back(name);
        }
        if (ops.empty())
            fail("the document contains no operation");
        if (operation_name.empty()) {
            if (ops.size() > 1)
                throw GqlSyntaxError(
                    "Must provide operation name if query contains multiple operations.");
            return ops[0];
        }
        for (std::size_t i = 0; i < ops.size(); ++i)
            if (names[i] == operation_name)
                return ops[i];
        throw GqlSyntaxError("Unknown operation named \"" + operation_name + "\".");
    }

private:
    const Token& peek() const { return m_t[m_p]; }
    const Token& take() { return m_t[m_p < m_t.size() - 1 ? m_p++ : m_p]; }
    bool is(const std::string& punct) const {
        return peek().kind == Tok::Punct && peek().text == punct;
    }

    [[noreturn]] void fail(const std::string& what) const {
        const Token& t = peek();
        throw GqlSyntaxError("Syntax Error: " + what + " (line " + std::to_string(t.line) +
                             ", column " + std::to_string(t.col) + ")");
    }

    void expect(const std::string& punct) {
        if (!is(punct))
            fail("expected \"" + punct + "\", found \"" + peek().text + "\"");
        take();
    }

    std::string name() {
        if (peek().kind != Tok::Name)
            fail("expected a name, found \"" + peek().text + "\"");
        return take().text;
    }

    GqlOperation operation(std::string& op_name) {
        GqlOperation op;
        op.type = "query";
        if (peek().kind == Tok::Name) {
            op.type = take().text;
            if (op.type == "fragment")
                fail("fragments are not supported by kprov-sim's Director");
            if (op.type != "query" && op.type != "mutation" && op.type != "subscription")
                fail("unexpected \"" + op.type + "\"");
            if (peek().kind == Tok::Name)
                op_name = take().text;
            if (is("("))
                variable_definitions();
            directives();
        }
        expect("{");
        while (!is("}")) {
            if (is("..."))
                fail("fragments are not supported by kprov-sim's Director");
            op.fields.push_back(field());
        }
        expect("}");
        return op;
    }

    void variable_definitions() {
        expect("(");
        while (!is(")")) {
            expect("$");
            std::string var = name();
            expect(":");
            type_ref();
            if (is("=")) {
                take();
                Json def = value(true);
                if (!m_vars.contains(var))
                    m_vars[var] = def;
            }
            directives();
        }
        expect(")");
    }

    void type_ref() {
        if (is("[")) {
            take();
            type_ref();
            expect("]");
        } else {
            name();
        }
        if (is("!"))
            take();
    }

    void directives() {
        while (is("@")) {
            take();
            name();
            if (is("("))
                arguments();
        }
    }

    Json arguments() {
        Json args = Json::object();
        expect("(");
        while (!is(")")) {
            std::string n = name();
            expect(":");
            args[n] = value(false);
        }
        expect(")");
        return args;
    }

    GqlField field() {
        GqlField f;
        f.name = name();
        if (is(":")) {
            take();
            f.response_key = f.name;
            f.name = name();
        } else {
            f.response_key = f.name;
        }
        if (is("("))
            f.args = arguments();
        directives();
        if (is("{"))
            selection_set(f);
        return f;
    }

    /// The sub-fields of `f` (and theirs), and their names in f.selection.
    void selection_set(GqlField& f) {
        expect("{");
        while (!is("}")) {
            if (is("..."))
                fail("fragments are not supported by kprov-sim's Director");
            GqlField sub = field();
            f.selection.push_back(sub.name);
            f.children.push_back(std::move(sub));
        }
        expect("}");
    }

    Json value(bool is_const) {
        const Token& t = peek();
        if (t.kind == Tok::Punct && t.text == "$") {
            if (is_const)
                fail("variables are not allowed in default values");
            take();
            std::string var = name();
            return m_vars.contains(var) ? m_vars[var] : Json();
        }
        if (t.kind == Tok::Int) {
            take();
            return Json::parse(t.text);
        }
        if (t.kind == Tok::Float) {
            take();
            return std::stod(t.text);
        }
        if (t.kind == Tok::String) {
            return take().text;
        }
        if (t.kind == Tok::Name) {
            std::string n = take().text;
            if (n == "true" || n == "false")
                return n == "true";
            if (n == "null")
                return nullptr;
            return n; // enum value
        }
        if (is("[")) {
            take();
            Json list = Json::array();
            while (!is("]"))
                list.push_back(value(is_const));
            expect("]");
            return list;
        }
        if (is("{")) {
            take();
            Json obj = Json::object();
            while (!is("}")) {
                // Object keys are names; quoted keys are accepted too because JSON-style label
                // literals ({"key": "value"}) occur in generated queries.
                std::string key = peek().kind == Tok::String ? take().text : name();
                expect(":");
                obj[key] = value(is_const);
            }
            expect("}");
            return obj;
        }
        fail("unexpected \"" + t.text + "\"");
    }

    std::vector<Token> m_t;
    std::size_t m_p = 0;
    Json m_vars;
};

} // namespace

GqlOperation parse_graphql(const std::string& document, const Json& variables,
                           const std::string& operation_name) {
    Lexer lexer(document);
    Parser parser(lexer.run(), variables);
    return parser.document(operation_name);
}

} // namespace kprov::sim
