// InstallationCrInstaller: probe, install, upgrade and uninstall (kyma-installation.md §2.4,
// §2.5, §3.2, §4.4, with the fixes of §7.3 and §7.4).

#include "kyma/kyma_installer.hpp"

#include "kyma/kyma_installer_detail.hpp"
#include "kyma/kyma_objects.hpp"

#include <functional>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using kyma_detail::k_component;
using kyma_detail::with_prefix;
using nlohmann::json;

// Reads again after a 409 this often before giving up: the installer writes the CR's status
// while it works, so a conflict is usual, not a failure (§7.4).
constexpr int k_write_attempts = 5;

const std::string k_installation_path =
    std::string(k_installations_path) + "/" + std::string(k_installation_name);
constexpr const char* k_installer_deployment =
    "/apis/apps/v1/namespaces/kyma-installer/deployments/kyma-installer";

std::string object_name(const json& object) {
    return object.at("metadata").at("name").get<std::string>();
}

// PUTs `build(live)` over the live object at `path`, reading it again when the PUT met a newer
// version.
void put_over_live(KubeClient& kube, const std::string& path,
                   const std::function<json(const json& live)>& build) {
    for (int attempt = 1;; ++attempt) {
        const json live = kube.get(path);
        try {
            kube.update(path, build(live));
            return;
        } catch (const KubeError& e) {
            if (!e.is_conflict() || attempt == k_write_attempts)
                throw;
        }
    }
}

// POSTs `object` to `collection`; when it exists, PUTs `build(live)` over it.
void create_or_replace(KubeClient& kube, const std::string& collection, const json& object,
                       const std::function<json(const json& live)>& build) {
    if (!kube.create_if_absent(collection, object))
        put_over_live(kube, collection + "/" + object_name(object), build);
}

// True when the cluster's discovery lists the resource of `object` under its apiVersion.
bool cluster_serves(KubeClient& kube, const json& object) {
    const std::string api_version = object.value("apiVersion", "");
    const KindInfo* info = find_kind(api_version, object.value("kind", ""));
    const auto list = kube.get_if_exists(
        (api_version.find('/') == std::string::npos ? "/api/" : "/apis/") + api_version);
    if (!info || !list || !list->is_object())
        return false;
    for (const auto& resource : list->value("resources", json::array()))
        if (resource.is_object() && resource.value("name", "") == info->plural)
            return true;
    return false;
}

void apply_resources(KubeClient& kube, const std::vector<json>& resources,
                     const std::string& release) {
    for (const auto& object : resources) {
        try {
            create_or_replace(kube, collection_path(object), object,
                              [&](const json& live) { return replacement_for(live, object); });
        } catch (const KubeError& e) {
            // A 404 of a collection whose namespace is not there yet may pass; one of an API
            // version the cluster does not serve (Kubernetes removed apiextensions.k8s.io/v1beta1
            // in 1.22, policy/v1beta1 in 1.25) never does: the release cannot go on this cluster.
            if (!e.is_not_found() || cluster_serves(kube, object))
                throw;
            throw engine::UnusableRelease(
                "the runtime cluster does not serve " + object.value("apiVersion", "") + " " +
                object.value("kind", "") + " (\"" + object_name(object) +
                "\" of the installer YAML of Kyma " + release +
                "); expected a release whose objects use API versions the cluster's Kubernetes "
                "version serves");
        }
    }
}

void apply_overrides(KubeClient& kube, const std::vector<json>& objects, const char* plural) {
    const std::string collection =
        "/api/v1/namespaces/" + std::string(k_installer_namespace) + "/" + plural;
    for (const auto& object : objects)
        create_or_replace(kube, collection, object,
                          [&](const json& live) { return merged_override(live, object); });
}

std::string state_of(const json& cr) {
    if (auto s = cr.find("status"); s != cr.end() && s->is_object())
        if (auto state = s->find("state"); state != s->end() && state->is_string())
            return state->get<std::string>();
    return {};
}

// Sets label action=<action> on `cr` and PUTs it; after a 409 reads the CR again and retries.
// `before` sees every copy first and may throw. False when the CR vanished meanwhile.
bool label_installation(KubeClient& kube, json cr, const std::string& action,
                        const std::string& error_prefix,
                        const std::function<void(const json&)>& before) {
    for (int attempt = 1;; ++attempt) {
        before(cr);
        json& labels = cr["metadata"]["labels"];
        if (!labels.is_object())
            labels = json::object();
        labels["action"] = action;
        try {
            with_prefix(error_prefix, [&] { kube.update(k_installation_path, cr); });
            return true;
        } catch (const KubeError& e) {
            if (!e.is_conflict() || attempt == k_write_attempts)
                throw;
        }
        auto fresh =
            with_prefix(error_prefix, [&] { return kube.get_if_exists(k_installation_path); });
        if (!fresh)
            return false;
        cr = std::move(*fresh);
    }
}

