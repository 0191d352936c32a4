// InstallationCrInstaller against an in-memory API server: what install, upgrade, uninstall,
// probe, cleanup and await_change send, 409 handling and the exact error messages
// (kyma-installation.md §2.3-§2.5, §3.2, §4.3, §4.4, §7.4).

#include "engine/error.hpp"
#include "engine/unusable_release.hpp"
#include "fake_cluster.hpp"
#include "gardener/kube_error.hpp"
#include "kyma/kyma_installer.hpp"
#include "kyma/kyma_objects.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using namespace testing;
using nlohmann::json;
using namespace std::chrono_literals;

const std::string k_cr_path =
    "/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations/kyma-installation";
const std::string k_cm_path = "/api/v1/namespaces/kyma-installer/configmaps/";
const std::string k_secret_path = "/api/v1/namespaces/kyma-installer/secrets/";

const char* k_installer_yaml = R"(apiVersion: v1
kind: Namespace
metadata:
  name: kyma-installer
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kyma-installer
  namespace: kyma-installer
---

---
apiVersion: installer.kyma-project.io/v1alpha1
kind: Installation
metadata:
  name: kyma-installation
  namespace: default
  labels:
    action: install
    kyma-project.io/installation: ""
spec:
  version: "0.0.1"
  url: ""
status:
  state: ""
)";

engine::KymaConfig config_with(std::string global_strategy = "") {
    engine::KymaConfig config;
    config.release.version = "1.24.11";
    config.release.installer_yaml = k_installer_yaml;
    config.profile = engine::KymaProfile::Evaluation;
    config.global = {{{"g", "new", false}, {"gs", "secret", true}}, std::move(global_strategy)};
    engine::KymaComponent c;
    c.name = "istio";
    c.namespace_ = "istio-system";
    config.components = {c};
    return config;
}

class KymaInstallerTest : public ::testing::Test {
protected:
    KymaInstallerTest() {
        ClientOptions options;
        options.transport = cluster;
        options.clock = clock;
        installer = std::make_unique<InstallationCrInstaller>(
            options, [this](engine::LogLevel, const std::string& m) { logs.push_back(m); });
    }
    // The error `f` throws, as a RemoteError message and status.
    template <class F> std::pair<std::string, int> error_of(F&& f) {
        try {
            f();
        } catch (const RemoteError& e) {
            return {e.what(), e.http_status()};
        }
        return {"no error", -1};
    }
    // Fails the first `times` requests matching method and path with `status`.
    void fail(const std::string& method, const std::string& path, int status,
              const std::string& reason, int times = 1000) {
        auto left = std::make_shared<int>(times);
        cluster->set_hook([=](const net::HttpRequest& r,
                              const std::string& p) -> std::optional<net::HttpResponse> {
            if (r.method != method || p != path || *left == 0)
                return std::nullopt;
            --*left;
            return FakeCluster::answer(status, status_body(status, reason, "injected"));
        });
    }

    std::shared_ptr<FakeCluster> cluster = std::make_shared<FakeCluster>();
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
    std::vector<std::string> logs;
    std::unique_ptr<InstallationCrInstaller> installer;
    const std::string kubeconfig = k_fake_cluster_kubeconfig;
};

TEST_F(KymaInstallerTest, NameAndUnusableKubeconfig) {
    EXPECT_EQ(installer->name(), "installation-cr");
    EXPECT_THROW(installer->probe("not: a kubeconfig"), ConfigError);
    EXPECT_THROW(installer->install("", config_with()), ConfigError);
}

