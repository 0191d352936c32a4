#pragma once
// Errors of the Kubernetes client: a Kubernetes Status answer (or no answer) turned into a
// kprov RemoteError that says which request failed and why.

#include "engine/error.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kprov::gardener {

/// One entry of a Status's details.causes.
struct StatusCause {
    std::string field;  // JSON path such as "spec.region"; may be empty
    std::string reason; // e.g. FieldValueRequired
    std::string message;
};

/// A failed Kubernetes API request. what() reads
/// "<label>: <VERB> <path>: <code> <reason>: <details>", for example
/// "gardener: POST /apis/core.gardener.cloud/v1beta1/namespaces/garden-p/shoots: 422 Invalid:
/// spec.region: Required value", and never holds credentials. http_status() is 0 when no answer
/// arrived. retryable() is true for 409 Conflict (re-read and retry), 410, 429, 5xx and
/// connection errors other than TLS failures.
class KubeError : public RemoteError {
public:
    KubeError(std::string message, int http_status, bool retryable, std::string reason,
              std::vector<StatusCause> causes, std::string request, std::string component)
        : RemoteError(std::move(message), http_status, retryable, std::move(reason),
                      std::move(component))
        , m_causes(std::move(causes))
        , m_request(std::move(request)) {}

    // reason(): the Status reason (NotFound, AlreadyExists, Conflict, Invalid, Forbidden, ...);
    // for an answer without a Status body, the one Kubernetes would use for its code; "" when no
    // answer arrived. component(): "k8s client - gardener" or "k8s client - cluster".
    const std::vector<StatusCause>& causes() const { return m_causes; }
    /// "VERB /path" without the query.
    const std::string& request() const { return m_request; }

    bool is_not_found() const { return http_status() == 404; }
    bool is_already_exists() const { return http_status() == 409 && reason() == "AlreadyExists"; }
    /// 409 other than AlreadyExists: a stale resourceVersion or a field-manager conflict.
    bool is_conflict() const { return http_status() == 409 && reason() != "AlreadyExists"; }
    bool is_gone() const { return http_status() == 410; }
    bool is_invalid() const { return http_status() == 422; }
    bool is_forbidden() const { return http_status() == 403; }
    bool is_unauthorized() const { return http_status() == 401; }

private:
    std::vector<StatusCause> m_causes;
    std::string m_request;
};

/// What a request's error messages say about who failed.
struct ErrorContext {
    std::string label;     // message prefix, e.g. "gardener"
    std::string component; // e.g. "k8s client - gardener"
    std::string request;   // "VERB /path"
    int attempts = 1;      // more than 1 adds "(after N attempts)" to messages
};

/// The error for an HTTP answer with status `status` and body `body` (a Status object or
/// anything else, e.g. a proxy's HTML page, which is cut short).
KubeError status_error(const ErrorContext& context, int status, const std::string& body);

/// The error for a request that got no answer; `detail` is the transport's message.
KubeError transport_error(const ErrorContext& context, const std::string& detail, bool retryable);

/// The Retry-After header (seconds) or, failing that, the Status's details.retryAfterSeconds.
std::optional<std::chrono::seconds> retry_after(const std::string& header_value,
                                                const std::string& body);

/// The Kubernetes reason used for `status` when the body carries none.
std::string default_reason(int status);

/// Whether an answer with this status may succeed when sent again unchanged.
bool retryable_status(int status, const std::string& reason);

} // namespace kprov::gardener
