#include "kcp_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::sim::testing {

namespace {

SimOptions kcp_options(double module_seconds) {
    SimOptions o = fast_options();
    o.klm.module_seconds = module_seconds;
    o.kcp_token = "kcp-test-token";
    return o;
}

} // namespace

KcpWorld::KcpWorld(double module_seconds)
    : f(kcp_options(module_seconds)) {
    kcp = std::make_unique<Http>(f.sim->url(), f.sim->kcp_token());
}

std::string KcpWorld::kymas() {
    return "/kcp/apis/operator.kyma-project.io/v1beta2/namespaces/kcp-system/kymas";
}

std::string KcpWorld::kyma(const std::string& name) {
    return kymas() + "/" + name;
}

std::string KcpWorld::secrets() {
    return "/kcp/api/v1/namespaces/kcp-system/secrets";
}

std::string KcpWorld::runtime(const std::string& shoot) {
    EXPECT_EQ(f.http->post(f.shoots(), shoot_body(shoot).dump()).status, 201);
    EXPECT_TRUE(eventually([&] {
        return f.http->get(f.shoot(shoot))
                   .json["status"]
                   .value("lastOperation", Json::object())
                   .value("state", "") == "Succeeded";
    }));
    return admin_kubeconfig(shoot);
}

std::string KcpWorld::admin_kubeconfig(const std::string& shoot) {
    Resp r =
        f.http->post(f.shoot(shoot) + "/adminkubeconfig", R"({"spec":{"expirationSeconds":3600}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.json["status"]["kubeconfig"].get<std::string>() : "";
}

Resp KcpWorld::secret(const std::string& name, const std::string& kyma_name,
                      const std::string& config) {
    Json s = {{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"metadata",
               {{"name", name},
                {"labels",
                 {{"operator.kyma-project.io/kyma-name", kyma_name},
                  {"operator.kyma-project.io/managed-by", "lifecycle-manager"}}}}},
              {"data", {{"config", config}}}};
    return kcp->post(secrets(), s.dump());
}

Resp KcpWorld::create(const std::string& name, const Json& modules, const std::string& channel) {
    Json list = Json::array();
    for (const auto& m : modules)
        list.push_back(m.is_string() ? Json{{"name", m}} : m);
    Json k = {{"apiVersion", "operator.kyma-project.io/v1beta2"},
              {"kind", "Kyma"},
              {"metadata",
               {{"name", name},
                {"namespace", "kcp-system"},
                {"labels", {{"kyma-project.io/runtime-id", name}}}}},
              {"spec", {{"channel", channel}, {"modules", list}}}};
    return kcp->post(kymas(), k.dump());
}

Json KcpWorld::get(const std::string& name) {
    Resp r = kcp->get(kyma(name));
    return r.status == 200 ? r.json : Json();
}

std::string KcpWorld::state(const std::string& name) {
    Json k = get(name);
    if (k.is_null())
        return "<gone>";
    return k.value("status", Json::object()).value("state", "");
}

bool KcpWorld::wait_state(const std::string& name, const std::string& want, double seconds) {
    return eventually([&] { return state(name) == want; }, seconds);
}

bool KcpWorld::wait_gone(const std::string& name, double seconds) {
    return eventually([&] { return kcp->get(kyma(name)).status == 404; }, seconds);
}

int KcpWorld::set_config(const std::string& name, const std::string& config) {
    Json s = kcp->get(secrets() + "/" + name).json;
    s["data"]["config"] = config;
    return kcp->put(secrets() + "/" + name, s.dump()).status;
}

int KcpWorld::delete_shoot(const std::string& shoot) {
    Resp confirmed = f.http->patch(
        f.shoot(shoot),
        R"({"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}})",
        "application/merge-patch+json");
    EXPECT_EQ(confirmed.status, 200) << confirmed.body;
    return f.http->del(f.shoot(shoot)).status;
}

Resp KcpWorld::knobs(const Json& body) {
    return f.http->post("/sim/kcp/klm", body.dump());
}

Json KcpWorld::module(const std::string& name, const std::string& module) {
    Json k = get(name);
    if (k.is_null())
        return Json();
    for (const auto& m : k["status"].value("modules", Json::array()))
        if (m.value("name", "") == module)
            return m;
    return Json();
}

} // namespace kprov::sim::testing
