#pragma once
// The GraphQL endpoint's request pipeline (graphql-contract.md, Transport), one request at a
// time, in this order:
//   1. the answer cache: a request repeated while what it shows stands still gets the answer
//      it got before, unparsed (answer_cache.hpp);
//   2. reading the request: a POST's JSON body ({"query", "variables", "operationName"}) or a
//      GET's query parameters (queries only); a request that is not one gets 400;
//   3. parsing and validation, with the cost limits of graphql::Limits and the document
//      cache (bounded in bytes; parsed once per document);
//   4. one decision of where it runs, from the validated operation and what its resolvers
//      declare (graphql::OperationPlan): on the event loop, unless it is a mutation, selects a
//      field whose resolver may block (Gardener, a write), or the store is remote; else the
//      server runs it again on a worker, where its document is found parsed;
//   5. execution, the answer kept when it read only the store, and the writes a query left
//      on the loop (the original's tenant rewrite) posted to a worker after the answer.
// Authentication happens before any of it, on the request's head (server.cpp). Thread-safe.

#include "api/answer_cache.hpp"
#include "api/graphql/graphql.hpp"
#include "api/http/http_server.hpp"
#include "api/metrics.hpp"
#include "api/server.hpp"

#include <functional>
#include <string>

namespace kprov::api {

/// A request the transport refuses before GraphQL sees it (400, 401, 421): the same body
/// shape as GraphQL errors, {"errors": [{"message", "extensions": {"code"}}]}.
void transport_error(http::Response& res, int status, const std::string& message, const char* code);

class GraphqlEndpoint {
public:
    /// Runs a task on a worker thread (http::Server::post).
    using Post = std::function<void(std::function<void()>)>;

    /// The references must outlive the endpoint. Of `options` it uses queries_on_loop, limits
    /// and the answer cache's settings.
    GraphqlEndpoint(const graphql::Schema& schema, const graphql::Resolvers& resolvers,
                    Metrics& metrics, const ServerOptions& options);

    /// Where step 5 posts its writes; set before the first request.
    void set_post(Post post) { m_post = std::move(post); }

    /// Steps 1-5 for `req`. On an event loop (`on_loop`) answers, or returns Blocking for the
    /// server to call it again on a worker; there it always answers.
    http::Handled handle(const http::Request& req, http::Response& res, bool on_loop) const;

private:
    const graphql::Schema& m_schema;
    const graphql::Resolvers& m_resolvers;
    Metrics& m_metrics;
    const ServerOptions& m_options;
    Post m_post;
    mutable graphql::DocumentCache m_documents;
    mutable AnswerCache m_answers;
};

} // namespace kprov::api
