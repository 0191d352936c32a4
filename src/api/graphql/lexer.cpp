#include "api/graphql/lexer.hpp"

#include "api/graphql/json_text.hpp"

#include <cstdio>

namespace kprov::api::graphql {
namespace {

bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_name_continue(char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::string code_point_text(std::uint32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
    return buf;
}

class Lexer {
public:
    Lexer(std::string_view source, std::size_t max_tokens)
        : m_src(source)
        , m_max_tokens(max_tokens) {}

    std::vector<Token> run() {
        std::vector<Token> tokens;
        if (m_src.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = m_col_pos = m_line_start = 3;
        for (;;) {
            Token t = next();
            const bool end = t.kind == TokenKind::End;
            tokens.push_back(std::move(t));
            if (end)
                return tokens;
            if (tokens.size() > m_max_tokens)
                throw SyntaxError("Syntax Error: Document contains more than " +
                                      std::to_string(m_max_tokens) + " tokens.",
                                  tokens.back().loc);
        }
    }

private:
    std::string_view m_src;
    std::size_t m_max_tokens;
    std::size_t m_pos = 0;
    int m_line = 1;
    std::size_t m_line_start = 0;
    // Columns count code points; computed incrementally so that long lines stay linear.
    std::size_t m_col_pos = 0;
    int m_col = 1;

    SourceLocation location(std::size_t at) {
        if (at < m_col_pos || m_col_pos < m_line_start) {
            m_col_pos = m_line_start;
            m_col = 1;
        }
        for (; m_col_pos < at; ++m_col_pos)
            if ((static_cast<unsigned char>(m_src[m_col_pos]) & 0xC0) != 0x80)
                ++m_col;
        return {m_line, m_col};
    }

    [[noreturn]] void fail(const std::string& message, std::size_t at) {
        throw SyntaxError("Syntax Error: " + message, location(at));
    }

    void new_line(std::size_t next_line_start) {
        ++m_line;
        m_line_start = next_line_start;
    }

    char peek(std::size_t at) const { return at < m_src.size() ? m_src[at] : '\0'; }

    /// Decodes one UTF-8 sequence at `at`; 0 length when it is not valid UTF-8.
    std::size_t decode(std::size_t at, std::uint32_t& cp) const {
        const auto b0 = static_cast<unsigned char>(m_src[at]);
        if (b0 < 0x80) {
            cp = b0;
            return 1;
        }
        std::size_t len = 0;
        std::uint32_t min = 0;
        if ((b0 & 0xE0) == 0xC0) {
            len = 2;
            cp = b0 & 0x1F;
            min = 0x80;
        } else if ((b0 & 0xF0) == 0xE0) {
            len = 3;
            cp = b0 & 0x0F;
            min = 0x800;
        } else if ((b0 & 0xF8) == 0xF0) {
            len = 4;
            cp = b0 & 0x07;
            min = 0x10000;
        } else {
            return 0;
        }
        if (at + len > m_src.size())
            return 0;
        for (std::size_t i = 1; i < len; ++i) {
            const auto b = static_cast<unsigned char>(m_src[at + i]);
            if ((b & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        return len;
    }

    [[noreturn]] void fail_character(std::size_t at, bool in_string) {
        std::uint32_t cp = 0;
        const std::size_t len = decode(at, cp);
        if (len == 0)
            fail("Invalid UTF-8 byte " + code_point_text(static_cast<unsigned char>(m_src[at])) +
                     ".",
                 at);
        if (in_string)
            fail("Invalid character within String: " + code_point_text(cp) + ".", at);
        if (cp < 0x20 || cp == 0x7F)
            fail("Invalid character: " + code_point_text(cp) + ".", at);
        fail("Unexpected character: \"" + std::string(m_src.substr(at, len)) + "\".", at);
    }

    void skip_ignored() {
        while (m_pos < m_src.size()) {
            const char c = m_src[m_pos];
            if (c == ' ' || c == '\t' || c == ',') {
                ++m_pos;
            } else if (c == '\n') {
                new_line(++m_pos);
            } else if (c == '\r') {
                m_pos += peek(m_pos + 1) == '\n' ? 2 : 1;
                new_line(m_pos);
            } else if (c == '#') {
                while (m_pos < m_src.size() && m_src[m_pos] != '\n' && m_src[m_pos] != '\r') {
                    std::uint32_t cp = 0;
                    const std::size_t len = decode(m_pos, cp);
                    if (len == 0 || (cp < 0x20 && cp != '\t'))
                        fail_character(m_pos, false);
                    m_pos += len;
                }
            } else if (m_src.substr(m_pos, 3) == "\xEF\xBB\xBF") {
                m_pos += 3;
            } else {
                return;
            }
        }
    }

    Token make(TokenKind kind, std::size_t start, std::size_t end) {
        Token t;
        t.kind = kind;
        t.loc = location(start);
        t.raw = m_src.substr(start, end - start);
        m_pos = end;
        return t;
    }

    Token next() {
        skip_ignored();
        const std::size_t start = m_pos;
        if (m_pos >= m_src.size())
            return make(TokenKind::End, start, start);
        const char c = m_src[m_pos];
        switch (c) {
        case '!':
            return make(TokenKind::Bang, start, start + 1);
        case '$':
            return make(TokenKind::Dollar, start, start + 1);
        case '&':
            return make(TokenKind::Amp, start, start + 1);
        case '(':
            return make(TokenKind::ParenL, start, start + 1);
        case ')':
            return make(TokenKind::ParenR, start, start + 1);
        case ':':
            return make(TokenKind::Colon, start, start + 1);
        case '=':
            return make(TokenKind::Equals, start, start + 1);
        case '@':
            return make(TokenKind::At, start, start + 1);
        case '[':
            return make(TokenKind::BracketL, start, start + 1);
        case ']':
            return make(TokenKind::BracketR, start, start + 1);
        case '{':
            return make(TokenKind::BraceL, start, start + 1);
        case '|':
            return make(TokenKind::Pipe, start, start + 1);
        case '}':
            return make(TokenKind::BraceR, start, start + 1);
        case '.':
            if (peek(start + 1) == '.' && peek(start + 2) == '.')
                return make(TokenKind::Spread, start, start + 3);
            fail_character(start, false);
        case '"':
            if (peek(start + 1) == '"' && peek(start + 2) == '"')
                return block_string(start);
            return string(start);
        default:
            break;
        }
        if (is_name_start(c)) {
            std::size_t end = start + 1;
            while (end < m_src.size() && is_name_continue(m_src[end]))
                ++end;
            return make(TokenKind::Name, start, end);
        }
        if (c == '-' || is_digit(c))
            return number(start);
        fail_character(start, false);
    }

    std::size_t digits(std::size_t at) {
        if (!is_digit(peek(at))) {
            if (at >= m_src.size())
                fail("Invalid number, expected digit but got: <EOF>.", at);
            std::uint32_t cp = 0;
            const std::size_t len = decode(at, cp);
            fail("Invalid number, expected digit but got: " +
                     (len == 0 || cp < 0x20 ? code_point_text(static_cast<unsigned char>(m_src[at]))
                                            : "\"" + std::string(m_src.substr(at, len)) + "\"") +
                     ".",
                 at);
        }
        while (is_digit(peek(at)))
            ++at;
        return at;
    }

    Token number(std::size_t start) {
        std::size_t at = start;
        bool is_float = false;
        if (peek(at) == '-')
            ++at;
        if (peek(at) == '0') {
            ++at;
            if (is_digit(peek(at)))
                fail("Invalid number, unexpected digit after 0: \"" + std::string(1, peek(at)) +
                         "\".",
                     at);
        } else {
            at = digits(at);
        }
        if (peek(at) == '.') {
            is_float = true;
            at = digits(at + 1);
        }
        if (peek(at) == 'e' || peek(at) == 'E') {
            is_float = true;
            ++at;
            if (peek(at) == '+' || peek(at) == '-')
                ++at;
            at = digits(at);
        }
        if (peek(at) == '.' || is_name_start(peek(at)))
            fail("Invalid number, expected digit but got: \"" + std::string(1, peek(at)) + "\".",
                 at);
        return make(is_float ? TokenKind::Float : TokenKind::Int, start, at);
    }

    std::uint32_t read_hex(std::size_t at, std::size_t count) const {
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const int h = hex_value(peek(at + i));
            if (h < 0)
                return 0xFFFFFFFF;
            v = v * 16 + static_cast<std::uint32_t>(h);
        }
        return v;
    }

    /// Reads a \u escape at `at` (pointing at the backslash); returns its length.
    std::size_t unicode_escape(std::size_t at, std::string& out) {
        auto invalid = [&](std::size_t len) {
            // Only the printable ASCII of the sequence: the rest may not even be UTF-8.
            std::string shown;
            for (std::size_t i = at; i < m_src.size() && i < at + len; ++i) {
                if (m_src[i] < 0x20 || m_src[i] > 0x7E)
                    break;
                shown += m_src[i];
            }
            fail("Invalid Unicode escape sequence: \"" + shown + "\".", at);
        };
        if (peek(at + 2) == '{') {
            std::size_t i = at + 3;
            std::uint32_t v = 0;
            while (i < m_src.size() && m_src[i] != '}') {
                const int h = hex_value(m_src[i]);
                if (h < 0 || v > 0x10FFFF)
                    invalid(i - at + 1);
                v = v * 16 + static_cast<std::uint32_t>(h);
                ++i;
            }
            if (i >= m_src.size() || i == at + 3 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
                invalid(i - at + 1);
            append_utf8(out, v);
            return i - at + 1;
        }
        const std::uint32_t v = read_hex(at + 2, 4);
        if (v == 0xFFFFFFFF)
            invalid(6);
        if (v >= 0xD800 && v <= 0xDBFF) {
            const std::uint32_t low =
                peek(at + 6) == '\\' && peek(at + 7) == 'u' ? read_hex(at + 8, 4) : 0xFFFFFFFF;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                append_utf8(out, 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00));
                return 12;
            }
            invalid(6);
        }
        if (v >= 0xDC00 && v <= 0xDFFF)
            invalid(6);
        append_utf8(out, v);
        return 6;
    }

    Token string(std::size_t start) {
        std::string value;
        std::size_t at = start + 1;
        for (;;) {
            if (at >= m_src.size() || m_src[at] == '\n' || m_src[at] == '\r')
                fail("Unterminated string.", at);
            const char c = m_src[at];
            if (c == '"')
                break;
            if (c == '\\') {
                const char e = peek(at + 1);
                if (const auto unescaped = short_escape_value(e)) {
                    value += *unescaped;
                    at += 2;
                    continue;
                }
                if (e == 'u') {
                    at += unicode_escape(at, value);
                    continue;
                }
                std::uint32_t cp = 0;
                const std::size_t len = at + 1 < m_src.size() ? decode(at + 1, cp) : 0;
                fail("Invalid character escape sequence: \"\\" +
                         std::string(m_src.substr(at + 1, len)) + "\".",
                     at);
            }
            std::uint32_t cp = 0;
            const std::size_t len = decode(at, cp);
            if (len == 0 || (cp < 0x20 && cp != '\t'))
                fail_character(at, true);
            value.append(m_src.substr(at, len));
            at += len;
        }
        Token t = make(TokenKind::String, start, at + 1);
        t.value = std::move(value);
        return t;
    }

    Token block_string(std::size_t start) {
        std::string raw;
        std::size_t at = start + 3;
        const int first_line = m_line;
        const std::size_t first_line_start = m_line_start;
        for (;;) {
            if (at >= m_src.size())
                fail("Unterminated string.", at);
            const char c = m_src[at];
            if (c == '"' && peek(at + 1) == '"' && peek(at + 2) == '"')
                break;
            if (c == '\\' && m_src.substr(at + 1, 3) == "\"\"\"") {
                raw += "\"\"\"";
                at += 4;
                continue;
            }
            if (c == '\n' || c == '\r') {
                raw += '\n';
                at += (c == '\r' && peek(at + 1) == '\n') ? 2 : 1;
                new_line(at);
                continue;
            }
            std::uint32_t cp = 0;
            const std::size_t len = decode(at, cp);
            if (len == 0 || (cp < 0x20 && cp != '\t'))
                fail_character(at, true);
            raw.append(m_src.substr(at, len));
            at += len;
        }
        // The token starts where it was, on its first line.
        const int end_line = m_line;
        const std::size_t end_line_start = m_line_start;
        m_line = first_line;
        m_line_start = first_line_start;
        m_col_pos = first_line_start;
        m_col = 1;
        Token t = make(TokenKind::BlockString, start, at + 3);
        m_line = end_line;
        m_line_start = end_line_start;
        t.value = dedent(raw);
        return t;
    }

    static std::string dedent(const std::string& raw) {
        std::vector<std::string_view> lines;
        std::string_view rest = raw;
        for (;;) {
            const auto nl = rest.find('\n');
            lines.push_back(rest.substr(0, nl));
            if (nl == std::string_view::npos)
                break;
            rest.remove_prefix(nl + 1);
        }
        auto indent = [](std::string_view line) {
            std::size_t i = 0;
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
                ++i;
            return i;
        };
        std::size_t common = std::string_view::npos;
        for (std::size_t i = 1; i < lines.size(); ++i) {
            const std::size_t n = indent(lines[i]);
            if (n < lines[i].size() && n < common)
                common = n;
        }
        if (common != std::string_view::npos)
            for (std::size_t i = 1; i < lines.size(); ++i)
                lines[i].remove_prefix(std::min(common, lines[i].size()));
        std::size_t first = 0;
        std::size_t last = lines.size();
        while (first < last && indent(lines[first]) == lines[first].size())
            ++first;
        while (last > first && indent(lines[last - 1]) == lines[last - 1].size())
            --last;
        std::string out;
        for (std::size_t i = first; i < last; ++i) {
            if (i > first)
                out += '\n';
            out.append(lines[i]);
        }
        return out;
    }
};

} // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string sanitize_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        std::size_t len = b0 < 0x80             ? 1
                          : (b0 & 0xE0) == 0xC0 ? 2
                          : (b0 & 0xF0) == 0xE0 ? 3
                          : (b0 & 0xF8) == 0xF0 ? 4
                                                : 0;
        std::uint32_t cp = len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
        bool ok = len != 0 && i + len <= text.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            const auto b = static_cast<unsigned char>(text[i + k]);
            ok = (b & 0xC0) == 0x80;
            cp = (cp << 6) | (b & 0x3Fu);
        }
        static constexpr std::uint32_t k_min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (ok && len > 1)
            ok = cp >= k_min[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        if (ok) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++i;
        }
    }
    return out;
}

std::vector<Token> tokenize(std::string_view source, std::size_t max_tokens) {
    return Lexer(source, max_tokens).run();
}

std::string describe(const Token& token) {
    switch (token.kind) {
    case TokenKind::End:
        return "<EOF>";
    case TokenKind::Name:
        return "Name \"" + std::string(token.raw) + "\"";
    case TokenKind::Int:
        return "Int \"" + std::string(token.raw) + "\"";
    case TokenKind::Float:
        return "Float \"" + std::string(token.raw) + "\"";
    case TokenKind::String:
        return "String \"" + token.value + "\"";
    case TokenKind::BlockString:
        return "BlockString \"" + token.value + "\"";
    default:
        return "\"" + std::string(token.raw) + "\"";
    }
}

} // namespace kprov::api::graphql
