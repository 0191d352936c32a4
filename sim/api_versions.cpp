#include "api_versions.hpp"

#include <array>

namespace kprov::sim {

namespace {

// From Kubernetes' Deprecated API Migration Guide
// (https://kubernetes.io/docs/reference/using-api/deprecation-guide/), for the group/versions
// the runtime clusters have resources of: "The v1.22 release stopped serving ...
// apiextensions.k8s.io/v1beta1 CustomResourceDefinition" and "The v1.25 release stopped
// serving ... policy/v1beta1 PodSecurityPolicy" (PodSecurityPolicy has no successor; policy/v1
// serves only PodDisruptionBudget). A group/version a cluster does not serve is 404 and absent
// from discovery (clusters.cpp).
constexpr std::array k_removed = {
    RemovedApiVersion{"apiextensions.k8s.io", "v1beta1", 22},
    RemovedApiVersion{"policy", "v1beta1", 25},
};

// The minor of "1.<minor>[.<patch>]"; -1 when it is no 1.x version.
int minor_of(const std::string& version) {
    if (version.rfind("1.", 0) != 0)
        return -1;
    int minor = 0;
    std::size_t pos = 2;
    for (; pos < version.size() && pos < 6 && version[pos] >= '0' && version[pos] <= '9'; ++pos)
        minor = minor * 10 + (version[pos] - '0');
    if (pos == 2 || (pos < version.size() && version[pos] != '.'))
        return -1;
    return minor;
}

} // namespace

bool api_version_served(std::string_view group, std::string_view version,
                        const std::string& kubernetes_version) {
    const int minor = minor_of(kubernetes_version);
    for (const auto& removed : k_removed)
        if (removed.group == group && removed.version == version)
            return minor >= 0 && minor < removed.removed_in_minor;
    return true;
}

} // namespace kprov::sim
