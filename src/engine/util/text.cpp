#include "engine/util/text.hpp"

#include <algorithm>
#include <numeric>

namespace kprov {
namespace {

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

std::string ascii_lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), lower);
    return out;
}

bool iequals_ascii(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

std::string in_quotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& candidate : candidates) {
        const auto distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

std::string redact_url(std::string_view url) {
    std::string out(url);
    const auto scheme_end = out.find("://");
    if (scheme_end == std::string::npos)
        return out;
    const auto authority_start = scheme_end + 3;
    // The user info ends at the last '@': a password may hold '/', '?', '#' or '@' that its
    // writer did not percent-encode, and none of them may leak (an '@' in the query makes this
    // redact more than the password, never less).
    // The user name before the ':' holds none of them.
    const auto at = out.rfind('@');
    const auto colon = out.find(':', authority_start);
    if (at != std::string::npos && colon != std::string::npos && colon < at &&
        out.find_first_of("/?#", authority_start) > colon)
        out = out.substr(0, colon + 1) + "***" + out.substr(at);
    // libpq also takes the password as a query parameter.
    const auto query = out.find('?');
    for (auto pos = query; pos != std::string::npos; pos = out.find('&', pos + 1)) {
        const auto name_start = pos + 1;
        if (out.compare(name_start, 9, "password=") != 0)
            continue;
        const auto value_start = name_start + 9;
        const auto value_end = std::min(out.find_first_of("&#", value_start), out.size());
        out.replace(value_start, value_end - value_start, "***");
    }
    return out;
}

} // namespace kprov
