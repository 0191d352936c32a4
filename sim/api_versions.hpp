#pragma once
// Which group/versions a runtime cluster serves, by its Kubernetes version: the one table of
// API versions Kubernetes stopped serving that the simulated clusters know (their other
// resources are served by every version the sim admits).

#include <string>
#include <string_view>

namespace kprov::sim {

/// A group/version Kubernetes removed, and the first minor (of 1.x) that no longer serves it.
struct RemovedApiVersion {
    std::string_view group;
    std::string_view version;
    int removed_in_minor;
};

/// False when Kubernetes `kubernetes_version` ("1.33.2", "1.33") no longer serves
/// `group`/`version`. A version that does not parse counts as current (nothing removed is
/// served): the sim admits only shoots with a parsable version.
bool api_version_served(std::string_view group, std::string_view version,
                        const std::string& kubernetes_version);

/// The 404 message of an API server for a path it serves nothing at.
inline constexpr const char* k_no_such_resource =
    "the server could not find the requested resource";

} // namespace kprov::sim
