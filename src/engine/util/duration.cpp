#include "engine/util/duration.hpp"

#include <cmath>
#include <limits>

namespace kprov {
namespace {

struct Unit {
    std::string_view name;
    double millis;
};

// Longest names first so "ms" is not read as "m" followed by garbage.
constexpr Unit k_units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"\xC2\xB5s", 1e-3}, {"ms", 1.0},
                            {"s", 1e3},   {"m", 6e4},   {"h", 3.6e6}};

} // namespace

std::optional<Duration> parse_duration(std::string_view s) {
    if (s == "0")
        return Duration::zero();
    if (s.empty())
        return std::nullopt;
    double total = 0;
    while (!s.empty()) {
        std::size_t i = 0;
        double whole = 0, frac = 0, scale = 1;
        bool digits = false;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            whole = whole * 10 + (s[i++] - '0');
            digits = true;
        }
        if (i < s.size() && s[i] == '.') {
            ++i;
            while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
                scale /= 10;
                frac += (s[i++] - '0') * scale;
                digits = true;
            }
        }
        if (!digits)
            return std::nullopt;
        s.remove_prefix(i);
        const Unit* unit = nullptr;
        for (const auto& u : k_units) {
            if (s.substr(0, u.name.size()) == u.name && (u.name != "m" || s.substr(0, 2) != "ms")) {
                unit = &u;
                break;
            }
        }
        if (!unit)
            return std::nullopt;
        s.remove_prefix(unit->name.size());
        total += (whole + frac) * unit->millis;
        if (!std::isfinite(total) ||
            total > static_cast<double>(std::numeric_limits<int64_t>::max() / 2))
            return std::nullopt;
    }
    return Duration(static_cast<Duration::rep>(total));
}

std::string format_duration(Duration d) {
    auto ms = d.count();
    if (ms == 0)
        return "0s";
    std::string out;
    if (ms < 0) {
        out = "-";
        ms = -ms;
    }
    const auto h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, rest = ms % 1000;
    if (h)
        out += std::to_string(h) + "h";
    if (m)
        out += std::to_string(m) + "m";
    if (s || (rest && (h || m))) {
        std::string fraction = rest ? std::to_string(1000 + rest).substr(1) : "";
        while (!fraction.empty() && fraction.back() == '0')
            fraction.pop_back();
        // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) about
        // "." + fraction.
        out += std::to_string(s);
        if (!fraction.empty()) {
            out += '.';
            out += fraction;
        }
        out += 's';
    } else if (rest)
        out += std::to_string(rest) + "ms";
    return out;
}

} // namespace kprov
