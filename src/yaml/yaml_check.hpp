#pragma once
// The check every YAML reader of kprov runs before yaml-cpp parses a text. Debian's yaml-cpp 0.7
// allocates without bound on some invalid documents instead of failing (tests/fuzz/known/: 2.8 GB
// on 135 bytes, 10 GB on 905), so a text reaches it only once libyaml, a second, small and
// well-fuzzed parser, has read it as YAML, event by event (nothing is built, aliases are not
// expanded: linear in the text).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::yaml {

struct Problem {
    std::size_t line = 0; ///< 1-based
    std::string message;  ///< what is wrong, without the line: "did not find expected key"
};

/// What a reader allows a YAML text to cost once yaml-cpp has built it and the reader has
/// walked it, aliases expanded where they are used (a "billion laughs" document is small text).
/// Zero: no bound.
struct Bounds {
    std::size_t max_text_bytes = 0;     ///< the text itself
    std::size_t max_depth = 0;          ///< mappings and sequences around a value, aliases expanded
    std::size_t max_nodes = 0;          ///< scalars, mappings and sequences, aliases expanded
    std::size_t max_expanded_bytes = 0; ///< the bytes of every scalar, aliases expanded
};

/// The bounds of a YAML document from outside kprov (a Kyma release, a kubeconfig from
/// Gardener, a config file): far beyond any real one, far below what would hurt.
inline constexpr Bounds k_foreign_bounds{64u << 20, 64, 1'000'000, 64u << 20};

/// The first reason `text` is not YAML (a NUL byte, engine/input/input_limits.hpp's
/// yaml_comma_problem, then libyaml's parser error, with its context when it has one) or breaks
/// `bounds` ("nests deeper than 64 levels", "expands to more than 1000000 nodes (aliases repeated
/// too often)"; with any bound, an alias inside the node it names, which yaml-cpp builds as a
/// cycle); nullopt when it reads within them. One pass of libyaml's events: nothing is built and
/// aliases are counted, not expanded, so the check is linear in the text. Thread-safe.
std::optional<Problem> syntax_problem(std::string_view text, const Bounds& bounds = {});

} // namespace kprov::yaml
