#include "gardener/runtime_cluster_client.hpp"

#include "gardener/gardener_client.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

constexpr const char* k_rbac = "/apis/rbac.authorization.k8s.io/v1";

std::string namespaced(const std::string& ns, const char* resource) {
    return "/api/v1/namespaces/" + ns + "/" + resource;
}

} // namespace

RuntimeClusterClient::RuntimeClusterClient(std::shared_ptr<KubeClient> client)
    : m_client(std::move(client)) {}

RuntimeClusterClient RuntimeClusterClient::from_kubeconfig(const std::string& kubeconfig_yaml,
                                                           ClientOptions options) {
    return connect(parse_remote_kubeconfig(kubeconfig_yaml, "<runtime cluster admin kubeconfig>"),
                   std::move(options));
}

RuntimeClusterClient RuntimeClusterClient::connect(Kubeconfig config, ClientOptions options) {
    if (options.label.empty())
        options.label = "runtime cluster";
    if (options.component.empty())
        options.component = "k8s client - cluster";
    return RuntimeClusterClient(
        std::make_shared<KubeClient>(std::move(config), std::move(options)));
}

std::optional<json> RuntimeClusterClient::get_namespace(const std::string& name) {
    return m_client->get_if_exists("/api/v1/namespaces/" + name);
}

bool RuntimeClusterClient::create_namespace(const std::string& name, const json& labels) {
    json object = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    if (labels.is_object() && !labels.empty())
        object["metadata"]["labels"] = labels;
    return m_client->create_if_absent("/api/v1/namespaces", object);
}

bool RuntimeClusterClient::create_cluster_role(const json& cluster_role) {
    object_name(cluster_role, "cluster role");
    return m_client->create_if_absent(std::string(k_rbac) + "/clusterroles", cluster_role);
}

bool RuntimeClusterClient::create_cluster_role_binding(const json& binding) {
    object_name(binding, "cluster role binding");
    return m_client->create_if_absent(std::string(k_rbac) + "/clusterrolebindings", binding);
}

json RuntimeClusterClient::list_cluster_role_bindings(const std::string& label_selector) {
    return m_client->list(std::string(k_rbac) + "/clusterrolebindings", {label_selector, {}, 500});
}

void RuntimeClusterClient::delete_cluster_role_bindings(const std::string& label_selector) {
    m_client->delete_collection(std::string(k_rbac) + "/clusterrolebindings",
                                {label_selector, {}, 0});
}

std::optional<json> RuntimeClusterClient::get_secret(const std::string& ns,
                                                     const std::string& name) {
    return m_client->get_if_exists(namespaced(ns, "secrets") + "/" + name);
}

bool RuntimeClusterClient::create_secret(const std::string& ns, const json& secret) {
    object_name(secret, "secret");
    return m_client->create_if_absent(namespaced(ns, "secrets"), secret);
}

json RuntimeClusterClient::update_secret(const std::string& ns, const json& secret) {
    return m_client->update(namespaced(ns, "secrets") + "/" + object_name(secret, "secret"),
                            secret);
}

bool RuntimeClusterClient::delete_secret(const std::string& ns, const std::string& name) {
    return m_client->delete_object(namespaced(ns, "secrets") + "/" + name).has_value();
}

std::optional<json> RuntimeClusterClient::get_config_map(const std::string& ns,
                                                         const std::string& name) {
    return m_client->get_if_exists(namespaced(ns, "configmaps") + "/" + name);
}

bool RuntimeClusterClient::create_config_map(const std::string& ns, const json& config_map) {
    object_name(config_map, "config map");
    return m_client->create_if_absent(namespaced(ns, "configmaps"), config_map);
}

} // namespace kprov::gardener
