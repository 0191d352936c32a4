// Turning a setting's text into its typed field, and back. Every source (default, file,
// environment, flag) goes through apply_setting(), so "5m" means the same wherever it is written
// and a default is held to the same rules as user input.

#include "config/settings.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

namespace kprov::config {
namespace {

using Complaint = std::optional<std::string>;

constexpr std::array k_log_levels{"trace",   "debug", "info",  "warn",
                                  "warning", "error", "fatal", "panic"};
constexpr std::array k_log_formats{"text", "json"};
constexpr std::array k_ssl_modes{"disable", "allow",     "prefer",
                                 "require", "verify-ca", "verify-full"};
constexpr std::array k_kyma_installers{"installation-cr", "lifecycle-manager", "none"};

bool is_artifact_url(std::string_view text) {
    for (const std::string_view scheme : {"http://", "https://", "file:///"})
        if (text.size() > scheme.size() && text.substr(0, scheme.size()) == scheme)
            return std::none_of(text.begin(), text.end(), [](unsigned char c) {
                return c <= ' ' || c == '?' || c == '#' || c == 0x7f;
            });
    return false;
}

template <std::size_t N>
bool is_one_of(const std::string& text, const std::array<const char*, N>& choices) {
    return std::any_of(choices.begin(), choices.end(),
                       [&](const char* choice) { return text == choice; });
}

std::string range_text(long long min, long long max) {
    if (max == INT_MAX)
        return std::to_string(min) + " or more";
    return std::to_string(min) + "-" + std::to_string(max);
}

// The whole text must be the number: a trailing unit or space would make "5m" silently mean 5.
std::optional<long long> parse_whole_number(std::string_view text, bool& overflow) {
    long long value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    overflow = ec == std::errc::result_out_of_range;
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

// A port as Go's net.Listen takes it: a decimal 0-65535 (0 = any free port).
bool is_listen_port(std::string_view port) {
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    return std::stoi(std::string(port)) <= 65535;
}

// host:port, where host may be empty (all interfaces), a name, an IPv4 address or a
// bracketed IPv6 address; an unbracketed IPv6 address is ambiguous and refused, as Go does.
bool is_listen_address(std::string_view text) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
        return false;
    const auto host = text.substr(0, colon);
    const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
    if (!bracketed && host.find_first_of(":[] /\t") != std::string_view::npos)
        return false;
    return is_listen_port(text.substr(colon + 1));
}

bool is_http_url(std::string_view text) {
    for (std::string_view scheme : {"http://", "https://"})
        if (text.substr(0, scheme.size()) == scheme && text.size() > scheme.size())
            return true;
    return false;
}

// Only the shape: which schemes exist is the stores' table (stores/open_store.cpp), which names
// them when it refuses one.
bool looks_like_store_url(std::string_view text) {
    const auto sep = text.find("://");
    if (sep == std::string_view::npos || sep == 0 || sep + 3 == text.size())
        return false;
    return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(sep), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    });
}

