#pragma once
// kubectl's label selectors (`-l`): requirements joined by ',' (and), each one of
// `key=value`, `key==value`, `key!=value`, `key`, `!key`, `key in (a,b)`, `key notin (a,b)`.

#include "engine/error.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprov::cli {

/// One requirement of a selector.
struct LabelRequirement {
    enum class Op { Equals, NotEquals, Exists, NotExists, In, NotIn };
    std::string key;
    Op op = Op::Exists;
    std::vector<std::string> values; ///< one for (Not)Equals, one or more for (Not)In
    bool operator==(const LabelRequirement&) const = default;
};

/// Every requirement must hold; an empty selector matches every runtime.
using LabelSelector = std::vector<LabelRequirement>;

/// A selector that is not kubectl's syntax; the message says where and what was expected.
class InvalidSelector : public Error {
public:
    using Error::Error;
};

/// The requirements of `text`. Whitespace around keys, operators and values is ignored. Keys
/// are letters, digits and `._/-`; values anything but whitespace, `,()=!`. Throws
/// InvalidSelector naming the position and what was expected (an empty `text` is one too).
LabelSelector parse_label_selector(std::string_view text);

/// Whether `labels_json` (a runtime's labels, a JSON object) satisfies every requirement; a
/// string label compares by its text, any other by its compact JSON text (as labels_match).
/// Labels that are not a JSON object hold no key.
bool selector_matches(const LabelSelector& selector, const std::string& labels_json);

/// The key = value requirements of `selector`, which Store::query_runtimes answers itself
/// (RuntimeQuery::labels); `rest` gets the others.
std::vector<std::pair<std::string, std::string>>
equality_requirements(const LabelSelector& selector, LabelSelector& rest);

} // namespace kprov::cli