void start_installation(KubeClient& kube) {
    const json cr = with_prefix("failed to get Installation CR: ",
                                [&] { return kube.get(k_installation_path); });
    const bool labeled = label_installation(
        kube, cr, "install", "failed label Installation CR: ", [](const json& current) {
            if (state_of(current) == "InProgress")
                throw RemoteError("failed to trigger installation, "
                                  "installation already in progress",
                                  0, false, "", k_component);
        });
    if (!labeled)
        throw RemoteError("failed label Installation CR: the Installation CR " +
                              std::string(k_installation_name) + " was deleted meanwhile",
                          404, true, "NotFound", k_component);
}

} // namespace

InstallationCrInstaller::InstallationCrInstaller(ClientOptions options, engine::LogSink log)
    : m_options(std::move(options))
    , m_log(std::move(log)) {}

std::string_view InstallationCrInstaller::name() const {
    return "installation-cr";
}

void InstallationCrInstaller::warn(const std::string& message) const {
    if (m_log)
        m_log(engine::LogLevel::Warning, message);
}

engine::InstallationProbe InstallationCrInstaller::probe(const std::string& kubeconfig) {
    auto cluster = kyma_detail::connect(kubeconfig, m_options);
    const auto cr = cluster.kube().get_if_exists(k_installation_path);
    return cr ? probe_of(*cr) : no_installation_probe();
}

void InstallationCrInstaller::install(const std::string& kubeconfig,
                                      const engine::KymaConfig& config) {
    trigger(kubeconfig, config, Mode::Install);
}

void InstallationCrInstaller::upgrade(const std::string& kubeconfig,
                                      const engine::KymaConfig& config) {
    trigger(kubeconfig, config, Mode::Upgrade);
}

void InstallationCrInstaller::trigger(const std::string& kubeconfig,
                                      const engine::KymaConfig& config, Mode mode) {
    auto cluster = kyma_detail::connect(kubeconfig, m_options);
    KubeClient& kube = cluster.kube();
    const bool upgrade = mode == Mode::Upgrade;
    if (!config.release.tiller_yaml.empty())
        warn("Kyma release " + config.release.version +
             " carries Tiller YAML; kprov never applies it (Kyma < 1.14 is not supported)");

    with_prefix(upgrade ? "Failed to prepare upgrade: " : "Failed to prepare installation: ", [&] {
        if (upgrade)
            with_prefix("failed to delete the installer Deployment: ",
                        [&] { kube.delete_object(k_installer_deployment); });
        const InstallerManifest manifest =
            with_prefix("failed to apply Installer resources: ", [&] {
                InstallerManifest m = parse_installer_yaml(config.release.installer_yaml);
                apply_resources(kube, m.resources, config.release.version);
                return m;
            });
        with_prefix("failed to apply Installation resources: ", [&] {
            for (const auto& template_cr : manifest.installation) {
                const json cr = installation_cr(template_cr, config);
                create_or_replace(kube, std::string(k_installations_path), cr,
                                  [&](const json& live) { return replacement_for(live, cr); });
            }
        });
        const OverrideObjects overrides = override_objects(config);
        with_prefix("failed to create configuration config maps: ",
                    [&] { apply_overrides(kube, overrides.config_maps, "configmaps"); });
        with_prefix("failed to create configuration secrets: ",
                    [&] { apply_overrides(kube, overrides.secrets, "secrets"); });
    });
    with_prefix(upgrade ? "Failed to start Kyma upgrade: " : "Failed to start Kyma installation: ",
                [&] { start_installation(kube); });
}

bool InstallationCrInstaller::uninstall(const std::string& kubeconfig) {
    auto cluster = kyma_detail::connect(kubeconfig, m_options);
    KubeClient& kube = cluster.kube();
    const auto cr = with_prefix("error getting Installation CR: ",
                                [&] { return kube.get_if_exists(k_installation_path); });
    if (!cr)
        return false;
    return label_installation(
        kube, *cr, "uninstall",
        "error labeling Installation CR with action=uninstall label: ", [](const json&) {});
}

} // namespace kprov::gardener
