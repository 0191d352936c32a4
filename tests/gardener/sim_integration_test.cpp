// GardenerClient and RuntimeClusterClient against the kprov-sim binary over HTTPS: every verb,
// Status errors, fault injection with Retry-After, watch resume after drops and after 410,
// adminkubeconfig and the runtime cluster it opens.

#include "gardener/gardener_client.hpp"
#include "gardener/kube_error.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "sim_shoots.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <condition_variable>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using kprov::testing::SimProcess;
using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

json shoot(const std::string& name) {
    json s = kprov::testing::minimal_aws_shoot(name);
    s["metadata"]["labels"] = {{"account", "ga-1"}};
    return s;
}

class SimIntegrationTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty()) {
            s_why = "kprov-sim is not built (target kprov-sim)";
            return;
        }
        s_sim = new SimProcess(binary, {"--tls", "--create-seconds", "1", "--reconcile-seconds",
                                        "0.3", "--delete-seconds", "0.3", "--bookmark-seconds", "1",
                                        "--project", "kprov"});
    }
    static void TearDownTestSuite() {
        delete s_sim;
        s_sim = nullptr;
    }
    void SetUp() override {
        if (s_sim == nullptr)
            KPROV_SKIP_UNLESS_CI(s_why);
        ClientOptions options;
        options.retry.initial_backoff = 20ms;
        options.watch_inactivity_timeout = 5s;
        kubeconfig = load_kubeconfig(s_sim->kubeconfig);
        ASSERT_FALSE(kubeconfig.ca_pem.empty()) << "the sim's kubeconfig carries its CA";
        gardener = std::make_unique<GardenerClient>(kubeconfig, "kprov", options);
        sim("DELETE", "/sim/faults");
    }
    // A control call to the simulator.
    json sim(const std::string& method, const std::string& path,
             const json& body = json::object()) {
        if (method == "DELETE")
            return gardener->kube().delete_object(path).value_or(json());
        if (method == "GET")
            return gardener->kube().get(path);
        return gardener->kube().create(path, body);
    }
    long long count(const std::string& key) {
        const json stats = sim("GET", "/sim/stats");
        return stats["requests"].value(key, 0LL);
    }
    // Waits until `ready` holds for the shoot (polling); fails after 20 s.
    void wait_for(const std::string& name, const std::function<bool(const json&)>& ready) {
        for (int i = 0; i < 200; ++i) {
            const auto s = gardener->get_shoot(name);
            if (s && ready(*s))
                return;
            std::this_thread::sleep_for(100ms);
        }
        FAIL() << "shoot " << name << " never got ready";
    }

    static inline SimProcess* s_sim = nullptr;
    static inline std::string s_why;
    Kubeconfig kubeconfig;
    std::unique_ptr<GardenerClient> gardener;
};

TEST_F(SimIntegrationTest, ShootVerbsAndStatusErrors) {
    const json created = gardener->create_shoot(shoot("verbs"));
    EXPECT_EQ(created["metadata"]["namespace"], "garden-kprov");
    ASSERT_TRUE(gardener->get_shoot("verbs").has_value());
    EXPECT_EQ(gardener->get_shoot("absent"), std::nullopt);

    const json list = gardener->list_shoots("account=ga-1");
    EXPECT_FALSE(list["metadata"].value("resourceVersion", "").empty());
    bool found = false;
    for (const auto& item : list["items"])
        found = found || item["metadata"]["name"] == "verbs";
    EXPECT_TRUE(found);
    EXPECT_TRUE(gardener->list_shoots("account=nobody")["items"].empty());

    json current = *gardener->get_shoot("verbs");
    json stale = current;
    current["metadata"]["labels"]["changed"] = "yes";
    const json updated = gardener->update_shoot(current);
    EXPECT_EQ(updated["metadata"]["labels"]["changed"], "yes");
    try {
        gardener->update_shoot(stale);
        FAIL() << "no conflict";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_conflict()) << e.what();
        EXPECT_EQ(e.component(), "k8s client - gardener");
    }

    const json patched =
        gardener->patch_shoot("verbs", {{"metadata", {{"annotations", {{"a", "b"}}}}}});
    EXPECT_EQ(patched["metadata"]["annotations"]["a"], "b");

    try {
        gardener->create_shoot(shoot("verbs"));
        FAIL() << "no AlreadyExists";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_already_exists()) << e.what();
    }
    json invalid = shoot("bad");
    invalid["spec"].erase("region");
    try {
        gardener->create_shoot(invalid);
        FAIL() << "no Invalid";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_invalid());
        EXPECT_THAT(e.what(), HasSubstr("gardener: POST /apis/core.gardener.cloud/v1beta1/"
                                        "namespaces/garden-kprov/shoots: 422 Invalid: "
                                        "spec.region: Required value"));
    }

    try {
        gardener->delete_shoot("verbs");
        FAIL() << "deleted without confirmation";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_forbidden()) << e.what();
    }
    gardener->patch_shoot(
        "verbs",
        {{"metadata", {{"annotations", {{"confirmation.gardener.cloud/deletion", "true"}}}}}});
    EXPECT_TRUE(gardener->delete_shoot("verbs"));
    for (int i = 0; i < 100 && gardener->get_shoot("verbs"); ++i)
        std::this_thread::sleep_for(100ms);
    EXPECT_EQ(gardener->get_shoot("verbs"), std::nullopt);
    EXPECT_FALSE(gardener->delete_shoot("verbs"));
}

