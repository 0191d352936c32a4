#pragma once
// The lines kprov logs, in the three shapes it writes them: a command's short human lines, a
// daemon's text lines with a time stamp, and a daemon's JSON lines (one object per line: ts,
// level, msg, then the fields of engine/log_fields.hpp) for Loki, Elasticsearch and the like.

#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spdlog::sinks {
class sink;
}

namespace kprov::cli {

enum class LogLineFormat {
    Command, ///< "kprov: <level>: <message>"
    Text,    ///< "2026-01-02T03:04:05.678Z kprov: <level>: <message>"
    Json,    ///< {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"...","runtime":"..."}
};

/// `time` in RFC 3339, UTC, with milliseconds: "2026-01-02T03:04:05.678Z".
std::string rfc3339_utc(std::chrono::system_clock::time_point time);

/// One line, with its newline. `level` is spdlog's name ("info", "warning"); `fields` (later
/// ones of a key win) appear in JSON only. Text that is not UTF-8 is written with U+FFFD.
std::string format_log_line(LogLineFormat format, std::string_view level,
                            std::chrono::system_clock::time_point time, std::string_view message,
                            const std::vector<std::pair<std::string, std::string>>& fields);

/// A thread-safe sink writing format_log_line() lines to `out` (which must outlive it), with the
/// calling thread's log fields. A message repeated right after itself, numbers aside, is written
/// once, then the number of repeats when another message comes or the sink is destroyed:
/// "(the last message was repeated 20 more times)".
std::shared_ptr<spdlog::sinks::sink> make_log_sink(std::ostream& out, LogLineFormat format);

} // namespace kprov::cli
