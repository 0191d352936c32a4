#pragma once
// Points in time as kprov stores and prints them: UTC, microsecond precision.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kprov {

using Timestamp = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

/// "2026-11-30 05:27:40.123456": the text both stores keep (fixed width, so it sorts).
std::string format_db_time(Timestamp t);

/// Reads what format_db_time writes, and also what PostgreSQL prints for a timestamp (fewer
/// fraction digits), a 'T' separator and a trailing "Z" or "+00"/"+00:00". nullopt if malformed.
std::optional<Timestamp> parse_db_time(std::string_view text);

/// RFC 3339 in UTC, seconds precision: "2026-11-30T05:27:40Z".
std::string format_rfc3339(Timestamp t);

/// A clock the engine reads time from, so tests can move time without sleeping.
class Clock {
public:
    virtual ~Clock() = default;
    virtual Timestamp now() const = 0;
};

/// The wall clock. Thread-safe.
class SystemClock final : public Clock {
public:
    Timestamp now() const override;
};

} // namespace kprov
