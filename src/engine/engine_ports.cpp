#include "engine/engine_ports.hpp"

#include "engine/error.hpp"

#include <stdexcept>

namespace kprov::engine {

std::vector<std::string> port_problems(const EnginePorts& ports, const EngineOptions& options) {
    std::vector<std::string> problems;
    const auto& director = options.director;
    if ((director.registration_enabled || director.deregistration_enabled) && !ports.director)
        problems.emplace_back("Director registration or deregistration is on "
                              "(APP_RUNTIME_(DE)REGISTRATION_ENABLED) but no Director client was "
                              "built");
    const auto& kyma = options.kyma;
    const bool cr = kyma.installer_setting == "installation-cr";
    const bool klm = kyma.installer_setting == "lifecycle-manager" && !kyma.kcp_missing;
    if (cr && !ports.kyma_installer)
        problems.emplace_back("KPROV_KYMA_INSTALLER is installation-cr but no installation-cr "
                              "installer was built");
    if (klm && !ports.lifecycle_manager)
        problems.emplace_back("KPROV_KYMA_INSTALLER is lifecycle-manager with a KCP "
                              "(KPROV_KCP_KUBECONFIG_PATH) but no Kyma Lifecycle Manager client "
                              "was built");
    return problems;
}

void check_ports(const EnginePorts& ports, const EngineOptions& options, PortsFor what) {
    if (!ports.store || !ports.shoots || !ports.clock ||
        (what == PortsFor::Executor && !ports.clusters))
        throw std::invalid_argument("the engine needs a store, a ShootClient and a clock (and "
                                    "the executor a RuntimeClusterClient): a kprov bug");
    const auto problems = port_problems(ports, options);
    if (problems.empty())
        return;
    std::string message = "the engine's ports do not match the configuration: ";
    for (std::size_t i = 0; i < problems.size(); ++i)
        message += (i ? "; " : "") + problems[i];
    throw ConfigError(message);
}

} // namespace kprov::engine
