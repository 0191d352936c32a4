#include "api/graphql/parser.hpp"

#include "api/graphql/json_text.hpp"

#include <algorithm>
#include <map>

namespace kprov::api::graphql {

// --- Shared grammar -------------------------------------------------------------------------

ParserBase::ParserBase(std::string_view source, std::size_t max_tokens)
    : m_tokens(tokenize(source, max_tokens)) {}

const Token& ParserBase::advance() {
    const Token& t = m_tokens[m_index];
    if (t.kind != TokenKind::End)
        ++m_index;
    return t;
}

bool ParserBase::skip(TokenKind kind) {
    if (!at(kind))
        return false;
    advance();
    return true;
}

namespace {
const char* kind_name(TokenKind kind) {
    switch (kind) {
    case TokenKind::End:
        return "<EOF>";
    case TokenKind::Bang:
        return "\"!\"";
    case TokenKind::Dollar:
        return "\"$\"";
    case TokenKind::Amp:
        return "\"&\"";
    case TokenKind::ParenL:
        return "\"(\"";
    case TokenKind::ParenR:
        return "\")\"";
    case TokenKind::Spread:
        return "\"...\"";
    case TokenKind::Colon:
        return "\":\"";
    case TokenKind::Equals:
        return "\"=\"";
    case TokenKind::At:
        return "\"@\"";
    case TokenKind::BracketL:
        return "\"[\"";
    case TokenKind::BracketR:
        return "\"]\"";
    case TokenKind::BraceL:
        return "\"{\"";
    case TokenKind::Pipe:
        return "\"|\"";
    case TokenKind::BraceR:
        return "\"}\"";
    case TokenKind::Name:
        return "Name";
    case TokenKind::Int:
        return "Int";
    case TokenKind::Float:
        return "Float";
    case TokenKind::String:
        return "String";
    case TokenKind::BlockString:
        return "BlockString";
    }
    return "?";
}
} // namespace

const Token& ParserBase::expect(TokenKind kind) {
    if (!at(kind))
        fail(std::string("Expected ") + kind_name(kind) + ", found " + describe(peek()) + ".",
             peek().loc);
    return advance();
}

void ParserBase::expect_keyword(std::string_view word) {
    if (!at_keyword(word))
        fail("Expected \"" + std::string(word) + "\", found " + describe(peek()) + ".", peek().loc);
    advance();
}

void ParserBase::unexpected(const Token& token) const {
    fail("Unexpected " + describe(token) + ".", token.loc);
}

void ParserBase::fail(const std::string& message, SourceLocation where) const {
    throw SyntaxError("Syntax Error: " + message, where);
}

void ParserBase::enter(SourceLocation where) {
    if (++m_nesting > k_max_nesting)
        fail("Document nests deeper than " + std::to_string(k_max_nesting) + " levels.", where);
}

std::string ParserBase::name() {
    return std::string(expect(TokenKind::Name).raw);
}

ast::Value ParserBase::value(bool is_const) {
    const Token& t = peek();
    ast::Value v;
    v.loc = t.loc;
    switch (t.kind) {
    case TokenKind::BracketL:
        enter(t.loc);
        advance();
        v.kind = ast::ValueKind::List;
        while (!skip(TokenKind::BracketR))
            v.items.push_back(value(is_const));
        leave();
        return v;
    case TokenKind::BraceL:
        enter(t.loc);
        advance();
        v.kind = ast::ValueKind::Object;
        while (!skip(TokenKind::BraceR)) {
            v.key_locs.push_back(peek().loc);
            v.keys.push_back(name());
            expect(TokenKind::Colon);
            v.items.push_back(value(is_const));
        }
        leave();
        return v;
    case TokenKind::Int:
        v.kind = ast::ValueKind::Int;
        v.text = std::string(advance().raw);
        return v;
    case TokenKind::Float:
        v.kind = ast::ValueKind::Float;
        v.text = std::string(advance().raw);
        return v;
    case TokenKind::String:
    case TokenKind::BlockString:
        v.kind = ast::ValueKind::String;
        v.block = t.kind == TokenKind::BlockString;
        v.text = advance().value;
        return v;
    case TokenKind::Name:
        if (t.raw == "true" || t.raw == "false") {
            v.kind = ast::ValueKind::Boolean;
            v.boolean = t.raw == "true";
        } else if (t.raw == "null") {
            v.kind = ast::ValueKind::Null;
        } else {
            v.kind = ast::ValueKind::Enum;
            v.text = std::string(t.raw);
        }
        advance();
        return v;
    case TokenKind::Dollar:
        if (!is_const) {
            advance();
            v.kind = ast::ValueKind::Variable;
            v.text = name();
            return v;
        }
        if (peek_next().kind == TokenKind::Name)
            fail("Unexpected variable \"$" + std::string(peek_next().raw) + "\" in constant value.",
                 t.loc);
        unexpected(t);
    default:
        unexpected(t);
    }
}

ast::TypeRef ParserBase::type_ref() {
    ast::TypeRef type;
    type.loc = peek().loc;
    // Wrappers are read outside-in; the name sits in the middle.
    std::string open; // one 'L' per unclosed '['
    int depth = 0;
    while (at(TokenKind::BracketL)) {
        enter(peek().loc);
        ++depth;
        advance();
        open += 'L';
    }
    type.name = name();
    std::string inner; // built inside-out
    if (skip(TokenKind::Bang))
        inner = "N";
    for (; depth > 0; --depth) {
        expect(TokenKind::BracketR);
        leave();
        inner.insert(0, "L");
        if (skip(TokenKind::Bang))
            inner.insert(0, "N");
    }
    type.mods = std::move(inner);
    return type;
}

std::vector<ast::Argument> ParserBase::arguments(bool is_const) {
    std::vector<ast::Argument> args;
    if (!at(TokenKind::ParenL))
        return args;
    advance();
    do {
        ast::Argument a;
        a.loc = peek().loc;
        a.name = name();
        expect(TokenKind::Colon);
        a.value = value(is_const);
        args.push_back(std::move(a));
    } while (!skip(TokenKind::ParenR));
    return args;
}

std::vector<ast::Directive> ParserBase::directives(bool is_const) {
    std::vector<ast::Directive> out;
    while (at(TokenKind::At)) {
        ast::Directive d;
        d.loc = advance().loc;
        d.name = name();
        d.arguments = arguments(is_const);
        out.push_back(std::move(d));
    }
    return out;
}

std::string ParserBase::description() {
    if (at(TokenKind::String) || at(TokenKind::BlockString))
        return advance().value;
    return {};
}

// --- Executable documents -------------------------------------------------------------------

namespace {

class DocumentParser : public ParserBase {
public:
    DocumentParser(std::string_view source, const Limits& limits)
        : ParserBase(source, limits.max_tokens)
        , m_limits(limits) {}

