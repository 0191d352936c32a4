#include "api/graphql/lexer.hpp"

#include <gtest/gtest.h>

namespace kprov::api::graphql {
namespace {

std::vector<Token> lex(std::string_view source) {
    return tokenize(source, 10000);
}

std::string lex_error(std::string_view source, SourceLocation* where = nullptr) {
    try {
        lex(source);
    } catch (const SyntaxError& e) {
        if (where)
            *where = e.where;
        return e.what();
    }
    return "no error";
}

std::string string_value(std::string_view source) {
    const auto tokens = lex(source);
    EXPECT_TRUE(tokens[0].kind == TokenKind::String || tokens[0].kind == TokenKind::BlockString);
    return tokens[0].value;
}

TEST(Lexer, ReadsEveryPunctuatorNameAndNumber) {
    const auto t = lex("! $ & ( ) ... : = @ [ ] { | } name _x9 0 -12 1.5 -0.0e-3 2E+10");
    const std::vector<TokenKind> kinds = {
        TokenKind::Bang,   TokenKind::Dollar,   TokenKind::Amp,      TokenKind::ParenL,
        TokenKind::ParenR, TokenKind::Spread,   TokenKind::Colon,    TokenKind::Equals,
        TokenKind::At,     TokenKind::BracketL, TokenKind::BracketR, TokenKind::BraceL,
        TokenKind::Pipe,   TokenKind::BraceR,   TokenKind::Name,     TokenKind::Name,
        TokenKind::Int,    TokenKind::Int,      TokenKind::Float,    TokenKind::Float,
        TokenKind::Float,  TokenKind::End};
    ASSERT_EQ(t.size(), kinds.size());
    for (std::size_t i = 0; i < kinds.size(); ++i)
        EXPECT_EQ(t[i].kind, kinds[i]) << i;
    EXPECT_EQ(t[15].raw, "_x9");
    EXPECT_EQ(t[17].raw, "-12");
    EXPECT_EQ(t[20].raw, "2E+10");
}

TEST(Lexer, SkipsWhiteSpaceCommasCommentsAndTheBom) {
    const auto t = lex("\xEF\xBB\xBF # comment\n,,\t a, # more\r\n b\r c");
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[0].raw, "a");
    EXPECT_EQ(t[0].loc.line, 2);
    EXPECT_EQ(t[0].loc.column, 5);
    EXPECT_EQ(t[1].loc.line, 3); // \r\n is one line terminator
    EXPECT_EQ(t[2].loc.line, 4); // so is a lone \r
    EXPECT_EQ(t[2].loc.column, 2);
}

TEST(Lexer, CountsColumnsInCharactersNotBytes) {
    const auto t = lex("\"é€😀\" x");
    EXPECT_EQ(t[1].loc.column, 7);
}

TEST(Lexer, DecodesEveryEscape) {
    EXPECT_EQ(string_value(R"("a\"b\\c\/d\be\ff\ng\rh\ti")"), "a\"b\\c/d\be\ff\ng\rh\ti");
    EXPECT_EQ(string_value(R"("\u00e9\u20AC")"), "é€");
    EXPECT_EQ(string_value(R"("\uD83D\uDE00")"), "😀"); // a surrogate pair
    EXPECT_EQ(string_value(R"("\u{1F600}\u{41}")"), "😀A");
    EXPECT_EQ(string_value("\"unicode é as is\""), "unicode é as is");
}

TEST(Lexer, DedentsBlockStrings) {
    EXPECT_EQ(
        string_value("\"\"\"\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  \"\"\""),
        "Hello,\n  World!\n\nYours,\n  GraphQL.");
    EXPECT_EQ(string_value(R"("""a \""" b "c" \n""")"), R"(a """ b "c" \n)");
    EXPECT_EQ(string_value("\"\"\"  first line kept\n   second\"\"\""),
              "  first line kept\nsecond");
    // A block string spanning lines keeps later tokens' lines right.
    const auto t = lex("\"\"\"a\nb\nc\"\"\" x");
    EXPECT_EQ(t[0].loc.line, 1);
    EXPECT_EQ(t[1].loc.line, 3);
}

TEST(Lexer, ReportsLexicalErrorsAsGraphqlJsDoes) {
    SourceLocation at;
    EXPECT_EQ(lex_error("{ \"abc", &at), "Syntax Error: Unterminated string.");
    EXPECT_EQ(at.column, 7);
    EXPECT_EQ(lex_error("\"a\nb\""), "Syntax Error: Unterminated string.");
    EXPECT_EQ(lex_error("\"\"\"never closed"), "Syntax Error: Unterminated string.");
    EXPECT_EQ(lex_error(R"("\x")"), "Syntax Error: Invalid character escape sequence: \"\\x\".");
    EXPECT_EQ(lex_error(R"("\u12G4")"),
              "Syntax Error: Invalid Unicode escape sequence: \"\\u12G4\".");
    EXPECT_EQ(lex_error(R"("\uD83D")"),
              "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".");
    EXPECT_EQ(lex_error(R"("\u{110000}")"),
              "Syntax Error: Invalid Unicode escape sequence: \"\\u{110000}\".");
    EXPECT_EQ(lex_error("\"a\x01\""), "Syntax Error: Invalid character within String: U+0001.");
    EXPECT_EQ(lex_error("?"), "Syntax Error: Unexpected character: \"?\".");
    EXPECT_EQ(lex_error("\x07"), "Syntax Error: Invalid character: U+0007.");
    EXPECT_EQ(lex_error("é"), "Syntax Error: Unexpected character: \"é\".");
    EXPECT_EQ(lex_error("a\xFF"), "Syntax Error: Invalid UTF-8 byte U+00FF.");
    EXPECT_EQ(lex_error("\"\xC3\""), "Syntax Error: Invalid UTF-8 byte U+00C3.");
    EXPECT_EQ(lex_error(".."), "Syntax Error: Unexpected character: \".\".");
    EXPECT_EQ(lex_error("00"), "Syntax Error: Invalid number, unexpected digit after 0: \"0\".");
    EXPECT_EQ(lex_error("1."), "Syntax Error: Invalid number, expected digit but got: <EOF>.");
    EXPECT_EQ(lex_error("1.e"), "Syntax Error: Invalid number, expected digit but got: \"e\".");
    EXPECT_EQ(lex_error("1e"), "Syntax Error: Invalid number, expected digit but got: <EOF>.");
    EXPECT_EQ(lex_error("12abc"), "Syntax Error: Invalid number, expected digit but got: \"a\".");
    EXPECT_EQ(lex_error("1.5.1"), "Syntax Error: Invalid number, expected digit but got: \".\".");
    EXPECT_EQ(lex_error("-x"), "Syntax Error: Invalid number, expected digit but got: \"x\".");
}

TEST(Lexer, StopsAtTheTokenLimit) {
    EXPECT_NO_THROW(tokenize("a b c", 3));
    EXPECT_EQ(
        [] {
            try {
                tokenize("a b c d", 3);
            } catch (const SyntaxError& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        }(),
        "Syntax Error: Document contains more than 3 tokens.");
}

TEST(Lexer, ReplacesInvalidUtf8InMessages) {
    EXPECT_EQ(sanitize_utf8("ok é"), "ok é");
    EXPECT_EQ(sanitize_utf8("a\xFF"
                            "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(sanitize_utf8("\xC3"), "\xEF\xBF\xBD");
    EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // surrogate
    EXPECT_EQ(sanitize_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                 // overlong
}

} // namespace
} // namespace kprov::api::graphql
