#pragma once
// The engine's ShootClient port (engine/ports.hpp) on top of GardenerClient: JSON in, the
// engine's typed ShootState out, Kubernetes errors mapped to the engine's kinds.

#include "engine/ports.hpp"
#include "gardener/gardener_client.hpp"

#include <memory>
#include <nlohmann/json_fwd.hpp>

namespace kprov::gardener {

/// Reads what the engine needs of a Shoot. Every field is optional: an absent or mistyped one
/// reads as ShootState's default, never as an exception. ShootState::json (the whole object,
/// for builders that edit it) is only filled `with_json`: the watch does not need it.
enum class WithJson { No, Yes };
engine::ShootState shoot_state(const nlohmann::json& shoot, WithJson with_json = WithJson::Yes);

/// The member paths of a Shoot that shoot_state reads (WithJson::No): a watch that parses only
/// these (WatchOptions::object_fields) gives shoot_state all it needs.
const std::vector<std::string>& shoot_state_fields();

/// Thread-safe (as GardenerClient). create() throws kprov::Conflict for AlreadyExists and
/// update() for a stale resourceVersion; other failures are KubeError (a RemoteError).
class GardenerShootClient final : public engine::ShootClient {
public:
    explicit GardenerShootClient(std::shared_ptr<GardenerClient> client);

    std::optional<engine::ShootState> get(const std::string& name) override;
    std::vector<engine::ShootState> list(const std::string& label_selector) override;
    engine::ShootState create(const std::string& shoot_json) override;
    engine::ShootState update(const std::string& shoot_json) override;
    engine::ShootState patch(const std::string& name, const std::string& merge_patch_json) override;
    bool remove(const std::string& name) override;
    std::string admin_kubeconfig(const std::string& name, std::chrono::seconds expiration) override;
    void put_config_map(const std::string& config_map_json) override;
    void delete_config_map(const std::string& name) override;

private:
    std::shared_ptr<GardenerClient> m_client;
};

} // namespace kprov::gardener
