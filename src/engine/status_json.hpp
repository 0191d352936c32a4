#pragma once
// The domain model as the GraphQL API shows it (../shared/reference/graphql-contract.md and
// original-provisioner.md §1.3): one place that builds OperationStatus, RuntimeStatus and their
// parts as JSON, shared by the CLI's -o json|yaml and the GraphQL resolvers of `kprov serve`, so
// both print the same field names with the same nullability. Every object carries every field
// of its GraphQL type, in the contract's order (nlohmann::ordered_json); the API's resolvers
// build the same trees as graphql::Value from the templates in status_tree.hpp, and the executor
// picks the fields a query selects. Absent optional values are JSON null, never missing members.
//
// Include only from cli/ and api/: nlohmann/json.hpp is a heavy header. All functions are pure
// and thread-safe.

#include "engine/model.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kprov::engine {

/// GraphQL OperationStatus: id, operation ("Provision", "DeprovisionNoInstall", ...), state
/// ("InProgress", "Succeeded", "Failed"), message, runtimeID, compassRuntimeID (null unless
/// given: Director registration is off) and lastError, always an object
/// {errMessage, reason, component} with empty strings when there is no error.
nlohmann::ordered_json
operation_status_json(const Operation& op,
                      const std::optional<std::string>& compass_runtime_id = {});

/// The union ProviderSpecificConfig: the member object of the config's alternative, whose first
/// member "__typename" names the GraphQL type (GCPProviderConfig {zones}, AzureProviderConfig
/// {vnetCidr, zones, azureZones [{name, cidr}], enableNatGateway, idleConnectionTimeoutMinutes},
/// AWSProviderConfig {awsZones [{name, publicCidr, internalCidr, workerCidr}], vpcCidr},
/// OpenStackProviderConfig {zones, floatingPoolName, cloudProfileName, loadBalancerProvider}).
nlohmann::ordered_json provider_specific_config_json(const ProviderConfig& config);

/// GraphQL GardenerConfig, every field of the contract: unset optional inputs are null; seed is
/// always a string (possibly ""); euAccess and the auto-update flags are always booleans;
/// oidcConfig is always an object (empty strings and signingAlgs [] when none is configured,
/// as the original answers); dnsConfig {domain, providers [{domainsInclude, primary,
/// secretName, type}]} is null when none is configured.
nlohmann::ordered_json gardener_config_json(const GardenerConfig& config);

/// GraphQL KymaConfig {version, profile, components [{component, namespace, configuration
/// [{key, value, secret}], sourceURL}], configuration} of a runtime's active config (version
/// from its release, profile "Evaluation"/"Production" or null); null when it has none.
/// Secret values are shown, as the original showed them. Conflict strategies are input-only.
nlohmann::ordered_json kyma_config_json(const std::optional<KymaConfig>& config);

/// GraphQL HibernationStatus; kprov fills it from the shoot (graphql-contract.md, additions).
struct HibernationStatus {
    std::optional<bool> hibernated;
    std::optional<bool> hibernation_possible;
};

struct ShootState;

/// The one answer of the CLI and the API to "is the cluster hibernated": Gardener's
/// status.isHibernated, and its HibernationPossible constraint when Gardener reports one, null
/// when it does not (unknown, not guessed). A cluster on its way there or back is a transition
/// (hibernation_transition, engine/rules/drift.hpp), not another answer. Pure.
HibernationStatus hibernation_status(const ShootState& shoot);

/// What a RuntimeStatus holds beyond the store's rows, each known only to the caller.
struct RuntimeStatusExtras {
    std::optional<std::string> compass_runtime_id; ///< set when Director registration is on
    std::optional<std::string> kubeconfig;         ///< the admin kubeconfig, when requested
    std::optional<HibernationStatus> hibernation;  ///< null when the shoot was not asked
    /// The value of every secret Kyma override (ConfigEntry.secret) shown as k_secret_mask, as
    /// kubectl shows a Secret: set by the API, which never returns them in plain text.
    bool mask_secret_overrides = false;
};

/// What a secret Kyma override's value reads as where it is masked.
inline constexpr std::string_view k_secret_mask = "********";

/// GraphQL RuntimeConfig {clusterConfig, kymaConfig, kubeconfig} of a runtime; kubeconfig is
/// null unless given.
nlohmann::ordered_json runtime_config_json(const Runtime& runtime,
                                           const std::optional<std::string>& kubeconfig = {});

/// GraphQL RuntimeStatus: lastOperationStatus (null when `last` is absent),
/// runtimeConnectionStatus (always {status: "Pending", errors: null}, as the original answers),
/// runtimeConfiguration (runtime_config_json) and hibernationStatus ({hibernated,
/// hibernationPossible} or null).
nlohmann::ordered_json runtime_status_json(const Runtime& runtime,
                                           const std::optional<Operation>& last,
                                           const RuntimeStatusExtras& extras = {});

} // namespace kprov::engine
