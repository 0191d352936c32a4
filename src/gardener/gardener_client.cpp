#include "gardener/gardener_client.hpp"

#include "engine/error.hpp"
#include "gardener/kube_error.hpp"
#include "net/base64.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

constexpr const char* k_shoots_api = "/apis/core.gardener.cloud/v1beta1";
constexpr int k_conflict_attempts = 5;

ClientOptions gardener_options(ClientOptions options) {
    if (options.label.empty())
        options.label = "gardener";
    if (options.component.empty())
        options.component = "k8s client - gardener";
    return options;
}

} // namespace

std::string object_name(const json& object, const char* what) {
    const auto meta = object.find("metadata");
    if (meta != object.end() && meta->is_object()) {
        const std::string name = meta->value("name", "");
        if (!name.empty())
            return name;
    }
    throw Error(std::string("the ") + what + " to write has no metadata.name");
}

GardenerClient::GardenerClient(std::shared_ptr<KubeClient> client, std::string project)
    : m_client(std::move(client))
    , m_project(std::move(project))
    , m_namespace("garden-" + m_project) {}

GardenerClient::GardenerClient(const Kubeconfig& kubeconfig, std::string project,
                               ClientOptions options)
    : GardenerClient(std::make_shared<KubeClient>(kubeconfig, gardener_options(std::move(options))),
                     std::move(project)) {}

std::string GardenerClient::shoots_path() const {
    return std::string(k_shoots_api) + "/namespaces/" + m_namespace + "/shoots";
}

std::string GardenerClient::shoot_path(const std::string& name) const {
    return shoots_path() + "/" + name;
}

std::string GardenerClient::config_maps_path() const {
    return "/api/v1/namespaces/" + m_namespace + "/configmaps";
}

std::optional<json> GardenerClient::get_shoot(const std::string& name) {
    return m_client->get_if_exists(shoot_path(name));
}

json GardenerClient::list_shoots(const std::string& label_selector) {
    return m_client->list(shoots_path(), {label_selector, {}, 500});
}

json GardenerClient::create_shoot(const json& shoot) {
    return m_client->create(shoots_path(), shoot);
}

json GardenerClient::update_shoot(const json& shoot) {
    return m_client->update(shoot_path(object_name(shoot, "shoot")), shoot);
}

json GardenerClient::patch_shoot(const std::string& name, const json& merge_patch) {
    return m_client->merge_patch(shoot_path(name), merge_patch);
}

bool GardenerClient::delete_shoot(const std::string& name) {
    return m_client->delete_object(shoot_path(name)).has_value();
}

void GardenerClient::watch_shoots(const std::string& from_resource_version,
                                  const WatchCallback& callback, std::stop_token stop,
                                  const std::string& label_selector,
                                  std::vector<std::string> object_fields) {
    m_client->watch(shoots_path(),
                    {from_resource_version, label_selector, {}, std::move(object_fields)}, callback,
                    std::move(stop));
}

std::string GardenerClient::admin_kubeconfig(const std::string& shoot_name,
                                             std::chrono::seconds expiration) {
    const json request = {{"apiVersion", "authentication.gardener.cloud/v1alpha1"},
                          {"kind", "AdminKubeconfigRequest"},
                          {"spec", {{"expirationSeconds", expiration.count()}}}};
    const std::string path = shoot_path(shoot_name) + "/adminkubeconfig";
    const json answer = m_client->create(path, request);
    const auto status = answer.find("status");
    if (status != answer.end() && status->is_object()) {
        const std::string encoded = status->value("kubeconfig", "");
        if (auto decoded = net::base64_decode(encoded); decoded && !decoded->empty())
            return *decoded;
    }
    throw KubeError("gardener: POST " + path + ": the answer has no valid status.kubeconfig", 201,
                    false, "", {}, "POST " + path, "k8s client - gardener");
}

std::optional<json> GardenerClient::get_seed(const std::string& name) {
    return m_client->get_if_exists(std::string(k_shoots_api) + "/seeds/" + name);
}

std::optional<json> GardenerClient::get_config_map(const std::string& name) {
    return m_client->get_if_exists(config_maps_path() + "/" + name);
}

json GardenerClient::create_config_map(const json& config_map) {
    return m_client->create(config_maps_path(), config_map);
}

json GardenerClient::update_config_map(const json& config_map) {
    return m_client->update(config_maps_path() + "/" + object_name(config_map, "config map"),
                            config_map);
}

json GardenerClient::create_or_update_config_map(const json& config_map) {
    const std::string name = object_name(config_map, "config map");
    for (int attempt = 1;; ++attempt) {
        try {
            auto current = get_config_map(name);
            if (!current)
                return create_config_map(config_map);
            json desired = config_map;
            desired["metadata"]["resourceVersion"] =
                (*current)["metadata"].value("resourceVersion", "");
            return update_config_map(desired);
        } catch (const KubeError& e) {
            // Someone else created or changed it between our read and our write: read again.
            if (!(e.is_already_exists() || e.is_conflict()) || attempt >= k_conflict_attempts)
                throw;
        }
    }
}

bool GardenerClient::delete_config_map(const std::string& name) {
    return m_client->delete_object(config_maps_path() + "/" + name).has_value();
}

} // namespace kprov::gardener
