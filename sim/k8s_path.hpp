#pragma once
// Parsing of Kubernetes REST paths (/api/v1/..., /apis/<group>/<version>/...) into their parts,
// and the path template that request counters are keyed by.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

struct K8sPath {
    std::string group; ///< "" for /api/v1
    std::string version;
    std::string ns; ///< namespace from /namespaces/<ns>/..., "" if none
    std::string resource;
    std::string name;
    std::string subresource;
    /// The path with the namespace and name replaced:
    /// "/api/v1/namespaces/{namespace}/secrets/{name}".
    std::string path_template() const;
};

/// The non-empty segments of a URL path ("/a//b/" -> {"a", "b"}).
std::vector<std::string> split_segments(const std::string& path);

/// Parses a resource path (prefix already removed). Discovery paths (/api, /apis/<g>/<v> with no
/// resource) yield nullopt. `is_namespaced(group, resource)` disambiguates
/// /namespaces/<x>/<y>: a namespaced collection when true, else a subresource of namespace x.
std::optional<K8sPath>
parse_k8s_path(const std::string& path,
               const std::function<bool(const std::string&, const std::string&)>& is_namespaced);

} // namespace kprov::sim
