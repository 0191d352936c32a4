#pragma once
// Reading what a remote server sent, so that no answer can overflow a conversion or flood a
// message: integers that saturate, and texts (error messages, warnings) that are capped and
// cleaned before they are stored or logged.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::net {

/// `value` rounded toward zero and clamped to the range of std::int64_t; NaN gives 0.
std::int64_t saturating_int64(double value);

/// A JSON number as std::int64_t, saturated: an unsigned value beyond INT64_MAX gives INT64_MAX,
/// a floating-point one is rounded toward zero and clamped. nullopt when `value` is no number.
std::optional<std::int64_t> json_int64(const nlohmann::json& value);

/// json_int64() clamped further to the range of int.
std::optional<int> json_int(const nlohmann::json& value);

/// `seconds` (a remote lifetime such as OAuth's expires_in) in milliseconds, saturated: negative
/// and NaN give zero, anything beyond the range of milliseconds gives its maximum.
std::chrono::milliseconds saturating_millis(double seconds);

/// The usual cap of a remote text in kprov's messages.
inline constexpr std::size_t k_remote_text_max_bytes = 1024;

/// `text` fit for a message or a log line: invalid UTF-8 bytes become U+FFFD; tab, CR and LF
/// become spaces; every other control character (C0, DEL, C1, ESC included) becomes U+FFFD.
/// When the result would be longer than `max_bytes` it is cut there on a code point boundary and
/// "… (truncated)" is appended.
std::string clean_remote_text(std::string_view text,
                              std::size_t max_bytes = k_remote_text_max_bytes);

/// How deep a JSON document from a server may nest arrays and objects. Kubernetes objects
/// (CRD schemas included) stay far below it; nlohmann/json parses without recursion but dumps,
/// copies and compares recursively, so a deeper document is refused before it is built.
inline constexpr std::size_t k_max_remote_json_depth = 256;

/// Whether `text` nests arrays and objects at most `max_depth` deep. One pass, brackets inside
/// strings skipped; says nothing else about whether `text` is JSON.
bool json_nesting_within(std::string_view text, std::size_t max_depth = k_max_remote_json_depth);

} // namespace kprov::net
