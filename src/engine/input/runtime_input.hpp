#pragma once
// Requests as users send them: the GraphQL inputs ProvisionRuntimeInput and UpgradeShootInput
// (../reference/graphql-contract.md), which are also the shape of kprov's runtime and upgrade
// files. Parsing reports every problem at once with its field path; conversion applies the
// original's defaults (original-provisioner.md §4.1) and merge rules (§2.5).

#include "engine/model.hpp"
#include "engine/util/duration.hpp"

#include <array>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

struct RuntimeInput {
    std::string name;
    std::optional<std::string> description;
    std::optional<std::string> labels_json; ///< a JSON object, as given
};

/// OpenStack as sent: floatingPoolName and cloudProfileName may be omitted (defaults in §4.1).
struct OpenStackInput {
    std::vector<std::string> zones;
    std::optional<std::string> floating_pool_name;
    std::optional<std::string> cloud_profile_name;
    std::string load_balancer_provider;
};

/// ProviderSpecificInput: which sub-input is present decides nothing by itself; kprov requires
/// the one that matches `provider` and ignores the others (ARCHITECTURE.md, deliberate
/// difference 7; provision_input_warnings names them).
struct ProviderInput {
    std::optional<GcpConfig> gcp;
    std::optional<AzureConfig> azure;
    std::optional<AwsConfig> aws;
    std::optional<OpenStackInput> openstack;
};

struct GardenerConfigInput {
    std::string name;
    std::string kubernetes_version;
    std::string provider;
    std::string target_secret;
    std::string region;
    std::string machine_type;
    std::optional<std::string> machine_image;
    std::optional<std::string> machine_image_version;
    std::optional<std::string> disk_type;
    std::optional<int> volume_size_gb;
    std::string worker_cidr;
    std::optional<std::string> pods_cidr;
    std::optional<std::string> services_cidr;
    int auto_scaler_min = 0;
    int auto_scaler_max = 0;
    int max_surge = 0;
    int max_unavailable = 0;
    std::optional<std::string> purpose;
    std::optional<std::string> licence_type;
    std::optional<bool> enable_kubernetes_version_auto_update;
    std::optional<bool> enable_machine_image_version_auto_update;
    ProviderInput provider_config;
    std::optional<DnsConfig> dns;
    std::optional<std::string> seed;
    std::optional<OidcConfig> oidc;
    std::optional<std::string> exposure_class_name;
    std::optional<bool> shoot_networking_filter_disabled;
    std::optional<std::string> control_plane_failure_tolerance;
    std::optional<bool> eu_access;
    /// Not GraphQL's: the runtime file's lifecycle.hibernationSchedules.
    std::vector<HibernationSchedule> hibernation_schedules;
    /// Not GraphQL's: the runtime file's gardenerConfig.cloudProfile.
    std::optional<CloudProfileRef> cloud_profile;
};

/// ProvisionRuntimeInput.
/// kprov's own attributes that a provisioning request gives its runtime (the runtime file's
/// `lifecycle:` block; GraphQL has none): written with the runtime, in its transaction.
struct LifecycleRequest {
    bool is_protected = false;        ///< protected against deprovisioning from the start
    std::optional<Duration> lifetime; ///< deprovisioned that long after its creation
    std::string by; ///< who asks, for the events ("user@host (lifecycle of rt.yaml)")
};

struct ProvisionInput {
    RuntimeInput runtime;
    GardenerConfigInput gardener;
    std::optional<std::vector<std::string>> administrators;
    std::optional<std::string> kyma_config_json; ///< KymaConfigInput, validated, kept as JSON
    std::optional<LifecycleRequest> lifecycle;   ///< not part of "the same request" comparison
};

/// UpgradeRuntimeInput: the Kyma config to upgrade to.
struct KymaUpgradeInput {
    std::string kyma_config_json; ///< KymaConfigInput, validated, kept as JSON
};

/// GardenerUpgradeInput: every field optional.
struct GardenerUpgradeInput {
    std::optional<std::string> kubernetes_version;
    std::optional<std::string> machine_type;
    std::optional<std::string> disk_type;
    std::optional<int> volume_size_gb;
    std::optional<int> auto_scaler_min;
    std::optional<int> auto_scaler_max;
    std::optional<std::string> machine_image;
    std::optional<std::string> machine_image_version;
    std::optional<int> max_surge;
    std::optional<int> max_unavailable;
    std::optional<std::string> purpose;
    std::optional<bool> enable_kubernetes_version_auto_update;
    std::optional<bool> enable_machine_image_version_auto_update;
    std::optional<ProviderInput> provider_config;
    std::optional<OidcConfig> oidc;
    std::optional<std::string> exposure_class_name;
    std::optional<bool> shoot_networking_filter_disabled;
    /// Not GraphQL's (kprov apply's): replaces the schedules; an empty list removes them.
    std::optional<std::vector<HibernationSchedule>> hibernation_schedules;
};

