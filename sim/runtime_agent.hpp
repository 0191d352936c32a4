#pragma once
// The simulated Compass Runtime Agent of one runtime cluster: once the Kyma installer has
// installed the release compass-runtime-agent and the Secret kyma-system/compass-agent-
// configuration holds a CONNECTOR_URL and a TOKEN, it writes the cluster-scoped CompassConnection
// compass-connection (creating its CRD, established at once) one component duration later, and
// again for every new TOKEN, with the connection states its knobs script. It writes through the
// cluster's ObjectStore, so each write is a new resourceVersion and a watch event.
// Not thread-safe: the caller holds the world lock.

#include "api.hpp"
#include "object_store.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kprov::sim {

/// What a test can script about one cluster's agent (POST /sim/clusters/{c}/kyma).
struct AgentKnobs {
    /// The connection state of each (re)configuration in turn; the last one repeats.
    std::vector<std::string> states = {"Synchronized"};
    bool disabled = false; ///< never writes the CompassConnection
};

class RuntimeAgent {
public:
    static constexpr const char* k_release = "compass-runtime-agent";

    AgentKnobs knobs;

    /// Reads the agent's Secret and writes the CompassConnection when a write is due by `now`.
    /// Does nothing until `agent_installed`; `ensure_crd` creates the CompassConnection CRD
    /// (established at once) before the first write. Throws ApiError if the store refuses a write.
    void advance(ObjectStore& store, TimePoint now, bool agent_installed, double delay_seconds,
                 const std::function<void()>& ensure_crd);
    /// When advance() next has a write to make; nullopt when none is pending.
    std::optional<TimePoint> next_due() const;
    /// {"connected", "configurations", "state"}: whether the last state written is one the
    /// provisioner takes as connected, how many distinct tokens the agent saw, that state or null.
    Json describe() const;

private:
    struct Configuration {
        std::string connector_url;
        std::string token;
    };
    /// The Secret's decoded CONNECTOR_URL and TOKEN; nullopt without the Secret or either value.
    static std::optional<Configuration> read_configuration(const ObjectStore& store);
    void write(ObjectStore& store, const std::string& state, TimePoint now);

    Configuration m_config;             ///< the configuration the agent last read
    std::set<std::string> m_tokens;     ///< every TOKEN seen
    std::size_t m_writes = 0;           ///< CompassConnection writes made (index into states)
    std::optional<TimePoint> m_due;     ///< a write is pending from then on
    std::optional<std::string> m_state; ///< the state last written
};

} // namespace kprov::sim
