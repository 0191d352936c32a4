#pragma once
// A simulator with one runtime cluster (shoot c1 of project dev) and helpers to write the
// objects of a Kyma installation to it, for the Kyma tests.

#include "sim_testing.hpp"

#include <string>
#include <vector>

namespace kprov::sim::testing {

/// The collection of the Kyma installer's Installation resources.
inline constexpr const char* k_installations =
    "/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations";

class KymaCluster {
public:
    /// Starts a simulator (component seconds `component_seconds`) and waits for c1's cluster.
    explicit KymaCluster(double component_seconds = 0.05);

    SimFixture f;
    std::unique_ptr<Http> k; ///< talks to the runtime cluster (no token: plain HTTP allows it)
    static constexpr const char* k_id = "shoot--dev--c1";

    /// "/clusters/shoot--dev--c1" + path.
    std::string c(const std::string& path) const;
    /// The Installation CR's URL.
    std::string cr_path() const;
    Resp post(const std::string& path, const Json& body) { return k->post(c(path), body.dump()); }
    Resp put(const std::string& path, const Json& body) { return k->put(c(path), body.dump()); }
    Resp get(const std::string& path) { return k->get(c(path)); }

    /// The Installation CRD (apiextensions v1, as the sim's 1.24 releases have it).
    void create_installation_crd();
    /// Namespace kyma-installer and the Deployment kyma-installer/kyma-installer.
    void deploy_installer(const std::string& version = "1.24.11");
    /// POSTs default/kyma-installation with these components (name only) and labels.
    Resp create_cr(const std::vector<std::string>& components, const Json& labels);
    /// GET of the CR (null on failure).
    Json cr();
    /// status.<key> of the CR as a string; "" when absent.
    std::string status(const std::string& key);
    /// Sets label action=`action` on the CR by GET and PUT; returns the PUT's status.
    int label(const std::string& action);
    /// label(), read again on 409 as a client of a CR the installer writes must (the installer
    /// may write between the read and the write).
    int label_reading_again(const std::string& action);
    /// POST /sim/clusters/{id}/kyma.
    Resp knobs(const Json& body);
    /// Waits until status.state is `state` and the action label is gone.
    bool wait_done(const std::string& state, double seconds = 10);
};

} // namespace kprov::sim::testing
