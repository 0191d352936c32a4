#include "kyma/kcp_client.hpp"

#include "gardener/kube_error.hpp"
#include "gardener/object_watch.hpp"
#include "net/base64.hpp"
#include "net/remote_values.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

// Enough for any real Kyma (KLM's catalog has a few dozen modules); a longer list is cut.
constexpr std::size_t k_max_modules = 512;
// Re-reads after a 409 before giving up (someone else keeps writing the object).
constexpr int k_conflict_tries = 5;

const json& field_of(const json& object, const char* key) {
    static const json null;
    if (!object.is_object())
        return null;
    const auto it = object.find(key);
    return it == object.end() ? null : *it;
}

std::string text(const json& object, const char* key) {
    const json& value = field_of(object, key);
    return value.is_string() ? net::clean_remote_text(value.get<std::string>()) : std::string();
}

json string_map(const std::map<std::string, std::string>& values) {
    json out = json::object();
    for (const auto& [k, v] : values)
        out[k] = v;
    return out;
}

// Sets kprov's keys on the object's metadata map `key`, keeping whatever else is there.
void set_entries(json& metadata, const char* key, const std::map<std::string, std::string>& ours) {
    json& map = metadata[key];
    if (!map.is_object())
        map = json::object();
    for (const auto& [k, v] : ours)
        map[k] = v;
}

template <typename Write> json with_conflict_retries(Write write) {
    for (int attempt = 1;; ++attempt) {
        try {
            return write();
        } catch (const KubeError& e) {
            if (!(e.is_conflict() || e.is_already_exists()) || attempt == k_conflict_tries)
                throw;
        }
    }
}

} // namespace

json kyma_object(const engine::KymaResource& kyma, const std::string& namespace_name) {
    json modules = json::array();
    for (const auto& m : kyma.modules) {
        json module = {{"name", m.name}};
        if (!m.channel.empty())
            module["channel"] = m.channel;
        modules.push_back(std::move(module));
    }
    return {{"apiVersion", "operator.kyma-project.io/v1beta2"},
            {"kind", "Kyma"},
            {"metadata",
             {{"name", kyma.name},
              {"namespace", namespace_name},
              {"labels", string_map(kyma.labels)},
              {"annotations", string_map(kyma.annotations)}}},
            {"spec", {{"channel", kyma.channel}, {"modules", modules}}}};
}

engine::KymaState kyma_state_of(const json& object) {
    engine::KymaState state;
    const json& metadata = field_of(object, "metadata");
    state.resource_version = text(metadata, "resourceVersion");
    state.deleting = field_of(metadata, "deletionTimestamp").is_string();
    const json& spec = field_of(object, "spec");
    state.channel = text(spec, "channel");
    if (const json& modules = field_of(spec, "modules"); modules.is_array())
        for (const auto& m : modules) {
            if (state.spec_modules.size() == k_max_modules)
                break;
            state.spec_modules.push_back(text(m, "name"));
        }
    const json& status = field_of(object, "status");
    state.state = text(status, "state");
    state.last_operation = text(field_of(status, "lastOperation"), "operation");
    if (const json& modules = field_of(status, "modules"); modules.is_array())
        for (const auto& m : modules) {
            if (state.modules.size() == k_max_modules)
                break;
            state.modules.push_back({text(m, "name"), text(m, "state"), text(m, "message")});
        }
    return state;
}

KcpClient::KcpClient(Kubeconfig kcp, std::string namespace_name, ClientOptions options)
    : m_kubeconfig(kcp)
    , m_options([&] {
        if (options.label.empty())
            options.label = "kcp";
        if (options.component.empty())
            options.component = "k8s client - kcp";
        return std::move(options);
    }())
    , m_kube(std::move(kcp), m_options)
    , m_namespace(std::move(namespace_name)) {}

KcpClient::~KcpClient() = default;

const std::string& KcpClient::server() const {
    return m_kube.server();
}

std::string KcpClient::secrets_path() const {
    return "/api/v1/namespaces/" + m_namespace + "/secrets";
}

std::string KcpClient::kymas_path() const {
    return "/apis/operator.kyma-project.io/v1beta2/namespaces/" + m_namespace + "/kymas";
}