/// UpgradeShootInput.
struct UpgradeShootInput {
    GardenerUpgradeInput gardener;
    std::optional<std::vector<std::string>> administrators;
};

// ---------------------------------------------------------------------------------------------
// The input types as data: the parser checks documents against this table, and tests check
// schemas/runtime.schema.json and schemas/upgrade.schema.json against it, so the three agree.

/// What a field holds. Labels is the GraphQL scalar of that name: any JSON object.
enum class InputKind { String, Int, Boolean, Labels, Enum, Object };

/// One field of a GraphQL input type.
struct InputFieldSpec {
    std::string_view name; ///< as in the GraphQL schema: "volumeSizeGB", "issuerURL"
    InputKind kind = InputKind::String;
    std::string_view type; ///< the enum or input type name for Enum and Object, else empty
    bool required = false; ///< non-null in the GraphQL schema ("String!", "[String!]!")
    bool list = false;     ///< a list; kprov refuses null items even where GraphQL allows them
};

/// A GraphQL input type ("GardenerConfigInput") with its fields in schema order.
struct InputTypeSpec {
    std::string_view name;
    std::vector<InputFieldSpec> fields;
};

/// Every input type reachable from ProvisionRuntimeInput, UpgradeShootInput and
/// UpgradeRuntimeInput. Thread-safe.
const std::vector<InputTypeSpec>& input_type_specs();

/// The input type called `name`; nullptr when there is none.
const InputTypeSpec* find_input_type(std::string_view name);

/// The values of the enum called `name` (KymaProfile, ConflictStrategy); empty when unknown.
std::vector<std::string_view> input_enum_values(std::string_view name);

/// The cloud a `provider` string names, case-insensitively: "aws", "azure" (also for "az"),
/// "gcp" or "openstack" (the spelling provider_type() uses); nullopt for anything else.
std::optional<std::string_view> provider_type_of(std::string_view provider);

/// One entry of ProviderSpecificInput: the cloud it is for (provider_type_of's spelling), its
/// field name ("awsConfig") and whether the input gives it.
struct ProviderSubInput {
    std::string_view type;
    std::string_view field;
    bool given = false;
};

/// The four entries of `input`, in the original's precedence: GCP, Azure, AWS, OpenStack.
std::array<ProviderSubInput, 4> provider_sub_inputs(const ProviderInput& input);

