// InstallationCrInstaller::cleanup: the Service Catalog cleanup before an uninstall
// (kyma-installation.md §4.3), in one pass and reading CRDs through apiextensions v1 first (§7.3).

#include "kyma/kyma_installer.hpp"
#include "kyma/kyma_installer_detail.hpp"
#include "kyma/kyma_objects.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using kyma_detail::with_prefix;
using nlohmann::json;

constexpr const char* k_catalog = "/apis/servicecatalog.k8s.io/v1beta1";
constexpr std::array<const char*, 3> k_catalog_crds = {
    "clusterservicebrokers.servicecatalog.k8s.io",
    "clusterserviceclasses.servicecatalog.k8s.io",
    "serviceinstances.servicecatalog.k8s.io",
};

bool crd_exists(KubeClient& kube, const std::string& name) {
    for (const char* version : {"v1", "v1beta1"})
        if (kube.get_if_exists("/apis/apiextensions.k8s.io/" + std::string(version) +
                               "/customresourcedefinitions/" + name))
            return true;
    return false;
}

std::string text_at(const json& object, const char* section, const char* key) {
    const auto s = object.find(section);
    if (s == object.end() || !s->is_object())
        return {};
    const auto v = s->find(key);
    return v != s->end() && v->is_string() ? v->get<std::string>() : std::string();
}

json items_of(KubeClient& kube, const std::string& path, const std::string& label_selector,
              const std::string& what) {
    return with_prefix("while listing " + what + ": ", [&] {
        const json list = kube.list(path, {label_selector, {}, 500});
        const auto items = list.find("items");
        return items != list.end() && items->is_array() ? *items : json::array();
    });
}

} // namespace

void InstallationCrInstaller::cleanup(const std::string& kubeconfig, const std::string& selector) {
    auto cluster = kyma_detail::connect(kubeconfig, m_options);
    KubeClient& kube = cluster.kube();
    const bool installed = with_prefix("while reading CustomResourceDefinitions: ", [&] {
        for (const char* crd : k_catalog_crds)
            if (!crd_exists(kube, crd))
                return false;
        return true;
    });
    if (!installed) {
        if (m_log)
            m_log(engine::LogLevel::Info,
                  "Service Catalog not installed properly. Cleanup skipped");
        return;
    }
    const json brokers = items_of(kube, std::string(k_catalog) + "/clusterservicebrokers", "",
                                  "ClusterServiceBrokers");
    for (const auto& broker : brokers) {
        if (!text_at(broker, "spec", "url").starts_with(selector))
            continue;
        const json classes = items_of(kube, std::string(k_catalog) + "/clusterserviceclasses",
                                      "servicecatalog.k8s.io/spec.clusterServiceBrokerName=" +
                                          sha224_hex(text_at(broker, "metadata", "name")),
                                      "ClusterServiceClasses");
        for (const auto& service_class : classes) {
            const json instances =
                items_of(kube, std::string(k_catalog) + "/serviceinstances",
                         "servicecatalog.k8s.io/spec.clusterServiceClassRef.name=" +
                             sha224_hex(text_at(service_class, "metadata", "name")),
                         "ServiceInstances");
            for (const auto& instance : instances) {
                const std::string path = std::string(k_catalog) + "/namespaces/" +
                                         text_at(instance, "metadata", "namespace") +
                                         "/serviceinstances/" +
                                         text_at(instance, "metadata", "name");
                try {
                    kube.delete_object(path);
                } catch (const RemoteError& e) {
                    warn(std::string("Service Catalog cleanup: ") + e.what());
                }
            }
        }
    }
    // Every broker, not only the matching ones, as the original did.
    for (json broker : brokers) {
        if (!broker.is_object() || !broker["metadata"].is_object())
            continue;
        const std::string path = std::string(k_catalog) + "/clusterservicebrokers/" +
                                 text_at(broker, "metadata", "name");
        broker["metadata"]["finalizers"] = json::array();
        try {
            kube.update(path, broker);
        } catch (const KubeError& e) {
            if (!e.is_not_found())
                warn(std::string("Service Catalog cleanup: ") + e.what());
        }
    }
}

} // namespace kprov::gardener
