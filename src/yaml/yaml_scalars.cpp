#include "yaml/yaml_scalars.hpp"

#include <array>

namespace kprov::yaml {
namespace {

bool digit(char c) {
    return c >= '0' && c <= '9';
}

// The number of decimal digits at `at`.
std::size_t digits_at(std::string_view s, std::size_t at) {
    std::size_t n = 0;
    while (at + n < s.size() && digit(s[at + n]))
        ++n;
    return n;
}

std::size_t sign_length(std::string_view s) {
    return !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
}

// Whether `s` is `prefix` followed by one or more characters for which `ok` holds.
template <typename Pred> bool prefixed_run(std::string_view s, std::string_view prefix, Pred ok) {
    if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix)
        return false;
    for (std::size_t i = prefix.size(); i < s.size(); ++i)
        if (!ok(s[i]))
            return false;
    return true;
}

// Whether `s` is `word` in lower case, Capitalized or UPPER case.
bool one_of_three_spellings(std::string_view s, std::string_view word) {
    if (s.size() != word.size() || s.empty())
        return false;
    bool lower = true, capital = true, upper = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char l = word[i];
        const char u = static_cast<char>(l >= 'a' && l <= 'z' ? l - 'a' + 'A' : l);
        lower = lower && s[i] == l;
        upper = upper && s[i] == u;
        capital = capital && s[i] == (i == 0 ? u : l);
    }
    return lower || capital || upper;
}

} // namespace

bool is_decimal_integer(std::string_view s) {
    const std::size_t sign = sign_length(s);
    return s.size() > sign && digits_at(s, sign) == s.size() - sign;
}

bool is_octal_integer(std::string_view s) {
    return prefixed_run(s, "0o", [](char c) { return c >= '0' && c <= '7'; });
}

bool is_hex_integer(std::string_view s) {
    return prefixed_run(s, "0x", [](char c) {
        return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    });
}

bool is_decimal_number(std::string_view s) {
    std::size_t at = sign_length(s);
    const std::size_t whole = digits_at(s, at);
    at += whole;
    if (at < s.size() && s[at] == '.') {
        const std::size_t fraction = digits_at(s, at + 1);
        if (whole == 0 && fraction == 0)
            return false; // "." alone, or "-."
        at += 1 + fraction;
    } else if (whole == 0) {
        return false;
    }
    if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
        ++at;
        if (at < s.size() && (s[at] == '-' || s[at] == '+'))
            ++at;
        const std::size_t exponent = digits_at(s, at);
        if (exponent == 0)
            return false;
        at += exponent;
    }
    return at == s.size();
}

bool is_special_float(std::string_view s) {
    if (s == ".nan" || s == ".NaN" || s == ".NAN")
        return true;
    const std::string_view rest = s.substr(sign_length(s));
    return rest == ".inf" || rest == ".Inf" || rest == ".INF";
}

bool is_keyword(std::string_view s) {
    static constexpr std::array k_words = {"true", "false", "yes", "no",  "on",
                                           "off",  "y",     "n",   "null"};
    if (s.empty() || s == "~")
        return true;
    for (const std::string_view word : k_words)
        if (one_of_three_spellings(s, word))
            return true;
    return false;
}

bool plain_reads_as_other_type(std::string_view s) {
    return is_keyword(s) || is_decimal_number(s) || is_hex_integer(s) || is_octal_integer(s) ||
           is_special_float(s);
}

} // namespace kprov::yaml
