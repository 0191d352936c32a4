#include "cli/live_shoot.hpp"

#include "engine/stages.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "gardener/shoot_port.hpp"

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;
using engine::OperationState;
using engine::OperationType;

bool in_progress(const engine::Operation& op) {
    return op.state == OperationState::InProgress;
}

std::string last_operation_text(const engine::ShootState& shoot) {
    const auto& lo = shoot.last_operation;
    if (!lo)
        return "none yet";
    std::string text = lo->type + " " + lo->state + " " + std::to_string(lo->progress) + "%";
    if (!lo->description.empty())
        text += ": " + lo->description;
    return text;
}

} // namespace

std::optional<bool> stored_hibernation(const std::vector<engine::Operation>& operations) {
    for (const auto& op : operations) {
        if (op.state != OperationState::Succeeded)
            continue;
        if (op.type == OperationType::Hibernate)
            return true;
        if (op.type == OperationType::WakeUp)
            return false;
    }
    return std::nullopt;
}

LiveShoot read_live_shoot(Context& ctx, const engine::Runtime& runtime,
                          std::chrono::milliseconds timeout) {
    LiveShoot live;
    try {
        const auto& settings = ctx.config().settings;
        gardener::ClientOptions options;
        options.connect_timeout = timeout;
        options.request_timeout = timeout;
        options.retry.max_attempts = 1; // a status answers now, or says it could not ask
        auto client = std::make_shared<gardener::GardenerClient>(
            gardener::load_kubeconfig(settings.gardener_kubeconfig_path),
            runtime.gardener.project_name.empty() ? settings.gardener_project
                                                  : runtime.gardener.project_name,
            options);
        live.asked = true;
        live.shoot = gardener::GardenerShootClient(client).get(runtime.gardener.name);
    } catch (const std::exception& e) {
        live.error = std::string("Gardener not reachable: ") + e.what();
    }
    return live;
}

std::optional<bool> live_hibernated(const LiveShoot& live) {
    if (!live.error.empty() || !live.shoot)
        return std::nullopt;
    return live.shoot->hibernation_enabled || live.shoot->is_hibernated;
}

std::string hibernation_text(const LiveShoot& live) {
    if (!live.error.empty())
        return "unknown (" + live.error + ")";
    if (!live.shoot)
        return "unknown (the shoot is not in Gardener)";
    const auto& s = *live.shoot;
    if (s.hibernation_enabled && s.is_hibernated)
        return "yes";
    if (s.hibernation_enabled)
        return "hibernating (Gardener is scaling the cluster down)";
    if (s.is_hibernated)
        return "waking up (Gardener is scaling the cluster up)";
    return "no";
}

std::vector<std::string> drift(const engine::Runtime& runtime,
                               const std::vector<engine::Operation>& operations,
                               const LiveShoot& live) {
    std::vector<std::string> out;
    if (!live.error.empty())
        return out;
    const engine::Operation* last = operations.empty() ? nullptr : &operations.front();
    const bool busy = last && in_progress(*last);
    const std::string& name = runtime.gardener.name;
    if (!live.shoot) {
        const bool creating = busy && last->stage == engine::k_stage_creating_shoot;
        const bool deleting = busy && engine::is_deprovisioning(last->type);
        if (!runtime.deleted && !creating && !deleting)
            out.push_back("shoot " + name +
                          " is not in Gardener, but the store has the runtime as live (deleted "
                          "behind kprov's back? kprov deprovision " +
                          runtime.id + " marks it deleted)");
        return out;
    }
    const auto& shoot = *live.shoot;
    if (!engine::is_own_shoot(shoot, runtime.id)) {
        out.push_back("shoot " + name + " in Gardener is not this runtime's (its " +
                      std::string(engine::k_runtime_id_annotation) + " annotation names another)");
        return out;
    }
    if (runtime.deleted) {
        if (!shoot.deletion_timestamp)
            out.push_back("the store has the runtime as deprovisioned, but shoot " + name +
                          " is still in Gardener and not being deleted");
        return out;
    }
    if (shoot.generation != shoot.observed_generation)
        out.push_back("Gardener has not reconciled the shoot's latest spec yet (generation " +
                      std::to_string(shoot.generation) + ", observed " +
                      std::to_string(shoot.observed_generation) + ")");
    if (busy)
        return out; // the running operation is changing what follows
    if (shoot.deletion_timestamp)
        out.push_back("shoot " + name +
                      " is being deleted in Gardener, but no deprovisioning is running");
    const auto hibernated = live_hibernated(live);
    if (const auto stored = stored_hibernation(operations); stored && hibernated != stored)
        out.push_back(*hibernated ? "the cluster is hibernated in Gardener, but kprov's last "
                                    "hibernation operation woke it up"
                                  : "the cluster is awake in Gardener, but kprov's last "
                                    "hibernation operation hibernated it");
    if (shoot.last_operation &&
        (shoot.last_operation->state == "Failed" || shoot.last_operation->state == "Error") &&
        last && last->state == OperationState::Succeeded)
        out.push_back("Gardener's last operation is " + last_operation_text(shoot) +
                      ", while kprov's last operation succeeded");
    if (!shoot.kubernetes_version.empty() &&
        shoot.kubernetes_version != runtime.gardener.kubernetes_version)
        out.push_back("Kubernetes " + shoot.kubernetes_version + " in Gardener, " +
                      runtime.gardener.kubernetes_version +
                      " in the store (an auto-update? upgrade-shoot keeps the newer)");
    return out;
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
        rows.emplace_back("gardener", last_operation_text(s));
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
