#pragma once
// Two YAML texts no reader may parse: a flow entry (`,`) where a document cannot have one. Not
// valid YAML, and Debian's yaml-cpp 0.7 allocated without bound on them, so every reader refuses
// them before a parser sees them (yaml_check).

#include <cstddef>
#include <optional>
#include <string_view>

namespace kprov::yaml {

/// What the readers say about the documents yaml_comma_problem finds, after their "not valid
/// YAML" and line.
inline constexpr std::string_view k_yaml_comma_document = "a document cannot begin with ','";
inline constexpr std::string_view k_yaml_comma_outdented =
    "a line cannot begin with ',' left of where the document's first line begins";

/// A flow entry (`,`) where Debian's yaml-cpp 0.7 allocates without bound instead of failing:
/// at the beginning of a document, after only comments, directives, document markers and node
/// properties (anchors, tags; a bare "," took 2.8 GB), or first on a line less indented than the
/// document's first content line (a 905-byte runtime file took 10 GB and a minute). Neither is
/// valid YAML. Every YAML reader refuses them before yaml-cpp sees them
/// (tests/fuzz/known/yaml-cpp-*.yaml).
struct YamlCommaProblem {
    std::size_t line = 0;     ///< 1-based
    std::string_view message; ///< k_yaml_comma_document or k_yaml_comma_outdented
};
/// The first such place in `text`; nullopt when there is none.
std::optional<YamlCommaProblem> yaml_comma_problem(std::string_view text);

} // namespace kprov::yaml
