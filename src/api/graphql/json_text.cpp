#include "api/graphql/json_text.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace kprov::api::graphql {
namespace {

// Length of the valid UTF-8 sequence at text[i] (a byte >= 0x80), 0 when it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const std::size_t len = (b0 & 0xE0) == 0xC0   ? 2
                            : (b0 & 0xF0) == 0xE0 ? 3
                            : (b0 & 0xF8) == 0xF0 ? 4
                                                  : 0;
    if (len == 0 || i + len > text.size())
        return 0;
    std::uint32_t cp = len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3Fu);
    }
    static constexpr std::uint32_t k_min[] = {0, 0, 0x80, 0x800, 0x10000};
    const bool ok = cp >= k_min[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    return ok ? len : 0;
}

template <typename T> void append_number(std::string& out, T value) {
    char buffer[24];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out.append(buffer, end);
}

} // namespace

std::optional<char> short_escape_value(char e) {
    switch (e) {
    case '"':
    case '\\':
    case '/':
        return e;
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return std::nullopt;
    }
}

bool append_json_escape(std::string& out, unsigned char c, const char* hex_digits) {
    switch (c) {
    case '"':
        out += "\\\"";
        return true;
    case '\\':
        out += "\\\\";
        return true;
    case '\n':
        out += "\\n";
        return true;
    case '\r':
        out += "\\r";
        return true;
    case '\t':
        out += "\\t";
        return true;
    case '\b':
        out += "\\b";
        return true;
    case '\f':
        out += "\\f";
        return true;
    default:
        if (c >= 0x20)
            return false;
        out += "\\u00";
        out += hex_digits[c >> 4];
        out += hex_digits[c & 0xF];
        return true;
    }
}

namespace {

// The bytes a JSON string holds as they are: printable ASCII but the quote and the backslash.
constexpr auto k_plain_byte = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c)
        plain[c] = c != '"' && c != '\\';
    return plain;
}();

} // namespace

void append_json_string(std::string& out, std::string_view text) {
    static constexpr char k_hex[] = "0123456789abcdef";
    out += '"';
    std::size_t plain = 0; // start of the run not yet copied
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (k_plain_byte[c]) {
            ++i;
            continue;
        }
        if (c >= 0x80) {
            if (const std::size_t len = utf8_sequence(text, i)) {
                i += len;
                continue;
            }
        }
        out.append(text.substr(plain, i - plain));
        if (!append_json_escape(out, c, k_hex))
            out += "\xEF\xBF\xBD"; // U+FFFD for a byte of invalid UTF-8
        plain = ++i;
    }
    out.append(text.substr(plain));
    out += '"';
}

void append_json(std::string& out, const nlohmann::json& value) {
    using Type = nlohmann::json::value_t;
    switch (value.type()) {
    case Type::null:
    case Type::discarded:
        out += "null";
        return;
    case Type::boolean:
        out += value.get<bool>() ? "true" : "false";
        return;
    case Type::number_integer:
        append_number(out, value.get<std::int64_t>());
        return;
    case Type::number_unsigned:
        append_number(out, value.get<std::uint64_t>());
        return;
    case Type::number_float:
        out += value.dump(); // nlohmann's shortest round-trip form, "null" for NaN
        return;
    case Type::string:
        append_json_string(out, value.get_ref<const std::string&>());
        return;
    case Type::array: {
        out += '[';
        bool first = true;
        for (const auto& item : value) {
            if (!first)
                out += ',';
            first = false;
            append_json(out, item);
        }
        out += ']';
        return;
    }
    case Type::object: {
        out += '{';
        bool first = true;
        for (const auto& [key, item] : value.items()) {
            if (!first)
                out += ',';
            first = false;
            append_json_string(out, key);
            out += ':';
            append_json(out, item);
        }
        out += '}';
        return;
    }
    case Type::binary:
        out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
    }
}

} // namespace kprov::api::graphql
