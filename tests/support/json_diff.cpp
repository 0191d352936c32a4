#include "support/json_diff.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kprov::test_support {
namespace {

std::string child(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

std::string shown(const nlohmann::json& value) {
    const std::string text = value.dump();
    return text.size() > 200 ? text.substr(0, 200) + "..." : text;
}

std::optional<std::string> diff(const nlohmann::json& expected, const nlohmann::json& actual,
                                const std::string& path) {
    const std::string where = path.empty() ? "(root)" : path;
    if (expected.is_object() && actual.is_object()) {
        for (const auto& [key, value] : expected.items()) {
            const auto it = actual.find(key);
            if (it == actual.end())
                return child(path, key) + ": expected " + shown(value) + ", got nothing";
            if (auto d = diff(value, *it, child(path, key)))
                return d;
        }
        for (const auto& [key, value] : actual.items())
            if (!expected.contains(key))
                return child(path, key) + ": unexpected key, got " + shown(value);
        return std::nullopt;
    }
    if (expected.is_array() && actual.is_array()) {
        for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i)
            if (auto d = diff(expected[i], actual[i], path + "[" + std::to_string(i) + "]"))
                return d;
        if (expected.size() != actual.size())
            return where + ": expected " + std::to_string(expected.size()) + " elements, got " +
                   std::to_string(actual.size()) + ": " + shown(actual);
        return std::nullopt;
    }
    if (expected != actual || expected.is_number() != actual.is_number())
        return where + ": expected " + shown(expected) + ", got " + shown(actual);
    return std::nullopt;
}

} // namespace

std::optional<std::string> first_difference(const nlohmann::json& expected,
                                            const nlohmann::json& actual) {
    return diff(expected, actual, "");
}

nlohmann::json load_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::stringstream text;
    text << in.rdbuf();
    try {
        return nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

} // namespace kprov::test_support
