#pragma once
// kprov's GraphQL (June 2018 spec + the October 2021 additions clients send): a schema loaded from
// SDL, executable documents parsed, validated against the schema and executed against resolvers.
// Knows nothing of kprov's domain: src/api/ supplies the schema file and the resolvers.
//
// Values travel as JSON. A resolver returns the value of its field as a graphql::Value (a cheap
// JSON tree; any nlohmann::json converts to one); for an object type that value is an object
// whose members the executor reads for the sub-fields that have no resolver of their own
// (members that the schema does not declare, e.g. "_runtimeID", are never visible to clients, so
// resolvers can park what a lazy sub-field needs there). An abstract type (union, interface)
// learns its concrete type from the object's "__typename" member.

#include "api/graphql/value.hpp"
#include "engine/input/input_limits.hpp" // k_max_input_nesting: one limit for every reader of input

#include <any>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::api::graphql {

struct SourceLocation {
    int line = 0;   // 1-based
    int column = 0; // 1-based
};

/// A broken schema file: kprov's own bug or a broken install; names the line and column.
class SchemaError : public std::runtime_error {
public:
    SchemaError(const std::string& message, SourceLocation where);
    SourceLocation where;
};

class Schema; // opaque: types, fields, arguments, directives, deprecations, descriptions

/// Parses SDL (type system definitions and extensions). Throws SchemaError. The schema is
/// immutable: one may serve any number of threads at once.
std::shared_ptr<const Schema> load_schema(std::string_view sdl);

/// Limits that keep a hostile document from costing more than a normal one.
struct Limits {
    std::size_t max_document_bytes = 64 * 1024;
    std::size_t max_tokens = 10'000;
    int max_depth = 15;   // nesting of selection sets (fragments expanded)
    int max_aliases = 30; // aliased fields in the whole document
    std::size_t max_variable_nesting = k_max_input_nesting; // arrays and objects in variables
    /// An executed answer ("data" and "errors" as text) larger than this is replaced by
    /// {"data": null, "errors": [{"message": "The response exceeds the limit of N bytes.",
    /// "extensions": {"code": "RESPONSE_TOO_LARGE"}}]}; execution stops soon after the answer
    /// crosses the limit, so later fields (root mutation fields too) do not run.
    std::size_t max_response_bytes = 16 * 1024 * 1024;
};

/// How deeply arrays and objects nest in `value` (a scalar: 0), computed without recursion and
/// given up once beyond `stop_after`. nlohmann::json copies and dumps recursively, so a caller
/// checks a client's JSON with this before copying it (execute() checks the variables).
std::size_t json_nesting(const nlohmann::json& value, std::size_t stop_after);

/// A resolver's failure: the field becomes null (propagated per the spec's non-null rules) and
/// the response carries {"message", "locations", "path", "extensions"}.
class FieldError : public std::runtime_error {
public:
    explicit FieldError(const std::string& message, nlohmann::json extensions = nullptr);
    nlohmann::json extensions; // object or null
};

/// What a resolver is given.
struct FieldContext {
    ValueRef parent;                 // the enclosing object's value (null for root fields)
    const nlohmann::json& arguments; // coerced arguments: an object, defaults applied
    std::string_view type_name;      // the object type the field belongs to
    std::string_view field_name;
    std::any& request; // the caller's per-request state (tenant, headers, ...)
};

using Resolver = std::function<Value(const FieldContext&)>;

/// Whether a resolver may block the thread that runs it (a remote call, a store write): a
/// caller decides from it where a request runs (OperationPlan).
enum class Blocking { No, Yes };

/// Resolvers by "Type.field"; a field without one reads parent[field] (null when absent).
class Resolvers {
public:
    void add(std::string type_dot_field, Resolver resolver, Blocking blocking = Blocking::No);
    const Resolver* find(std::string_view type_name, std::string_view field_name) const;
    /// Whether a resolver of a field of that name (on any type) was added as blocking.
    bool may_block(std::string_view field_name) const;

private:
    std::vector<std::pair<std::string, Resolver>> entries_;
    std::vector<std::string> blocking_fields_;
};

struct Request {
    std::string query;
    std::string operation_name; // empty: the document's only operation
    nlohmann::json variables = nlohmann::json::object();
    bool allow_mutations = true; // false for GET requests
};

