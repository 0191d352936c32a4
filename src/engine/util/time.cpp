#include "engine/util/time.hpp"

#include <cstdio>
#include <ctime>

namespace kprov {
namespace {

std::tm to_tm(Timestamp t) {
    const std::time_t secs =
        std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return tm;
}

bool read_digits(std::string_view& s, std::size_t n, int& out) {
    if (s.size() < n)
        return false;
    out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        out = out * 10 + (s[i] - '0');
    }
    s.remove_prefix(n);
    return true;
}

bool expect(std::string_view& s, char c) {
    if (s.empty() || s.front() != c)
        return false;
    s.remove_prefix(1);
    return true;
}

} // namespace

std::string format_db_time(Timestamp t) {
    const std::tm tm = to_tm(t);
    const auto micros = (t.time_since_epoch() % std::chrono::seconds(1)).count();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%06lld", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(micros < 0 ? micros + 1000000 : micros));
    return buf;
}

std::optional<Timestamp> parse_db_time(std::string_view s) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!read_digits(s, 4, year) || !expect(s, '-') || !read_digits(s, 2, month) ||
        !expect(s, '-') || !read_digits(s, 2, day))
        return std::nullopt;
    if (s.empty() || (s.front() != ' ' && s.front() != 'T'))
        return std::nullopt;
    s.remove_prefix(1);
    if (!read_digits(s, 2, hour) || !expect(s, ':') || !read_digits(s, 2, minute) ||
        !expect(s, ':') || !read_digits(s, 2, second))
        return std::nullopt;
    long long micros = 0;
    if (!s.empty() && s.front() == '.') {
        s.remove_prefix(1);
        int digits = 0;
        while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
            if (digits < 6) {
                micros = micros * 10 + (s.front() - '0');
                ++digits;
            }
            s.remove_prefix(1);
        }
        if (digits == 0)
            return std::nullopt;
        for (; digits < 6; ++digits)
            micros *= 10;
    }
    if (s == "Z" || s == "+00" || s == "+00:00")
        s = {};
    // Calendar arithmetic instead of timegm: every row read parses several of these. A leap
    // second (60) reads as the first second of the next minute, as timegm has it.
    const std::chrono::year_month_day date{std::chrono::year(year),
                                           std::chrono::month(static_cast<unsigned>(month)),
                                           std::chrono::day(static_cast<unsigned>(day))};
    if (!s.empty() || !date.ok() || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    return Timestamp(std::chrono::sys_days(date).time_since_epoch() + std::chrono::hours(hour) +
                     std::chrono::minutes(minute) + std::chrono::seconds(second) +
                     std::chrono::microseconds(micros));
}

std::string format_rfc3339(Timestamp t) {
    const std::tm tm = to_tm(t);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

Timestamp SystemClock::now() const {
    return std::chrono::time_point_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now());
}

} // namespace kprov