TEST_F(KymaInstallerTest, InstallAppliesInOrderAndLabelsTheCr) {
    installer->install(kubeconfig, config_with());
    EXPECT_THAT(cluster->calls(),
                ElementsAre("POST /api/v1/namespaces",
                            "POST /api/v1/namespaces/kyma-installer/serviceaccounts",
                            "POST /apis/installer.kyma-project.io/v1alpha1/namespaces/default/"
                            "installations",
                            "POST /api/v1/namespaces/kyma-installer/configmaps",
                            "POST /api/v1/namespaces/kyma-installer/configmaps",
                            "POST /api/v1/namespaces/kyma-installer/secrets",
                            "POST /api/v1/namespaces/kyma-installer/secrets", "GET " + k_cr_path,
                            "PUT " + k_cr_path));
    const json cr = *cluster->object(k_cr_path);
    EXPECT_EQ(cr["metadata"]["labels"]["action"], "install");
    EXPECT_EQ(cr["metadata"]["labels"]["kyma-project.io/installation"], "");
    EXPECT_EQ(cr["spec"]["profile"], "evaluation");
    EXPECT_EQ(cr["spec"]["components"],
              json::parse(R"([{"name":"istio","namespace":"istio-system","release":""}])"));
    EXPECT_EQ((*cluster->object(k_cm_path + "global-installer-config"))["data"],
              json({{"g", "new"}}));
    EXPECT_EQ((*cluster->object(k_secret_path + "global-installer-config"))["data"],
              json({{"gs", "c2VjcmV0"}}));
    EXPECT_TRUE(cluster->object(k_secret_path + "istio-installer-config"));
    EXPECT_TRUE(logs.empty());
}

TEST_F(KymaInstallerTest, InstallAgainReplacesWithTheLiveVersionAndMergesOverrides) {
    cluster->put(k_cm_path + "global-installer-config",
                 json::parse(R"({"metadata": {"name": "global-installer-config"},
                                 "data": {"old": "1", "g": "old"}})"));
    installer->install(kubeconfig, config_with());
    EXPECT_EQ((*cluster->object(k_cm_path + "global-installer-config"))["data"],
              json({{"old", "1"}, {"g", "new"}}));
    // The fake runs no installer, so the CR stays startable and a second install re-applies.
    installer->install(kubeconfig, config_with("Replace"));
    EXPECT_EQ((*cluster->object(k_cm_path + "global-installer-config"))["data"],
              json({{"g", "new"}}));
    const auto calls = cluster->calls();
    EXPECT_THAT(calls, Contains("GET /api/v1/namespaces/kyma-installer"));
    EXPECT_THAT(calls, Contains("PUT /api/v1/namespaces/kyma-installer"));
    EXPECT_THAT(calls, Contains("PUT /api/v1/namespaces/kyma-installer/configmaps/"
                                "global-installer-config"));
    // Every PUT carried the live resourceVersion (the fake refuses stale ones with 409).
    for (const auto& r : cluster->requests()) {
        if (r.method == "PUT") {
            EXPECT_TRUE(json::parse(r.body)["metadata"].contains("resourceVersion")) << r.url;
        }
    }
}

TEST_F(KymaInstallerTest, AComponentListedTwiceMergesIntoItsFirstWrite) {
    auto config = config_with();
    config.components.push_back(config.components[0]);
    config.components[0].configuration.entries = {{"first", "1", false}};
    config.components[1].configuration.entries = {{"second", "2", false}};
    installer->install(kubeconfig, config);
    EXPECT_EQ((*cluster->object(k_cm_path + "istio-installer-config"))["data"],
              json({{"first", "1"}, {"second", "2"}}));
    EXPECT_EQ((*cluster->object(k_cr_path))["spec"]["components"].size(), 2u);
}

TEST_F(KymaInstallerTest, TillerYamlIsNeverAppliedButWarnedAbout) {
    auto config = config_with();
    config.release.tiller_yaml = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: tiller}\n";
    installer->install(kubeconfig, config);
    EXPECT_THAT(cluster->calls(),
                Not(Contains("POST /api/v1/namespaces/kube-system/serviceaccounts")));
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_THAT(logs[0], HasSubstr("Tiller"));
}

