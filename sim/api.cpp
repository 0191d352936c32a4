#include "api.hpp"

#include "net/base64.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <openssl/rand.h>

namespace kprov::sim {

std::string ApiRequest::query_value(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
}

bool ApiRequest::query_bool(const std::string& name) const {
    auto it = query.find(name);
    if (it == query.end())
        return false;
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return v != "0" && v != "false";
}

std::string ApiRequest::header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

std::string ApiRequest::content_type() const {
    std::string ct = header("content-type");
    ct = ct.substr(0, ct.find(';'));
    while (!ct.empty() && ct.back() == ' ')
        ct.pop_back();
    std::transform(ct.begin(), ct.end(), ct.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ct;
}

ApiResponse ApiResponse::json(int status, const Json& body) {
    ApiResponse r;
    r.status = status;
    r.body = body.dump();
    return r;
}

std::string ResourceInfo::qualified() const {
    return group.empty() ? resource : resource + "." + group;
}

std::string ResourceInfo::qualified_kind() const {
    return group.empty() ? kind : kind + "." + group;
}

ApiError::ApiError(int code, Json status)
    : std::runtime_error(status.value("message", std::string("error")))
    , m_code(code)
    , m_status(std::move(status)) {}

Json failure_status(int code, const std::string& reason, const std::string& message, Json details) {
    Json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
              {"status", "Failure"}, {"message", message}, {"reason", reason},
              {"code", code}};
    if (!details.is_null())
        s["details"] = std::move(details);
    return s;
}

Json success_status(const ResourceInfo& info, const std::string& name, const std::string& uid) {
    Json details = {{"name", name}, {"kind", info.resource}, {"uid", uid}};
    if (!info.group.empty())
        details["group"] = info.group;
    return {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", Json::object()},
            {"status", "Success"},
            {"details", details}};
}

namespace {

Json object_details(const ResourceInfo& info, const std::string& name, bool kind_is_resource) {
    Json d = {{"name", name}, {"kind", kind_is_resource ? info.resource : info.kind}};
    if (!info.group.empty())
        d["group"] = info.group;
    return d;
}

std::string quoted(const std::string& s) {
    return "\"" + s + "\"";
}

} // namespace

ApiError not_found(const ResourceInfo& info, const std::string& name) {
    return {404,
            failure_status(404, "NotFound", info.qualified() + " " + quoted(name) + " not found",
                           object_details(info, name, true))};
}

ApiError already_exists(const ResourceInfo& info, const std::string& name) {
    return {409, failure_status(409, "AlreadyExists",
                                info.qualified() + " " + quoted(name) + " already exists",
                                object_details(info, name, true))};
}

ApiError conflict(const ResourceInfo& info, const std::string& name) {
    return {409, failure_status(409, "Conflict",
                                "Operation cannot be fulfilled on " + info.qualified() + " " +
                                    quoted(name) +
                                    ": the object has been modified; please apply your changes "
                                    "to the latest version and try again",
                                object_details(info, name, true))};
}

ApiError invalid(const ResourceInfo& info, const std::string& name,
                 const std::vector<Cause>& causes) {
    Json details = object_details(info, name, false);
    details["causes"] = Json::array();
    std::vector<std::string> parts;
    for (const auto& c : causes) {
        details["causes"].push_back(
            {{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
        parts.push_back(c.field + ": " + c.message);
    }
    std::string joined;
    for (std::size_t i = 0; i < parts.size(); ++i)
        joined += (i ? ", " : "") + parts[i];
    if (parts.size() > 1)
        joined = "[" + joined + "]";
    return {422,
            failure_status(422, "Invalid",
                           info.qualified_kind() + " " + quoted(name) + " is invalid: " + joined,
                           details)};
}

ApiError forbidden(const ResourceInfo& info, const std::string& name, const std::string& why) {
    return {403, failure_status(403, "Forbidden",
                                info.qualified() + " " + quoted(name) + " is forbidden: " + why,
                                object_details(info, name, true))};
}

ApiError bad_request(const std::string& message) {
    return {400, failure_status(400, "BadRequest", message)};
}

ApiError unauthorized() {
    return {401, failure_status(401, "Unauthorized", "Unauthorized")};
}

ApiError expired(const std::string& message) {
    return {410, failure_status(410, "Expired", message)};
}

ApiError method_not_allowed(const std::string& message) {
    return {405, failure_status(405, "MethodNotAllowed", message)};
}

ApiError unsupported_media_type(const std::string& content_type) {
    return {415, failure_status(415, "UnsupportedMediaType",
                                "the body of the request was in an unknown format - accepted "
                                "media types include: application/json-patch+json, "
                                "application/merge-patch+json, application/apply-patch+yaml, "
                                "application/strategic-merge-patch+json (got " +
                                    quoted(content_type) + ")")};
}

ApiError unsupported_body_type(const std::string& content_type) {
    return {415,
            failure_status(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json (kprov-sim decodes JSON only; got " +
                               quoted(content_type) + ")")};
}

ApiError too_many_requests(int retry_after_seconds) {
    ApiError e{429,
               failure_status(429, "TooManyRequests", "Too many requests, please try again later.",
                              {{"retryAfterSeconds", retry_after_seconds}})};
    e.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
    return e;
}

ApiError internal_error(const std::string& message) {
    return {500, failure_status(500, "InternalError", "Internal error occurred: " + message,
                                {{"causes", Json::array({{{"message", message}}})}})};
}

ApiError service_unavailable(const std::string& message, int retry_after_seconds) {
    Json details = nullptr;
    if (retry_after_seconds > 0)
        details = {{"retryAfterSeconds", retry_after_seconds}};
    ApiError e{503, failure_status(503, "ServiceUnavailable", message, details)};
    if (retry_after_seconds > 0)
        e.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
    return e;
}

ApiError injected_error(int code, int retry_after_seconds) {
    switch (code) {
    case 429:
        return too_many_requests(retry_after_seconds > 0 ? retry_after_seconds : 1);
    case 500:
        return internal_error("injected fault (kprov-sim)");
    case 503:
        return service_unavailable("the server is currently unable to handle the request "
                                   "(injected fault)",
                                   retry_after_seconds);
    case 401:
        return unauthorized();
    case 403:
        return {403, failure_status(403, "Forbidden", "forbidden: injected fault (kprov-sim)")};
    case 409:
        return {409, failure_status(409, "Conflict",
                                    "Operation cannot be fulfilled: the object has been modified; "
                                    "please apply your changes to the latest version and try "
                                    "again (injected fault)")};
    case 410:
        return expired("too old resource version (injected fault)");
    case 504:
        return {504, failure_status(504, "Timeout",
                                    "Timeout: request did not complete within "
                                    "the allowed duration (injected fault)")};
    default: {
        ApiError e{code, failure_status(code, "Unknown", "injected fault (kprov-sim)")};
        if (retry_after_seconds > 0)
            e.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
        return e;
    }
    }
}

Json parse_body_object(const std::string& body) {
    Json j = Json::parse(body, nullptr, false);
    if (j.is_discarded())
        throw bad_request("the request body is not valid JSON");
    if (!j.is_object())
        throw bad_request("the request body must be a JSON object");
    return j;
}

std::string rfc3339(TimePoint t) {
    std::time_t tt = Clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    std::array<char, 32> buf{};
    std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf.data();
}

std::optional<TimePoint> parse_rfc3339(const std::string& s) {
    std::tm tm{};
    int n = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                    &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
        return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return Clock::from_time_t(timegm(&tm));
}

namespace {

void random_bytes(unsigned char* out, std::size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1)
        throw std::runtime_error("RAND_bytes failed");
}

} // namespace

std::string random_uuid() {
    std::array<unsigned char, 16> b{};
    random_bytes(b.data(), b.size());
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s += '-';
        s += hex[b[i] >> 4];
        s += hex[b[i] & 0x0f];
    }
    return s;
}

std::string random_token(std::size_t n) {
    static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::vector<unsigned char> b(n);
    random_bytes(b.data(), n);
    std::string s;
    for (unsigned char c : b)
        s += alphabet[c % 36];
    return s;
}

// One implementation of base64 in the project (src/net/base64.cpp); the simulator's names stay.
std::string base64_encode(const std::string& data) {
    return net::base64_encode(data);
}

std::optional<std::string> base64_decode(const std::string& data) {
    return net::base64_decode(data);
}

} // namespace kprov::sim
