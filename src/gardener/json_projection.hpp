#pragma once
// Parsing only the part of a JSON document a reader needs. A Shoot on the watch is a few
// kilobytes of which the engine reads a few dozen values; building the whole tree for every
// event cost the watch most of its CPU. The rest of the document is checked, not built.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::gardener {

/// A set of dotted member paths ("metadata.name", "status.lastOperation"). Parsing keeps the
/// value at the end of each path whole, and the objects on the way to it with only the members
/// that lie on some path. Where a path meets something other than an object before its end,
/// that value is kept whole too. Member names that contain a dot cannot be named.
///
/// parse(text) equals projecting nlohmann::json::parse(text) this way, for every text
/// nlohmann accepts. Values outside the projection are checked against JSON's grammar (RFC
/// 8259) without being built; their strings are not checked for valid UTF-8, and their numbers
/// not for range. Immutable after construction, so one instance serves any number of threads.
class JsonProjection {
public:
    explicit JsonProjection(const std::vector<std::string>& paths);

    /// nullopt when `text` is not one JSON value (surrounded by optional whitespace).
    std::optional<nlohmann::json> parse(std::string_view text) const;

    /// The same projection of an already parsed value (for tests and for callers that have the
    /// whole tree anyway).
    nlohmann::json project(const nlohmann::json& value) const;

    struct Node {
        std::map<std::string, Node, std::less<>> members; // empty: keep the value whole
    };

private:
    Node m_root;
};

} // namespace kprov::gardener