// Checks text for the string-valued kinds; returns the value to store (some kinds normalize).
Complaint check_text(Kind kind, std::string_view text, std::string& normalized) {
    normalized = std::string(text);
    switch (kind) {
    case Kind::String:
    case Kind::Path:
        return std::nullopt;
    case Kind::Url:
        if (is_http_url(text))
            return std::nullopt;
        return "is not an http(s) URL (expected e.g. https://host:3000/graphql)";
    case Kind::UrlPath:
        if (text.front() == '/')
            return std::nullopt;
        return "is not a URL path (expected it to start with /, e.g. /graphql)";
    case Kind::StoreUrl:
        if (looks_like_store_url(text))
            return std::nullopt;
        return "is not a store URL (expected sqlite:///abs/path.db or "
               "postgres://user:password@host:5432/db)";
    case Kind::Address:
        if (is_listen_address(text))
            return std::nullopt;
        return "is not a listen address (expected host:port with a port 0-65535, e.g. "
               "127.0.0.1:3000)";
    case Kind::AesKey:
        if (text.size() == 16 || text.size() == 24 || text.size() == 32)
            return std::nullopt;
        return "has " + std::to_string(text.size()) + " bytes (expected 16, 24 or 32)";
    case Kind::LogLevel:
        normalized = ascii_lower(text);
        if (is_one_of(normalized, k_log_levels))
            return std::nullopt;
        return "is not a log level (expected trace, debug, info, warn, warning, error, fatal "
               "or panic)";
    case Kind::LogFormat:
        normalized = ascii_lower(text);
        if (is_one_of(normalized, k_log_formats))
            return std::nullopt;
        return "is not a log format (expected text, lines with a time stamp, or json, one JSON "
               "object per line)";
    case Kind::SslMode:
        normalized = ascii_lower(text);
        if (is_one_of(normalized, k_ssl_modes))
            return std::nullopt;
        return "is not a libpq sslmode (expected disable, allow, prefer, require, verify-ca or "
               "verify-full)";
    case Kind::KymaInstaller:
        normalized = ascii_lower(text);
        if (is_one_of(normalized, k_kyma_installers))
            return std::nullopt;
        return "is not a Kyma installer (expected lifecycle-manager, today's Kyma Lifecycle "
               "Manager in a KCP; installation-cr, Kyma 1.x's Installation CR; or none, which "
               "refuses requests with a kymaConfig)";
    case Kind::ArtifactUrl:
        if (!is_artifact_url(text))
            return "is not a URL prefix (expected http://, https:// or file:///abs/path, without "
                   "query or fragment)";
        normalized = std::string(text);
        while (normalized.size() > 1 && normalized.back() == '/')
            normalized.pop_back();
        return std::nullopt;
    case Kind::Bool:
    case Kind::Int:
    case Kind::Port:
    case Kind::Double:
    case Kind::Duration:
        break;
    }
    throw std::logic_error("setting kind " + std::string(kind_name(kind)) +
                           " cannot be stored in a text field");
}

void require_kind(const SettingSpec& spec, std::initializer_list<Kind> kinds) {
    if (std::find(kinds.begin(), kinds.end(), spec.kind) == kinds.end())
        throw std::logic_error("setting " + std::string(spec.key) + " of kind " +
                               std::string(kind_name(spec.kind)) + " has a field of another type");
}

// One overload per field type; the table guarantees (and a test checks) that the spec's kind
// suits the field.
Complaint parse_into(const SettingSpec& spec, std::string_view text, std::string& out) {
    std::string normalized;
    if (text.empty()) {
        out.clear();
        return std::nullopt;
    }
    auto complaint = check_text(spec.kind, text, normalized);
    if (!complaint)
        out = std::move(normalized);
    return complaint;
}

Complaint parse_into(const SettingSpec& spec, std::string_view text,
                     std::optional<std::string>& out) {
    if (text.empty()) {
        out.reset();
        return std::nullopt;
    }
    std::string value;
    auto complaint = parse_into(spec, text, value);
    if (!complaint)
        out = std::move(value);
    return complaint;
}

Complaint parse_into(const SettingSpec& spec, std::string_view text, bool& out) {
    require_kind(spec, {Kind::Bool});
    const auto lower = ascii_lower(text);
    if (lower == "true" || lower == "1" || lower == "yes")
        out = true;
    else if (lower == "false" || lower == "0" || lower == "no")
        out = false;
    else
        return "is not a boolean (expected true, false, 1, 0, yes or no)";
    return std::nullopt;
}

Complaint parse_into(const SettingSpec& spec, std::string_view text, int& out) {
    require_kind(spec, {Kind::Int, Kind::Port});
    const bool port = spec.kind == Kind::Port;
    const long long min = port ? 1 : spec.min, max = port ? 65535 : spec.max;
    const std::string expected = "(expected " + range_text(min, max) + ")";
    bool overflow = false;
    const auto value = text.empty() ? std::nullopt : parse_whole_number(text, overflow);
    if (!value && !overflow)
        return (port ? "is not a port number " : "is not a whole number ") + expected;
    if (overflow || *value < min || *value > max)
        return "is out of range " + expected;
    out = static_cast<int>(*value);
    return std::nullopt;
}

