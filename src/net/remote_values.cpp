#include "net/remote_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace kprov::net {
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD"; // U+FFFD
constexpr std::string_view k_truncated = "\xE2\x80\xA6 (truncated)";

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong
// forms, no surrogates, nothing beyond U+10FFFF), or 0 when it is not one.
std::size_t utf8_sequence(std::string_view s, char32_t& code_point) {
    const auto byte = [&](std::size_t i) {
        return static_cast<unsigned char>(s[i]);
    };
    const unsigned char lead = byte(0);
    if (lead < 0x80) {
        code_point = lead;
        return 1;
    }
    std::size_t length = 0;
    char32_t min = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        min = 0x80;
        code_point = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        min = 0x800;
        code_point = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        min = 0x10000;
        code_point = lead & 0x07u;
    } else {
        return 0;
    }
    if (s.size() < length)
        return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80)
            return 0;
        code_point = (code_point << 6) | (byte(i) & 0x3Fu);
    }
    if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF))
        return 0;
    return length;
}

bool is_control(char32_t c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F);
}

} // namespace

std::int64_t saturating_int64(double value) {
    constexpr auto k_max = std::numeric_limits<std::int64_t>::max();
    constexpr auto k_min = std::numeric_limits<std::int64_t>::min();
    if (std::isnan(value))
        return 0;
    // 2^63 is exactly representable; every double below it converts without overflow.
    if (value >= 9223372036854775808.0)
        return k_max;
    if (value <= -9223372036854775808.0)
        return k_min;
    return static_cast<std::int64_t>(value);
}

std::optional<std::int64_t> json_int64(const nlohmann::json& value) {
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        constexpr auto k_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        return u > k_max ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(u);
    }
    if (value.is_number_integer())
        return value.get<std::int64_t>();
    if (value.is_number_float())
        return saturating_int64(value.get<double>());
    return std::nullopt;
}

std::optional<int> json_int(const nlohmann::json& value) {
    const auto wide = json_int64(value);
    if (!wide)
        return std::nullopt;
    constexpr std::int64_t k_max = std::numeric_limits<int>::max();
    constexpr std::int64_t k_min = std::numeric_limits<int>::min();
    return static_cast<int>(std::clamp(*wide, k_min, k_max));
}

std::chrono::milliseconds saturating_millis(double seconds) {
    if (std::isnan(seconds) || seconds <= 0)
        return std::chrono::milliseconds(0);
    return std::chrono::milliseconds(saturating_int64(seconds * 1000.0));
}

std::string clean_remote_text(std::string_view text, std::size_t max_bytes) {
    std::string out;
    out.reserve(std::min(text.size(), max_bytes) + k_truncated.size());
    std::size_t i = 0;
    while (i < text.size()) {
        char32_t code_point = 0;
        std::size_t length = utf8_sequence(text.substr(i), code_point);
        std::string_view piece;
        if (length == 0) {
            length = 1; // one invalid byte, one replacement
            piece = k_replacement;
        } else if (code_point == '\t' || code_point == '\n' || code_point == '\r') {
            piece = " ";
        } else if (is_control(code_point)) {
            piece = k_replacement;
        } else {
            piece = text.substr(i, length);
        }
        if (out.size() + piece.size() > max_bytes) {
            out += k_truncated;
            return out;
        }
        out += piece;
        i += length;
    }
    return out;
}

bool json_nesting_within(std::string_view text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i; // the escaped character, a quote included
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                return false;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return true;
}

} // namespace kprov::net
