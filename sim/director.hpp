#pragma once
// Compass Director as kprov sees it: the OAuth2 client-credentials token endpoint
// (/oauth2/token) and the GraphQL endpoint (/director/graphql) with the runtime operations kprov
// uses (registerRuntime, runtime, runtimes with label filters, updateRuntime,
// requestOneTimeTokenForRuntime, unregisterRuntime) and Director's error codes
// (extensions.error_code). Thread-safe.

#include "api.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kprov::sim {

struct GqlField;

struct DirectorOptions {
    std::string client_id = "kprov-sim-client";
    std::string client_secret = "kprov-sim-secret";
    double token_seconds = 3600; ///< lifetime of issued access tokens
};

/// Director error codes (Compass pkg/apperrors).
enum class DirectorCode : int {
    Internal = 10,
    Unknown = 11,
    NotFound = 20,
    NotUnique = 21,
    InvalidData = 22,
    InsufficientScopes = 23,
    TenantRequired = 24,
    TenantNotFound = 25,
    Unauthorized = 26,
    InvalidOperation = 27,
};

class Director {
public:
    explicit Director(DirectorOptions opts);

    /// POST /oauth2/token: Basic auth (or client_id/client_secret form fields),
    /// grant_type=client_credentials.
    ApiResponse token(const ApiRequest& req);
    /// POST /director/graphql: Bearer token from token(), Tenant header.
    ApiResponse graphql(const ApiRequest& req);

    /// Makes the next `count` calls of `operation` ("" for any) fail with `code`. With
    /// `http_status` (e.g. 502) they are carried out instead, and then answered with that status
    /// in place of their result: an answer lost on its way back, after the work was done.
    void inject_error(const std::string& operation, int code, const std::string& message, int count,
                      int http_status = 0);
    /// Every runtime of every tenant, for GET /sim/director.
    Json to_json() const;
    /// Every call Director was sent, oldest first, for GET /sim/director/calls: token requests
    /// {"kind":"token","clientId","status"} and GraphQL fields {"kind":"graphql","operation",
    /// "tenant","args","errorCode"} (errorCode 0 when the field succeeded). At most the last
    /// 10000 are kept.
    Json calls_json() const;
    void reset();

private:
    struct Runtime {
        std::string id;
        std::string tenant;
        std::string name;
        std::string description;
        Json labels = Json::object();
        std::string status_condition = "INITIAL";
        std::string created_at;
    };
    struct InjectedError {
        std::string operation;
        int code;
        std::string message;
        int count;
        int http_status = 0; ///< non-zero: do the work, then answer with this status
    };

    ApiResponse issue_token(const ApiRequest& req);
    Json run_field(const std::string& tenant, const GqlField& field, Json& errors);
    Json render(const Runtime& rt, const std::vector<std::string>& selection) const;
    /// runtimes(filter, first, after): a RuntimePage {data, pageInfo, totalCount}.
    Json runtime_page(const std::string& tenant, const GqlField& field, Json& errors) const;
    /// Takes one injected lost answer matching an operation of `fields`; 0 when none.
    int take_lost_answer(const std::vector<GqlField>& fields);

    DirectorOptions m_opts;
    mutable std::mutex m_mu;
    std::map<std::string, TimePoint> m_tokens;
    std::map<std::string, Runtime> m_runtimes;
    std::vector<InjectedError> m_injected;
    std::vector<Json> m_calls;
    void record(Json call); ///< under m_mu
};

} // namespace kprov::sim
