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

} // namespace kprov::sim
