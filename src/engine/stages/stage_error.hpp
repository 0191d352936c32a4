#pragma once
// How a stage fails: StageError carries what the original's AppError carried into lastError
// (original-provisioner.md §3.3: message, reason, component) and whether the executor may run
// the stage again (recoverable) or must fail the operation (non-recoverable).

#include "engine/error.hpp"

#include <string>
#include <string_view>

namespace kprov::engine {

// Components (original-provisioner.md §1.7).
inline constexpr std::string_view k_component_provisioner = "provisioner";
inline constexpr std::string_view k_component_gardener_client = "k8s client - gardener";
inline constexpr std::string_view k_component_cluster_client = "k8s client - cluster";
inline constexpr std::string_view k_component_gardener = "gardener"; ///< a shoot's own failure
inline constexpr std::string_view k_component_kyma_installer = "kyma installer";
/// kprov's: the KCP, where Kyma Lifecycle Manager reconciles the runtime's Kyma.
inline constexpr std::string_view k_component_lifecycle_manager = "kyma lifecycle manager";

// Reasons.
inline constexpr std::string_view k_reason_internal = "err_provisioner_internal";
inline constexpr std::string_view k_reason_timeout = "err_provisioner_timeout";
inline constexpr std::string_view k_reason_step_not_found = "err_provisioner_step_not_found";
// The Kyma installer's (kyma-installation.md §2.3-§4.4).
inline constexpr std::string_view k_reason_check_installation_state =
    "err_check_kyma_installation_state";
inline constexpr std::string_view k_reason_trigger_install = "err_trigger_kyma_install";
inline constexpr std::string_view k_reason_trigger_uninstall = "err_trigger_kyma_uninstall";
inline constexpr std::string_view k_reason_no_installation = "NoInstallation";
/// kprov's: the shoot of the runtime's name belongs to another runtime (or to nobody's).
inline constexpr std::string_view k_reason_foreign_shoot = "err_provisioner_foreign_shoot";

/// A stage's failure. An empty component reads as "provisioner"; with component "provisioner"
/// an empty reason reads as "err_provisioner_internal" (the original's defaults, §1.7).
class StageError : public Error {
public:
    StageError(std::string message, std::string reason, std::string component, bool recoverable);

    static StageError recoverable(std::string message, std::string reason = {},
                                  std::string component = {});
    static StageError non_recoverable(std::string message, std::string reason = {},
                                      std::string component = {});

    const std::string& reason() const { return m_reason; }
    const std::string& component() const { return m_component; }
    bool is_recoverable() const { return m_recoverable; }

private:
    std::string m_reason;
    std::string m_component;
    bool m_recoverable;
};

/// The Kubernetes StatusReason that an answer with `http_status` carries by convention
/// ("NotFound" for 404, "Conflict" for 409, "Invalid" for 422, ...); "" for 0 (no answer) and
/// for codes Kubernetes gives no reason.
std::string kubernetes_reason(int http_status);

/// `e` (a failed call to a port) as a StageError of `component`, with e.what() as its message
/// and kubernetes_reason(e.http_status()) as its reason.
StageError from_remote(const RemoteError& e, std::string_view component, bool recoverable);

/// The error a stage reports when the shoot it reads is gone, worded like the Kubernetes
/// client's NotFound ("shoots.core.gardener.cloud \"<name>\" not found"), reason NotFound,
/// component "k8s client - gardener"; recoverable, as any failed GET in the original.
StageError shoot_not_found(std::string_view shoot_name);

} // namespace kprov::engine