TEST_F(SimIntegrationTest, RetryAfterAndServerErrorsAreRetried) {
    const std::string path = gardener->shoot_path("nothing");
    sim("POST", "/sim/stats/reset");
    sim("POST", "/sim/faults",
        {{"status", 429},
         {"retryAfterSeconds", 1},
         {"count", 1},
         {"method", "GET"},
         {"pathPrefix", path}});
    const auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(gardener->get_shoot("nothing"), std::nullopt);
    EXPECT_GE(std::chrono::steady_clock::now() - started, 900ms) << "Retry-After was honoured";

    sim("POST", "/sim/faults",
        {{"status", 503}, {"count", 2}, {"method", "GET"}, {"pathPrefix", path}});
    EXPECT_EQ(gardener->get_shoot("nothing"), std::nullopt);
    sim("POST", "/sim/faults",
        {{"drop", true}, {"count", 1}, {"method", "GET"}, {"pathPrefix", path}});
    EXPECT_EQ(gardener->get_shoot("nothing"), std::nullopt);
    // 429 + 404, 503 + 503 + 404, cut + 404.
    EXPECT_EQ(count("GET /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}"),
              7);

    sim("POST", "/sim/faults",
        {{"status", 500},
         {"count", 1},
         {"method", "POST"},
         {"pathPrefix", gardener->shoots_path()}});
    try {
        gardener->create_shoot(shoot("once"));
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 500) << "a POST is not repeated after a 500";
    }
    sim("POST", "/sim/faults",
        {{"status", 503},
         {"count", 1},
         {"method", "POST"},
         {"pathPrefix", gardener->shoots_path()}});
    EXPECT_EQ(gardener->create_shoot(shoot("once"))["metadata"]["name"], "once");
}

TEST_F(SimIntegrationTest, WrongTokenIs401) {
    Kubeconfig wrong = kubeconfig;
    wrong.token = "not-the-token";
    GardenerClient client(wrong, "kprov");
    try {
        client.get_shoot("x");
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_TRUE(e.is_unauthorized());
        EXPECT_FALSE(e.retryable());
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("not-the-token")));
    }
}

TEST_F(SimIntegrationTest, WatchResumesAfterDropsAndRelistsAfterCompaction) {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> events;
    int resyncs = 0;
    // No bookmarks, so that the watch's version stays behind while other shoots change.
    sim("POST", "/sim/settings", {{"bookmarkSeconds", 600}});
    const std::string rv = gardener->list_shoots()["metadata"]["resourceVersion"];
    std::stop_source stop;
    std::exception_ptr failure;
    std::thread watcher([&] {
        try {
            gardener->watch_shoots(
                rv,
                [&](const WatchEvent& e) {
                    std::lock_guard lock(mutex);
                    if (e.type == WatchEventType::Resync)
                        ++resyncs;
                    else if (e.type == WatchEventType::Added)
                        events.push_back(e.object["metadata"]["name"]);
                    changed.notify_all();
                },
                stop.get_token(), "account=ga-1");
        } catch (...) {
            failure = std::current_exception();
        }
    });
    const auto seen = [&](const std::string& name) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, 10s, [&] {
            return std::find(events.begin(), events.end(), name) != events.end();
        });
    };
    gardener->create_shoot(shoot("w1"));
    EXPECT_TRUE(seen("w1"));
    sim("POST", "/sim/watch/drop", {{"abrupt", true}});
    gardener->create_shoot(shoot("w2"));
    EXPECT_TRUE(seen("w2")) << "resumed after the stream was cut";
    sim("POST", "/sim/watch/drop");
    gardener->create_shoot(shoot("w3"));
    EXPECT_TRUE(seen("w3")) << "resumed after the stream was closed";
    {
        // A change the watch does not select moves the world on; compaction then makes the
        // watch's version too old, and a drop makes it come back with it.
        json other = shoot("w4");
        other["metadata"]["labels"]["account"] = "ga-2";
        gardener->create_shoot(other);
        sim("POST", "/sim/watch/compact");
        sim("POST", "/sim/watch/drop");
        std::unique_lock lock(mutex);
        EXPECT_TRUE(changed.wait_for(lock, 10s, [&] { return resyncs > 0; }))
            << "a 410 made the client list again";
    }
    gardener->create_shoot(shoot("w5"));
    EXPECT_TRUE(seen("w5")) << "watching again after the relist";
    stop.request_stop();
    watcher.join();
    sim("POST", "/sim/settings", {{"bookmarkSeconds", 1}});
    if (failure)
        std::rethrow_exception(failure);
}

