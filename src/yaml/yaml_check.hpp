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

/// The first reason `text` is not YAML (engine/input_limits.hpp's yaml_comma_problem, then
/// libyaml's parser error, with its context when it has one); nullopt when it reads. Thread-safe.
std::optional<Problem> syntax_problem(std::string_view text);

} // namespace kprov::yaml
