#include "cli/drift.hpp"

#include "cli/json_diff.hpp"
#include "engine/shoot_upgrade.hpp"

#include <nlohmann/json.hpp>

namespace kprov::cli {
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
    if (engine::compare_kubernetes_versions(live[at].get<std::string>(),
                                            applied[at].get<std::string>()) > 0)
        applied[at] = live[at];
}

} // namespace

std::vector<std::string> shoot_drift(const engine::Runtime& runtime,
                                     const std::string& live_shoot_json,
                                     const engine::ShootOptions& options) {
    Json applied = Json::parse(engine::build_shoot(runtime, "", options).shoot);
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

} // namespace kprov::cli
