// Reading the YAML config file. The only translation unit that includes yaml-cpp (2.6 s per TU
// and a library the rest of kprov should not see through config's header).
//
// Scalars are kept as the text the user wrote: YAML's own typing would turn "no" into false and
// "010" into 8, while the environment gives text, and one parser per kind must read both alike.

#include "config/settings.hpp"
#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "yaml/yaml_check.hpp"

#include <filesystem>
#include <set>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

namespace kprov::config {
namespace {

class Flattener {
public:
    explicit Flattener(std::string path)
        : m_path(std::move(path)) {}

    // `depth`: the mappings around `mapping`'s members.
    void add_mapping(const YAML::Node& mapping, const std::string& prefix, std::size_t depth = 1) {
        if (depth > k_max_input_nesting) {
            problem(prefix.substr(0, prefix.size() - 1), mapping,
                    "nests deeper than " + std::to_string(k_max_input_nesting) + " levels");
            return;
        }
        for (const auto& item : mapping) {
            const auto& key_node = item.first;
            if (!key_node.IsScalar()) {
                problem("", key_node, "has a key that is not text");
                continue;
            }
            if (const auto at = invalid_utf8_at(key_node.Scalar())) {
                problem("", key_node,
                        "has a key with invalid UTF-8 at byte " + std::to_string(*at));
                continue;
            }
            add(prefix + key_node.Scalar(), item.second, depth);
        }
    }

    ConfigFileValues take() { return std::move(m_out); }

private:
    void add(const std::string& key, const YAML::Node& value, std::size_t depth) {
        switch (value.Type()) {
        case YAML::NodeType::Map:
            add_mapping(value, key + ".", depth + 1);
            return;
        case YAML::NodeType::Sequence:
            problem(key, value, "is a list (expected a single value)");
            return;
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined:
            // "key:" with nothing after it: the same as an empty value, which means not given.
            store(key, value, "");
            return;
        case YAML::NodeType::Scalar:
            // Settings end up in messages, headers and -o json, which hold UTF-8 only.
            if (const auto at = invalid_utf8_at(value.Scalar())) {
                problem(key, value, "has invalid UTF-8 at byte " + std::to_string(*at));
                return;
            }
            store(key, value, value.Scalar());
            return;
        }
    }

    void store(const std::string& key, const YAML::Node& node, std::string text) {
        // yaml-cpp keeps repeated keys, and "a.b" and "a: {b}" are the same key here: either
        // way one value would silently hide the other.
        if (!m_seen.insert(key).second) {
            problem(key, node, "is given twice");
            return;
        }
        m_out.values.emplace_back(key, std::move(text));
    }

    void problem(const std::string& key, const YAML::Node& node, const std::string& what) {
        std::string line = "config file " + m_path;
        if (!key.empty())
            line += " key " + key;
        line += " " + what;
        if (node.Mark().line >= 0)
            line += " (line " + std::to_string(node.Mark().line + 1) + ")";
        m_out.problems.push_back(std::move(line));
    }

    std::string m_path;
    std::set<std::string> m_seen;
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
    if (const auto problem = yaml::syntax_problem(text, yaml::k_foreign_bounds))
        throw ConfigError("config file " + path +
                          " is not valid YAML: " + std::string(problem->message) + " (line " +
                          std::to_string(problem->line) + ")");
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        throw ConfigError("config file " + path + " nests deeper than " +
                          std::to_string(k_max_input_nesting) + " levels (line " +
                          std::to_string(e.mark.line + 1) + ")");
    } catch (const YAML::Exception& e) {
        throw ConfigError("config file " + path + " is not valid YAML: " + e.msg + " (line " +
                          std::to_string(e.mark.line + 1) + ", column " +
                          std::to_string(e.mark.column + 1) + ")");
    }
    if (root.IsNull())
        return {}; // an empty file, or only comments
    if (!root.IsMap())
        throw ConfigError("config file " + path +
                          " is not a mapping of settings (expected lines such as "
                          "\"log_level: debug\")");
    Flattener flattener(path);
    flattener.add_mapping(root, "");
    return flattener.take();
}

} // namespace kprov::config
