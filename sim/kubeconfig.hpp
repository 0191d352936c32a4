#pragma once
// Kubeconfig files (YAML) for the Gardener API and for runtime clusters.

#include <string>

namespace kprov::sim {

struct KubeconfigSpec {
    std::string name;       ///< cluster, user and context name
    std::string server;     ///< base URL
    std::string ca_pem;     ///< certificate-authority-data when not empty
    std::string token;      ///< bearer token when not empty
    std::string namespace_; ///< context namespace when not empty
};

/// A kubeconfig with one cluster, one user and one context, current-context set.
std::string make_kubeconfig(const KubeconfigSpec& spec);

/// What a reader of a kubeconfig needs to reach its cluster.
struct KubeconfigAccess {
    std::string server; ///< "" when absent
    std::string token;  ///< "" when absent
};

/// The first `server` and the first `token` of a kubeconfig, in JSON or in block-style YAML
/// (one `key: value` per line, values plain or quoted), as make_kubeconfig and kubectl write
/// them. Not a YAML parser: several clusters or users are not told apart, flow-style documents
/// are not read. Texts over 1 MiB yield an empty result.
KubeconfigAccess read_kubeconfig_access(const std::string& text);

} // namespace kprov::sim
