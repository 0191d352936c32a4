#include "net/base64.hpp"

#include <openssl/evp.h>

namespace kprov::net {
namespace {

bool is_alphabet(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v';
}

// `padded` is whole groups of four alphabet characters, '=' only in the last two places and
// `padding` of them. EVP_DecodeBlock decodes '=' as zero bits, so its output is cut back here.
std::string decode_groups(std::string_view padded, std::size_t padding) {
    if (padded.empty())
        return {};
    std::string out(padded.size() / 4 * 3, '\0');
    const int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(padded.data()),
                                        static_cast<int>(padded.size()));
    // Cannot fail on validated input; an empty answer is the safe reading should it anyway.
    if (written < 0 || static_cast<std::size_t>(written) != out.size())
        return {};
    out.resize(out.size() - padding);
    return out;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
    if (bytes.empty())
        return {};
    std::string out((bytes.size() + 2) / 3 * 4 + 1, '\0'); // EVP_EncodeBlock adds a NUL
    const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(bytes.data()),
                                        static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(written));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string digits;
    digits.reserve(text.size() + 2);
    std::size_t padding = 0;
    for (const char c : text) {
        if (is_space(c))
            continue;
        if (c == '=') {
            ++padding;
            continue;
        }
        if (!is_alphabet(c) || padding > 0)
            return std::nullopt; // a foreign character, or data after padding
        digits += c;
    }
    const std::size_t rest = digits.size() % 4;
    // A lone digit in the last group carries no whole byte; padding must fill its group exactly.
    if (rest == 1 || padding > 2 || (padding > 0 && rest + padding != 4))
        return std::nullopt;
    const std::size_t missing = rest == 0 ? 0 : 4 - rest;
    digits.append(missing, '=');
    return decode_groups(digits, missing);
}

std::optional<std::string> base64_decode_strict(std::string_view text, std::string* problem) {
    const auto fail = [&](std::string what) -> std::optional<std::string> {
        if (problem)
            *problem = std::move(what);
        return std::nullopt;
    };
    if (text.size() % 4 != 0)
        return fail("length " + std::to_string(text.size()) + " is not a multiple of 4");
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=')
        padding = text[text.size() - 2] == '=' ? 2 : 1;
    for (std::size_t i = 0; i + padding < text.size(); ++i)
        if (!is_alphabet(text[i]))
            return fail("character at offset " + std::to_string(i) +
                        " is outside the standard alphabet");
    std::string out = decode_groups(text, padding);
    // Non-zero bits under the padding would give one value several spellings.
    if (base64_encode(out) != text)
        return fail("non-zero bits before the final padding");
    return out;
}

} // namespace kprov::net
