#include "kubeconfig.hpp"

#include "api.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace kprov::sim {

namespace {

/// A YAML double-quoted scalar.
std::string q(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

// A YAML scalar as written after "key:": quotes removed (with their escapes), a trailing
// comment of a plain scalar dropped.
std::string unquote(std::string v) {
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
        v.pop_back();
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        std::string out;
        for (std::size_t i = 1; i + 1 < v.size(); ++i) {
            if (v[i] == '\\' && i + 2 < v.size())
                ++i;
            out += v[i];
        }
        return out;
    }
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
        std::string out;
        for (std::size_t i = 1; i + 1 < v.size(); ++i) {
            out += v[i];
            if (v[i] == '\'' && v[i + 1] == '\'')
                ++i;
        }
        return out;
    }
    if (auto hash = v.find(" #"); hash != std::string::npos)
        v.erase(hash);
    while (!v.empty() && v.back() == ' ')
        v.pop_back();
    return v;
}

// The first string at key `key` anywhere in a JSON document (depth-first, document order).
std::string first_json_string(const Json& j, const std::string& key) {
    if (j.is_object()) {
        if (auto it = j.find(key); it != j.end() && it->is_string())
            return it->get<std::string>();
        for (const auto& [k, v] : j.items())
            if (auto found = first_json_string(v, key); !found.empty())
                return found;
    } else if (j.is_array()) {
        for (const auto& v : j)
            if (auto found = first_json_string(v, key); !found.empty())
                return found;
    }
    return "";
}

} // namespace

KubeconfigAccess read_kubeconfig_access(const std::string& text) {
    constexpr std::size_t k_max = 1 << 20;
    KubeconfigAccess out;
    if (text.size() > k_max)
        return out;
    // Bounded nesting: a hostile Secret must not recurse the reader into a stack overflow.
    auto depth_ok = [](const Json& j) {
        std::size_t depth = 0;
        std::vector<const Json*> stack = {&j};
        std::vector<std::size_t> levels = {0};
        while (!stack.empty()) {
            const Json* cur = stack.back();
            std::size_t level = levels.back();
            stack.pop_back();
            levels.pop_back();
            depth = std::max(depth, level);
            if (cur->is_structured())
                for (const auto& child : *cur) {
                    stack.push_back(&child);
                    levels.push_back(level + 1);
                }
        }
        return depth <= 32;
    };
    std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        Json j = Json::parse(text, nullptr, false);
        if (!j.is_discarded() && depth_ok(j)) {
            out.server = first_json_string(j, "server");
            out.token = first_json_string(j, "token");
        }
        return out;
    }
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::size_t start = line.find_first_not_of(" -");
        if (start == std::string::npos)
            continue;
        for (auto [key, target] :
             {std::pair<std::string, std::string*>{"server:", &out.server}, {"token:", &out.token}})
            if (target->empty() && line.compare(start, key.size(), key) == 0) {
                std::size_t value = line.find_first_not_of(' ', start + key.size());
                *target = value == std::string::npos ? "" : unquote(line.substr(value));
            }
    }
    return out;
}

std::string make_kubeconfig(const KubeconfigSpec& spec) {
    std::string y = "apiVersion: v1\nkind: Config\n";
    y += "current-context: " + q(spec.name) + "\n";
    y +=
        "clusters:\n- name: " + q(spec.name) + "\n  cluster:\n    server: " + q(spec.server) + "\n";
    if (!spec.ca_pem.empty())
        y += "    certificate-authority-data: " + base64_encode(spec.ca_pem) + "\n";
    y += "contexts:\n- name: " + q(spec.name) + "\n  context:\n    cluster: " + q(spec.name) +
         "\n    user: " + q(spec.name) + "\n";
    if (!spec.namespace_.empty())
        y += "    namespace: " + q(spec.namespace_) + "\n";
    y += "users:\n- name: " + q(spec.name) + "\n  user:\n";
    if (!spec.token.empty())
        y += "    token: " + q(spec.token) + "\n";
    else
        y += "    {}\n";
    y += "preferences: {}\n";
    return y;
}

} // namespace kprov::sim