// A 404 for an object whose apiVersion the cluster does not serve (Kubernetes removed it) fails
// for good, naming it; a 404 while discovery lists the resource (a namespace not there yet)
// stays the cluster's error, retried by the stage.
TEST_F(KymaInstallerTest, AnApiVersionTheClusterDoesNotServeMakesTheReleaseUnusable) {
    auto served = std::make_shared<bool>(false);
    cluster->set_hook([served](const net::HttpRequest& r,
                               const std::string& p) -> std::optional<net::HttpResponse> {
        if (r.method == "POST" && p == "/api/v1/namespaces/kyma-installer/serviceaccounts")
            return FakeCluster::answer(
                404,
                status_body(404, "NotFound", "the server could not find the requested resource"));
        if (r.method == "GET" && p == "/api/v1")
            return *served ? FakeCluster::answer(200, R"({"kind":"APIResourceList",
                "groupVersion":"v1","resources":[{"name":"namespaces"},{"name":"serviceaccounts"}]})")
                           : FakeCluster::answer(404, status_body(404, "NotFound", "not found"));
        return std::nullopt;
    });
    try {
        installer->install(kubeconfig, config_with());
        ADD_FAILURE() << "installed";
    } catch (const engine::UnusableRelease& e) {
        EXPECT_EQ(std::string(e.what()),
                  "Failed to prepare installation: failed to apply Installer resources: the "
                  "runtime cluster does not serve v1 ServiceAccount (\"kyma-installer\" of the "
                  "installer YAML of Kyma 1.24.11); expected a release whose objects use API "
                  "versions the cluster's Kubernetes version serves");
    }
    EXPECT_THAT(cluster->calls(), Not(Contains("PUT " + k_cr_path)));
    *served = true;
    auto [message, status] = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_EQ(status, 404) << message;
    EXPECT_THAT(message, HasSubstr("serviceaccounts: 404"));
}

TEST_F(KymaInstallerTest, ErrorsCarryTheOriginalPrefixesAndTheHttpStatus) {
    fail("POST", "/api/v1/namespaces", 403, "Forbidden");
    auto [message, status] = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare installation: failed to apply Installer "
                                    "resources: runtime cluster: POST /api/v1/namespaces: 403"));
    EXPECT_EQ(status, 403);
    try {
        installer->install(kubeconfig, config_with());
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_forbidden());
        EXPECT_EQ(e.component(), "k8s client - cluster");
    }

    fail("POST", "/api/v1/namespaces/kyma-installer/configmaps", 422, "Invalid");
    std::tie(message, status) = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare installation: failed to create "
                                    "configuration config maps: "));
    EXPECT_EQ(status, 422);
    fail("POST", "/api/v1/namespaces/kyma-installer/secrets", 422, "Invalid");
    std::tie(message, status) = error_of([&] { installer->upgrade(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare upgrade: failed to create "
                                    "configuration secrets: "));
    fail("POST", "/apis/installer.kyma-project.io/v1alpha1/namespaces/default/installations", 403,
         "Forbidden");
    std::tie(message, status) = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare installation: failed to apply Installation "
                                    "resources: "));

    cluster->set_hook({});
    auto config = config_with();
    config.release.installer_yaml += "---\napiVersion: v9\nkind: Gizmo\nmetadata: {name: g}\n";
    std::tie(message, status) = error_of([&] { installer->install(kubeconfig, config); });
    EXPECT_EQ(message, "Failed to prepare installation: failed to apply Installer resources: "
                       "unknown kind v9 Gizmo in document 4");
    EXPECT_EQ(status, 0);
}

TEST_F(KymaInstallerTest, StartRefusesAnInstallationInProgress) {
    installer->install(kubeconfig, config_with());
    // Re-applying the CR resets its status to the release's: the installer writes InProgress
    // again before the start step reads it.
    cluster->set_hook(
        [&](const net::HttpRequest& r, const std::string& p) -> std::optional<net::HttpResponse> {
            if (r.method == "GET" && p == k_cr_path) {
                json live = *cluster->object(k_cr_path);
                live["status"]["state"] = "InProgress";
                return FakeCluster::answer(200, live.dump());
            }
            return std::nullopt;
        });
    const auto [message, status] = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_EQ(message, "Failed to start Kyma installation: failed to trigger installation, "
                       "installation already in progress");
    EXPECT_EQ(status, 0);
}

