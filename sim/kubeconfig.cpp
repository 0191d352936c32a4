#include "kubeconfig.hpp"

#include "api.hpp"

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

} // namespace

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
