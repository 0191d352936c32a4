#pragma once
// Small text helpers shared by every layer: "did you mean" suggestions and credential
// redaction of URLs.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov {

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
