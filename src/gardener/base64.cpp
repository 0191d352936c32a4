#include "gardener/base64.hpp"

#include <array>
#include <cstdint>

namespace kprov::gardener {
namespace {

constexpr std::string_view k_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int, 256> make_table() {
    std::array<int, 256> table{};
    for (auto& v : table)
        v = -1;
    for (std::size_t i = 0; i < k_alphabet.size(); ++i)
        table[static_cast<unsigned char>(k_alphabet[i])] = static_cast<int>(i);
    return table;
}

constexpr auto k_table = make_table();

bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

} // namespace

std::optional<std::string> base64_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 4 * 3);
    std::uint32_t buffer = 0;
    int bits = 0;
    int symbols = 0;
    std::size_t padding = 0;
    for (char c : text) {
        if (is_space(c))
            continue;
        if (c == '=') {
            ++padding;
            continue;
        }
        const int value = k_table[static_cast<unsigned char>(c)];
        if (value < 0 || padding > 0)
            return std::nullopt; // a foreign character, or data after padding
        buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
        bits += 6;
        ++symbols;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
        }
    }
    if (symbols % 4 == 1 || padding > 2 || (padding > 0 && (symbols + padding) % 4 != 0))
        return std::nullopt;
    return out;
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const auto n = (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                       (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                       static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
        out += k_alphabet[(n >> 18) & 63];
        out += k_alphabet[(n >> 12) & 63];
        out += k_alphabet[(n >> 6) & 63];
        out += k_alphabet[n & 63];
    }
    if (const auto rest = bytes.size() - i; rest > 0) {
        auto n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (rest == 2)
            n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        out += k_alphabet[(n >> 18) & 63];
        out += k_alphabet[(n >> 12) & 63];
        out += rest == 2 ? k_alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

} // namespace kprov::gardener
