#pragma once
// A simulator with its KCP cluster API and simulated KLM at a fast time scale, and helpers to
// create runtimes (shoots with their admin kubeconfig), kubeconfig Secrets and Kymas, for the
// KCP and KLM tests.

#include "sim_testing.hpp"

#include <string>

namespace kprov::sim::testing {

class KcpWorld {
public:
    /// Starts a simulator whose KLM takes `module_seconds` per module.
    explicit KcpWorld(double module_seconds = 0.2);

    SimFixture f;
    std::unique_ptr<Http> kcp; ///< talks to the KCP with its token

    /// The Kyma collection in kcp-system, and one Kyma in it.
    static std::string kymas();
    static std::string kyma(const std::string& name);
    static std::string secrets();

    /// Creates shoot `shoot` in garden-dev, waits for its Create to succeed and returns the
    /// base64 kubeconfig of an adminkubeconfig request ("" on failure).
    std::string runtime(const std::string& shoot);
    /// A new admin kubeconfig (base64) for an existing shoot.
    std::string admin_kubeconfig(const std::string& shoot);
    /// POSTs Secret `name` in kcp-system labelled with the Kyma name, data.config = `config`.
    Resp secret(const std::string& name, const std::string& kyma_name, const std::string& config);
    /// POSTs Kyma `name` with `modules` (names, or module objects) and channel `channel`.
    Resp create(const std::string& name, const Json& modules,
                const std::string& channel = "regular");
    /// GET of the Kyma (null when it does not exist).
    Json get(const std::string& name);
    /// status.state of the Kyma ("" when absent, "<gone>" when the Kyma does not exist).
    std::string state(const std::string& name);
    bool wait_state(const std::string& name, const std::string& state, double seconds = 5);
    bool wait_gone(const std::string& name, double seconds = 5);
    /// Replaces data.config of Secret `name` (GET and PUT); returns the PUT's status.
    int set_config(const std::string& name, const std::string& config);
    /// Confirms and deletes shoot `shoot`; returns the DELETE's status.
    int delete_shoot(const std::string& shoot);
    /// POST /sim/kcp/klm.
    Resp knobs(const Json& body);
    /// The status.modules[] entry `module` of the Kyma (null when absent).
    Json module(const std::string& name, const std::string& module);
};

} // namespace kprov::sim::testing
