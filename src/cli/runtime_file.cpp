// Reading runtime and upgrade files. The only translation unit of the CLI that includes
// yaml-cpp (2.6 s per TU).
//
// yaml-cpp 0.7 leaves scalars untyped; it tells plain scalars (Tag() "?") from quoted and block
// ones (Tag() "!"), which is what YAML's own typing needs: `enabled: true` is a boolean and
// `enabled: "true"` is text, and the engine's parser then reports the wrong one by its type.

#include "cli/runtime_file.hpp"

#include "engine/error.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace kprov::cli {
namespace {

using nlohmann::json;

// Anchors and aliases make a graph; yaml-cpp even builds cycles ("a: &x [*x]"). These bound
// the walk (and a "billion laughs" document) long before memory does.
constexpr int k_max_depth = 64;
constexpr std::size_t k_max_values = 1'000'000;

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
    static const std::regex decimal("[-+]?[0-9]+");
    static const std::regex octal("0o[0-7]+");
    static const std::regex hex("0x[0-9a-fA-F]+");
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
    if (std::regex_match(s, decimal))
        return convert(0, 10);
    if (std::regex_match(s, octal))
        return convert(2, 8);
    if (std::regex_match(s, hex))
        return convert(2, 16);
    return std::nullopt;
}

std::optional<json> yaml_float(const std::string& s) {
    static const std::regex number(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    if (!std::regex_match(s, number))
        return std::nullopt;
    return json(std::strtod(s.c_str(), nullptr));
}

class Converter {
public:
    explicit Converter(std::string source)
        : m_source(std::move(source)) {}

    json convert(const YAML::Node& node, const std::string& path, int depth) {
        if (depth > k_max_depth) {
            problem(path, node,
                    "nests deeper than " + std::to_string(k_max_depth) +
                        " levels (an alias inside its own anchor?)");
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
    json mapping(const YAML::Node& node, const std::string& path, int depth) {
        json object = json::object();
        std::map<std::string, YAML::Mark> seen;
        for (const auto& entry : node) {
            const YAML::Node& key = entry.first;
            if (!key.IsScalar()) {
                problem(path, key, "has a key that is not text");
                continue;
            }
            const std::string& name = key.Scalar();
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

    void problem(const std::string& path, const YAML::Node& node, const std::string& what) {
        m_problems.push_back(FieldProblem{path, what + " (" + where(node.Mark()) + ")"});
    }

    std::string m_source;
    std::size_t m_values = 0;
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
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
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

bool looks_like_json(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{';
}

} // namespace

json read_runtime_text(const std::string& text, const std::string& source) {
    // JSON first, watching for repeated keys, which nlohmann/json would silently merge.
    bool repeated_key = false;
    std::vector<std::vector<std::string>> keys;
    const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start)
            keys.emplace_back();
        else if (event == json::parse_event_t::object_end && !keys.empty())
            keys.pop_back();
        else if (event == json::parse_event_t::key && !keys.empty()) {
            auto& level = keys.back();
            const auto name = parsed.get<std::string>();
            repeated_key =
                repeated_key || std::find(level.begin(), level.end(), name) != level.end();
            level.push_back(name);
        }
        return true;
    };
    std::string json_error;
    try {
        json document = json::parse(text, watch);
        if (document.is_object() && !repeated_key)
            return document;
    } catch (const json::parse_error& e) {
        json_error = source + ":" + json_position(text, e.byte) + ": not valid JSON: " +
                     std::string(e.what()).substr(std::string(e.what()).find(": ") + 2);
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
    if (path == "-") {
        std::string text((std::istreambuf_iterator<char>(std::cin)),
                         std::istreambuf_iterator<char>());
        return read_runtime_text(text, "<stdin>");
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("cannot read " + path + ": it is a directory (expected a YAML or JSON file)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw Error("cannot read " + path + ": " + std::strerror(errno));
    return read_runtime_text(text.str(), path);
}

} // namespace kprov::cli
