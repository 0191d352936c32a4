#pragma once
// The engine's Landscape port (engine/landscape.hpp) over the Gardener API: CloudProfiles,
// the project's NamespacedCloudProfiles, CredentialsBindings and SecretBindings
// (../reference/gardener-landscape.md §1-2). Answers are hostile: every list and string is
// bounded and every member's type checked; a malformed object is a RemoteError naming it.

#include "engine/landscape.hpp"
#include "gardener/gardener_client.hpp"

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>

namespace kprov::gardener {

/// A CloudProfile `spec` (or a NamespacedCloudProfile's status.cloudProfileSpec) as the engine
/// reads it. `what` names the object in errors ("CloudProfile \"gcp\""). Throws RemoteError
/// (not retryable) for a malformed or oversized spec.
engine::CloudProfileSpec parse_cloud_profile_spec(const nlohmann::json& spec,
                                                  const std::string& what);
/// A CredentialsBinding or SecretBinding object; `project_namespace` is a SecretBinding's
/// secretRef namespace when it names none. Same errors.
engine::CredentialsBinding parse_credentials_binding(const nlohmann::json& object);
engine::SecretBinding parse_secret_binding(const nlohmann::json& object,
                                           const std::string& project_namespace);

/// Thread-safe (as GardenerClient). `client` is called at each request (the CLI opens
/// Gardener lazily); it throws ConfigError when no Gardener is configured.
class GardenerLandscape final : public engine::Landscape {
public:
    explicit GardenerLandscape(std::function<GardenerClient&()> client);

    std::optional<engine::CloudProfile> cloud_profile(const engine::CloudProfileRef& ref) override;
    std::vector<engine::CloudProfile> cloud_profiles() override;
    std::vector<engine::CredentialsBinding> credentials_bindings() override;
    std::vector<engine::SecretBinding> secret_bindings() override;

private:
    std::function<GardenerClient&()> m_client;
};

} // namespace kprov::gardener
