#pragma once
// The engine's KymaInstaller port for Kyma 1.x (kyma-installation.md §7.1 backend
// "installation-cr"): the release's installer objects, the Installation CR and the override
// objects applied to the runtime cluster through kprov's own Kubernetes client, without Tiller
// and without discovery (§7.3). The objects themselves are built in kyma_objects.hpp.

#include "engine/engine_options.hpp"
#include "engine/kyma.hpp"
#include "gardener/kube_client.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace kprov::gardener {

/// Thread-safe: every call builds its own client from the kubeconfig it is given. An unusable
/// kubeconfig throws ConfigError (as RuntimeClusterClient::from_kubeconfig). Failures of the
/// cluster throw KubeError (a RemoteError: http_status(), retryable(), reason() and component()
/// "k8s client - cluster" of the failed request) whose message carries the original's prefixes,
/// e.g. "Failed to prepare installation: failed to apply Installer resources: runtime cluster:
/// POST /api/v1/namespaces: 403 Forbidden: ...". Failures that are not the cluster's (a release
/// YAML kprov cannot apply, an installation already in progress) throw RemoteError with
/// http_status() 0, not retryable, component "kyma installer".
class InstallationCrInstaller final : public engine::KymaInstaller {
public:
    /// `options` for the runtime clusters' clients (as ClusterBindings takes them; label
    /// "runtime cluster" unless set); `log` (may be empty) hears warnings such as a release's
    /// Tiller YAML being ignored and cleanup errors that are swallowed.
    explicit InstallationCrInstaller(ClientOptions options = {}, engine::LogSink log = {});

    /// "installation-cr"
    std::string_view name() const override;

    /// GET default/kyma-installation mapped by probe_of (404: no_installation_probe()).
    engine::InstallationProbe probe(const std::string& kubeconfig) override;

    /// §2.4 without Tiller: the installer objects (POST; on 409 GET and PUT with the live
    /// resourceVersion), the Installation CR, the override ConfigMaps and Secrets (merged into
    /// existing ones unless conflict-strategy Replace), then the label action=install (re-read
    /// and retried on 409). Errors: "Failed to prepare installation: <step>: <err>" with <step>
    /// one of "failed to apply Installer resources", "failed to apply Installation resources",
    /// "failed to create configuration config maps", "failed to create configuration secrets";
    /// "Failed to start Kyma installation: failed to trigger installation, installation already
    /// in progress"; "Failed to start Kyma installation: failed to get Installation CR: <err>";
    /// "Failed to start Kyma installation: failed label Installation CR: <err>".
    void install(const std::string& kubeconfig, const engine::KymaConfig& config) override;

    /// Deletes Deployment kyma-installer/kyma-installer (absent: fine), then as install() with
    /// "Failed to prepare upgrade: ..." and "Failed to start Kyma upgrade: ..."; a failed
    /// delete is "Failed to prepare upgrade: failed to delete the installer Deployment: <err>".
    void upgrade(const std::string& kubeconfig, const engine::KymaConfig& config) override;

    /// Labels the CR action=uninstall (re-read and retried on 409). False when there is no CR
    /// (§7.4). Errors: "error getting Installation CR: <err>", "error labeling Installation CR
    /// with action=uninstall label: <err>".
    bool uninstall(const std::string& kubeconfig) override;

    /// One pass of §4.3: skipped (true success) when one of the three Service Catalog CRDs is
    /// absent under apiextensions v1 and v1beta1; instance deletions and finalizer removals
    /// that fail are logged and swallowed. Errors: "while reading CustomResourceDefinitions:
    /// <err>", "while listing ClusterServiceBrokers: <err>", "while listing
    /// ClusterServiceClasses: <err>", "while listing ServiceInstances: <err>".
    void cleanup(const std::string& kubeconfig, const std::string& selector) override;

    /// Watches default/kyma-installation from `resource_version` for at most `max_wait` or
    /// until `stop`; true on the first ADDED, MODIFIED or DELETED event (or, when the watch had
    /// to list, a CR whose resourceVersion differs). False on timeout, stop and any error;
    /// throws nothing. Many may wait at once: the deadlines share one timer thread.
    bool await_change(const std::string& kubeconfig, const std::string& resource_version,
                      std::chrono::milliseconds max_wait, std::stop_token stop) override;

private:
    enum class Mode { Install, Upgrade };
    void trigger(const std::string& kubeconfig, const engine::KymaConfig& config, Mode mode);
    void warn(const std::string& message) const;

    ClientOptions m_options;
    engine::LogSink m_log;
};

} // namespace kprov::gardener
