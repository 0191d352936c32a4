#pragma once
// What the parts of InstallationCrInstaller (kyma_installer.cpp, kyma_cleanup.cpp,
// kyma_watch.cpp) share. Internal to src/gardener.

#include "engine/error.hpp"
#include "engine/unusable_release.hpp"
#include "gardener/kube_error.hpp"
#include "gardener/runtime_cluster_client.hpp"

#include <new>
#include <string>
#include <utility>

namespace kprov::gardener::kyma_detail {

/// The component of errors that are not a cluster request's.
inline constexpr const char* k_component = "kyma installer";

/// A client for the cluster `kubeconfig` names. Throws ConfigError for an unusable kubeconfig.
inline RuntimeClusterClient connect(const std::string& kubeconfig, const ClientOptions& options) {
    return RuntimeClusterClient::from_kubeconfig(kubeconfig, options);
}

/// Runs `f`; what it throws comes out with `prefix` before its message, as the same kind:
/// KubeError stays KubeError (status, reason, causes and request kept), RemoteError stays
/// RemoteError, anything else becomes a RemoteError of k_component (status 0, not retryable).
template <class F> decltype(auto) with_prefix(const std::string& prefix, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const KubeError& e) {
        throw KubeError(prefix + e.what(), e.http_status(), e.retryable(), e.reason(), e.causes(),
                        e.request(), e.component());
    } catch (const RemoteError& e) {
        throw RemoteError(prefix + e.what(), e.http_status(), e.retryable(), e.reason(),
                          e.component());
    } catch (const engine::UnusableRelease& e) {
        throw engine::UnusableRelease(prefix + e.what());
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw RemoteError(prefix + e.what(), 0, false, "", k_component);
    }
}

} // namespace kprov::gardener::kyma_detail
