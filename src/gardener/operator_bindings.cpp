#include "gardener/operator_bindings.hpp"

#include "gardener/kube_error.hpp"
#include "gardener/runtime_cluster_client.hpp"
#include "net/base64.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

constexpr const char* k_rbac_group = "rbac.authorization.k8s.io";
constexpr const char* k_rbac_version = "rbac.authorization.k8s.io/v1";
constexpr const char* k_l2_role = "l2-operator";
constexpr const char* k_aggregate_to_l2 = "rbac.authorization.k8s.io/aggregate-to-l2-operator";

json object(const char* kind, const std::string& name, const json& labels) {
    return {{"apiVersion", k_rbac_version},
            {"kind", kind},
            {"metadata", {{"name", name}, {"labels", labels}}}};
}

json binding(const std::string& name, const char* subject_kind, const std::string& subject,
             const std::string& cluster_role) {
    const json labels = {{"app", "kyma"}, {"reconciler.kyma-project.io/managed-by", "reconciler"}};
    json b = object("ClusterRoleBinding", name, labels);
    b["subjects"] =
        json::array({{{"kind", subject_kind}, {"apiGroup", k_rbac_group}, {"name", subject}}});
    b["roleRef"] = {{"apiGroup", k_rbac_group}, {"kind", "ClusterRole"}, {"name", cluster_role}};
    return b;
}

} // namespace

std::vector<json> operator_cluster_roles() {
    json l2 = object("ClusterRole", k_l2_role, {{"app", "kyma"}});
    l2["aggregationRule"] = {
        {"clusterRoleSelectors",
         json::array({{{"matchLabels", {{"rbac.authorization.k8s.io/aggregate-to-edit", "true"}}}},
                      {{"matchLabels", {{k_aggregate_to_l2, "true"}}}}})}};
    json rules =
        object("ClusterRole", "l2-operator-rules", {{"app", "kyma"}, {k_aggregate_to_l2, "true"}});
    rules["rules"] = json::array(
        {{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"get", "list", "watch"}}}});
    return {l2, rules};
}

std::vector<json> operator_cluster_role_bindings(const engine::OperatorBindings& bindings) {
    std::vector<json> out = {
        binding("l2-operator", "Group", bindings.l2_subject_name, k_l2_role),
        binding("l3-operator-admin", "Group", bindings.l3_subject_name, "cluster-admin"),
    };
    if (bindings.create_for_administrators)
        for (std::size_t i = 0; i < bindings.administrators.size(); ++i)
            out.push_back(binding("administrator" + std::to_string(i), "User",
                                  bindings.administrators[i], "cluster-admin"));
    return out;
}

json agent_configuration_secret(const engine::AgentConfiguration& agent) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"type", "Opaque"},
            {"metadata", {{"name", k_agent_secret}, {"namespace", k_agent_namespace}}},
            {"data",
             {{"CONNECTOR_URL", net::base64_encode(agent.connector_url)},
              {"RUNTIME_ID", net::base64_encode(agent.runtime_id)},
              {"TENANT", net::base64_encode(agent.tenant)},
              {"TOKEN", net::base64_encode(agent.token)}}}};
}

ClusterBindings::ClusterBindings(ClientOptions options)
    : m_options(std::move(options))
    , m_connections(std::make_unique<ClusterConnections>(ConnectionLimits{}, m_options.clock)) {}

ClusterBindings::~ClusterBindings() = default;

gardener::RuntimeClusterClient ClusterBindings::connect(const std::string& kubeconfig) {
    Kubeconfig config = parse_remote_kubeconfig(kubeconfig, "<runtime cluster admin kubeconfig>");
    ClientOptions options = m_options;
    if (!options.transport)
        options.transport = m_connections->transport_for(config);
    return gardener::RuntimeClusterClient::connect(std::move(config), std::move(options));
}

void ClusterBindings::create_operator_bindings(const std::string& kubeconfig,
                                               const engine::OperatorBindings& bindings) {
    auto cluster = connect(kubeconfig);
    cluster.create_namespace("istio-system", json::object());
    for (const auto& role : operator_cluster_roles())
        cluster.create_cluster_role(role);
    // The original deletes and recreates its bindings, so that changed subjects (another L2
    // group, administrators removed by an upgrade) never linger.
    cluster.delete_cluster_role_bindings(k_managed_bindings_selector);
    for (const auto& b : operator_cluster_role_bindings(bindings))
        cluster.create_cluster_role_binding(b);
}

void ClusterBindings::configure_runtime_agent(const std::string& kubeconfig,
                                              const engine::AgentConfiguration& agent) {
    auto cluster = connect(kubeconfig);
    cluster.create_namespace("istio-system", json::object());
    cluster.create_namespace(k_agent_namespace, json::object());
    const json secret = agent_configuration_secret(agent);
    // A conflict means someone wrote the secret between our read and our write: read again.
    for (int attempt = 1; attempt <= 3; ++attempt) {
        if (cluster.create_secret(k_agent_namespace, secret))
            return;
        const auto existing = cluster.get_secret(k_agent_namespace, k_agent_secret);
        if (!existing)
            continue; // deleted meanwhile: create it again
        json updated = secret;
        updated["metadata"]["resourceVersion"] =
            existing->at("metadata").value("resourceVersion", std::string());
        try {
            cluster.update_secret(k_agent_namespace, updated);
            return;
        } catch (const KubeError& e) {
            if (!e.is_conflict())
                throw;
        }
    }
    throw Error(std::string("runtime cluster: the Secret ") + k_agent_namespace + "/" +
                k_agent_secret + " kept changing while kprov wrote it; try again");
}

std::optional<std::string>
ClusterBindings::compass_connection_state(const std::string& kubeconfig) {
    constexpr std::size_t k_max_state = 256;
    auto cluster = connect(kubeconfig);
    const auto connection = cluster.kube().get_if_exists(
        "/apis/compass.kyma-project.io/v1alpha1/compassconnections/compass-connection");
    if (!connection)
        return std::nullopt;
    const auto status = connection->find("status");
    if (status == connection->end() || !status->is_object())
        return std::string();
    const auto state = status->find("connectionState");
    if (state == status->end() || !state->is_string())
        return std::string();
    return state->get<std::string>().substr(0, k_max_state);
}

} // namespace kprov::gardener
