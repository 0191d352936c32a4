// Reading runtime and upgrade files. The only translation unit of the CLI that includes
// yaml-cpp (2.6 s per TU).
//
// yaml-cpp 0.7 leaves scalars untyped; it tells plain scalars (Tag() "?") from quoted and block
// ones (Tag() "!"), which is what YAML's own typing needs: `enabled: true` is a boolean and
// `enabled: "true"` is text, and the engine's parser then reports the wrong one by its type.

#include "cli/runtime_file.hpp"

#include "cli/context.hpp"
#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "yaml/yaml_check.hpp"
#include "yaml/yaml_scalars.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_set>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

namespace kprov::cli {
namespace {

using nlohmann::json;

// Anchors and aliases make a graph; yaml-cpp even builds cycles ("a: &x [*x]"). The nesting
// limit (every reader's) and this bound the walk (and a "billion laughs" document) long before
// memory does.
constexpr std::size_t k_max_values = 1'000'000;
constexpr std::size_t k_max_problems = 100;
// An alias of a long scalar repeated k_max_values times would be gigabytes: text is bounded too.
constexpr std::size_t k_max_text_bytes = 4 * k_max_runtime_file_bytes;

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

const std::string k_str = "tag:yaml.org,2002:str";
const std::string k_int = "tag:yaml.org,2002:int";
const std::string k_float = "tag:yaml.org,2002:float";
const std::string k_bool = "tag:yaml.org,2002:bool";
const std::string k_null = "tag:yaml.org,2002:null";

std::optional<bool> yaml_bool(const std::string& s) {
    if (s == "true" || s == "True" || s == "TRUE")
        return true;
    if (s == "false" || s == "False" || s == "FALSE")
        return false;
    return std::nullopt;
}

bool yaml_null(const std::string& s) {
    return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// YAML 1.2 core schema integers: decimal, 0o octal, 0x hexadecimal.
std::optional<json> yaml_int(const std::string& s) {
    auto convert = [&](std::size_t skip, int base) -> std::optional<json> {
        const char* begin = s.data() + skip;
        const char* end = s.data() + s.size();
        if (*begin == '+')
            ++begin;
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, value, base);
        if (ec == std::errc() && ptr == end)
            return json(value);
        if (ec == std::errc::result_out_of_range) // beyond 64 bits: the parser refuses it anyway
            return json(std::strtod(s.c_str(), nullptr));
        return std::nullopt;
    };
    if (yaml::is_decimal_integer(s))
        return convert(0, 10);
    if (yaml::is_octal_integer(s))
        return convert(2, 8);
    if (yaml::is_hex_integer(s))
        return convert(2, 16);
    return std::nullopt;
}

std::optional<json> yaml_float(const std::string& s) {
    if (!yaml::is_decimal_number(s))
        return std::nullopt;
    return json(std::strtod(s.c_str(), nullptr));
}

class Converter {
public:
    explicit Converter(std::string source)
        : m_source(std::move(source)) {}

    // `depth`: the mappings and sequences around `node`.
    json convert(const YAML::Node& node, const std::string& path, std::size_t depth) {
        if ((node.IsMap() || node.IsSequence()) && depth + 1 > k_max_input_nesting) {
            problem(shortened(path), node, too_deep());
            return nullptr;
        }
        if (++m_values > k_max_values) {
            if (m_values == k_max_values + 1)
                problem(path, node,
                        "expands to more than " + std::to_string(k_max_values) +
                            " values (aliases repeated too often)");
            return nullptr;
        }
        switch (node.Type()) {
        case YAML::NodeType::Map:
            return mapping(node, path, depth);
        case YAML::NodeType::Sequence: {
            json list = json::array();
            std::size_t index = 0;
            for (const auto& item : node)
                list.push_back(
                    convert(item, path + "[" + std::to_string(index++) + "]", depth + 1));
            return list;
        }
        case YAML::NodeType::Scalar:
            return scalar(node, path);
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined:
            break;
        }
        return nullptr;
    }

    std::vector<FieldProblem> take() { return std::move(m_problems); }

