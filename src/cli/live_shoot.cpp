#include "cli/live_shoot.hpp"

#include "cli/access.hpp"
#include "cli/engine_access.hpp"
#include "engine/rules/drift.hpp"
#include "engine/status_json.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/shoot_port.hpp"

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

} // namespace

LiveShoot read_live_shoot(engine::ShootClient& shoots, const engine::Runtime& runtime) {
    LiveShoot live;
    live.asked = true;
    try {
        live.shoot = shoots.get(runtime.gardener.name);
    } catch (const std::exception& e) {
        live.error = std::string("Gardener not reachable: ") + e.what();
    }
    return live;
}

LiveShoot read_live_shoot(Context& ctx, const engine::Runtime& runtime,
                          std::chrono::milliseconds timeout) {
    const LogScope log(ctx);
    std::shared_ptr<gardener::GardenerClient> client;
    try {
        client =
            open_gardener(ctx, {.on_request = {}, .answer_within = timeout, .log = log.logger()});
    } catch (const std::exception& e) {
        LiveShoot live;
        live.error = std::string("Gardener not reachable: ") + e.what();
        return live;
    }
    gardener::GardenerShootClient shoots(std::move(client));
    return read_live_shoot(shoots, runtime);
}

std::optional<engine::HibernationStatus> live_hibernation(const LiveShoot& live) {
    if (!live.error.empty() || !live.shoot)
        return std::nullopt;
    return engine::hibernation_status(*live.shoot);
}

std::string hibernation_text(const LiveShoot& live) {
    if (!live.error.empty())
        return "unknown (" + live.error + ")";
    if (!live.shoot)
        return "unknown (the shoot is not in Gardener)";
    switch (engine::hibernation_transition(*live.shoot)) {
    case engine::HibernationTransition::Hibernating:
        return "hibernating (Gardener is scaling the cluster down)";
    case engine::HibernationTransition::WakingUp:
        return "waking up (Gardener is scaling the cluster up)";
    case engine::HibernationTransition::None:
        break;
    }
    return engine::hibernation_status(*live.shoot).hibernated.value_or(false) ? "yes" : "no";
}

std::vector<std::string> drift(const engine::Runtime& runtime,
                               const std::vector<engine::Operation>& operations,
                               const LiveShoot& live, const engine::ShootOptions& options) {
    if (!live.error.empty())
        return {};
    return engine::runtime_drift(runtime, operations, live.shoot, options).all();
}

Json live_json(const LiveShoot& live, const std::vector<std::string>& drift) {
    Json out{{"asked", live.asked},
             {"error", live.error.empty() ? Json(nullptr) : Json(live.error)}};
    const bool known = live.error.empty();
    const engine::ShootState* s = known && live.shoot ? &*live.shoot : nullptr;
    out["shootExists"] = known ? Json(s != nullptr) : Json(nullptr);
    out["hibernated"] = s ? Json(s->is_hibernated) : Json(nullptr);
    out["hibernationEnabled"] = s ? Json(s->hibernation_enabled) : Json(nullptr);
    out["generation"] = s ? Json(s->generation) : Json(nullptr);
    out["observedGeneration"] = s ? Json(s->observed_generation) : Json(nullptr);
    out["kubernetesVersion"] =
        s && !s->kubernetes_version.empty() ? Json(s->kubernetes_version) : Json(nullptr);
    Json last = nullptr;
    if (s && s->last_operation)
        last = Json{{"type", s->last_operation->type},
                    {"state", s->last_operation->state},
                    {"progress", s->last_operation->progress},
                    {"description", s->last_operation->description}};
    out["lastOperation"] = std::move(last);
    out["drift"] = drift;
    return out;
}

std::vector<std::pair<std::string, std::string>> live_rows(const LiveShoot& live,
                                                           const std::vector<std::string>& drift) {
    std::vector<std::pair<std::string, std::string>> rows;
    if (!live.error.empty()) {
        rows.emplace_back("gardener", "unknown (" + live.error + ")");
        return rows;
    }
    if (!live.shoot) {
        rows.emplace_back("gardener", "the shoot is not in Gardener");
    } else {
        const auto& s = *live.shoot;
        rows.emplace_back("gardener", engine::gardener_operation_text(s));
        rows.emplace_back("generation", std::to_string(s.generation) + " (observed " +
                                            std::to_string(s.observed_generation) + ")");
        if (s.deletion_timestamp)
            rows.emplace_back("deleting", "yes");
    }
    if (drift.empty())
        rows.emplace_back("drift", "none: the store and Gardener agree");
    for (const auto& d : drift)
        rows.emplace_back("drift", d);
    return rows;
}

} // namespace kprov::cli
