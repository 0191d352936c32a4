#pragma once
// The request/response shapes every kprov-sim handler works with, independent of the HTTP
// library (only server.cpp sees cpp-httplib), and the Kubernetes `Status` errors they throw.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kprov::sim {

using Json = nlohmann::json;
using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

/// One HTTP request as the handlers see it. Header names are lower-case.
struct ApiRequest {
    std::string method;
    std::string path; ///< URL-decoded, without the query string
    std::multimap<std::string, std::string> query;
    std::map<std::string, std::string> headers;
    std::string body;
    std::string base_url;     ///< how clients reach this sim, e.g. "http://127.0.0.1:8080"
    bool client_cert = false; ///< the TLS peer presented a certificate signed by the sim CA

    /// First value of a query parameter; "" when absent.
    std::string query_value(const std::string& name) const;
    bool has_query(const std::string& name) const { return query.count(name) > 0; }
    /// A boolean query parameter as apimachinery decodes it (watch, allowWatchBookmarks,
    /// sendInitialEvents, force, ...): false when absent, "0" or "false" in any case; true for
    /// anything else, "True", "yes" and the empty string included. The first value counts.
    bool query_bool(const std::string& name) const;
    /// A header's value ("" when absent); `name` must be lower-case.
    std::string header(const std::string& name) const;
    /// The media type of the body without parameters ("application/json"), lower-case.
    std::string content_type() const;
};

/// What a streaming response (a watch) produces: call `next` repeatedly; it appends to `out`
/// and returns false once the stream has ended. `abort` set means: close the connection
/// without the terminating chunk (a dropped connection).
struct StreamSource {
    std::function<bool(std::string& out, bool& abort)> next;
    std::function<void()> release; ///< called once when the server is done with the stream
};

struct ApiResponse {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
    std::shared_ptr<StreamSource> stream; ///< set for watches: body is streamed chunked
    bool drop_connection = false;         ///< fault injection: cut the response off

    static ApiResponse json(int status, const Json& body);
};

/// A resource type as discovery and error messages name it.
struct ResourceInfo {
    std::string group; ///< "" for the core group
    std::string version;
    std::string resource; ///< plural, e.g. "shoots"
    std::string kind;
    bool namespaced = true;
    std::string singular;
    std::vector<std::string> short_names;
    std::vector<std::string> verbs; ///< for discovery; empty means every verb

    /// "shoots.core.gardener.cloud", or "configmaps" for the core group.
    std::string qualified() const;
    /// "Shoot.core.gardener.cloud", or "ConfigMap" for the core group.
    std::string qualified_kind() const;
    std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

/// One field problem of a 422 Invalid answer (`details.causes[]`).
struct Cause {
    std::string reason; ///< FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ...
    std::string message;
    std::string field;
};

/// A failed request: carries the HTTP code and the complete Kubernetes `Status` body. Handlers
/// throw it; the server turns it into the response.
class ApiError : public std::runtime_error {
public:
    ApiError(int code, Json status);
    int code() const { return m_code; }
    const Json& status() const { return m_status; }
    /// Extra response headers (Retry-After).
    std::vector<std::pair<std::string, std::string>> headers;

private:
    int m_code;
    Json m_status;
};

/// A `Status` object with status Failure.
Json failure_status(int code, const std::string& reason, const std::string& message,
                    Json details = nullptr);
/// A `Status` object with status Success (DELETE of an object that vanished at once).
Json success_status(const ResourceInfo& info, const std::string& name, const std::string& uid);

ApiError not_found(const ResourceInfo& info, const std::string& name);
ApiError already_exists(const ResourceInfo& info, const std::string& name);
ApiError conflict(const ResourceInfo& info, const std::string& name);
ApiError invalid(const ResourceInfo& info, const std::string& name,
                 const std::vector<Cause>& causes);
ApiError forbidden(const ResourceInfo& info, const std::string& name, const std::string& why);
ApiError bad_request(const std::string& message);
ApiError unauthorized();
ApiError expired(const std::string& message);
ApiError method_not_allowed(const std::string& message);
/// 415 for a PATCH body of an unknown patch type.
ApiError unsupported_media_type(const std::string& content_type);
/// 415 for a POST/PUT body that is not JSON (kprov-sim decodes no protobuf or YAML).
ApiError unsupported_body_type(const std::string& content_type);
ApiError too_many_requests(int retry_after_seconds);
ApiError internal_error(const std::string& message);
ApiError service_unavailable(const std::string& message, int retry_after_seconds = 0);
/// The error for an HTTP status chosen by fault injection (429, 500, 503, any other code).
ApiError injected_error(int code, int retry_after_seconds);

/// `j[key]` as a T, `fallback` when absent; throws ApiError 400 naming the key when its type is
/// wrong.
template <class T> T json_field(const Json& j, const char* key, T fallback) {
    if (!j.contains(key))
        return fallback;
    try {
        return j.at(key).get<T>();
    } catch (const Json::exception&) {
        throw bad_request(std::string("\"") + key + "\" has the wrong type");
    }
}

/// Parses a request body as a JSON object; throws 400 BadRequest otherwise.
Json parse_body_object(const std::string& body);

/// RFC 3339 UTC with seconds ("2026-01-02T03:04:05Z").
std::string rfc3339(TimePoint t);
/// A random UUID (version 4), lower-case.
std::string random_uuid();
/// `n` random characters from [a-z0-9].
std::string random_token(std::size_t n);
/// Standard base64 with padding.
std::string base64_encode(const std::string& data);
/// Decodes standard base64; nullopt if malformed.
std::optional<std::string> base64_decode(const std::string& data);
/// Parses RFC 3339 UTC ("...Z"); nullopt if malformed.
std::optional<TimePoint> parse_rfc3339(const std::string& s);
/// Seconds as a duration (fractions allowed).
inline Clock::duration seconds_to_duration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

} // namespace kprov::sim
