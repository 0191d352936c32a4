// The /sim endpoints of the KCP and its simulated KLM (knobs, what the KLM knows of each Kyma),
// and the token expiry of runtime clusters that the KLM's "expired kubeconfig" case needs.
// Documented in tests/sim/README.md.

#include "k8s_path.hpp"
#include "world.hpp"

namespace kprov::sim {

std::optional<ApiResponse> handle_kcp_control(Services& s, const ApiRequest& req) {
    auto seg = split_segments(req.path); // seg[0] == "sim"
    const std::string& m = req.method;
    if (seg.size() == 4 && seg[1] == "clusters" && seg[3] == "expire-tokens" && m == "POST") {
        std::lock_guard lock(s.world.mu);
        std::string id = s.world.clusters.resolve(seg[2]);
        if (!s.world.clusters.exists(id))
            throw ApiError(
                404, failure_status(404, "NotFound",
                                    "no runtime cluster \"" + seg[2] + "\" (GET /sim/clusters)"));
        return ApiResponse::json(
            200, {{"cluster", id}, {"expired", s.world.clusters.expire_tokens(id)}});
    }
    if (seg.size() != 3 || seg[1] != "kcp")
        return std::nullopt;
    if (seg[2] == "klm" && m == "GET") {
        std::lock_guard lock(s.world.mu);
        return ApiResponse::json(200, s.world.kcp.klm().knobs());
    }
    if (seg[2] == "klm" && m == "POST") {
        Json knobs = req.body.empty() ? Json::object() : parse_body_object(req.body);
        Json applied;
        {
            std::lock_guard lock(s.world.mu);
            s.world.kcp.klm().configure(knobs);
            applied = s.world.kcp.klm().knobs();
        }
        s.wake_ticker(); // a knob can change what the KLM does at once
        return ApiResponse::json(200, applied);
    }
    if (seg[2] == "kymas" && m == "GET") {
        std::lock_guard lock(s.world.mu);
        s.world.kcp.advance(s.world.clusters, s.world.runtime_base, Clock::now());
        return ApiResponse::json(200, s.world.kcp.klm().describe(s.world.kcp.store()));
    }
    return std::nullopt;
}

} // namespace kprov::sim
