#pragma once
// Compact JSON text written straight into a string: how responses leave the executor, in the
// order their fields were selected, without building a JSON tree first.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kprov::api::graphql {

/// Appends `text` as a JSON string: quoted, escaped; each byte of invalid UTF-8 becomes U+FFFD
/// (as nlohmann::json's error_handler_t::replace).
void append_json_string(std::string& out, std::string_view text);

/// Appends `value` as compact JSON, strings as append_json_string writes them.
void append_json(std::string& out, const nlohmann::json& value);

} // namespace kprov::api::graphql
