// The /sim/... control endpoints: request counters, fault injection, lifecycle settings, shoot
// failures, watch drops and compaction, Director errors. Documented in tests/sim/README.md.

#include "k8s_path.hpp"
#include "kyma_releases.hpp"
#include "world.hpp"

#include <algorithm>
#include <vector>

namespace kprov::sim {

namespace {

Json body_or_empty(const ApiRequest& req) {
    return req.body.empty() ? Json::object() : parse_body_object(req.body);
}

Json settings_json(World& w, Faults& f) {
    const LifecycleSettings& s = w.shoots.settings();
    Json faults = f.to_json();
    return {{"createSeconds", s.create_seconds},
            {"reconcileSeconds", s.reconcile_seconds},
            {"deleteSeconds", s.delete_seconds},
            {"hibernateSeconds", s.hibernate_seconds},
            {"failRate", faults["failRate"]},
            {"latencyMs", faults["latencyMs"]},
            {"bookmarkSeconds", w.bookmark_seconds},
            {"watchTimeoutSeconds", w.watch_timeout_seconds},
            {"watchExpiredAsEvent", w.watch_expired_as_event},
            {"kymaComponentSeconds", w.clusters.kyma_settings().component_seconds},
            {"kymaBackoffFactor", w.clusters.kyma_settings().backoff_factor},
            {"clusterDefaults", w.clusters.defaults()}};
}

Json apply_settings(Services& s, const Json& j) {
    static const std::vector<std::string> known = {"createSeconds",
                                                   "reconcileSeconds",
                                                   "deleteSeconds",
                                                   "hibernateSeconds",
                                                   "failRate",
                                                   "latencyMs",
                                                   "bookmarkSeconds",
                                                   "watchTimeoutSeconds",
                                                   "watchExpiredAsEvent",
                                                   "kymaComponentSeconds",
                                                   "kymaBackoffFactor",
                                                   "clusterDefaults"};
    for (const auto& [k, v] : j.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
            throw bad_request("settings: unknown key \"" + k + "\"");
    if (j.contains("clusterDefaults"))
        validate_kyma_knobs(j["clusterDefaults"]); // before anything changes
    std::lock_guard lock(s.world.mu);
    LifecycleSettings ls = s.world.shoots.settings();
    ls.create_seconds = json_field(j, "createSeconds", ls.create_seconds);
    ls.reconcile_seconds = json_field(j, "reconcileSeconds", ls.reconcile_seconds);
    ls.delete_seconds = json_field(j, "deleteSeconds", ls.delete_seconds);
    ls.hibernate_seconds = json_field(j, "hibernateSeconds", ls.hibernate_seconds);
    s.world.shoots.set_settings(ls);
    if (j.contains("failRate"))
        s.faults.set_fail_rate(json_field(j, "failRate", 0.0));
    if (j.contains("latencyMs"))
        s.faults.set_latency_ms(json_field(j, "latencyMs", 0));
    s.world.bookmark_seconds = json_field(j, "bookmarkSeconds", s.world.bookmark_seconds);
    s.world.watch_timeout_seconds =
        json_field(j, "watchTimeoutSeconds", s.world.watch_timeout_seconds);
    s.world.watch_expired_as_event =
        json_field(j, "watchExpiredAsEvent", s.world.watch_expired_as_event);
    s.world.clusters.set_watch_limits(s.world.bookmark_seconds, s.world.watch_timeout_seconds);
    s.world.kcp.set_watch_limits(s.world.bookmark_seconds, s.world.watch_timeout_seconds);
    KymaSettings& kyma = s.world.clusters.kyma_settings();
    kyma.component_seconds = json_field(j, "kymaComponentSeconds", kyma.component_seconds);
    kyma.backoff_factor = json_field(j, "kymaBackoffFactor", kyma.backoff_factor);
    if (j.contains("clusterDefaults"))
        s.world.clusters.set_defaults(j["clusterDefaults"]);
    return settings_json(s.world, s.faults);
}

Json index() {
    return {{"endpoints", Json::array({"GET /sim/stats",
                                       "GET /sim/writes",
                                       "POST /sim/stats/reset",
                                       "GET /sim/faults",
                                       "POST /sim/faults",
                                       "DELETE /sim/faults",
                                       "GET /sim/settings",
                                       "POST /sim/settings",
                                       "GET /sim/shoots",
                                       "POST /sim/shoots/{namespace}/{name}/fail",
                                       "POST /sim/shoots/fail-next",
                                       "POST /sim/shoots/{namespace}/{name}/hibernation-possible",
                                       "POST /sim/watch/drop",
                                       "POST /sim/watch/compact",
                                       "GET /sim/watch",
                                       "GET /sim/clusters",
                                       "GET /sim/clusters/{cluster}/kyma",
                                       "POST /sim/clusters/{cluster}/kyma",
                                       "GET /sim/clusters/{cluster}/kyma/overrides",
                                       "GET /sim/kyma-releases",
                                       "GET /sim/kyma-releases/{version}/{file}",
                                       "GET /sim/director",
                                       "GET /sim/director/calls",
                                       "POST /sim/director/errors",
                                       "POST /sim/director/reset",
                                       "POST /sim/clusters/{cluster}/expire-tokens",
                                       "GET /sim/kcp/klm",
                                       "POST /sim/kcp/klm",
                                       "GET /sim/kcp/kymas"})}};
}

ApiResponse not_found_path(const ApiRequest& req) {
    return ApiResponse::json(404, failure_status(404, "NotFound",
                                                 "no control endpoint " + req.method + " " +
                                                     req.path + " (GET /sim lists them)"));
}

} // namespace

ApiResponse handle_control(Services& s, const ApiRequest& req) {
    auto seg = split_segments(req.path); // seg[0] == "sim"
    const std::string& m = req.method;
    auto is = [&](const std::string& method, std::initializer_list<const char*> parts) {
        if (method != m || seg.size() != parts.size() + 1)
            return false;
        std::size_t i = 1;
        for (const char* p : parts) {
            if (std::string(p) != "*" && seg[i] != p)
                return false;
            ++i;
        }
        return true;
    };
    if (is("GET", {}))
        return ApiResponse::json(200, index());
    if (auto kcp = handle_kcp_control(s, req))
        return *kcp;
    if (is("GET", {"stats"}))
        return ApiResponse::json(200, s.stats.to_json());
    if (is("GET", {"writes"}))
        return ApiResponse::json(200, s.stats.writes_json());
    if (is("POST", {"stats", "reset"})) {
        s.stats.reset();
        return ApiResponse::json(200, s.stats.to_json());
    }
    if (is("GET", {"faults"}))
        return ApiResponse::json(200, s.faults.to_json());
    if (is("POST", {"faults"})) {
        int id = s.faults.add(FaultRule::from_json(body_or_empty(req)));
        return ApiResponse::json(201, {{"id", id}, {"faults", s.faults.to_json()}});
    }
    if (is("DELETE", {"faults"})) {
        s.faults.clear();
        return ApiResponse::json(200, s.faults.to_json());
    }
    if (is("GET", {"settings"})) {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, settings_json(s.world, s.faults));
    }
    if (is("POST", {"settings"}))
        return ApiResponse::json(200, apply_settings(s, body_or_empty(req)));
    if (is("GET", {"shoots"})) {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, s.world.shoots.describe());
    }
    if (is("POST", {"shoots", "fail-next"})) {
        FailPlan plan = FailPlan::from_json(body_or_empty(req));
        std::lock_guard lock(s.world.mu);
        s.world.shoots.plan_failure_next(plan);
        return ApiResponse::json(200, s.world.shoots.describe());
    }
    if (is("POST", {"shoots", "*", "*", "fail"})) {
        FailPlan plan = FailPlan::from_json(body_or_empty(req));
        {
            std::lock_guard lock(s.world.mu);
            s.world.shoots.advance(Clock::now());
            s.world.shoots.plan_failure(seg[2], seg[3], plan);
        }
        s.wake_ticker();
        return ApiResponse::json(200, {{"planned", true}});
    }
    if (is("POST", {"shoots", "*", "*", "hibernation-possible"})) {
        Json j = body_or_empty(req);
        std::lock_guard lock(s.world.mu);
        s.world.shoots.set_hibernation_possible(seg[2], seg[3], json_field(j, "possible", true),
                                                json_field(j, "message", std::string()));
        return ApiResponse::json(200, s.world.shoots.get(seg[2], seg[3]));
    }
    if (is("POST", {"watch", "drop"})) {
        Json j = body_or_empty(req);
        std::size_t n = s.world.hub.drop_all(json_field(j, "abrupt", false));
        return ApiResponse::json(200, {{"dropped", n}});
    }
    if (is("POST", {"watch", "compact"})) {
        std::lock_guard lock(s.world.mu);
        s.world.hub.compact(s.world.rv);
        return ApiResponse::json(200, {{"compactedTo", std::to_string(s.world.rv)}});
    }
    if (is("GET", {"watch"}))
        return ApiResponse::json(200, {{"openStreams", s.world.hub.open_streams()}});
    if (is("GET", {"clusters"})) {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, s.world.clusters.describe());
    }
    if (is("GET", {"clusters", "*", "kyma"})) {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, s.world.clusters.describe_kyma(seg[2]));
    }
    if (is("GET", {"clusters", "*", "kyma", "overrides"})) {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, s.world.clusters.kyma_overrides(seg[2]));
    }
    if (is("POST", {"clusters", "*", "kyma"})) {
        Json j = body_or_empty(req);
        {
            std::lock_guard lock(s.world.mu);
            s.world.clusters.configure(seg[2], j);
        }
        s.wake_ticker();
        std::lock_guard lock(s.world.mu);
        std::string id = s.world.clusters.resolve(seg[2]);
        if (!s.world.clusters.exists(id))
            return ApiResponse::json(202, {{"cluster", id}, {"pending", true}});
        return ApiResponse::json(200, s.world.clusters.describe_kyma(id));
    }
    if (is("GET", {"kyma-releases"}))
        return ApiResponse::json(200, {{"versions", kyma_release_versions()},
                                       {"onDemand", "PR-<n>, main-<sha>, main"},
                                       {"files", {"kyma-installer-cluster.yaml", "tiller.yaml"}}});
    if (is("GET", {"kyma-releases", "*", "*"})) {
        auto text = kyma_release_artifact(seg[2], seg[3]);
        if (!text)
            return ApiResponse::json(
                404, failure_status(404, "NotFound",
                                    "no artifact " + seg[3] + " for Kyma version " + seg[2]));
        ApiResponse r;
        r.body = *text;
        r.content_type = "application/x-yaml";
        return r;
    }
    if (is("GET", {"director"}))
        return ApiResponse::json(200, s.director.to_json());
    if (is("GET", {"director", "calls"}))
        return ApiResponse::json(200, s.director.calls_json());
    if (is("POST", {"director", "errors"})) {
        Json j = body_or_empty(req);
        s.director.inject_error(json_field(j, "operation", std::string()),
                                json_field(j, "code", 10), json_field(j, "message", std::string()),
                                json_field(j, "count", 1), json_field(j, "httpStatus", 0));
        return ApiResponse::json(200, s.director.to_json());
    }
    if (is("POST", {"director", "reset"})) {
        s.director.reset();
        return ApiResponse::json(200, s.director.to_json());
    }
    return not_found_path(req);
}

} // namespace kprov::sim