    std::string where(const YAML::Mark& mark) const {
        return m_source + ":" + std::to_string(mark.line + 1) + ":" +
               std::to_string(mark.column + 1);
    }

private:
    json mapping(const YAML::Node& node, const std::string& path, std::size_t depth) {
        json object = json::object();
        std::map<std::string, YAML::Mark> seen;
        for (const auto& entry : node) {
            const YAML::Node& key = entry.first;
            if (!key.IsScalar()) {
                problem(path, key, "has a key that is not text");
                continue;
            }
            const std::string& name = key.Scalar();
            if (!count_text(name.size(), path, key))
                return object;
            if (const auto at = invalid_utf8_at(name)) {
                problem(path, key, "has a key with invalid UTF-8 at byte " + std::to_string(*at));
                continue;
            }
            const std::string key_path = path.empty() ? name : path + "." + name;
            const auto [first, inserted] = seen.emplace(name, key.Mark());
            if (!inserted) {
                problem(key_path, key,
                        "is given twice (first at line " + std::to_string(first->second.line + 1) +
                            ")");
                continue;
            }
            object[name] = convert(entry.second, key_path, depth + 1);
        }
        return object;
    }

    json scalar(const YAML::Node& node, const std::string& path) {
        const std::string& text = node.Scalar();
        const std::string& tag = node.Tag();
        if (!count_text(text.size(), path, node))
            return nullptr;
        // JSON (and so the store, the API and -o json) holds UTF-8 only; the bytes are not shown.
        if (const auto at = invalid_utf8_at(text)) {
            problem(path, node, "invalid UTF-8 at byte " + std::to_string(*at));
            return nullptr;
        }
        if (tag == "!" || tag == k_str) // quoted, block, or explicitly text
            return text;
        if (tag == "?") {
            if (const auto b = yaml_bool(text))
                return *b;
            if (yaml_null(text))
                return nullptr;
            if (auto i = yaml_int(text))
                return std::move(*i);
            if (auto f = yaml_float(text))
                return std::move(*f);
            return text;
        }
        std::optional<json> typed;
        if (tag == k_bool) {
            if (const auto b = yaml_bool(text))
                typed = *b;
        } else if (tag == k_int) {
            typed = yaml_int(text);
        } else if (tag == k_float) {
            typed = yaml_int(text);
            if (!typed)
                typed = yaml_float(text);
        } else if (tag == k_null) {
            if (yaml_null(text))
                typed = nullptr;
        } else {
            problem(path, node, "has the tag " + tag + ", which kprov does not know");
            return nullptr;
        }
        if (!typed)
            problem(path, node,
                    "is not a valid " + tag.substr(tag.rfind(':') + 1) + ": \"" + text + "\"");
        return typed ? std::move(*typed) : json(nullptr);
    }

    // False once the text of every scalar and key so far exceeds k_max_text_bytes (reported once).
    bool count_text(std::size_t bytes, const std::string& path, const YAML::Node& node) {
        m_text_bytes += bytes;
        if (m_text_bytes <= k_max_text_bytes)
            return true;
        if (!m_text_reported)
            problem(path, node,
                    "expands to more than " + describe_size(k_max_text_bytes) +
                        " of text (aliases repeated too often)");
        m_text_reported = true;
        return false;
    }

    // Aliases repeat a node's problems wherever it is used: a bounded list says enough.
    void problem(const std::string& path, const YAML::Node& node, const std::string& what) {
        if (m_problems.size() < k_max_problems)
            m_problems.push_back(FieldProblem{path, what + " (" + where(node.Mark()) + ")"});
        else if (m_problems.size() == k_max_problems)
            m_problems.push_back(FieldProblem{"", "more problems follow, not shown"});
    }

    std::string m_source;
    std::size_t m_values = 0;
    std::size_t m_text_bytes = 0;
    bool m_text_reported = false;
    std::vector<FieldProblem> m_problems;
};

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

json from_yaml(const std::string& text, const std::string& source) {
    if (const auto problem = yaml::syntax_problem(text))
        fail(source + ":" + std::to_string(problem->line) +
             ": not valid YAML: " + std::string(problem->message));
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::DeepRecursion& e) {
        fail(source + ":" + std::to_string(e.mark.line + 1) + ":" +
             std::to_string(e.mark.column + 1) + ": " + too_deep());
    } catch (const YAML::Exception& e) {
        fail(source + ":" + std::to_string(e.mark.line + 1) + ":" +
             std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
    }
    if (documents.empty() || (documents.size() == 1 && documents[0].IsNull()))
        fail(source + " is empty (expected a runtime or upgrade document)");
    Converter converter(source);
    if (documents.size() > 1)
        fail(converter.where(documents[1].Mark()) +
             ": a second YAML document; a file holds exactly one");
    json document = converter.convert(documents[0], "", 0);
    auto problems = converter.take();
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    return document;
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
