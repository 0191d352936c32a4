// execute(): the request's way through parsing, validation, operation selection, variable
// coercion and execution, each failure answered in the response shape the header describes.

#include "api/graphql/graphql.hpp"

#include "api/graphql/execution.hpp"
#include "api/graphql/json_text.hpp"
#include "api/graphql/parser.hpp"
#include "api/graphql/validation.hpp"
#include "api/lru_map.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

namespace kprov::api::graphql {

using json = nlohmann::json;

FieldError::FieldError(const std::string& message, json extensions_)
    : std::runtime_error(message)
    , extensions(std::move(extensions_)) {}

void Resolvers::add(std::string type_dot_field, Resolver resolver, Blocking blocking) {
    if (blocking == Blocking::Yes)
        blocking_fields_.push_back(type_dot_field.substr(type_dot_field.find('.') + 1));
    for (auto& [key, existing] : entries_)
        if (key == type_dot_field) {
            existing = std::move(resolver);
            return;
        }
    entries_.emplace_back(std::move(type_dot_field), std::move(resolver));
}

const Resolver* Resolvers::find(std::string_view type_name, std::string_view field_name) const {
    const std::size_t size = type_name.size() + 1 + field_name.size();
    for (const auto& [key, resolver] : entries_) {
        if (key.size() != size || key[type_name.size()] != '.')
            continue;
        const std::string_view k = key;
        if (k.substr(0, type_name.size()) == type_name &&
            k.substr(type_name.size() + 1) == field_name)
            return &resolver;
    }
    return nullptr;
}

bool Resolvers::may_block(std::string_view field_name) const {
    return std::find(blocking_fields_.begin(), blocking_fields_.end(), field_name) !=
           blocking_fields_.end();
}

json Response::body() const {
    return json::parse(text);
}

namespace {

Response refuse(Response::Outcome outcome, json errors) {
    const char* code = outcome == Response::Outcome::ParseFailed ? "GRAPHQL_PARSE_FAILED"
                                                                 : "GRAPHQL_VALIDATION_FAILED";
    for (auto& e : errors)
        e["extensions"]["code"] = code;
    Response r;
    r.outcome = outcome;
    r.text = "{\"errors\":";
    append_json(r.text, errors);
    r.text += '}';
    return r;
}

Response refuse(Response::Outcome outcome, const std::string& message,
                std::vector<SourceLocation> locations = {}) {
    return refuse(outcome, json::array({error_json(message, locations)}));
}

const ast::Operation* select_operation(const ast::Document& doc, const std::string& name,
                                       std::string& problem) {
    if (name.empty()) {
        if (doc.operations.size() == 1)
            return &doc.operations.front();
        problem = doc.operations.empty()
                      ? "Must provide an operation."
                      : "Must provide operation name if query contains multiple operations.";
        return nullptr;
    }
    for (const auto& op : doc.operations)
        if (op.name == name)
            return &op;
    // The name comes from the client unchecked: shown as a JSON string, invalid UTF-8 replaced.
    problem = "Unknown operation named ";
    append_json_string(problem, name);
    problem += ".";
    return nullptr;
}

/// A document after parsing and validation: ready to run, or refused with its errors.
struct Checked {
    ast::Document doc;
    std::optional<Response> refusal;
};

std::shared_ptr<const Checked> parse_and_validate(const Schema& schema, std::string_view query,
                                                  const Limits& limits) {
    using Outcome = Response::Outcome;
    auto checked = std::make_shared<Checked>();
    if (query.size() > limits.max_document_bytes) {
        checked->refusal = refuse(Outcome::ParseFailed,
                                  "Syntax Error: Document of " + std::to_string(query.size()) +
                                      " bytes exceeds the limit of " +
                                      std::to_string(limits.max_document_bytes) + " bytes.");
        return checked;
    }
    try {
        checked->doc = parse_document(query, limits);
    } catch (const SyntaxError& e) {
        checked->refusal = refuse(Outcome::ParseFailed, e.what(), {e.where});
        return checked;
    }
    json problems = validate(schema, checked->doc);
    if (!problems.empty())
        checked->refusal = refuse(Outcome::ValidationFailed, std::move(problems));
    return checked;
}

// Whether `selections` reach (through fragments, each visited once) a field whose resolver may
// block. By field name: a validated document names only fields the schema has.
bool reaches_blocking(const ast::Document& doc, const std::vector<ast::Selection>& selections,
                      const Resolvers& resolvers, std::vector<std::string_view>& seen) {
    for (const auto& s : selections) {
        switch (s.kind) {
        case ast::Selection::Kind::Field:
            if (resolvers.may_block(s.name) || reaches_blocking(doc, s.selections, resolvers, seen))
                return true;
            break;
        case ast::Selection::Kind::InlineFragment:
            if (reaches_blocking(doc, s.selections, resolvers, seen))
                return true;
            break;
        case ast::Selection::Kind::FragmentSpread:
            if (std::find(seen.begin(), seen.end(), s.name) != seen.end())
                break;
            seen.push_back(s.name);
            if (const auto* f = doc.fragment(s.name);
                f && reaches_blocking(doc, f->selections, resolvers, seen))
                return true;
            break;
        }
    }
    return false;
}

Response run(const Schema& schema, const Resolvers& resolvers, const Request& request,
             std::any& request_state, const Limits& limits, const Checked& checked,
             const Gate& gate) {
    using Outcome = Response::Outcome;
    if (checked.refusal)
        return *checked.refusal;
    const ast::Document& doc = checked.doc;

    std::string problem;
    const ast::Operation* op = select_operation(doc, request.operation_name, problem);
    if (!op)
        return refuse(Outcome::ValidationFailed, problem);
    if (op->kind == ast::OperationKind::Mutation && !request.allow_mutations)
        return refuse(Outcome::ValidationFailed,
                      "Can only perform a mutation operation from a POST request.", {op->loc});
    if (!request.variables.is_null() && !request.variables.is_object())
        return refuse(Outcome::ValidationFailed,
                      "Variables must be provided as an object of variable values, got " +
                          std::string(request.variables.type_name()) + ".");
    // Coercion and messages walk values recursively: hostile nesting stays off the stack.
    if (json_nesting(request.variables, limits.max_variable_nesting) > limits.max_variable_nesting)
        return refuse(Outcome::ValidationFailed, "Variables nest deeper than " +
                                                     std::to_string(limits.max_variable_nesting) +
                                                     " levels.");
    json variables;
    json errors = json::array();
    if (!coerce_variables(schema, *op, request.variables, variables, errors))
        return refuse(Outcome::ValidationFailed, std::move(errors));
    if (gate) {
        OperationPlan plan;
        plan.mutation = op->kind == ast::OperationKind::Mutation;
        std::vector<std::string_view> seen;
        plan.blocking = reaches_blocking(doc, op->selections, resolvers, seen);
        if (!gate(plan)) {
            Response deferred;
            deferred.outcome = Outcome::Deferred;
            return deferred;
        }
    }

    Response r;
    r.outcome = Outcome::Executed;
    r.query = op->kind == ast::OperationKind::Query;
    r.text.reserve(1024);
    r.text = "{\"data\":";
    execute_operation(schema, resolvers, doc, *op, variables, request_state, errors, r.text);
    r.field_errors = !errors.empty();
    if (r.field_errors) {
        r.text += ",\"errors\":";
        append_json(r.text, errors);
    }
    r.text += '}';
    return r;
}

Response internal_error() {
    Response r;
    r.text = "{\"data\":null,\"errors\":";
    append_json(r.text, json::array({error_json("Internal server error.", {})}));
    r.text += '}';
    return r;
}

} // namespace

struct DocumentCache::Impl {
    explicit Impl(std::size_t capacity)
        : documents(capacity) {}