Complaint parse_into(const SettingSpec& spec, std::string_view text, double& out) {
    require_kind(spec, {Kind::Double});
    double value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value))
        return "is not a number (expected e.g. 20 or 2.5)";
    if (value <= 0)
        return "is out of range (expected a number above 0)";
    out = value;
    return std::nullopt;
}

Complaint parse_into(const SettingSpec& spec, std::string_view text, Duration& out) {
    require_kind(spec, {Kind::Duration});
    const auto value = parse_duration(text);
    if (!value)
        return "is not a duration (expected e.g. 90s, 5m, 1h30m)";
    out = *value;
    return std::nullopt;
}

std::string format_value(const std::string& value) {
    return value;
}
std::string format_value(const std::optional<std::string>& value) {
    return value.value_or("");
}
std::string format_value(bool value) {
    return value ? "true" : "false";
}
std::string format_value(int value) {
    return std::to_string(value);
}
std::string format_value(Duration value) {
    return format_duration(value);
}
std::string format_value(double value) {
    // Shortest text that reads back as the same number: 20, not 20.000000.
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
}

// RFC 3986 unreserved characters pass; everything else (":", "@", "/", "?", "&", ...) is encoded
// so that a password or a path cannot change the URL's structure.
std::string percent_encode(std::string_view text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += k_hex[c >> 4];
            out += k_hex[c & 0xF];
        }
    }
    return out;
}

} // namespace

std::string_view kind_name(Kind kind) {
    switch (kind) {
    case Kind::String:
        return "text";
    case Kind::Path:
        return "file path";
    case Kind::Url:
        return "http(s) URL";
    case Kind::UrlPath:
        return "URL path";
    case Kind::StoreUrl:
        return "store URL";
    case Kind::Bool:
        return "boolean";
    case Kind::Int:
        return "integer";
    case Kind::Port:
        return "port";
    case Kind::Double:
        return "number";
    case Kind::Duration:
        return "duration";
    case Kind::Address:
        return "listen address (host:port)";
    case Kind::AesKey:
        return "AES key (16, 24 or 32 bytes)";
    case Kind::LogLevel:
        return "log level";
    case Kind::LogFormat:
        return "log format (text or json)";
    case Kind::SslMode:
        return "sslmode";
    case Kind::KymaInstaller:
        return "Kyma installer (installation-cr, lifecycle-manager or none)";
    case Kind::ArtifactUrl:
        return "URL prefix (http, https or file)";
    }
    return "unknown";
}

std::optional<std::string> apply_setting(const SettingSpec& spec, std::string_view text,
                                         Settings& settings) {
    return std::visit([&](auto* field) { return parse_into(spec, text, *field); },
                      spec.field(settings));
}

std::string format_setting(const SettingSpec& spec, const Settings& settings) {
    // The table has one accessor per setting, shared by reading and writing so each binding is
    // written once; reading through it never modifies `settings`.
    auto& readable = const_cast<Settings&>(settings);
    return std::visit([](auto* field) { return format_value(*field); }, spec.field(readable));
}

std::string postgres_url(const Database& database) {
    std::string url = "postgresql://" + percent_encode(database.user);
    if (!database.password.empty())
        url += ":" + percent_encode(database.password);
    const bool ipv6 = database.host.find(':') != std::string::npos && database.host[0] != '[';
    url += "@" + (ipv6 ? "[" + database.host + "]" : database.host);
    url += ":" + std::to_string(database.port) + "/" + percent_encode(database.name);
    url += "?sslmode=" + percent_encode(database.ssl_mode);
    if (!database.ssl_root_cert.empty())
        url += "&sslrootcert=" + percent_encode(database.ssl_root_cert);
    return url;
}

} // namespace kprov::config