TEST_F(SimIntegrationTest, AdminKubeconfigOpensTheRuntimeCluster) {
    gardener->create_shoot(shoot("rt"));
    std::string kubeconfig_text;
    for (int i = 0; i < 100 && kubeconfig_text.empty(); ++i) {
        try {
            kubeconfig_text = gardener->admin_kubeconfig("rt", 8h);
        } catch (const KubeError& e) {
            ASSERT_TRUE(e.is_invalid()) << e.what(); // the control plane is not up yet
            std::this_thread::sleep_for(100ms);
        }
    }
    ASSERT_FALSE(kubeconfig_text.empty());
    auto cluster = RuntimeClusterClient::from_kubeconfig(kubeconfig_text);
    EXPECT_TRUE(cluster.create_namespace("istio-system", json::object()));
    EXPECT_FALSE(cluster.create_namespace("istio-system", json::object()));
    ASSERT_TRUE(cluster.get_namespace("istio-system").has_value());

    const json labels = {{"app", "kyma"}, {"reconciler.kyma-project.io/managed-by", "reconciler"}};
    EXPECT_TRUE(cluster.create_cluster_role(
        {{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRole"},
         {"metadata", {{"name", "l2-operator-rules"}, {"labels", labels}}},
         {"rules",
          json::array({{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"get"}}}})}}));
    for (const std::string name : {"l2-operator", "l3-operator-admin"})
        EXPECT_TRUE(cluster.create_cluster_role_binding(
            {{"apiVersion", "rbac.authorization.k8s.io/v1"},
             {"kind", "ClusterRoleBinding"},
             {"metadata", {{"name", name}, {"labels", labels}}},
             {"roleRef",
              {{"apiGroup", "rbac.authorization.k8s.io"},
               {"kind", "ClusterRole"},
               {"name", "cluster-admin"}}},
             {"subjects", json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                                        {"kind", "Group"},
                                        {"name", "runtimeAdmin"}}})}}));
    const std::string selector = "reconciler.kyma-project.io/managed-by=reconciler,app=kyma";
    EXPECT_EQ(cluster.list_cluster_role_bindings(selector)["items"].size(), 2U);
    cluster.delete_cluster_role_bindings(selector);
    EXPECT_TRUE(cluster.list_cluster_role_bindings(selector)["items"].empty());

    const json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "s1"}}},
                         {"data", {{"k", "dg=="}}}};
    EXPECT_TRUE(cluster.create_secret("istio-system", secret));
    EXPECT_FALSE(cluster.create_secret("istio-system", secret));
    EXPECT_EQ((*cluster.get_secret("istio-system", "s1"))["data"]["k"], "dg==");
    EXPECT_TRUE(cluster.delete_secret("istio-system", "s1"));
    EXPECT_FALSE(cluster.delete_secret("istio-system", "s1"));

    try {
        gardener->admin_kubeconfig("rt", 599s);
        FAIL() << "no error";
    } catch (const KubeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("spec.expirationSeconds"));
    }
}

TEST_F(SimIntegrationTest, ConfigMapsAndSeeds) {
    const json config_map = {{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata", {{"name", "oidc-rt"}}},
                             {"data", {{"config.yaml", "a"}}}};
    gardener->create_or_update_config_map(config_map);
    json changed = config_map;
    changed["data"]["config.yaml"] = "b";
    gardener->create_or_update_config_map(changed);
    EXPECT_EQ((*gardener->get_config_map("oidc-rt"))["data"]["config.yaml"], "b");
    EXPECT_TRUE(gardener->delete_config_map("oidc-rt"));
    EXPECT_EQ(gardener->get_config_map("oidc-rt"), std::nullopt);
    EXPECT_TRUE(gardener->get_seed("sim-seed").has_value());
    EXPECT_EQ(gardener->get_seed("no-such-seed"), std::nullopt);
}

} // namespace
} // namespace kprov::gardener
