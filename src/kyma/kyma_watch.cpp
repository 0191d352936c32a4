// InstallationCrInstaller::await_change: a watch on the Installation CR bounded by a deadline.

#include "gardener/object_watch.hpp"
#include "kyma/kyma_installer.hpp"
#include "kyma/kyma_installer_detail.hpp"
#include "kyma/kyma_objects.hpp"

namespace kprov::gardener {

bool InstallationCrInstaller::await_change(const std::string& kubeconfig,
                                           const std::string& resource_version,
                                           std::chrono::milliseconds max_wait,
                                           std::stop_token caller) {
    try {
        auto cluster = kyma_detail::connect(kubeconfig, options_for_wait(m_options, max_wait));
        return await_object_change(cluster.kube(), std::string(k_installations_path),
                                   std::string(k_installation_name), resource_version, max_wait,
                                   std::move(caller));
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace kprov::gardener
