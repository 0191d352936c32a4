#include "kyma_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::sim::testing {

namespace {

SimOptions kyma_options(double component_seconds) {
    SimOptions o = fast_options();
    o.kyma.component_seconds = component_seconds;
    return o;
}

} // namespace

KymaCluster::KymaCluster(double component_seconds)
    : f(kyma_options(component_seconds)) {
    k = std::make_unique<Http>(f.sim->url(), "");
    EXPECT_EQ(f.http->post(f.shoots(), shoot_body("c1").dump()).status, 201);
    EXPECT_TRUE(eventually([&] { return get("/api/v1/namespaces/default").status == 200; }));
}

std::string KymaCluster::c(const std::string& path) const {
    return std::string("/clusters/") + k_id + path;
}

std::string KymaCluster::cr_path() const {
    return "/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations/"
           "kyma-installation";
}

void KymaCluster::create_installation_crd() {
    Json crd = {
        {"apiVersion", "apiextensions.k8s.io/v1"},
        {"kind", "CustomResourceDefinition"},
        {"metadata", {{"name", "installations.installer.kyma-project.io"}}},
        {"spec",
         {{"group", "installer.kyma-project.io"},
          {"versions", Json::array({{{"name", "v1alpha1"}, {"served", true}, {"storage", true}}})},
          {"scope", "Namespaced"},
          {"names", {{"kind", "Installation"}, {"plural", "installations"}}}}}};
    Resp r = post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    EXPECT_EQ(r.status, 201) << r.body;
}

void KymaCluster::deploy_installer(const std::string& version) {
    post("/api/v1/namespaces", {{"metadata", {{"name", "kyma-installer"}}}});
    Json d = {
        {"metadata", {{"name", "kyma-installer"}}},
        {"spec",
         {{"template",
           {{"spec",
             {{"containers", Json::array({{{"name", "kyma-installer-container"},
                                           {"image", "eu.gcr.io/kyma-project/kyma-installer:" +
                                                         version}}})}}}}}}}};
    Resp r = post("/apis/apps/v1/namespaces/kyma-installer/deployments", d);
    EXPECT_EQ(r.status, 201) << r.body;
}

Resp KymaCluster::create_cr(const std::vector<std::string>& components, const Json& labels) {
    Json list = Json::array();
    for (const auto& name : components)
        list.push_back({{"name", name}, {"namespace", "kyma-system"}, {"release", ""}});
    Json cr = {{"apiVersion", "installer.kyma-project.io/v1alpha1"},
               {"kind", "Installation"},
               {"metadata", {{"name", "kyma-installation"}, {"labels", labels}}},
               {"spec", {{"version", "0.0.1"}, {"url", ""}, {"components", list}}}};
    return post("/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations", cr);
}

Json KymaCluster::cr() {
    Resp r = get(cr_path());
    return r.status == 200 ? r.json : Json();
}

std::string KymaCluster::status(const std::string& key) {
    Json obj = cr();
    if (!obj.is_object() || !obj.contains("status") || !obj["status"].is_object())
        return "";
    return obj["status"].value(key, "");
}

int KymaCluster::label(const std::string& action) {
    Json obj = cr();
    obj["metadata"]["labels"]["action"] = action;
    return put(cr_path(), obj).status;
}

int KymaCluster::label_reading_again(const std::string& action) {
    int status = 0;
    for (int attempt = 0; attempt < 20 && (status == 0 || status == 409); ++attempt)
        status = label(action);
    return status;
}

Resp KymaCluster::knobs(const Json& body) {
    return f.http->post(std::string("/sim/clusters/") + k_id + "/kyma", body.dump());
}

bool KymaCluster::wait_done(const std::string& state, double seconds) {
    return eventually(
        [&] {
            Json obj = cr();
            return obj.is_object() && status("state") == state &&
                   !obj["metadata"].value("labels", Json::object()).contains("action");
        },
        seconds);
}

} // namespace kprov::sim::testing