    ast::Document run() {
        ast::Document doc;
        do {
            definition(doc);
        } while (!at(TokenKind::End));
        doc.alias_count = m_aliases;
        return doc;
    }

private:
    const Limits& m_limits;
    std::size_t m_aliases = 0;

    void definition(ast::Document& doc) {
        if (at(TokenKind::BraceL)) {
            ast::Operation op;
            op.loc = peek().loc;
            op.selections = selection_set();
            doc.operations.push_back(std::move(op));
            return;
        }
        const Token& t = peek();
        if (t.kind == TokenKind::Name) {
            if (t.raw == "query" || t.raw == "mutation" || t.raw == "subscription") {
                doc.operations.push_back(operation());
                return;
            }
            if (t.raw == "fragment") {
                doc.fragments.push_back(fragment());
                return;
            }
            static constexpr std::string_view k_type_system[] = {
                "schema", "scalar", "type",      "interface", "union",
                "enum",   "input",  "directive", "extend"};
            if (std::find(std::begin(k_type_system), std::end(k_type_system), t.raw) !=
                std::end(k_type_system))
                fail("The \"" + std::string(t.raw) + "\" definition is not executable.", t.loc);
        }
        unexpected(t);
    }

    ast::Operation operation() {
        ast::Operation op;
        op.loc = peek().loc;
        const std::string_view kind = advance().raw;
        op.kind = kind == "query"      ? ast::OperationKind::Query
                  : kind == "mutation" ? ast::OperationKind::Mutation
                                       : ast::OperationKind::Subscription;
        if (at(TokenKind::Name))
            op.name = name();
        if (skip(TokenKind::ParenL)) {
            do {
                ast::VariableDefinition v;
                v.loc = expect(TokenKind::Dollar).loc;
                v.name = name();
                expect(TokenKind::Colon);
                v.type = type_ref();
                if (skip(TokenKind::Equals))
                    v.default_value = value(true);
                v.directives = directives(true);
                op.variables.push_back(std::move(v));
            } while (!skip(TokenKind::ParenR));
        }
        op.directives = directives(false);
        op.selections = selection_set();
        return op;
    }

    ast::Fragment fragment() {
        ast::Fragment f;
        f.loc = advance().loc;
        if (at_keyword("on"))
            unexpected(peek());
        f.name = name();
        expect_keyword("on");
        f.type_condition_loc = peek().loc;
        f.type_condition = name();
        f.directives = directives(false);
        f.selections = selection_set();
        return f;
    }

    std::vector<ast::Selection> selection_set() {
        enter(peek().loc);
        expect(TokenKind::BraceL);
        std::vector<ast::Selection> out;
        do {
            out.push_back(selection());
        } while (!skip(TokenKind::BraceR));
        leave();
        return out;
    }

