#pragma once
// The simulated Kyma installer of one runtime cluster (kyma-installation.md §5.2, §6.2): once
// the Deployment kyma-installer/kyma-installer exists it acts on default/kyma-installation
// labelled action=install or action=uninstall, walks spec.components with the installer's
// state strings, descriptions, conditions, errorLog merging and backoff, evaluates the
// overrides of §5.3 at the start of every component, and removes the label when it is done or
// gives up. It writes through the cluster's ObjectStore, so each status write is a new
// resourceVersion and a watch event. Time is real time scaled by KymaSettings.
// Not thread-safe: the caller holds the world lock.

#include "api.hpp"
#include "object_store.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace kprov::sim {

/// The installer's time scale (--kyma-component-seconds, --kyma-backoff-factor).
struct KymaSettings {
    double component_seconds = 1; ///< one component (and the verification step)
    double backoff_factor = -1;   ///< backoffs are 10, 20, 40, 60, 80 s × this; < 0: S / 10

    /// The wait before attempt `retry` + 2 of a failed component (retry 0..4).
    double backoff_seconds(int retry) const;
};

/// What a test can script about one cluster's installer (POST /sim/clusters/{c}/kyma).
struct KymaKnobs {
    std::map<std::string, int> install_failures;   ///< release -> attempts still to fail
    std::map<std::string, int> uninstall_failures; ///< the same for uninstall
    int verify_failures = 0; ///< attempts whose "Verify installed components" step fails
    std::string failure_log = "simulated failure";
    bool never_finish = false; ///< the running component never ends
};

class KymaInstaller {
public:
    static constexpr int k_max_attempts = 6; ///< one try plus the five backoff intervals

    KymaKnobs knobs;

    /// Applies every step that is due by `now` (and starts an operation when the CR asks for
    /// one). Never throws for a missing CR or Deployment: the installer just stays idle.
    void advance(ObjectStore& store, TimePoint now, const KymaSettings& settings);
    /// When advance() next has something to do; nullopt when idle or never finishing.
    std::optional<TimePoint> next_due() const;
    /// Records a change of default/kyma-installation (by anyone) in the history.
    void observe(const std::string& type, const Json& cr);
    /// Installer state, knobs, history of CR writes and the last overrides per component.
    Json describe() const;
    /// {"<release>": {"key": "value"}}: the effective overrides at each component's last start.
    const Json& overrides() const { return m_overrides; }
    /// True once an install attempt of component `release` succeeded (in any run).
    bool installed(const std::string& release) const { return m_installed.count(release) > 0; }

private:
    enum class Mode { Idle, Install, Uninstall };
    enum class Step { Verify, VerifyRetry, Component, Backoff };

    void start(Mode mode, const Json& cr);
    void begin_verify(ObjectStore& store, Json cr, TimePoint now, const KymaSettings& settings);
    void record_failure(Json& cr, const std::string& component, TimePoint now) const;
    void step(ObjectStore& store, Json cr, TimePoint now, const KymaSettings& settings);
    void begin_component(ObjectStore& store, Json cr, TimePoint now, const KymaSettings& settings);
    void finish(ObjectStore& store, Json cr);
    void write(ObjectStore& store, Json& cr);
    std::string release(std::size_t i) const;
    Json evaluate_overrides(const ObjectStore& store, const std::string& release) const;

    Mode m_mode = Mode::Idle;
    Step m_step = Step::Verify;
    std::size_t m_index = 0;
    int m_attempt = 0;
    TimePoint m_due{};
    Json m_components = Json::array();
    bool m_writing = false;
    std::string m_parked_rv; ///< the CR version the installer gave up at (label kept)
    std::string m_installer_image;
    Json m_overrides = Json::object();
    Json m_history = Json::array();
    Json m_runs = Json::array();
    std::set<std::string> m_installed; ///< releases installed successfully at least once
};

} // namespace kprov::sim
