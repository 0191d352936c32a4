#pragma once
// Compass Director as kprov sees it: the OAuth2 client-credentials token endpoint
// (/oauth2/token) and the GraphQL endpoint (/director/graphql) with the five runtime operations
// and Director's error codes (extensions.error_code). Thread-safe.

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

    /// Makes the next `count` calls of `operation` ("" for any) fail with `code`.
    void inject_error(const std::string& operation, int code, const std::string& message,
                      int count);
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
    };

    ApiResponse issue_token(const ApiRequest& req);
    Json run_field(const std::string& tenant, const GqlField& field, Json& errors);
    Json render(const Runtime& rt, const std::vector<std::string>& selection) const;

    DirectorOptions m_opts;
    mutable std::mutex m_mu;
    std::map<std::string, TimePoint> m_tokens;
    std::map<std::string, Runtime> m_runtimes;
    std::vector<InjectedError> m_injected;
    std::vector<Json> m_calls;
    void record(Json call); ///< under m_mu
};

} // namespace kprov::sim
