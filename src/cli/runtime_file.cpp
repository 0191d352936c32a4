// Reading runtime and upgrade files: JSON by nlohmann, YAML by src/yaml/'s reader, whose
// scalar rules make `enabled: true` a boolean and `enabled: "true"` text, so that the engine's
// parser reports the wrong one by its type.

#include "cli/runtime_file.hpp"

#include "cli/context.hpp"
#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "yaml/yaml_reader.hpp"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace kprov::cli {
namespace {

using nlohmann::json;

// A path 64 levels deep says less than its first few levels and their count.
std::string shortened(const std::string& path) {
    constexpr std::size_t k_shown = 12;
    std::size_t levels = 0, cut = std::string::npos;
    for (std::size_t i = 1; i < path.size(); ++i)
        if ((path[i] == '.' || path[i] == '[') && ++levels == k_shown)
            cut = i;
    if (cut == std::string::npos)
        return path;
    return path.substr(0, cut) + " (and " + std::to_string(levels + 1 - k_shown) + " levels below)";
}

std::string too_deep() {
    return "nests deeper than " + std::to_string(k_max_input_nesting) +
           " levels of objects and lists";
}

[[noreturn]] void fail(const std::string& message) {
    throw ValidationError("", message);
}

std::string kind_of(const json& value) {
    if (value.is_array())
        return "a list";
    if (value.is_string())
        return "text";
    if (value.is_boolean())
        return "a boolean";
    if (value.is_number())
        return "a number";
    return "null";
}

std::string at(const std::string& source, const yaml::Mark& mark) {
    return source + ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

json from_yaml(const std::string& text, const std::string& source) {
    yaml::Documents read;
    try {
        // Aliases may expand a file fourfold in text, and to a million values.
        read = yaml::read_documents(text, {{k_max_runtime_file_bytes, k_max_input_nesting,
                                            1'000'000, 4 * k_max_runtime_file_bytes}});
    } catch (const yaml::ReadError& e) {
        const std::string where = source + ":" + std::to_string(e.mark().line);
        if (e.bound() == "max_depth")
            fail(where + ": " + too_deep());
        if (!e.bound().empty())
            fail(where + ": " + e.message());
        fail(where + ": not valid YAML: " + e.message());
    }
    if (read.documents.empty() || (read.documents.size() == 1 && read.documents[0].is_null()))
        fail(source + " is empty (expected a runtime or upgrade document)");
    if (read.documents.size() > 1)
        fail(at(source, read.marks[1]) + ": a second YAML document; a file holds exactly one");
    if (!read.problems.empty()) {
        std::vector<FieldProblem> problems;
        for (const auto& p : read.problems)
            problems.push_back(
                FieldProblem{shortened(p.path), p.message + " (" + at(source, p.mark) + ")"});
        if (read.more_problems)
            problems.push_back(FieldProblem{"", "more problems follow, not shown"});
        throw ValidationError(std::move(problems));
    }
    return std::move(read.documents[0]);
}

// nlohmann/json reports a byte offset; people look for line and column.
std::string json_position(const std::string& text, std::size_t byte) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

// One object or array open while a JSON text is parsed: what names its current member.
struct JsonLevel {
    bool array = false;
    std::string key;                      // the object's current member
    std::size_t index = 0;                // the array's current element
    std::unordered_set<std::string> keys; // the object's members so far
};

struct TooDeep {
    std::string path;
};

// The path of the innermost open value.
std::string json_path(const std::vector<JsonLevel>& levels) {
    std::vector<std::string> segments;
    for (std::size_t i = 0; i + 1 < levels.size(); ++i)
        segments.push_back(levels[i].array ? "[" + std::to_string(levels[i].index) + "]"
                                           : input_path_segment(levels[i].key));
    return input_path("", segments);
}

// A mapping none of whose fields a runtime or upgrade file has is some other file (a symlink
// in an -f directory may point anywhere): it is named, and none of its text is shown, since
// its field names would be its lines.
void refuse_foreign(const json& document, const std::string& source) {
    static const std::unordered_set<std::string> k_top_level = {"runtimeInput",   "clusterConfig",
                                                                "kymaConfig",     "gardenerConfig",
                                                                "administrators", "lifecycle"};
    if (document.empty())
        return;
    for (const auto& item : document.items())
        if (k_top_level.count(item.key()) > 0)
            return;
    fail(source + " is not a runtime or upgrade file: none of its " +
         std::to_string(document.size()) +
         " top-level fields is runtimeInput, clusterConfig, kymaConfig, gardenerConfig, "
         "administrators or lifecycle (its content is not shown)");
}

// nlohmann's message quotes what it last read ("last read: '...'"): text of a file that may not
// be a runtime file at all. The message keeps only what was expected.
std::string without_quoted_input(std::string message) {
    const auto from = message.find("; last read: '");
    if (from == std::string::npos)
        return message;
    const auto to = message.find("'; ", from + 14);
    return message.substr(0, from) + (to == std::string::npos ? "" : message.substr(to + 1));
}

bool looks_like_json(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{';
}

} // namespace

json read_runtime_text(const std::string& text, const std::string& source) {
    if (text.size() > k_max_runtime_file_bytes)
        fail(source + ": " + describe_size(text.size()) + " is more than the " +
             describe_size(k_max_runtime_file_bytes) + " limit");
    // JSON first, watching for repeated keys, which nlohmann/json would silently merge, and for
    // nesting: nlohmann parses without recursion, but dumps and copies recursively.
    bool repeated_key = false;
    std::vector<JsonLevel> levels;
    const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
        using Event = json::parse_event_t;
        switch (event) {
        case Event::object_start:
        case Event::array_start:
            levels.push_back({event == Event::array_start, {}, 0, {}});
            if (levels.size() > k_max_input_nesting)
                throw TooDeep{json_path(levels)};
            break;
        case Event::object_end:
        case Event::array_end:
            levels.pop_back();
            if (!levels.empty() && levels.back().array)
                ++levels.back().index;
            break;
        case Event::key: {
            auto& level = levels.back();
            level.key = parsed.get<std::string>();
            repeated_key = !level.keys.insert(level.key).second || repeated_key;
            break;
        }
        case Event::value:
            if (!levels.empty() && levels.back().array)
                ++levels.back().index;
            break;
        }
        return true;
    };
    std::string json_error;
    try {
        json document = json::parse(text, watch);
        if (document.is_object() && !repeated_key)
            return document;
    } catch (const TooDeep& e) {
        throw ValidationError(e.path, too_deep());
    } catch (const json::parse_error& e) {
        json_error = source + ":" + json_position(text, e.byte) + ": not valid JSON: " +
                     without_quoted_input(
                         std::string(e.what()).substr(std::string(e.what()).find(": ") + 2));
    }
    // YAML reads JSON too, and with positions, so a repeated JSON key is reported from there.
    json document;
    try {
        document = from_yaml(text, source);
    } catch (const ValidationError&) {
        if (!json_error.empty() && looks_like_json(text))
            fail(json_error);
        throw;
    }
    if (!document.is_object())
        fail(source + ": expected a mapping of fields (YAML) or an object (JSON), got " +
             kind_of(document));
    return document;
}

json read_runtime_file(const std::string& path) {
    std::string text;
    try {
        text = read_bounded_file(path, k_max_runtime_file_bytes, "runtime file");
    } catch (const ValidationError&) {
        throw; // too large: a problem of the input
    } catch (const Error& e) {
        throw InputFileError(std::string("-f: ") + e.what()); // not there, not readable
    }
    const std::string source = path == "-" ? "<stdin>" : path;
    json document = read_runtime_text(text, source);
    refuse_foreign(document, source);
    return document;
}

} // namespace kprov::cli