TEST_F(KymaInstallerTest, LabelPutIsRetriedAfterAConflict) {
    installer->install(kubeconfig, config_with());
    fail("PUT", k_cr_path, 409, "Conflict", 2);
    // The CR exists now: its apply is a PUT too, which the injected conflicts hit first and
    // which is retried the same way.
    installer->install(kubeconfig, config_with());
    EXPECT_EQ((*cluster->object(k_cr_path))["metadata"]["labels"]["action"], "install");

    fail("PUT", k_cr_path, 409, "Conflict");
    const auto [message, status] = error_of([&] { installer->upgrade(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare upgrade: failed to apply Installation "
                                    "resources: "));
    EXPECT_EQ(status, 409);
}

TEST_F(KymaInstallerTest, StartLabelConflictsAreRetriedThenReported) {
    installer->install(kubeconfig, config_with());
    // Conflicts only on the label PUT (the one that sets action=install).
    auto left = std::make_shared<int>(2);
    auto hook = [&, left](const net::HttpRequest& r,
                          const std::string& p) -> std::optional<net::HttpResponse> {
        if (r.method == "PUT" && p == k_cr_path &&
            json::parse(r.body)["metadata"]["labels"].value("action", "") == "install" &&
            *left != 0) {
            --*left;
            return FakeCluster::answer(409, status_body(409, "Conflict", "modified"));
        }
        return std::nullopt;
    };
    cluster->set_hook(hook);
    installer->install(kubeconfig, config_with());
    EXPECT_EQ(*left, 0);
    EXPECT_EQ((*cluster->object(k_cr_path))["metadata"]["labels"]["action"], "install");

    *left = 1000;
    const auto [message, status] = error_of([&] { installer->install(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to start Kyma installation: failed label "
                                    "Installation CR: runtime cluster: PUT "));
    EXPECT_EQ(status, 409);
}

TEST_F(KymaInstallerTest, StartWithoutACrFailsWithNotFound) {
    auto config = config_with();
    config.release.installer_yaml =
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: kyma-installer}\n";
    const auto [message, status] = error_of([&] { installer->install(kubeconfig, config); });
    EXPECT_THAT(message, StartsWith("Failed to start Kyma installation: failed to get "
                                    "Installation CR: runtime cluster: GET "));
    EXPECT_EQ(status, 404);
}

TEST_F(KymaInstallerTest, UpgradeDeletesTheInstallerDeploymentFirst) {
    const std::string deployment =
        "/apis/apps/v1/namespaces/kyma-installer/deployments/kyma-installer";
    cluster->put(deployment, json::parse(R"({"metadata": {"name": "kyma-installer"}})"));
    installer->upgrade(kubeconfig, config_with());
    EXPECT_EQ(cluster->calls()[0], "DELETE " + deployment);
    EXPECT_FALSE(cluster->object(deployment));
    installer->upgrade(kubeconfig, config_with()); // absent: fine
    fail("DELETE", deployment, 403, "Forbidden");
    const auto [message, status] = error_of([&] { installer->upgrade(kubeconfig, config_with()); });
    EXPECT_THAT(message, StartsWith("Failed to prepare upgrade: failed to delete the installer "
                                    "Deployment: "));
    EXPECT_EQ(status, 403);
}

TEST_F(KymaInstallerTest, ProbeReadsTheCr) {
    EXPECT_EQ(installer->probe(kubeconfig).kind, engine::InstallationProbe::Kind::NoInstallation);
    cluster->put(k_cr_path, json::parse(R"({"metadata": {"name": "kyma-installation",
        "labels": {"action": "install"}}, "status": {"state": "Error", "description": "x"}})"));
    const auto p = installer->probe(kubeconfig);
    EXPECT_EQ(p.kind, engine::InstallationProbe::Kind::InstallerError);
    EXPECT_TRUE(p.recoverable);
    EXPECT_FALSE(p.resource_version.empty());
    fail("GET", k_cr_path, 403, "Forbidden");
    EXPECT_THROW(installer->probe(kubeconfig), KubeError);
}

