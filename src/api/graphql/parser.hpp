#pragma once
// Parsing GraphQL source into syntax trees. Both entry points throw SyntaxError with graphql-js's
// wording and the location of the offending token.

#include "api/graphql/ast.hpp"
#include "api/graphql/lexer.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

/// An executable document (operations and fragments). Enforces limits.max_tokens,
/// limits.max_aliases and limits.max_depth (fields nested in selection sets, fragments expanded);
/// the caller checks max_document_bytes.
ast::Document parse_document(std::string_view source, const Limits& limits);

/// A type system document (SDL): schema, type, directive definitions and extensions.
ast::TypeSystemDocument parse_type_system(std::string_view source);

/// What both grammars share: token cursor, values, types, arguments, directives.
class ParserBase {
public:
    ParserBase(std::string_view source, std::size_t max_tokens);

protected:
    static constexpr int k_max_nesting = 256; // keeps hostile nesting off the stack

    const Token& peek() const { return m_tokens[m_index]; }
    const Token& peek_next() const {
        return m_tokens[m_index + 1 < m_tokens.size() ? m_index + 1 : m_index];
    }
    bool at(TokenKind kind) const { return peek().kind == kind; }
    bool at_keyword(std::string_view word) const {
        return at(TokenKind::Name) && peek().raw == word;
    }
    const Token& advance();
    bool skip(TokenKind kind);
    const Token& expect(TokenKind kind);
    void expect_keyword(std::string_view word);
    [[noreturn]] void unexpected(const Token& token) const;
    [[noreturn]] void fail(const std::string& message, SourceLocation where) const;

    std::string name();
    ast::Value value(bool is_const);
    ast::TypeRef type_ref();
    std::vector<ast::Argument> arguments(bool is_const);
    std::vector<ast::Directive> directives(bool is_const);
    /// An optional description (a string or block string before a definition).
    std::string description();
    void enter(SourceLocation where);
    void leave() { --m_nesting; }

private:
    std::vector<Token> m_tokens;
    std::size_t m_index = 0;
    int m_nesting = 0;
};

} // namespace kprov::api::graphql
