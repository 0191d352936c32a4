#pragma once
// A runtime's Kubernetes version as its CloudProfile classifies it now (gardener-landscape.md
// §1.3): deprecated versions expire, and Gardener then force-upgrades the shoot. For `status`
// and `list`, which read the store first and ask Gardener only about this.

#include "cli/context.hpp"
#include "engine/landscape.hpp"
#include "engine/model.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kprov::gardener {
class GardenerClient;
class GardenerLandscape;
} // namespace kprov::gardener

namespace kprov::cli {

class LogScope;

struct VersionLifecycle {
    engine::VersionClass classification = engine::VersionClass::Supported;
    std::optional<Timestamp> expires;
    /// Deprecated, expired or with an expiry date: Gardener will move the shoot off it.
    bool ageing() const {
        return (classification != engine::VersionClass::Supported &&
                classification != engine::VersionClass::Preview) ||
               expires.has_value();
    }
    /// "deprecated, expires 2026-12-01T00:00:00Z", "supported", "expired 2026-...".
    std::string text(Timestamp now) const;
};

/// Reads each profile once. Without a Gardener kubeconfig it knows nothing (nullopt).
class VersionLifecycles {
public:
    /// With `quick` (status): Gardener gets `quick` per request and one try, and a kubeconfig
    /// that cannot be used makes it know nothing instead of throwing ConfigError.
    explicit VersionLifecycles(Context& ctx,
                               std::optional<std::chrono::milliseconds> quick = std::nullopt);
    ~VersionLifecycles();
    VersionLifecycles(const VersionLifecycles&) = delete;
    VersionLifecycles& operator=(const VersionLifecycles&) = delete;

    bool available() const { return m_landscape != nullptr; }
    /// The lifecycle of `g`'s version in its profile; nullopt when no Gardener is configured,
    /// the profile or the version is not there. Throws RemoteError when Gardener cannot be read
    /// and `strict`, else answers nullopt then.
    std::optional<VersionLifecycle> of(const engine::GardenerConfig& g, bool strict = false);

private:
    std::unique_ptr<LogScope> m_log; ///< the client's; outlives it
    std::shared_ptr<gardener::GardenerClient> m_client;
    std::unique_ptr<gardener::GardenerLandscape> m_landscape;
    std::map<std::string, std::optional<engine::CloudProfile>> m_profiles;
};

} // namespace kprov::cli
