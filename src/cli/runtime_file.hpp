#pragma once
// Runtime and upgrade files (ARCHITECTURE.md, CLI contract): YAML or JSON documents holding a
// ProvisionRuntimeInput or an UpgradeShootInput, read into JSON for engine::parse_*_input.

#include <nlohmann/json.hpp>
#include <string>

namespace kprov::cli {

/// Reads the file at `path` ("-" for stdin; only a regular file otherwise, see
/// read_bounded_file). Throws InputFileError (exit 2) when it is not there or cannot be read, and
/// ValidationError naming the file (and line:column) when it is empty, not YAML or JSON, has a
/// key twice, is not a mapping, or is a mapping with none of a runtime or upgrade file's
/// top-level fields (named, its content never shown). See read_runtime_text for how the text is
/// read.
nlohmann::json read_runtime_file(const std::string& path);

/// Reads `text`, named `source` in messages. JSON when the text parses as a JSON object, else
/// YAML. YAML scalars are typed as in YAML 1.2's core schema, but only when written plain:
/// true/false (any of the three casings) -> boolean, decimal, 0o and 0x integers -> number,
/// decimals -> number, null, Null, NULL, ~ and an empty value -> null; a quoted scalar, a block
/// scalar and a "!!str" scalar stay strings ("true" is text). Anchors and aliases are resolved.
/// "yes", "on" and the like stay strings (they are booleans only in YAML 1.1).
nlohmann::json read_runtime_text(const std::string& text, const std::string& source);

} // namespace kprov::cli
