// ClusterBindings (original-provisioner.md §7.1) against a runtime cluster of kprov-sim: the
// objects it creates, what it leaves alone, and that a second run changes nothing.

#include "gardener/gardener_client.hpp"
#include "gardener/kube_error.hpp"
#include "gardener/operator_bindings.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "net/base64.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using namespace std::chrono_literals;

json gcp_shoot(const std::string& name) {
    return json::parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
      "metadata": {"name": ")" +
                       name + R"("},
      "spec": {
        "cloudProfile": {"kind": "CloudProfile", "name": "gcp"},
        "credentialsBindingName": "gcp-kyma-dev", "region": "europe-west3",
        "kubernetes": {"version": "1.34"},
        "networking": {"type": "calico", "nodes": "10.250.0.0/16"},
        "provider": {"type": "gcp",
          "infrastructureConfig": {"apiVersion": "gcp.provider.extensions.gardener.cloud/v1alpha1",
                                   "kind": "InfrastructureConfig"},
          "controlPlaneConfig": {"apiVersion": "gcp.provider.extensions.gardener.cloud/v1alpha1",
                                 "kind": "ControlPlaneConfig", "zone": "europe-west3-a"},
          "workers": [{"name": "cpu-worker", "machine": {"type": "n2-standard-4"},
                       "minimum": 1, "maximum": 2, "zones": ["europe-west3-a"],
                       "volume": {"type": "pd-balanced", "size": "50Gi"}}]}}})");
}

const json k_managed_labels = {{"app", "kyma"},
                               {"reconciler.kyma-project.io/managed-by", "reconciler"}};

json plain_binding(const std::string& name, const json& labels) {
    return {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRoleBinding"},
        {"metadata", {{"name", name}, {"labels", labels}}},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
        {"subjects", json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                                   {"kind", "Group"},
                                   {"name", "someone"}}})}};
}

class OperatorBindingsTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            KPROV_SKIP_UNLESS_CI("kprov-sim is not built (target kprov-sim)");
        m_sim = std::make_unique<kprov::testing::SimProcess>(
            binary, std::vector<std::string>{"--create-seconds", "0.2", "--delete-seconds", "0.2",
                                             "--project", "kprov"});
        GardenerClient gardener(load_kubeconfig(m_sim->kubeconfig), "kprov");
        gardener.create_shoot(gcp_shoot("rt"));
        for (int i = 0; i < 100 && m_kubeconfig.empty(); ++i) {
            try {
                m_kubeconfig = gardener.admin_kubeconfig("rt", 1h);
            } catch (const KubeError& e) {
                ASSERT_TRUE(e.is_invalid()) << e.what(); // the control plane is not up yet
                std::this_thread::sleep_for(50ms);
            }
        }
        ASSERT_FALSE(m_kubeconfig.empty());
        m_cluster = std::make_unique<RuntimeClusterClient>(
            RuntimeClusterClient::from_kubeconfig(m_kubeconfig));
    }

    json get(const std::string& path) { return m_cluster->kube().get(path); }

    std::vector<std::string> managed_binding_names() {
        std::vector<std::string> names;
        const json list = m_cluster->list_cluster_role_bindings(k_managed_bindings_selector);
        for (const auto& item : list["items"])
            names.push_back(item["metadata"]["name"]);
        std::sort(names.begin(), names.end());
        return names;
    }

    std::unique_ptr<kprov::testing::SimProcess> m_sim;
    std::string m_kubeconfig;
    std::unique_ptr<RuntimeClusterClient> m_cluster;
};

constexpr const char* k_rbac = "/apis/rbac.authorization.k8s.io/v1/";

