#include "yaml/yaml_check.hpp"

#include "engine/input/input_limits.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>
#include <yaml.h>

namespace kprov::yaml {
namespace {

char32_t code_point_at(std::string_view text, std::size_t at, std::size_t length) {
    const auto byte = [&](std::size_t i) {
        return static_cast<char32_t>(static_cast<unsigned char>(text[at + i]));
    };
    if (length == 1)
        return byte(0);
    char32_t c = byte(0) & (0xff >> (length + 1));
    for (std::size_t i = 1; i < length; ++i)
        c = (c << 6) | (byte(i) & 0x3f);
    return c;
}

// YAML 1.1's c-printable, as libyaml's reader checks it (a BOM only at the start).
bool printable(char32_t c) {
    return c == 0x09 || c == 0x0a || c == 0x0d || (c >= 0x20 && c <= 0x7e) || c == 0x85 ||
           (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c != 0xfeff) ||
           (c >= 0x10000 && c <= 0x10ffff);
}

// What libyaml's reader refuses before it parses (bytes that are not UTF-8, control characters)
// is the readers' own to report, naming the field; here each such byte becomes '_' (plain in any
// YAML context), so that the syntax of the rest is still checked, at the same lines.
std::string readable(std::string_view text) {
    std::string out(text);
    for (std::size_t at = 0; at < out.size();) {
        const std::size_t length = utf8_length_at(out, at);
        if (length == 0) {
            out[at++] = '_';
            continue;
        }
        if (!printable(code_point_at(out, at, length)))
            for (std::size_t i = 0; i < length; ++i)
                out[at + i] = '_';
        at += length;
    }
    return out;
}

std::string describe_bytes(std::size_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " bytes";
}

// What a node costs once built and walked: itself and everything in it, aliases expanded.
struct Cost {
    std::size_t nodes = 0;
    std::size_t bytes = 0;
    std::size_t depth = 0; // mappings and sequences from the node down, itself included
};

// Counts a document's cost event by event. An anchored node's cost is remembered when it ends,
// and an alias adds it again where it is used: the expanded size without the expansion.
class CostCounter {
public:
    explicit CostCounter(const Bounds& bounds)
        : m_bounds(bounds) {}

    // The problem `event` makes, or "".
    std::string add(const yaml_event_t& event) {
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

private:
    struct Open {
        std::string anchor;
        Cost at_start;         // the document's cost just after the node itself was counted
        std::size_t depth = 1; // of the node so far, itself included
    };

    bool bounded() const {
        return m_bounds.max_text_bytes || m_bounds.max_depth || m_bounds.max_nodes ||
               m_bounds.max_expanded_bytes;
    }

    static std::string name_of(const yaml_char_t* anchor) {
        return anchor ? reinterpret_cast<const char*>(anchor) : "";
    }

    std::string too_deep() const {
        return "nests deeper than " + std::to_string(m_bounds.max_depth) +
               " levels of mappings and sequences";
    }

    // Adds a node of `cost` where the events are; the problem when a bound breaks.
    std::string count(const Cost& cost) {
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

    const Bounds& m_bounds;
    Cost m_total;
    std::vector<Open> m_open;
    std::unordered_map<std::string, std::optional<Cost>> m_anchors; // nullopt: still open
};

} // namespace

std::optional<Problem> syntax_problem(std::string_view original, const Bounds& bounds) {
    if (bounds.max_text_bytes && original.size() > bounds.max_text_bytes)
        return Problem{0, "is " + std::to_string(original.size()) + " bytes, more than the " +
                              describe_bytes(bounds.max_text_bytes) + " limit"};
    // yaml-cpp 0.7 grows without bound on some texts with NUL bytes (yaml_bounds_fuzz: 5.8 GB
    // and a minute on 60 bytes); YAML allows none, and no reader could name a field for it.
    if (const auto nul = original.find('\0'); nul != std::string_view::npos)
        return Problem{
            static_cast<std::size_t>(std::count(original.begin(), original.begin() + nul, '\n')) +
                1,
            "a NUL byte, which YAML does not allow"};
    // Nor may yaml-cpp see bytes that are not UTF-8, which libyaml below never reads (they are
    // replaced for it): on some, yaml-cpp grows without bound too (yaml_bounds_fuzz, 217 bytes).
    if (const auto bad = invalid_utf8_at(original)) {
        const auto line_start = original.rfind('\n', *bad);
        const std::size_t column =
            line_start == std::string_view::npos ? *bad + 1 : *bad - line_start;
        return Problem{
            static_cast<std::size_t>(std::count(original.begin(), original.begin() + *bad, '\n')) +
                1,
            "a byte that is not UTF-8 at column " + std::to_string(column)};
    }
    if (const auto comma = yaml_comma_problem(original))
        return Problem{comma->line, std::string(comma->message)};
    const std::string text = readable(original);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return Problem{0, "out of memory"};
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    std::optional<Problem> problem;
    CostCounter counter(bounds);
    for (;;) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            std::string message = parser.problem ? parser.problem : "not YAML";
            if (parser.context)
                message = std::string(parser.context) + ": " + message;
            problem = Problem{parser.problem_mark.line + 1, std::move(message)};
            break;
        }
        if (std::string breach = counter.add(event); !breach.empty()) {
            problem = Problem{event.start_mark.line + 1, std::move(breach)};
            yaml_event_delete(&event);
            break;
        }
        const bool end = event.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&event);
        if (end)
            break;
    }
    yaml_parser_delete(&parser);
    return problem;
}

} // namespace kprov::yaml