/// Whether `text` is an IPv4 CIDR a.b.c.d/n (octets 0-255 without leading zeros, n 0-32).
bool is_ipv4_cidr(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Parsing, validation, conversion

/// Reads a ProvisionRuntimeInput document (a JSON object with the GraphQL field names). Throws
/// ValidationError listing every problem with its path ("clusterConfig.gardenerConfig.region";
/// list items as "awsZones[1]"; an unknown field is reported at its object's path): missing
/// required fields ("is required"), wrong types ("must be an integer, got \"three\""), unknown
/// fields with the nearest known name, integers outside 32 bits, values outside an enum, and null
/// list items (GraphQL allows some; the original crashed on them). kymaConfig and labels are
/// kept as compact JSON.
ProvisionInput parse_provision_input(const nlohmann::json& document);

/// Reads an UpgradeShootInput document; same error rules.
UpgradeShootInput parse_upgrade_input(const nlohmann::json& document);

/// What conversion needs from the configuration.
struct ConversionOptions {
    std::string gardener_project;
    bool default_enable_kubernetes_version_auto_update = false;
    bool default_enable_machine_image_version_auto_update = false;
    /// The original's rule that a kymaConfig holds compass-runtime-agent (Kyma 1.x's component);
    /// off with Kyma Lifecycle Manager, whose catalog has no such module.
    bool kyma_requires_runtime_agent = true;
    /// APP_GARDENER_LEGACY_API: the shoot gets the v1.74 fields, which no Gardener admits on
    /// today's Kubernetes versions (legacy_api_problems).
    bool legacy_api = false;
    /// The CloudProfile name per provider type ("aws", "azure", "gcp", "openstack") for inputs
    /// that name none (KPROV_CLOUD_PROFILE_*); a type missing here uses
    /// default_cloud_profiles() (landscape_check.hpp).
    std::map<std::string, std::string> cloud_profiles;
};

/// What APP_GARDENER_LEGACY_API cannot send for Kubernetes `version` (gardener-landscape.md §4):
/// kubeAPIServer.oidcConfig from 1.32 when `has_oidc` (reported at `oidc_path`),
/// cloudProfileName and secretBindingName from 1.34 (at `version_path`). Each problem names the
/// field, the version and what to use instead. Empty for an unparsable version.
std::vector<FieldProblem> legacy_api_problems(std::string_view version, bool has_oidc,
                                              const std::string& version_path,
                                              const std::string& oidc_path);

/// The original's validator rules (original-provisioner.md §1.5: the Kyma ones when kymaConfig
/// is given, the machine image and OpenStack ones) with its messages and in its order, then
/// kprov's, which refuse only what the original could not turn into a working shoot:
/// `provider` names a known cloud whose sub-config is given; in that sub-config, zones given
/// (GCP, AWS, OpenStack) and IPv4 CIDRs; workerCidr an IPv4 CIDR where the shoot uses it,
/// podsCidr and servicesCidr too; autoscaler 0 <= min <= max; maxSurge and maxUnavailable >= 0
/// and not both 0; volumeSizeGB > 0 when diskType is given; controlPlaneFailureTolerance node,
/// zone or ""; the shoot name a DNS-1123 label without "--" and project + name at most 21
/// characters; an OIDC clientID not empty; a DNS provider type on Kubernetes 1.35 and later;
/// in legacy mode (ConversionOptions::legacy_api) legacy_api_problems. Throws ValidationError
/// listing every problem.
void validate_provision(const ProvisionInput& input, const ConversionOptions& options);

/// The upgradeShoot validator rules (§1.5: empty machine type, kubernetes version, disk type,
/// purpose), then kprov's on the fields given (the same number and CIDR rules as provisioning;
/// a providerSpecificConfig's content only when it has one member, else merge_upgrade checks
/// the member it uses; an OIDC clientID not empty). Throws ValidationError listing every
/// problem.
void validate_upgrade(const UpgradeShootInput& input);

/// parse_provision_input and validate_provision in one: throws one ValidationError with every
/// problem of the document, the parser's (unknown fields, types, missing fields) first, then
/// the validator's on the fields that parsed (none about a field that did not). The one entry
/// point for requests and runtime files.
ProvisionInput read_provision_input(const nlohmann::json& document,
                                    const ConversionOptions& options);

/// parse_upgrade_input and validate_upgrade in one, with the same rules.
UpgradeShootInput read_upgrade_input(const nlohmann::json& document);

/// Reads and validates an UpgradeRuntimeInput document (kymaConfig): the parser's rules, then
/// the Kyma rules of provisioning with the upgrade's prefix ("validation error while starting
/// Runtime upgrade, error: Kyma components list is empty"), compass-runtime-agent required
/// unless `options` say otherwise. Throws ValidationError listing every problem.
KymaUpgradeInput read_kyma_upgrade_input(const nlohmann::json& document,
                                         const ConversionOptions& options = {});

/// The KymaConfig a validated KymaConfigInput (compact JSON) stands for (kyma-installation.md
/// §1.3): a new id, components in input order with order = index + 1 and new ids, secret null
/// as false, conflict strategies "" when absent. Of the release only the version is set: the
/// caller resolves it (EngineService).
KymaConfig to_kyma_config(const std::string& kyma_config_json, const std::string& runtime_id);

/// What a valid input gives that kprov does not use, one sentence each: the
/// providerSpecificConfig members of clouds other than `provider`'s. Empty when there are none
/// (or `provider` names no cloud).
std::vector<std::string> provision_input_warnings(const ProvisionInput& input);

/// The same for an upgrade of a runtime stored as `stored`: members of other clouds next to
/// the runtime's own. Empty when there are none or merge_upgrade refuses the input.
std::vector<std::string> upgrade_input_warnings(const GardenerConfig& stored,
                                                const UpgradeShootInput& input);

/// A new Runtime for a validated input: the runtime fields, and a GardenerConfig with a new id
/// and §4.1's defaults (networking filter disabled, no euAccess, auto-updates from `options`,
/// seed "", the OpenStack exposure class and names, DNS domainsInclude = [domain]). Throws
/// ValidationError only when `provider` names no given sub-config (validate_provision says so
/// first).
Runtime to_runtime(const ProvisionInput& input, const std::string& runtime_id,
                   const std::string& tenant, const std::string& sub_account, Timestamp now,
                   const ConversionOptions& options);

/// The stored config with an upgrade applied: every field the input omits keeps its stored
/// value (OIDC too, and the fields an upgrade cannot set: failure tolerance, euAccess, DNS,
/// CIDRs, seed; deliberate difference 6); the provider config is replaced by the input's
/// member for the runtime's cloud when given (other members are ignored).
/// Administrators are the caller's. Throws ValidationError for a provider config with only
/// other clouds' members and for the original's immutability rules (Azure and AWS zones keep
/// their CIDRs and none are added, §1.5), all prefixed "Invalid gardener provider config
/// change, "; for the used member's zones and CIDRs (as validate_upgrade); and for an
/// autoscaler or rollout that the merge leaves impossible (min > max, surge and unavailable 0).
/// The zones are compared with the stored config (what kprov sent to the shoot); the original
/// read them from the live shoot's infrastructureConfig.
GardenerConfig merge_upgrade(const GardenerConfig& stored, const UpgradeShootInput& input);

} // namespace kprov::engine
