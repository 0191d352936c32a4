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
/// YAML, read by yaml::read_documents with its scalar rules (yaml/yaml_reader.hpp: a plain
/// `true` is a boolean, a quoted "true" text; "yes" and "on" stay strings). Anchors and aliases
/// are resolved within the file's bounds.
nlohmann::json read_runtime_text(const std::string& text, const std::string& source);

} // namespace kprov::cli