    mutable std::mutex mutex;
    LruMap<std::shared_ptr<const Checked>> documents; // each costs 1: capacity counts them

    std::shared_ptr<const Checked> find(std::string_view query) {
        const std::lock_guard lock(mutex);
        const auto* found = documents.find(query);
        return found ? *found : nullptr;
    }

    void insert(std::string_view query, std::shared_ptr<const Checked> checked) {
        const std::lock_guard lock(mutex);
        if (!documents.find(query))
            documents.put(query, std::move(checked), 1);
    }
};

DocumentCache::DocumentCache(std::size_t capacity)
    : m_impl(std::make_unique<Impl>(capacity)) {}

DocumentCache::~DocumentCache() = default;

std::size_t DocumentCache::size() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->documents.size();
}

std::size_t json_nesting(const json& value, std::size_t stop_after) {
    std::size_t deepest = 0;
    std::vector<std::pair<const json*, std::size_t>> todo = {{&value, 0}};
    while (!todo.empty()) {
        const auto [v, depth] = todo.back();
        todo.pop_back();
        if (!v->is_structured())
            continue;
        deepest = std::max(deepest, depth + 1);
        if (deepest > stop_after)
            return deepest;
        for (const auto& item : *v)
            todo.emplace_back(&item, depth + 1);
    }
    return deepest;
}

Response check_document(const Schema& schema, std::string_view query, const Limits& limits) {
    try {
        const auto checked = parse_and_validate(schema, query, limits);
        if (checked->refusal)
            return *checked->refusal;
        Response r;
        r.text = "{}";
        return r;
    } catch (const std::exception&) {
        return internal_error();
    }
}

Response execute(const Schema& schema, const Resolvers& resolvers, const Request& request,
                 std::any& request_state, const Limits& limits, DocumentCache* cache,
                 const Gate& gate) {
    try {
        std::shared_ptr<const Checked> checked;
        // An oversized document is refused before it is hashed or kept.
        const bool cacheable = cache && request.query.size() <= limits.max_document_bytes;
        if (cacheable)
            checked = cache->m_impl->find(request.query);
        if (!checked) {
            checked = parse_and_validate(schema, request.query, limits);
            if (cacheable)
                cache->m_impl->insert(request.query, checked);
        }
        return run(schema, resolvers, request, request_state, limits, *checked, gate);
    } catch (const std::exception&) {
        // Only a bug or exhaustion gets here; the client still gets the response shape.
        return internal_error();
    }
}

} // namespace kprov::api::graphql
