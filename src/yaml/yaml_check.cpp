#include "yaml/yaml_check.hpp"

#include "engine/input/input_limits.hpp"
#include "yaml/event_cost.hpp"
#include "yaml/yaml_comma.hpp"

#include <algorithm>
#include <string>

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

} // namespace

std::optional<Problem> text_problem(std::string_view original, const Bounds& bounds) {
    if (bounds.max_text_bytes && original.size() > bounds.max_text_bytes)
        return Problem{0, "is " + std::to_string(original.size()) + " bytes, more than the " +
                              detail::describe_bytes(bounds.max_text_bytes) + " limit"};
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
    return std::nullopt;
}

std::optional<Problem> syntax_problem(std::string_view original, const Bounds& bounds) {
    if (auto problem = text_problem(original, bounds))
        return problem;
    const std::string text = readable(original);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return Problem{0, "out of memory"};
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    std::optional<Problem> problem;
    detail::CostCounter counter(bounds);
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