std::vector<std::string> KcpClient::apply_secret(const engine::KymaAccessSecret& secret) {
    std::vector<std::string> removed;
    ListOptions same_kyma;
    const auto kyma = secret.labels.find(std::string(engine::k_kyma_name_label));
    if (kyma != secret.labels.end()) {
        same_kyma.label_selector = std::string(engine::k_kyma_name_label) + "=" + kyma->second;
        const json list = m_kube.list(secrets_path(), same_kyma);
        for (const auto& item : field_of(list, "items")) {
            const std::string name = text(field_of(item, "metadata"), "name");
            if (!name.empty() && name != secret.name &&
                m_kube.delete_object(secrets_path() + "/" + name))
                removed.push_back(name);
        }
    }
    const std::string path = secrets_path() + "/" + secret.name;
    const std::string data = net::base64_encode(secret.kubeconfig);
    with_conflict_retries([&] {
        auto live = m_kube.get_if_exists(path);
        if (!live) {
            return m_kube.create(secrets_path(),
                                 {{"apiVersion", "v1"},
                                  {"kind", "Secret"},
                                  {"metadata",
                                   {{"name", secret.name},
                                    {"namespace", m_namespace},
                                    {"labels", string_map(secret.labels)},
                                    {"annotations", string_map(secret.annotations)}}},
                                  {"type", "Opaque"},
                                  {"data", {{"config", data}}}});
        }
        json& metadata = (*live)["metadata"];
        set_entries(metadata, "labels", secret.labels);
        set_entries(metadata, "annotations", secret.annotations);
        json& stored = (*live)["data"];
        if (!stored.is_object())
            stored = json::object();
        stored["config"] = data;
        return m_kube.update(path, *live);
    });
    return removed;
}

bool KcpClient::delete_secret(const std::string& name) {
    return m_kube.delete_object(secrets_path() + "/" + name).has_value();
}

std::vector<engine::KymaAccessSecretInfo> KcpClient::list_secrets() {
    ListOptions owned;
    owned.label_selector = std::string(engine::k_kyma_secret_owner_label) + "=kprov";
    const json list = m_kube.list(secrets_path(), owned);
    std::vector<engine::KymaAccessSecretInfo> out;
    for (const auto& item : field_of(list, "items")) {
        const json& metadata = field_of(item, "metadata");
        engine::KymaAccessSecretInfo info;
        info.name = text(metadata, "name");
        info.runtime_id = text(field_of(metadata, "labels"),
                               std::string(engine::k_kyma_runtime_id_label).c_str());
        const std::string sync = text(field_of(metadata, "annotations"),
                                      std::string(engine::k_kyma_last_sync_annotation).c_str());
        info.last_sync = parse_db_time(sync);
        if (!info.name.empty() && !info.runtime_id.empty())
            out.push_back(std::move(info));
    }
    return out;
}

engine::KymaState KcpClient::apply_kyma(const engine::KymaResource& kyma) {
    const std::string path = kymas_path() + "/" + kyma.name;
    return kyma_state_of(with_conflict_retries([&] {
        auto live = m_kube.get_if_exists(path);
        if (!live)
            return m_kube.create(kymas_path(), kyma_object(kyma, m_namespace));
        json& metadata = (*live)["metadata"];
        set_entries(metadata, "labels", kyma.labels);
        set_entries(metadata, "annotations", kyma.annotations);
        return m_kube.update(path, *live);
    }));
}

std::optional<engine::KymaState> KcpClient::read_kyma(const std::string& name) {
    const auto object = m_kube.get_if_exists(kymas_path() + "/" + name);
    if (!object)
        return std::nullopt;
    return kyma_state_of(*object);
}

bool KcpClient::delete_kyma(const std::string& name) {
    return m_kube.delete_object(kymas_path() + "/" + name).has_value();
}

bool KcpClient::await_change(const std::string& name, const std::string& resource_version,
                             std::chrono::milliseconds max_wait, std::stop_token stop) {
    try {
        KubeClient watcher(m_kubeconfig, options_for_wait(m_options, max_wait));
        return await_object_change(watcher, kymas_path(), name, resource_version, max_wait,
                                   std::move(stop));
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace kprov::gardener