TEST_F(OperatorBindingsTest, CreatesTheNamespaceRolesAndBindingsOfTheOriginal) {
    engine::OperatorBindings bindings;
    bindings.l2_subject_name = "l2-group";
    bindings.l3_subject_name = "l3-group";
    bindings.create_for_administrators = true;
    bindings.administrators = {"alice@example.com", "bob@example.com"};
    ClusterBindings port;
    port.create_operator_bindings(m_kubeconfig, bindings);

    EXPECT_TRUE(m_cluster->get_namespace("istio-system").has_value());

    const json l2 = get(std::string(k_rbac) + "clusterroles/l2-operator");
    EXPECT_EQ(l2["metadata"]["labels"], json({{"app", "kyma"}}));
    EXPECT_EQ(l2["aggregationRule"]["clusterRoleSelectors"], json::parse(R"([
                {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
                {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-l2-operator": "true"}}])"));
    const json rules = get(std::string(k_rbac) + "clusterroles/l2-operator-rules");
    EXPECT_EQ(
        rules["metadata"]["labels"],
        json({{"app", "kyma"}, {"rbac.authorization.k8s.io/aggregate-to-l2-operator", "true"}}));
    EXPECT_EQ(rules["rules"], json::parse(R"([{"apiGroups": ["*"], "resources": ["*"],
                                               "verbs": ["get", "list", "watch"]}])"));

    EXPECT_THAT(managed_binding_names(), ElementsAre("administrator0", "administrator1",
                                                     "l2-operator", "l3-operator-admin"));
    auto expect_binding = [&](const std::string& name, const std::string& kind,
                              const std::string& subject, const std::string& role) {
        const json b = get(std::string(k_rbac) + "clusterrolebindings/" + name);
        EXPECT_EQ(b["metadata"]["labels"], k_managed_labels) << name;
        EXPECT_EQ(b["subjects"], json::array({{{"kind", kind},
                                               {"apiGroup", "rbac.authorization.k8s.io"},
                                               {"name", subject}}}))
            << name;
        EXPECT_EQ(b["roleRef"], json({{"apiGroup", "rbac.authorization.k8s.io"},
                                      {"kind", "ClusterRole"},
                                      {"name", role}}))
            << name;
    };
    expect_binding("l2-operator", "Group", "l2-group", "l2-operator");
    expect_binding("l3-operator-admin", "Group", "l3-group", "cluster-admin");
    expect_binding("administrator0", "User", "alice@example.com", "cluster-admin");
    expect_binding("administrator1", "User", "bob@example.com", "cluster-admin");
}

TEST_F(OperatorBindingsTest, RunsAgainWithoutErrorReplacingOnlyTheManagedBindings) {
    // What was there before: a managed binding of an administrator who is gone, an unmanaged
    // binding, a namespace and a cluster role that someone changed.
    ASSERT_TRUE(
        m_cluster->create_cluster_role_binding(plain_binding("administrator7", k_managed_labels)));
    ASSERT_TRUE(m_cluster->create_cluster_role_binding(plain_binding("mine", {{"app", "kyma"}})));
    ASSERT_TRUE(m_cluster->create_namespace("istio-system", json::object()));
    json edited = operator_cluster_roles()[1];
    edited["rules"][0]["verbs"] = {"get"};
    ASSERT_TRUE(m_cluster->create_cluster_role(edited));

    engine::OperatorBindings bindings;
    bindings.create_for_administrators = true;
    bindings.administrators = {"alice@example.com"};
    ClusterBindings port;
    port.create_operator_bindings(m_kubeconfig, bindings);
    const json first = m_cluster->list_cluster_role_bindings(k_managed_bindings_selector);
    port.create_operator_bindings(m_kubeconfig, bindings);

    EXPECT_THAT(managed_binding_names(),
                ElementsAre("administrator0", "l2-operator", "l3-operator-admin"));
    EXPECT_EQ(m_cluster->list_cluster_role_bindings(k_managed_bindings_selector)["items"].size(),
              first["items"].size());
    EXPECT_EQ(get(std::string(k_rbac) + "clusterrolebindings/l2-operator")["subjects"][0]["name"],
              "runtimeOperator");
    EXPECT_EQ(get(std::string(k_rbac) + "clusterrolebindings/mine")["metadata"]["name"], "mine");
    EXPECT_EQ(get(std::string(k_rbac) + "clusterroles/l2-operator-rules")["rules"][0]["verbs"],
              json({"get"}))
        << "an existing cluster role is not updated";

    // Without administrator bindings configured, the earlier ones go.
    bindings.create_for_administrators = false;
    port.create_operator_bindings(m_kubeconfig, bindings);
    EXPECT_THAT(managed_binding_names(), ElementsAre("l2-operator", "l3-operator-admin"));
}

TEST_F(OperatorBindingsTest, TheRuntimeAgentSecretIsCreatedThenReplaced) {
    ClusterBindings bindings;
    engine::AgentConfiguration agent{"https://connector/graphql", "rt-id", "tenant-a", "token-1"};
    bindings.configure_runtime_agent(m_kubeconfig, agent);
    EXPECT_TRUE(m_cluster->get_namespace("istio-system"));
    EXPECT_TRUE(m_cluster->get_namespace("kyma-system"));
    auto secret = m_cluster->get_secret("kyma-system", "compass-agent-configuration");
    ASSERT_TRUE(secret);
    EXPECT_EQ(net::base64_decode((*secret)["data"]["CONNECTOR_URL"].get<std::string>()),
              "https://connector/graphql");
    EXPECT_EQ(net::base64_decode((*secret)["data"]["RUNTIME_ID"].get<std::string>()), "rt-id");
    EXPECT_EQ(net::base64_decode((*secret)["data"]["TENANT"].get<std::string>()), "tenant-a");
    EXPECT_EQ(net::base64_decode((*secret)["data"]["TOKEN"].get<std::string>()), "token-1");

    agent.token = "token-2"; // a second run (after a crash) brings a new one-time token
    bindings.configure_runtime_agent(m_kubeconfig, agent);
    secret = m_cluster->get_secret("kyma-system", "compass-agent-configuration");
    ASSERT_TRUE(secret);
    EXPECT_EQ(net::base64_decode((*secret)["data"]["TOKEN"].get<std::string>()), "token-2");
}

TEST_F(OperatorBindingsTest, AClusterThatIsGoneIsARemoteError) {
    GardenerClient gardener(load_kubeconfig(m_sim->kubeconfig), "kprov");
    gardener.patch_shoot(
        "rt",
        {{"metadata", {{"annotations", {{"confirmation.gardener.cloud/deletion", "true"}}}}}});
    gardener.delete_shoot("rt");
    for (int i = 0; i < 100 && gardener.get_shoot("rt"); ++i)
        std::this_thread::sleep_for(50ms);
    ClientOptions options;
    options.retry.max_attempts = 1;
    ClusterBindings port(options);
    EXPECT_THROW(port.create_operator_bindings(m_kubeconfig, {}), RemoteError);
}

} // namespace
} // namespace kprov::gardener
