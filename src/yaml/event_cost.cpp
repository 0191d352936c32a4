#include "yaml/event_cost.hpp"

#include <algorithm>

namespace kprov::yaml::detail {
namespace {

std::string name_of(const yaml_char_t* anchor) {
    return anchor ? reinterpret_cast<const char*>(anchor) : "";
}

} // namespace

std::string describe_bytes(std::size_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " bytes";
}

std::string CostCounter::add(const yaml_event_t& event) {
    switch (event.type) {
    case YAML_SCALAR_EVENT: {
        const Cost cost{1, event.data.scalar.length, 0};
        if (event.data.scalar.anchor)
            m_anchors[name_of(event.data.scalar.anchor)] = cost;
        return count(cost);
    }
    case YAML_ALIAS_EVENT: {
        const std::string name = name_of(event.data.alias.anchor);
        const auto found = m_anchors.find(name);
        if (found == m_anchors.end())
            return {};      // an unknown anchor: yaml-cpp refuses it
        if (!found->second) // yaml-cpp would build a cycle, which no reader can walk
            return bounded() ? "the alias *" + name + " is inside the node it names" : "";
        return count(*found->second);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        const yaml_char_t* anchor = event.type == YAML_SEQUENCE_START_EVENT
                                        ? event.data.sequence_start.anchor
                                        : event.data.mapping_start.anchor;
        std::string problem = count({1, 0, 1});
        m_open.push_back({name_of(anchor), m_total, 1});
        if (anchor)
            m_anchors[name_of(anchor)] = std::nullopt; // open: defined when it ends
        if (problem.empty() && m_bounds.max_depth && m_open.size() > m_bounds.max_depth)
            problem = too_deep();
        return problem;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (!m_open.empty()) {
            const Open open = m_open.back();
            m_open.pop_back();
            if (!m_open.empty())
                m_open.back().depth = std::max(m_open.back().depth, open.depth + 1);
            // Unless an anchor inside it took the name over meanwhile.
            if (auto found = m_anchors.find(open.anchor);
                !open.anchor.empty() && found != m_anchors.end() && !found->second)
                found->second = Cost{m_total.nodes - open.at_start.nodes + 1,
                                     m_total.bytes - open.at_start.bytes, open.depth};
        }
        return {};
    case YAML_DOCUMENT_START_EVENT: // anchors are a document's own; the cost is the stream's
        m_anchors.clear();
        m_open.clear();
        return {};
    default:
        return {};
    }
}

bool CostCounter::bounded() const {
    return m_bounds.max_text_bytes || m_bounds.max_depth || m_bounds.max_nodes ||
           m_bounds.max_expanded_bytes;
}

std::string CostCounter::too_deep() const {
    return "nests deeper than " + std::to_string(m_bounds.max_depth) +
           " levels of mappings and sequences";
}

// Adds a node of `cost` where the events are; the problem when a bound breaks.
std::string CostCounter::count(const Cost& cost) {
    m_total.nodes += cost.nodes;
    m_total.bytes += cost.bytes;
    if (cost.depth > 0 && !m_open.empty()) {
        m_open.back().depth = std::max(m_open.back().depth, cost.depth + 1);
        if (m_bounds.max_depth && m_open.size() + cost.depth > m_bounds.max_depth)
            return too_deep();
    }
    if (m_bounds.max_nodes && m_total.nodes > m_bounds.max_nodes)
        return "expands to more than " + std::to_string(m_bounds.max_nodes) +
               " nodes (aliases repeated too often)";
    if (m_bounds.max_expanded_bytes && m_total.bytes > m_bounds.max_expanded_bytes)
        return "expands to more than " + describe_bytes(m_bounds.max_expanded_bytes) +
               " of text (aliases repeated too often)";
    return {};
}

} // namespace kprov::yaml::detail
