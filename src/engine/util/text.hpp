#pragma once
// Small text helpers shared by every layer: ASCII case folding, "did you mean" suggestions and
// credential redaction of URLs.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov {

/// `text` with A-Z mapped to a-z and every other byte kept: names, keys and header fields are
/// ASCII, and the C locale's tolower must not decide them.
std::string ascii_lower(std::string_view text);

/// Whether `a` and `b` are equal but for the case of ASCII letters.
bool iequals_ascii(std::string_view a, std::string_view b);

/// `text` between double quotes, as messages show a value they name.
std::string in_quotes(std::string_view text);

/// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo
/// (at most max(2, |word| / 3) edits); ties go to the earlier candidate. nullopt otherwise.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

/// The URL with the password of its user-info, and the value of a `password=` query parameter,
/// replaced by "***". Anything that is not a URL comes back unchanged.
std::string redact_url(std::string_view url);

} // namespace kprov
