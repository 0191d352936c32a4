#pragma once
// Compact JSON text written straight into a string: how responses leave the executor, in the
// order their fields were selected, without building a JSON tree first.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::api::graphql {

/// Appends `text` as a JSON string: quoted, escaped; each byte of invalid UTF-8 becomes U+FFFD
/// (as nlohmann::json's error_handler_t::replace).
void append_json_string(std::string& out, std::string_view text);

/// Appends the JSON escape of `c` when it needs one: \" \\ \n \r \t \b \f, or \u00XX for
/// other control characters, XX in `hex_digits` ("0123456789abcdef" or upper case). False
/// (nothing appended) for any other byte.
bool append_json_escape(std::string& out, unsigned char c, const char* hex_digits);

/// The character a short escape `\e` stands for in JSON and GraphQL strings (\" \\ \/ \b \f
/// \n \r \t); nullopt for any other `e`, \u included.
std::optional<char> short_escape_value(char e);

/// Appends `value` as compact JSON, strings as append_json_string writes them.
void append_json(std::string& out, const nlohmann::json& value);

} // namespace kprov::api::graphql
