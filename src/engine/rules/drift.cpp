#include "engine/rules/drift.hpp"

#include "engine/shoot/shoot_annotations.hpp"
#include "engine/shoot/shoot_upgrade.hpp"
#include "engine/stages/stages.hpp"
#include "engine/util/json_diff.hpp"

#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using Json = nlohmann::ordered_json;

// `live` cut down to the members `shape` has: what Gardener added of its own goes.
Json project_onto(const Json& live, const Json& shape) {
    if (shape.is_object() && live.is_object()) {
        Json out = Json::object();
        for (const auto& [key, value] : shape.items())
            if (const auto it = live.find(key); it != live.end())
                out[key] = project_onto(*it, value);
        return out;
    }
    if (shape.is_array() && live.is_array()) {
        Json out = Json::array();
        for (std::size_t i = 0; i < live.size(); ++i)
            out.push_back(i < shape.size() ? project_onto(live[i], shape[i]) : live[i]);
        return out;
    }
    return live;
}

// Gardener's auto-update raises versions; kprov never lowers them (keep-the-newer rule).
void accept_raised_version(Json& applied, const Json& live, const Json::json_pointer& at) {
    if (!applied.contains(at) || !live.contains(at) || !applied[at].is_string() ||
        !live[at].is_string())
        return;
    if (compare_kubernetes_versions(live[at].get<std::string>(), applied[at].get<std::string>()) >
        0)
        applied[at] = live[at];
}

} // namespace

std::vector<std::string> Drift::all() const {
    std::vector<std::string> out = state;
    out.insert(out.end(), spec.begin(), spec.end());
    return out;
}

std::string gardener_operation_text(const ShootState& shoot) {
    const auto& lo = shoot.last_operation;
    if (!lo)
        return "none yet";
    std::string text = lo->type + " " + lo->state + " " + std::to_string(lo->progress) + "%";
    if (!lo->description.empty())
        text += ": " + lo->description;
    return text;
}

HibernationTransition hibernation_transition(const ShootState& shoot) {
    if (shoot.hibernation_enabled == shoot.is_hibernated)
        return HibernationTransition::None;
    return shoot.hibernation_enabled ? HibernationTransition::Hibernating
                                     : HibernationTransition::WakingUp;
}

std::optional<bool> stored_hibernation(const std::vector<Operation>& operations) {
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

std::vector<std::string> state_drift(const Runtime& runtime,
                                     const std::vector<Operation>& operations,
                                     const std::optional<ShootState>& live) {
    std::vector<std::string> out;
    const Operation* last = operations.empty() ? nullptr : &operations.front();
    const bool busy = last && last->state == OperationState::InProgress;
    const std::string& name = runtime.gardener.name;
    if (!live) {
        const bool creating = busy && last->stage == k_stage_creating_shoot;
        const bool deleting = busy && is_deprovisioning(last->type);
        if (!runtime.deleted && !creating && !deleting)
            out.push_back("shoot " + name +
                          " is not in Gardener, but the store has the runtime as live (deleted "
                          "behind kprov's back? kprov deprovision " +
                          runtime.id + " marks it deleted)");
        return out;
    }
    const auto& shoot = *live;
    if (!is_own_shoot(shoot, runtime.id)) {
        out.push_back("shoot " + name + " in Gardener is not this runtime's (its " +
                      std::string(k_runtime_id_annotation) + " annotation names another)");
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
    const bool hibernated = shoot.hibernation_enabled || shoot.is_hibernated;
    if (const auto stored = stored_hibernation(operations); stored && hibernated != *stored)
        out.push_back(hibernated ? "the cluster is hibernated in Gardener, but kprov's last "
                                   "hibernation operation woke it up"
                                 : "the cluster is awake in Gardener, but kprov's last "
                                   "hibernation operation hibernated it");
    if (shoot.last_operation &&
        (shoot.last_operation->state == "Failed" || shoot.last_operation->state == "Error") &&
        last && last->state == OperationState::Succeeded)
        out.push_back("Gardener's last operation is " + gardener_operation_text(shoot) +
                      ", while kprov's last operation succeeded");
    if (!shoot.kubernetes_version.empty() &&
        shoot.kubernetes_version != runtime.gardener.kubernetes_version)
        out.push_back("Kubernetes " + shoot.kubernetes_version + " in Gardener, " +
                      runtime.gardener.kubernetes_version +
                      " in the store (an auto-update? upgrade-shoot keeps the newer)");
    return out;
}

std::vector<std::string> spec_drift(const Runtime& runtime, const std::string& live_shoot_json,
                                    const ShootOptions& options) {
    Json applied = Json::parse(build_shoot(runtime, "", options).shoot);
    const Json live = Json::parse(live_shoot_json);
    accept_raised_version(applied, live, Json::json_pointer("/spec/kubernetes/version"));
    if (applied.contains(Json::json_pointer("/spec/provider/workers")) &&
        applied["spec"]["provider"]["workers"].is_array())
        for (std::size_t i = 0; i < applied["spec"]["provider"]["workers"].size(); ++i)
            accept_raised_version(applied, live,
                                  Json::json_pointer("/spec/provider/workers/" + std::to_string(i) +
                                                     "/machine/image/version"));
    // Every operation writes its own id into these.
    return json_diff(applied.dump(), project_onto(live, applied).dump(),
                     {"metadata.annotations.kcp.provisioner.kyma-project.io/operation-id",
                      "metadata.annotations.compass.provisioner.kyma-project.io/operation-id"});
}

Drift runtime_drift(const Runtime& runtime, const std::vector<Operation>& operations,
                    const std::optional<ShootState>& live, const ShootOptions& options) {
    Drift drift;
    drift.state = state_drift(runtime, operations, live);
    const bool busy = !operations.empty() && operations.front().state == OperationState::InProgress;
    if (live && !busy && !runtime.deleted && is_own_shoot(*live, runtime.id) && !live->json.empty())
        drift.spec = spec_drift(runtime, live->json, options);
    return drift;
}

} // namespace kprov::engine
