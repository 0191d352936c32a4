#pragma once
// What a YAML document costs once built with every alias expanded, counted from libyaml's
// events without expanding anything (src/yaml/ only: it includes libyaml's header).

#include "yaml/yaml_check.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>
#include <yaml.h>

namespace kprov::yaml::detail {

/// "64 MiB", "1000 bytes".
std::string describe_bytes(std::size_t bytes);

/// Counts a stream's cost event by event against `bounds` (zero: no bound). An anchored node's
/// cost is remembered when it ends, and an alias adds it again where it is used.
class CostCounter {
public:
    explicit CostCounter(const Bounds& bounds)
        : m_bounds(bounds) {}

    /// The bound `event` breaks ("nests deeper than 64 levels of mappings and sequences"), or "".
    std::string add(const yaml_event_t& event);

private:
    struct Cost {
        std::size_t nodes = 0;
        std::size_t bytes = 0;
        std::size_t depth = 0; // mappings and sequences from the node down, itself included
    };
    struct Open {
        std::string anchor;
        Cost at_start;         // the document's cost just after the node itself was counted
        std::size_t depth = 1; // of the node so far, itself included
    };

    bool bounded() const;
    std::string too_deep() const;
    std::string count(const Cost& cost);

    const Bounds& m_bounds;
    Cost m_total;
    std::vector<Open> m_open;
    std::unordered_map<std::string, std::optional<Cost>> m_anchors; // nullopt: still open
};

} // namespace kprov::yaml::detail