    ast::Selection selection() {
        ast::Selection s;
        s.loc = peek().loc;
        if (skip(TokenKind::Spread)) {
            if (at(TokenKind::Name) && !at_keyword("on")) {
                s.kind = ast::Selection::Kind::FragmentSpread;
                s.name = name();
                s.directives = directives(false);
                return s;
            }
            s.kind = ast::Selection::Kind::InlineFragment;
            if (at_keyword("on")) {
                advance();
                s.type_condition_loc = peek().loc;
                s.type_condition = name();
            }
            s.directives = directives(false);
            s.has_selection_set = true;
            s.selections = selection_set();
            return s;
        }
        s.name = name();
        if (skip(TokenKind::Colon)) {
            s.alias = std::move(s.name);
            s.name = name();
            if (++m_aliases > static_cast<std::size_t>(m_limits.max_aliases))
                fail("Document contains more than " + std::to_string(m_limits.max_aliases) +
                         " aliases.",
                     s.loc);
        }
        s.arguments = arguments(false);
        s.directives = directives(false);
        if (at(TokenKind::BraceL)) {
            s.has_selection_set = true;
            s.selections = selection_set();
        }
        return s;
    }
};

/// Depth of fields nested in selection sets, fragments expanded (a cycle counts once; the
/// validator reports it).
class DepthMeter {
public:
    explicit DepthMeter(const ast::Document& doc)
        : m_doc(doc) {}

    int of(const std::vector<ast::Selection>& selections) {
        int deepest = 0;
        for (const auto& s : selections) {
            switch (s.kind) {
            case ast::Selection::Kind::Field:
                deepest = std::max(deepest, 1 + (s.has_selection_set ? of(s.selections) : 0));
                break;
            case ast::Selection::Kind::InlineFragment:
                deepest = std::max(deepest, of(s.selections));
                break;
            case ast::Selection::Kind::FragmentSpread:
                deepest = std::max(deepest, fragment(s.name));
                break;
            }
        }
        return deepest;
    }

private:
    const ast::Document& m_doc;
    std::map<std::string_view, int> m_memo; // -1 while being measured

    int fragment(std::string_view name) {
        const auto it = m_memo.find(name);
        if (it != m_memo.end())
            return std::max(it->second, 0);
        const ast::Fragment* f = m_doc.fragment(name);
        if (!f)
            return 0;
        m_memo[name] = -1;
        const int depth = of(f->selections);
        m_memo[name] = depth;
        return depth;
    }
};

} // namespace

ast::Document parse_document(std::string_view source, const Limits& limits) {
    DocumentParser parser(source, limits);
    ast::Document doc = parser.run();
    DepthMeter meter(doc);
    for (const auto& op : doc.operations)
        if (meter.of(op.selections) > limits.max_depth)
            throw SyntaxError("Syntax Error: Operation nests fields deeper than " +
                                  std::to_string(limits.max_depth) + " levels.",
                              op.loc);
    return doc;
}

// --- Printing -------------------------------------------------------------------------------

const ast::Fragment* ast::Document::fragment(std::string_view fragment_name) const {
    for (const auto& f : fragments)
        if (f.name == fragment_name)
            return &f;
    return nullptr;
}

namespace {
void print_string(std::string& out, std::string_view s) {
    out += '"';
    for (const char c : s)
        if (!append_json_escape(out, static_cast<unsigned char>(c), "0123456789ABCDEF"))
            out += c;
    out += '"';
}

void print_value_to(std::string& out, const ast::Value& v) {
    switch (v.kind) {
    case ast::ValueKind::Variable:
        out += '$';
        out += v.text;
        return;
    case ast::ValueKind::Int:
    case ast::ValueKind::Float:
    case ast::ValueKind::Enum:
        out += v.text;
        return;
    case ast::ValueKind::String:
        print_string(out, v.text);
        return;
    case ast::ValueKind::Boolean:
        out += v.boolean ? "true" : "false";
        return;
    case ast::ValueKind::Null:
        out += "null";
        return;
    case ast::ValueKind::List:
        out += '[';
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            if (i)
                out += ", ";
            print_value_to(out, v.items[i]);
        }
        out += ']';
        return;
    case ast::ValueKind::Object:
        out += '{';
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            if (i)
                out += ", ";
            out += v.keys[i];
            out += ": ";
            print_value_to(out, v.items[i]);
        }
        out += '}';
        return;
    }
}
} // namespace

std::string ast::print_value(const Value& value) {
    std::string out;
    print_value_to(out, value);
    return out;
}

std::string ast::print_type(std::string_view type_name, std::string_view mods) {
    if (mods.empty())
        return std::string(type_name);
    if (mods[0] == 'N')
        return print_type(type_name, mods.substr(1)) + "!";
    return "[" + print_type(type_name, mods.substr(1)) + "]";
}

} // namespace kprov::api::graphql