TEST_F(KymaInstallerTest, UninstallLabelsTheCrOrFindsNothing) {
    EXPECT_FALSE(installer->uninstall(kubeconfig));
    cluster->put(k_cr_path, json::parse(R"({"metadata": {"name": "kyma-installation"}})"));
    fail("PUT", k_cr_path, 409, "Conflict", 1);
    EXPECT_TRUE(installer->uninstall(kubeconfig));
    EXPECT_EQ((*cluster->object(k_cr_path))["metadata"]["labels"]["action"], "uninstall");
    fail("GET", k_cr_path, 500, "InternalError");
    auto [message, status] = error_of([&] { installer->uninstall(kubeconfig); });
    EXPECT_THAT(message, StartsWith("error getting Installation CR: "));
    EXPECT_EQ(status, 500);
    fail("PUT", k_cr_path, 403, "Forbidden");
    std::tie(message, status) = error_of([&] { installer->uninstall(kubeconfig); });
    EXPECT_THAT(message,
                StartsWith("error labeling Installation CR with action=uninstall label: "));
    EXPECT_EQ(status, 403);
}

const std::string k_catalog = "/apis/servicecatalog.k8s.io/v1beta1";

void add_catalog_crds(FakeCluster& cluster, const char* version) {
    for (const char* crd : {"clusterservicebrokers", "clusterserviceclasses", "serviceinstances"})
        cluster.put("/apis/apiextensions.k8s.io/" + std::string(version) +
                        "/customresourcedefinitions/" + crd + ".servicecatalog.k8s.io",
                    json::object());
}

json labeled(const std::string& name, const std::string& key, const std::string& value) {
    return {{"metadata", {{"name", name}, {"labels", {{key, value}}}}}};
}

TEST_F(KymaInstallerTest, CleanupIsSkippedWithoutServiceCatalog) {
    installer->cleanup(kubeconfig, "https://service-manager.");
    EXPECT_THAT(cluster->calls(), Not(Contains(StartsWith("GET " + k_catalog))));
    EXPECT_THAT(logs, ElementsAre("Service Catalog not installed properly. Cleanup skipped"));
}

TEST_F(KymaInstallerTest, CleanupDeletesTheMatchingInstancesAndStripsEveryBroker) {
    add_catalog_crds(*cluster, "v1beta1");
    cluster->put(k_catalog + "/clusterservicebrokers/sm",
                 json::parse(R"({"metadata": {"name": "sm", "finalizers": ["f"]},
                                 "spec": {"url": "https://service-manager.example"}})"));
    cluster->put(k_catalog + "/clusterservicebrokers/other",
                 json::parse(R"({"metadata": {"name": "other", "finalizers": ["f"]},
                                 "spec": {"url": "https://elsewhere"}})"));
    cluster->put(
        k_catalog + "/clusterserviceclasses/c1",
        labeled("c1", "servicecatalog.k8s.io/spec.clusterServiceBrokerName", sha224_hex("sm")));
    cluster->put(
        k_catalog + "/clusterserviceclasses/c2",
        labeled("c2", "servicecatalog.k8s.io/spec.clusterServiceBrokerName", sha224_hex("other")));
    json i1 =
        labeled("i1", "servicecatalog.k8s.io/spec.clusterServiceClassRef.name", sha224_hex("c1"));
    i1["metadata"]["namespace"] = "ns1";
    cluster->put(k_catalog + "/namespaces/ns1/serviceinstances/i1", i1);
    json i2 =
        labeled("i2", "servicecatalog.k8s.io/spec.clusterServiceClassRef.name", sha224_hex("c2"));
    i2["metadata"]["namespace"] = "ns2";
    cluster->put(k_catalog + "/namespaces/ns2/serviceinstances/i2", i2);

    installer->cleanup(kubeconfig, "https://service-manager.");
    EXPECT_FALSE(cluster->object(k_catalog + "/namespaces/ns1/serviceinstances/i1"));
    EXPECT_TRUE(cluster->object(k_catalog + "/namespaces/ns2/serviceinstances/i2"));
    for (const char* broker : {"sm", "other"})
        EXPECT_EQ((*cluster->object(k_catalog + "/clusterservicebrokers/" +
                                    broker))["metadata"]["finalizers"],
                  json::array());
}

