#include "engine/util/json_diff.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using Json = nlohmann::ordered_json;

class Differ {
public:
    explicit Differ(const std::vector<std::string>& ignore)
        : m_ignore(ignore) {}

    void compare(const Json& a, const Json& b, const std::string& path) {
        if (std::find(m_ignore.begin(), m_ignore.end(), path) != m_ignore.end())
            return;
        if (a.is_object() && b.is_object()) {
            for (const auto& [key, value] : a.items()) {
                const auto it = b.find(key);
                if (it == b.end())
                    removed(value, join(path, key));
                else
                    compare(value, *it, join(path, key));
            }
            for (const auto& [key, value] : b.items())
                if (!a.contains(key))
                    added(value, join(path, key));
            return;
        }
        if (a.is_array() && b.is_array()) {
            const auto common = std::min(a.size(), b.size());
            for (std::size_t i = 0; i < common; ++i)
                compare(a[i], b[i], index(path, i));
            for (std::size_t i = common; i < a.size(); ++i)
                removed(a[i], index(path, i));
            for (std::size_t i = common; i < b.size(); ++i)
                added(b[i], index(path, i));
            return;
        }
        if (a != b)
            m_lines.push_back("~ " + path + ": " + a.dump() + " -> " + b.dump());
    }

    std::vector<std::string> take() { return std::move(m_lines); }

private:
    void added(const Json& value, const std::string& path) {
        if (!ignored(path))
            m_lines.push_back("+ " + path + ": " + value.dump());
    }
    void removed(const Json& value, const std::string& path) {
        if (!ignored(path))
            m_lines.push_back("- " + path + ": " + value.dump());
    }
    bool ignored(const std::string& path) const {
        return std::find(m_ignore.begin(), m_ignore.end(), path) != m_ignore.end();
    }
    static std::string join(const std::string& path, const std::string& key) {
        return path.empty() ? key : path + "." + key;
    }
    static std::string index(const std::string& path, std::size_t i) {
        return path + "[" + std::to_string(i) + "]";
    }

    const std::vector<std::string>& m_ignore;
    std::vector<std::string> m_lines;
};

} // namespace

std::vector<std::string> json_diff(std::string_view before, std::string_view after,
                                   const std::vector<std::string>& ignore) {
    Differ differ(ignore);
    differ.compare(Json::parse(before), Json::parse(after), "");
    return differ.take();
}

} // namespace kprov::engine
