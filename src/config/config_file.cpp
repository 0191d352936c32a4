// Reading the YAML config file, by src/yaml/'s reader.
//
// Scalars are kept as the text the user wrote (yaml::Scalars::AsWritten): YAML's own typing
// would turn "no" into false and "010" into 8, while the environment gives text, and one parser
// per kind must read both alike.

#include "config/settings.hpp"
#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "yaml/yaml_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace kprov::config {
namespace {

std::string pointer_segment(const std::string& key) {
    std::string escaped;
    for (const char c : key)
        escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return "/" + escaped;
}

// The settings of a file's mapping, flattened to dotted keys ("database.port"), in the order of
// their lines: a walk with an explicit stack (the reader bounds the depth, not the walk).
class Flattener {
public:
    Flattener(std::string path, const std::unordered_map<std::string, yaml::Mark>& marks)
        : m_path(std::move(path))
        , m_marks(marks) {}

    void add_mapping(const nlohmann::json& root) {
        struct Item {
            const nlohmann::json* value;
            std::string key;
            std::string pointer;
        };
        std::vector<Item> stack{{&root, "", ""}};
        while (!stack.empty()) {
            const Item item = std::move(stack.back());
            stack.pop_back();
            const nlohmann::json& value = *item.value;
            if (value.is_object()) {
                std::vector<Item> members;
                for (const auto& [key, member] : value.items())
                    members.push_back({&member, item.key.empty() ? key : item.key + "." + key,
                                       item.pointer + pointer_segment(key)});
                stack.insert(stack.end(), members.rbegin(), members.rend());
            } else if (value.is_array()) {
                problem(item.key, line_of(item.pointer), "is a list (expected a single value)");
            } else {
                // "key:" with nothing after it is the same as an empty value: not given.
                m_entries.push_back({line_of(item.pointer), item.key,
                                     value.is_string() ? value.get<std::string>() : ""});
            }
        }
    }

    void problem(const std::string& key, std::size_t line, const std::string& what) {
        std::string text = "config file " + m_path;
        if (!key.empty())
            text += " key " + key;
        text += " " + what;
        if (line > 0)
            text += " (line " + std::to_string(line) + ")";
        m_problems.emplace_back(line, std::move(text));
    }

    ConfigFileValues take() {
        std::stable_sort(m_entries.begin(), m_entries.end(),
                         [](const Entry& a, const Entry& b) { return a.line < b.line; });
        // "a.b" and "a: {b}" are the same key here: either way one value would silently hide
        // the other, and the later one is refused.
        std::set<std::string> seen;
        for (auto& entry : m_entries) {
            if (!seen.insert(entry.key).second)
                problem(entry.key, entry.line, "is given twice");
            else
                m_out.values.emplace_back(entry.key, std::move(entry.text));
        }
        std::stable_sort(m_problems.begin(), m_problems.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [line, text] : m_problems)
            m_out.problems.push_back(std::move(text));
        return std::move(m_out);
    }

private:
    struct Entry {
        std::size_t line;
        std::string key;
        std::string text;
    };

    std::size_t line_of(const std::string& pointer) const {
        const auto found = m_marks.find(pointer);
        return found == m_marks.end() ? 0 : found->second.line;
    }

    std::string m_path;
    const std::unordered_map<std::string, yaml::Mark>& m_marks;
    std::vector<Entry> m_entries;
    std::vector<std::pair<std::size_t, std::string>> m_problems;
    ConfigFileValues m_out;
};

std::string read_text(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw ConfigError("config file " + path + " does not exist");
    if (std::filesystem::is_directory(path, ec))
        throw ConfigError("config file " + path + " is a directory (expected a YAML file)");
    try {
        return read_bounded_file(path, k_max_config_file_bytes, "config file");
    } catch (const ValidationError& e) { // too large
        throw ConfigError(e.problems().front().message);
    } catch (const Error& e) {
        throw ConfigError("config file " + path + ": " + e.what());
    }
}

} // namespace

ConfigFileValues read_config_file(const std::string& path) {
    const auto text = read_text(path);
    yaml::ReadOptions options;
    options.bounds.max_depth = k_max_input_nesting;
    options.scalars = yaml::Scalars::AsWritten;
    options.record_marks = true;
    yaml::Documents read;
    try {
        read = yaml::read_documents(text, options);
    } catch (const yaml::ReadError& e) {
        const std::string line = " (line " + std::to_string(e.mark().line) + ")";
        if (e.bound() == "max_depth")
            throw ConfigError("config file " + path + " nests deeper than " +
                              std::to_string(k_max_input_nesting) + " levels" + line);
        throw ConfigError("config file " + path + " is not valid YAML: " + e.message() + line);
    }
    if (read.documents.size() > 1)
        throw ConfigError("config file " + path + " holds more than one YAML document (line " +
                          std::to_string(read.marks[1].line) + ")");
    if (read.documents.empty() || read.documents[0].is_null())
        return {}; // an empty file, or only comments
    if (!read.documents[0].is_object())
        throw ConfigError("config file " + path +
                          " is not a mapping of settings (expected lines such as "
                          "\"log_level: debug\")");
    Flattener flattener(path, read.value_marks[0]);
    for (const auto& p : read.problems) {
        // Another "is given twice" of the same key is the flattener's to find.
        if (p.message.rfind("is given twice", 0) == 0)
            flattener.problem(p.path, p.mark.line, "is given twice");
        else
            flattener.problem(p.path, p.mark.line, p.message);
    }
    flattener.add_mapping(read.documents[0]);
    return flattener.take();
}

} // namespace kprov::config
