// The type system grammar (SDL): what load_schema reads.

#include "api/graphql/parser.hpp"

#include <limits>

namespace kprov::api::graphql {
namespace {

class TypeSystemParser : public ParserBase {
public:
    explicit TypeSystemParser(std::string_view source)
        : ParserBase(source, std::numeric_limits<std::size_t>::max()) {}

    ast::TypeSystemDocument run() {
        ast::TypeSystemDocument doc;
        do {
            definition(doc);
        } while (!at(TokenKind::End));
        return doc;
    }

private:
    void definition(ast::TypeSystemDocument& doc) {
        const SourceLocation start = peek().loc;
        std::string desc = description();
        bool extension = false;
        if (at_keyword("extend")) {
            if (!desc.empty())
                unexpected(peek());
            advance();
            extension = true;
        }
        const Token& t = peek();
        if (t.kind != TokenKind::Name)
            unexpected(t);
        const std::string_view keyword = t.raw;
        if (keyword == "schema") {
            advance();
            ast::SchemaDefinition s;
            s.extension = extension;
            s.description = std::move(desc);
            s.loc = start;
            directives(true);
            if (!extension || at(TokenKind::BraceL)) {
                expect(TokenKind::BraceL);
                do {
                    std::string op = name();
                    if (op != "query" && op != "mutation" && op != "subscription")
                        fail("Unexpected operation type \"" + op + "\".", s.loc);
                    expect(TokenKind::Colon);
                    s.roots.emplace_back(std::move(op), named_type());
                } while (!skip(TokenKind::BraceR));
            }
            doc.schemas.push_back(std::move(s));
            return;
        }
        if (keyword == "directive" && !extension) {
            doc.directives.push_back(directive_definition(std::move(desc), start));
            return;
        }
        ast::TypeDefinition type;
        type.extension = extension;
        type.description = std::move(desc);
        type.loc = start;
        if (keyword == "scalar")
            type.kind = ast::TypeKind::Scalar;
        else if (keyword == "type")
            type.kind = ast::TypeKind::Object;
        else if (keyword == "interface")
            type.kind = ast::TypeKind::Interface;
        else if (keyword == "union")
            type.kind = ast::TypeKind::Union;
        else if (keyword == "enum")
            type.kind = ast::TypeKind::Enum;
        else if (keyword == "input")
            type.kind = ast::TypeKind::InputObject;
        else
            unexpected(t);
        advance();
        type.name = name();
        switch (type.kind) {
        case ast::TypeKind::Scalar:
            type.directives = directives(true);
            break;
        case ast::TypeKind::Object:
        case ast::TypeKind::Interface:
            if (at_keyword("implements")) {
                advance();
                skip(TokenKind::Amp);
                do {
                    type.interfaces.push_back(named_type());
                } while (skip(TokenKind::Amp));
            }
            type.directives = directives(true);
            if (skip(TokenKind::BraceL))
                do {
                    type.fields.push_back(field_definition());
                } while (!skip(TokenKind::BraceR));
            break;
        case ast::TypeKind::Union:
            type.directives = directives(true);
            if (skip(TokenKind::Equals)) {
                skip(TokenKind::Pipe);
                do {
                    type.members.push_back(named_type());
                } while (skip(TokenKind::Pipe));
            }
            break;
        case ast::TypeKind::Enum:
            type.directives = directives(true);
            if (skip(TokenKind::BraceL))
                do {
                    ast::EnumValueDefinition v;
                    v.description = description();
                    v.loc = peek().loc;
                    if (at_keyword("true") || at_keyword("false") || at_keyword("null"))
                        fail(describe(peek()) +
                                 " is reserved and cannot be used for an enum value.",
                             v.loc);
                    v.name = name();
                    v.directives = directives(true);
                    type.enum_values.push_back(std::move(v));
                } while (!skip(TokenKind::BraceR));
            break;
        case ast::TypeKind::InputObject:
            type.directives = directives(true);
            if (skip(TokenKind::BraceL))
                do {
                    type.input_fields.push_back(input_value());
                } while (!skip(TokenKind::BraceR));
            break;
        }
        doc.types.push_back(std::move(type));
    }

    ast::TypeRef named_type() {
        ast::TypeRef t;
        t.loc = peek().loc;
        t.name = name();
        return t;
    }

    ast::FieldDefinition field_definition() {
        ast::FieldDefinition f;
        f.description = description();
        f.loc = peek().loc;
        f.name = name();
        f.arguments = argument_definitions();
        expect(TokenKind::Colon);
        f.type = type_ref();
        f.directives = directives(true);
        return f;
    }

    std::vector<ast::InputValueDefinition> argument_definitions() {
        std::vector<ast::InputValueDefinition> out;
        if (skip(TokenKind::ParenL))
            do {
                out.push_back(input_value());
            } while (!skip(TokenKind::ParenR));
        return out;
    }

    ast::InputValueDefinition input_value() {
        ast::InputValueDefinition v;
        v.description = description();
        v.loc = peek().loc;
        v.name = name();
        expect(TokenKind::Colon);
        v.type = type_ref();
        if (skip(TokenKind::Equals))
            v.default_value = value(true);
        v.directives = directives(true);
        return v;
    }

    ast::DirectiveDefinition directive_definition(std::string desc, SourceLocation start) {
        advance();
        ast::DirectiveDefinition d;
        d.description = std::move(desc);
        d.loc = start;
        expect(TokenKind::At);
        d.name = name();
        d.arguments = argument_definitions();
        if (at_keyword("repeatable")) {
            advance();
            d.repeatable = true;
        }
        expect_keyword("on");
        skip(TokenKind::Pipe);
        do {
            d.location_locs.push_back(peek().loc);
            d.locations.push_back(name());
        } while (skip(TokenKind::Pipe));
        return d;
    }
};

} // namespace

ast::TypeSystemDocument parse_type_system(std::string_view source) {
    return TypeSystemParser(source).run();
}

} // namespace kprov::api::graphql