TEST_F(KymaInstallerTest, CleanupFailsWhenAListFailsAndSwallowsDeleteErrors) {
    add_catalog_crds(*cluster, "v1");
    fail("GET", k_catalog + "/clusterservicebrokers", 503, "ServiceUnavailable");
    const auto [message, status] =
        error_of([&] { installer->cleanup(kubeconfig, "https://service-manager."); });
    EXPECT_THAT(message, StartsWith("while listing ClusterServiceBrokers: "));
    EXPECT_EQ(status, 503);

    cluster->put(k_catalog + "/clusterservicebrokers/sm",
                 json::parse(R"({"metadata": {"name": "sm"},
                                 "spec": {"url": "https://service-manager.x"}})"));
    cluster->put(
        k_catalog + "/clusterserviceclasses/c1",
        labeled("c1", "servicecatalog.k8s.io/spec.clusterServiceBrokerName", sha224_hex("sm")));
    json i1 =
        labeled("i1", "servicecatalog.k8s.io/spec.clusterServiceClassRef.name", sha224_hex("c1"));
    i1["metadata"]["namespace"] = "ns1";
    cluster->put(k_catalog + "/namespaces/ns1/serviceinstances/i1", i1);
    fail("DELETE", k_catalog + "/namespaces/ns1/serviceinstances/i1", 403, "Forbidden");
    EXPECT_NO_THROW(installer->cleanup(kubeconfig, "https://service-manager."));
    EXPECT_THAT(logs, Contains(HasSubstr("Service Catalog cleanup: ")));
}

std::string watch_event(const std::string& type, const std::string& name, const std::string& rv) {
    return json({{"type", type},
                 {"object", {{"metadata", {{"name", name}, {"resourceVersion", rv}}}}}})
               .dump() +
           "\n";
}

// Streams `chunks` to a watch request, then holds the stream open until it is stopped.
FakeCluster::Hook watch_hook(std::vector<std::string> chunks, std::string* query = nullptr) {
    return [=](const net::HttpRequest& r, const std::string&) -> std::optional<net::HttpResponse> {
        if (r.url.find("watch=1") == std::string::npos)
            return std::nullopt;
        if (query)
            *query = r.url;
        for (const auto& c : chunks)
            if (!r.on_body(c))
                return FakeCluster::answer(200, "");
        while (!r.stop.stop_requested() && !(r.should_stop && r.should_stop()))
            std::this_thread::sleep_for(1ms);
        return FakeCluster::answer(200, "");
    };
}

TEST_F(KymaInstallerTest, AwaitChangeSeesAModification) {
    std::string url;
    cluster->set_hook(watch_hook({watch_event("MODIFIED", "kyma-installation", "13")}, &url));
    EXPECT_TRUE(installer->await_change(kubeconfig, "12", 10s, {}));
    EXPECT_THAT(url, HasSubstr("resourceVersion=12"));
    EXPECT_THAT(url, HasSubstr("fieldSelector=metadata.name%3Dkyma-installation"));
}

TEST_F(KymaInstallerTest, AwaitChangeTimesOutAndNeverThrows) {
    cluster->set_hook(watch_hook({}));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(installer->await_change(kubeconfig, "12", 100ms, {}));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_FALSE(installer->await_change(kubeconfig, "12", 0ms, {}));
    EXPECT_FALSE(installer->await_change("garbage", "12", 10s, {}));
    fail("GET", std::string(k_installations_path), 403, "Forbidden");
    EXPECT_FALSE(installer->await_change(kubeconfig, "12", 10s, {}));
}

TEST_F(KymaInstallerTest, ManyAwaitsShareTheTimer) {
    cluster->set_hook(watch_hook({}));
    std::vector<std::thread> threads;
    std::atomic<int> changed = 0;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] {
            changed += installer->await_change(kubeconfig, "1",
                                               std::chrono::milliseconds(50 + 10 * i), {});
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(changed, 0);
}

TEST_F(KymaInstallerTest, AwaitChangeWithoutAVersionComparesTheList) {
    cluster->put(k_cr_path, json::parse(R"({"metadata": {"name": "kyma-installation"}})"));
    cluster->set_hook(watch_hook({}));
    EXPECT_TRUE(installer->await_change(kubeconfig, "", 10s, {}));
}

} // namespace
} // namespace kprov::gardener
