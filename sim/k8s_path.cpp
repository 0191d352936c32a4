#include "k8s_path.hpp"

#include <vector>

namespace kprov::sim {

std::vector<std::string> split_segments(const std::string& path) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : path) {
        if (c == '/') {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

std::string K8sPath::path_template() const {
    std::string t = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (!ns.empty())
        t += "/namespaces/{namespace}";
    t += "/" + resource;
    if (!name.empty())
        t += "/{name}";
    if (!subresource.empty())
        t += "/" + subresource;
    return t;
}

std::optional<K8sPath>
parse_k8s_path(const std::string& path,
               const std::function<bool(const std::string&, const std::string&)>& is_namespaced) {
    auto seg = split_segments(path);
    K8sPath p;
    std::size_t i = 0;
    if (seg.size() >= 2 && seg[0] == "api") {
        p.version = seg[1];
        i = 2;
    } else if (seg.size() >= 3 && seg[0] == "apis") {
        p.group = seg[1];
        p.version = seg[2];
        i = 3;
    } else {
        return std::nullopt;
    }
    std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(i), seg.end());
    if (rest.empty())
        return std::nullopt;
    if (rest[0] == "namespaces" && rest.size() >= 3 && is_namespaced(p.group, rest[2])) {
        p.ns = rest[1];
        rest.erase(rest.begin(), rest.begin() + 2);
    }
    if (rest.size() > 3)
        return std::nullopt;
    p.resource = rest[0];
    if (rest.size() >= 2)
        p.name = rest[1];
    if (rest.size() == 3)
        p.subresource = rest[2];
    return p;
}

} // namespace kprov::sim
