#pragma once
// What a YAML text costs, checked without building it: the bounds every reader of kprov applies
// (yaml/yaml_reader.hpp reads within them), the checks run before any parser sees a text
// (text_problem), and a parse-free pass over libyaml's events that counts what a built tree
// would hold, aliases expanded (syntax_problem; the fuzz target's oracle for the reader).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::yaml {

struct Problem {
    std::size_t line = 0; ///< 1-based
    std::string message;  ///< what is wrong, without the line: "did not find expected key"
};

/// What a reader allows a YAML text to cost once built, aliases expanded where they are used (a
/// "billion laughs" document is small text). Zero: no bound.
struct Bounds {
    std::size_t max_text_bytes = 0;     ///< the text itself
    std::size_t max_depth = 0;          ///< mappings and sequences around a value, aliases expanded
    std::size_t max_nodes = 0;          ///< scalars, mappings and sequences, aliases expanded
    std::size_t max_expanded_bytes = 0; ///< the bytes of every scalar, aliases expanded
};

/// The bounds of a YAML document from outside kprov (a Kyma release, a kubeconfig from
/// Gardener, a config file): far beyond any real one, far below what would hurt.
inline constexpr Bounds k_foreign_bounds{64u << 20, 64, 1'000'000, 64u << 20};

/// What every reader refuses before a parser sees `text`: more than `bounds.max_text_bytes`, a
/// NUL byte, a byte that is not UTF-8, yaml_comma.hpp's yaml_comma_problem. nullopt
/// when there is none.
std::optional<Problem> text_problem(std::string_view text, const Bounds& bounds);

/// The first reason `text` is not YAML (a NUL byte, yaml_comma.hpp's yaml_comma_problem,
/// then libyaml's parser error, with its context when it has one) or breaks `bounds` ("nests deeper
/// than 64 levels", "expands to more than 1000000 nodes (aliases repeated too often)"; with any
/// bound, an alias inside the node it names, which yaml-cpp builds as a cycle); nullopt
/// when it reads within them. One pass of libyaml's events: nothing is built and aliases are
/// counted, not expanded, so the check is linear in the text. Thread-safe.
std::optional<Problem> syntax_problem(std::string_view text, const Bounds& bounds = {});

} // namespace kprov::yaml
