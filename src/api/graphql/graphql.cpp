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
    if (!problems.empty()) {
        checked->refusal = refuse(Outcome::ValidationFailed, std::move(problems));
        checked->doc = {}; // only the answer is kept of a refused document
    }
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

Response too_large(bool query, const Limits& limits) {
    Response r;
    r.query = query;
    r.field_errors = true;
    json e = error_json("The response exceeds the limit of " +
                            std::to_string(limits.max_response_bytes) + " bytes.",
                        {});
    e["extensions"]["code"] = "RESPONSE_TOO_LARGE";
    r.text = "{\"data\":null,\"errors\":";
    append_json(r.text, json::array({std::move(e)}));
    r.text += '}';
    return r;
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
    if (!execute_operation(schema, resolvers, doc, *op, variables, request_state, errors, r.text,
                           limits.max_response_bytes))
        return too_large(r.query, limits);
    r.field_errors = !errors.empty();
    if (r.field_errors) {
        r.text += ",\"errors\":";
        append_json(r.text, errors);
    }
    r.text += '}';
    if (r.text.size() > limits.max_response_bytes)
        return too_large(r.query, limits);
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

namespace {

// What the cache's bookkeeping of one entry costs beyond its key and value: list and hash nodes,
// the Checked and its shared_ptr control block.
constexpr std::size_t k_entry_overhead = 256;

std::size_t tree_bytes(const ast::Value& v) {
    std::size_t n = sizeof(v) + v.text.size() + v.key_locs.size() * sizeof(SourceLocation);
    for (const auto& k : v.keys)
        n += sizeof(k) + k.size();
    for (const auto& item : v.items)
        n += tree_bytes(item);
    return n;
}

std::size_t tree_bytes(const std::vector<ast::Argument>& arguments) {
    std::size_t n = 0;
    for (const auto& a : arguments)
        n += sizeof(a) - sizeof(a.value) + a.name.size() + tree_bytes(a.value);
    return n;
}

std::size_t tree_bytes(const std::vector<ast::Directive>& directives) {
    std::size_t n = 0;
    for (const auto& d : directives)
        n += sizeof(d) + d.name.size() + tree_bytes(d.arguments);
    return n;
}

std::size_t tree_bytes(const std::vector<ast::Selection>& selections) {
    std::size_t n = 0;
    for (const auto& s : selections)
        n += sizeof(s) + s.alias.size() + s.name.size() + s.type_condition.size() +
             tree_bytes(s.arguments) + tree_bytes(s.directives) + tree_bytes(s.selections);
    return n;
}

/// About what a parsed document takes in memory (strings' and vectors' slack not counted).
std::size_t tree_bytes(const ast::Document& doc) {
    std::size_t n = sizeof(doc);
    for (const auto& op : doc.operations) {
        n += sizeof(op) + op.name.size() + tree_bytes(op.directives) + tree_bytes(op.selections);
        for (const auto& v : op.variables)
            n += sizeof(v) + v.name.size() + v.type.name.size() + v.type.mods.size() +
                 (v.default_value ? tree_bytes(*v.default_value) : 0) + tree_bytes(v.directives);
    }
    for (const auto& f : doc.fragments)
        n += sizeof(f) + f.name.size() + f.type_condition.size() + tree_bytes(f.directives) +
             tree_bytes(f.selections);
    return n;
}

} // namespace

struct DocumentCache::Impl {
    Impl(std::size_t max_bytes, std::size_t max_rejected_bytes)
        : rejected(std::min(max_rejected_bytes, max_bytes))
        , accepted(max_bytes - std::min(max_rejected_bytes, max_bytes)) {}

    mutable std::mutex mutex;
    // A rejected document keeps only its answer, never its tree.
    LruMap<std::shared_ptr<const Checked>> rejected;
    LruMap<std::shared_ptr<const Checked>> accepted;
    std::size_t hits = 0;
    std::size_t misses = 0;

    std::shared_ptr<const Checked> find(std::string_view query) {
        const std::lock_guard lock(mutex);
        auto* found = accepted.find(query);
        if (!found)
            found = rejected.find(query);
        ++(found ? hits : misses);
        return found ? *found : nullptr;
    }

    void insert(std::string_view query, std::shared_ptr<const Checked> checked) {
        // Costed outside the lock: the tree walk is the caller's own work.
        const bool refused = checked->refusal.has_value();
        const std::size_t cost =
            k_entry_overhead + 2 * query.size() +
            (refused ? checked->refusal->text.size() : tree_bytes(checked->doc));
        const std::lock_guard lock(mutex);
        auto& documents = refused ? rejected : accepted;
        if (!documents.find(query))
            documents.put(query, std::move(checked), cost);
    }
};

DocumentCache::DocumentCache(std::size_t max_bytes, std::size_t max_rejected_bytes)
    : m_impl(std::make_unique<Impl>(max_bytes, max_rejected_bytes)) {}

DocumentCache::~DocumentCache() = default;

std::size_t DocumentCache::size() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->accepted.size() + m_impl->rejected.size();
}

std::size_t DocumentCache::bytes() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->accepted.used() + m_impl->rejected.used();
}

std::size_t DocumentCache::rejected_bytes() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->rejected.used();
}

std::size_t DocumentCache::hits() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->hits;
}

std::size_t DocumentCache::misses() const {
    const std::lock_guard lock(m_impl->mutex);
    return m_impl->misses;
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
