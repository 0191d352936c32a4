#include "yaml/yaml_comma.hpp"

namespace kprov::yaml {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

// A document marker ("---" or "...") at the start of `line`, followed by a blank or the end.
bool starts_with_marker(std::string_view line, std::string_view marker) {
    return line.substr(0, 3) == marker && (line.size() == 3 || is_blank(line[3]));
}

} // namespace

std::optional<YamlCommaProblem> yaml_comma_problem(std::string_view text) {
    bool at_start = true; // nothing but comments, directives and properties seen in this document
    std::size_t root_column = 0; // where the document's first content begins
    std::size_t number = 0;
    for (std::size_t from = 0; from <= text.size();) {
        const std::size_t end = std::min(text.find('\n', from), text.size());
        std::string_view line = text.substr(from, end - from);
        from = end + 1;
        ++number;
        std::size_t offset = 0; // of `line` within the text's line, after a document marker
        if (starts_with_marker(line, "---") || starts_with_marker(line, "...")) {
            at_start = true;
            line.remove_prefix(3);
            offset = 3;
        } else if (at_start && line.starts_with('%')) {
            continue; // a directive
        }
        std::size_t i = 0;
        if (!at_start) {
            while (i < line.size() && is_blank(line[i]))
                ++i;
            if (i < line.size() && line[i] == ',' && i + offset < root_column)
                return YamlCommaProblem{number, k_yaml_comma_outdented};
        }
        // What follows on the line, token by token, while the document has no content yet.
        while (at_start) {
            while (i < line.size() && is_blank(line[i]))
                ++i;
            if (i == line.size() || line[i] == '#')
                break;
            if (line[i] == ',')
                return YamlCommaProblem{number, k_yaml_comma_document};
            if (line[i] != '&' && line[i] != '!') {
                at_start = false; // content: the parser's own checks take over
                root_column = i + offset;
                break;
            }
            while (i < line.size() && !is_blank(line[i])) // an anchor or a tag
                ++i;
        }
        if (end == text.size())
            break;
    }
    return std::nullopt;
}

} // namespace kprov::yaml
