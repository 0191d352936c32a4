#pragma once
// GraphQL's lexical grammar (October 2021): punctuators, names, numbers, strings with every
// escape (\u with 4 digits, \u{...}, surrogate pairs), block strings, ignored tokens (white
// space, line terminators, commas, comments, BOM). The source must be UTF-8.

#include "api/graphql/graphql.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

/// A document that is not GraphQL, or one over a limit. what() is graphql-js's wording
/// ("Syntax Error: Expected Name, found <EOF>.").
class SyntaxError : public std::runtime_error {
public:
    SyntaxError(const std::string& message, SourceLocation at)
        : std::runtime_error(message)
        , where(at) {}
    SourceLocation where;
};

enum class TokenKind : std::uint8_t {
    End,
    Bang,
    Dollar,
    Amp,
    ParenL,
    ParenR,
    Spread,
    Colon,
    Equals,
    At,
    BracketL,
    BracketR,
    BraceL,
    Pipe,
    BraceR,
    Name,
    Int,
    Float,
    String,
    BlockString,
};

struct Token {
    TokenKind kind = TokenKind::End;
    SourceLocation loc;
    std::string_view raw; // the token's source text
    std::string value;    // String and BlockString: the decoded value
};

/// The tokens of `source` up to and including End. Throws SyntaxError for a lexical error, or
/// when there are more than `max_tokens` tokens (End not counted).
std::vector<Token> tokenize(std::string_view source, std::size_t max_tokens);

/// "Name \"foo\"", "\"}\"", "<EOF>": how graphql-js names a token in messages.
std::string describe(const Token& token);

/// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string sanitize_utf8(std::string_view text);

/// Appends the UTF-8 encoding of a code point.
void append_utf8(std::string& out, std::uint32_t code_point);

} // namespace kprov::api::graphql
