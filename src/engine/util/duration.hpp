#pragma once
// Go-style durations ("90s", "5m", "1h30m", "250ms"), the syntax of the original's
// APP_*_TIMEOUT_* variables and of kprov's --timeout flags.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kprov {

using Duration = std::chrono::milliseconds;

/// Parses a non-negative Go duration: a sequence of <decimal number><unit>, unit one of ns, us,
/// µs, ms, s, m, h; "0" alone is allowed. Precision below a millisecond is truncated.
/// nullopt on anything else (empty text, a sign, a missing unit, an overflow).
std::optional<Duration> parse_duration(std::string_view text);

/// The shortest Go-style text for d: "1h30m", "90ms", "0s".
std::string format_duration(Duration d);

} // namespace kprov
