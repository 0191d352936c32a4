#pragma once
// YAML rendering of JSON results (`-o yaml`): block style, keys in the order given, strings
// quoted whenever YAML would read them as something else.

#include <string>
#include <string_view>

namespace kprov::cli {

/// `json_text` (one JSON value) as a YAML document ending in a newline. Multi-line strings become
/// literal blocks. Throws kprov::Error if `json_text` is not JSON.
std::string json_to_yaml(std::string_view json_text);

} // namespace kprov::cli
