#pragma once
// What the engine's service and executor talk to: the store, Gardener, the runtime clusters,
// Director, the Kyma backends, the landscape, the clock and the log. EngineOptions holds
// configuration only; the composition root (src/app/) builds these ports from the same settings
// and check_ports() refuses a setting whose port is missing, so that the engine decides by the
// setting alone (a port no setting asks for is never called).

#include "engine/engine_options.hpp"
#include "engine/kyma.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/landscape.hpp"
#include "engine/ports.hpp"
#include "engine/store.hpp"
#include "engine/util/time.hpp"

#include <string>
#include <vector>

namespace kprov::engine {

class InstallationWatches;

/// The ports of one engine. Pointers, not owned: whoever builds them (the composition root, a
/// test) keeps them alive as long as the EngineService and Executor over them.
struct EnginePorts {
    Store* store = nullptr;        ///< required
    ShootClient* shoots = nullptr; ///< required
    const Clock* clock = nullptr;  ///< required
    /// Required by the Executor; EngineService makes no call to runtime clusters.
    RuntimeClusterClient* clusters = nullptr;
    /// Present when DirectorOptions registration or deregistration is on.
    Director* director = nullptr;
    /// Present when KymaOptions::installer_setting is "installation-cr".
    KymaInstaller* kyma_installer = nullptr;
    /// Present when installer_setting is "lifecycle-manager" and a KCP is configured.
    KymaLifecycleManager* lifecycle_manager = nullptr;
    /// Where releases missing from kyma_release come from; null: only stored ones are known.
    ReleaseSource* releases = nullptr;
    /// Watches of Installation CRs that make a waiting operation due on a change; null: the
    /// Kyma stages poll (KymaOptions::poll).
    InstallationWatches* installation_watches = nullptr;
    /// The landscape every request is checked against before anything is written
    /// (landscape_check.hpp). Null: requests that write are refused, naming what to configure;
    /// plans then plan without checking and say so.
    Landscape* landscape = nullptr;
    /// Empty: nothing is logged.
    LogSink log;

    /// Logs through `log` when it is set.
    void write_log(LogLevel level, const std::string& message) const {
        if (log)
            log(level, message);
    }
};

/// What a set of ports is for: the executor needs the runtime clusters as well.
enum class PortsFor { Service, Executor };

/// Every setting of `options` whose port is missing from `ports`. Empty when they agree.
std::vector<std::string> port_problems(const EnginePorts& ports, const EngineOptions& options);

/// Throws ConfigError listing port_problems() when there are any, and std::invalid_argument
/// when a required port (store, shoots, clock; clusters for the executor) is null.
void check_ports(const EnginePorts& ports, const EngineOptions& options, PortsFor what);

} // namespace kprov::engine