/// What a caller may decide from before an operation runs (execute()'s `gate`): read from the
/// validated document and the resolvers' declared needs, never from the query's text.
struct OperationPlan {
    bool mutation = false;
    /// It selects (through any fragment) a field whose resolver may block (Blocking::Yes).
    bool blocking = false;
};

/// Called once, after parsing, validation and the choice of the operation, before anything
/// runs; false: execute() runs nothing and answers Outcome::Deferred.
using Gate = std::function<bool(const OperationPlan&)>;

struct Response {
    enum class Outcome {
        Executed,         // the operation ran (errors may still hold field errors)
        ParseFailed,      // syntax, or a limit exceeded: no "data"
        ValidationFailed, // the document does not fit the schema (or variables do not): no "data"
        Deferred,         // the gate said no: nothing ran, `text` is empty
    };
    Outcome outcome = Outcome::Executed;
    /// Executed: whether the operation was a query (not a mutation) and whether any field
    /// failed (the answer then has "errors").
    bool query = false;
    bool field_errors = false;
    /// The response as compact JSON text: {"data": ..., "errors": [...]} as the spec lays it out
    /// ("errors" only when there are some), the members of "data" in the order the query
    /// selected them; for ParseFailed/ValidationFailed only "errors", each with
    /// extensions.code GRAPHQL_PARSE_FAILED / GRAPHQL_VALIDATION_FAILED. Valid UTF-8: invalid
    /// bytes in what resolvers returned are replaced by U+FFFD.
    std::string text;

    /// `text` parsed (for tests and callers that inspect the answer); member order is lost.
    nlohmann::json body() const;
};

class DocumentCache;

/// Parses, validates and executes one request. Never throws for anything a client sends.
/// Reentrant; resolvers run on the calling thread, root mutation fields one after another.
/// With a `cache`, the document is parsed and validated only when the cache does not hold it;
/// variables are coerced per request.
/// With a `gate`, the operation runs only when the gate agrees (a caller then runs the request
/// again where it may block; with the same `cache`, its document is not parsed twice).
Response execute(const Schema& schema, const Resolvers& resolvers, const Request& request,
                 std::any& request_state, const Limits& limits = {}, DocumentCache* cache = nullptr,
                 const Gate& gate = {});

/// Parsed and validated documents by their text, so that a repeated query costs a hash lookup
/// instead of parsing and validation. Bounded in bytes: what a document costs is its text, an
/// estimate of its syntax tree and, for a document that fails, the text of its answer (which
/// is all that is kept of it). Documents that fail have their own, smaller budget, so a client
/// sending broken documents cannot push out the good ones; in each budget the least recently
/// used document goes first, and a document that alone exceeds its budget is not kept. One
/// cache serves one schema and one Limits. Thread-safe.
class DocumentCache {
public:
    static constexpr std::size_t k_default_max_bytes = 32 * 1024 * 1024;
    static constexpr std::size_t k_default_max_rejected_bytes = 1024 * 1024;

    /// Holds at most `max_bytes` in all; of that, at most `max_rejected_bytes` (capped at
    /// `max_bytes`) for documents that fail.
    explicit DocumentCache(std::size_t max_bytes = k_default_max_bytes,
                           std::size_t max_rejected_bytes = k_default_max_rejected_bytes);
    ~DocumentCache();
    DocumentCache(const DocumentCache&) = delete;
    DocumentCache& operator=(const DocumentCache&) = delete;

    /// Documents held now, accepted and rejected.
    std::size_t size() const;
    /// What the documents held now cost, all of them (at most max_bytes).
    std::size_t bytes() const;
    /// What the rejected documents held now cost (at most max_rejected_bytes).
    std::size_t rejected_bytes() const;
    /// Requests answered from the cache, and requests it did not hold the document of.
    std::size_t hits() const;
    std::size_t misses() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    friend Response execute(const Schema&, const Resolvers&, const Request&, std::any&,
                            const Limits&, DocumentCache*, const Gate&);
};

/// Parses and validates a document without choosing or running an operation: ParseFailed or
/// ValidationFailed with the errors execute() would answer, else Executed with text "{}".
/// Never throws for anything a client sends.
Response check_document(const Schema& schema, std::string_view query, const Limits& limits = {});

} // namespace kprov::api::graphql
