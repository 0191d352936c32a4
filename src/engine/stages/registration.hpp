#pragma once
// Compass Director in the engine (original-provisioner.md §2.3, §2.4, §3.2, §6): registration
// when a provisioning is accepted, the Director parts of the provisioning and deprovisioning
// stages, and the FAILED status of failed operations. Everything goes through
// EngineOptions::director and its Director port; nothing here runs when it is off.
//
// Idempotence. A runtime's id is its Director id, registered once in the request (the
// EngineService), before anything is stored: a crash between registering and storing leaves a
// Director runtime without a kprov runtime (and no shoot), as in the original, and a failed
// store write unregisters it. The stages then only read, update and unregister that id, so
// running one again after a crash registers nothing twice: the labels and the status are
// written again with the same values, ConnectRuntimeAgent asks for a new one-time token and
// replaces the secret, and deprovisioning unregisters only a runtime Director still knows.

#include "engine/engine_options.hpp"
#include "engine/engine_ports.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"
#include "engine/stages/stages.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kprov::engine {

/// Labels Director's runtime gets once the shoot's domain is known.
inline constexpr std::string_view k_label_gardener_cluster_name = "gardenerClusterName";
inline constexpr std::string_view k_label_gardener_cluster_domain = "gardenerClusterDomain";

/// The runtime's Director id for answers (compassRuntimeID): its id while registration is on
/// (the original's rule), else nullopt.
std::optional<std::string> compass_runtime_id(const DirectorOptions& director,
                                              const std::string& runtime_id);
std::optional<std::string> compass_runtime_id(const EngineOptions& options,
                                              const std::string& runtime_id);

/// registerRuntime for a new runtime (name, description and labels of its input); returns the
/// id Director gave it. `request_id` (the planned runtime id) makes a retried registration find
/// its runtime instead of registering a second one (DirectorRuntimeInput::request_id). Throws
/// DirectorError with the message prefixed "Failed to register Runtime, " (the original's
/// wording).
std::string register_runtime(Director& director, const std::string& name,
                             const std::string& description, const std::string& labels_json,
                             const std::string& tenant, const std::string& request_id = {});

/// unregisterRuntime through `ports.director` (nothing without one), best effort: failures (and
/// a runtime Director no longer knows) are only logged through `ports.log`.
void unregister_quietly(const EnginePorts& ports, const std::string& runtime_id,
                        const std::string& tenant);

/// `e` as a StageError with e's component and reason and `prefix` before its message:
/// recoverable while e is retryable and the operation has failed fewer than
/// DirectorOptions::max_failed_passes passes in a row (this one included), else non-recoverable.
StageError director_stage_error(const StageContext& context, const DirectorError& e,
                                std::string_view prefix = {});

/// WaitingForClusterDomain with registration on: the Director runtime gets the labels
/// gardenerClusterName and gardenerClusterDomain on top of its own, and status PROVISIONING.
/// A runtime Director does not know (provisioned while registration was off) is left alone,
/// with a warning. Throws StageError (director_stage_error) when Director fails.
void label_runtime_in_director(StageContext& context, const std::string& domain);

/// ConnectRuntimeAgent: an admin kubeconfig (a failed request waits 20 s), a one-time token
/// from Director, then the namespaces and the Secret compass-agent-configuration in the
/// runtime cluster; then WaitForAgentToConnect for a runtime with Kyma (the agent is one of its
/// components), else Finished. Errors are prefixed "failed to configure Runtime Agent: ".
StageResult connect_runtime_agent(StageContext& context);
/// WaitForAgentToConnect (original-provisioner.md §10, 2020-2023): reads the agent's
/// CompassConnection. None yet: again in 5 s; ConnectionFailed: the agent is configured again
/// with a new token and looked at after 2 min; Synchronized, SynchronizationFailed or
/// MetadataUpdateFailed: Director's runtime gets status CONNECTED and the operation goes on to
/// Finished; any other state: again in 2 s.
StageResult wait_for_agent_to_connect(StageContext& context);

/// The end of deprovisioning with deregistration on: unregisters the runtime when Director
/// still knows it. Throws StageError (director_stage_error) when Director fails.
void unregister_from_director(StageContext& context);

/// After an operation failed: tells Director FAILED (updateRuntime with its own name,
/// description and labels) when the operation's type calls for it (provisioning and shoot
/// upgrades with registration on, deprovisioning with deregistration on) and Director knows the
/// runtime. Best effort: failures are only logged.
void report_failed_to_director(const EngineOptions& options, const EnginePorts& ports,
                               const Operation& operation, const Runtime& runtime);

} // namespace kprov::engine
