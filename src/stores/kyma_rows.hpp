#pragma once
// The Kyma tables (kyma-installation.md §1.4) mapped to the model, independent of the SQL
// dialect, like row_mapping.hpp: kyma_release, kyma_config, kyma_component_config and
// runtime_upgrade.
//
// Secret configuration values are encrypted at rest. The JSON shape stays the original's
// ({"configEntries":[{"key","value","secret"}],"conflictStrategy":""}); an entry whose value
// kprov encrypted carries one more member, "encrypted": true, and its value is the cipher's v2
// text bound to the row and the key (configuration_context). Entries without the member are
// read as they are: rows the original wrote hold their secret values in plaintext.

#include "engine/kyma.hpp"
#include "engine/model.hpp"
#include "stores/cipher.hpp"
#include "stores/row_mapping.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::stores {

/// The cipher context of a secret value of a configuration object: its column, its row's id
/// and its key, so a ciphertext copied to another entry or row does not decrypt.
std::string configuration_context(std::string_view column, const std::string& row_id,
                                  const std::string& key);

/// The configuration object as stored: secret values encrypted for `column` of row `row_id`.
std::string overrides_to_db(const engine::KymaOverrides& overrides, const SecretCipher& cipher,
                            std::string_view column, const std::string& row_id);

/// Reads a stored configuration object, decrypting the values kprov encrypted. NULL, a JSON
/// null and the original's early rows (a bare array of entries, or '[]') are accepted. Throws
/// StoreError naming the column and row, never a value, when the JSON fits none of these.
engine::KymaOverrides overrides_from_db(const std::optional<std::string>& json,
                                        const SecretCipher& cipher, std::string_view column,
                                        const std::string& row_id);

/// The stored configuration object `json` with every secret value that is in plaintext or in
/// the legacy format rewritten in the current one (and marked "encrypted"); nullopt when there
/// is none. Throws StoreError as overrides_from_db does, and when an old value does not decrypt.
std::optional<std::string> renewed_overrides(const std::string& json, const SecretCipher& cipher,
                                             std::string_view column, const std::string& row_id);

// --- kyma_release ----------------------------------------------------------------------------

inline constexpr std::string_view k_release_columns = "id, version, tiller_yaml, installer_yaml";
engine::KymaRelease read_release(const RowView& row, int first = 0);
std::vector<ColumnValue> release_values(const engine::KymaRelease& release);

// --- kyma_config -----------------------------------------------------------------------------

/// What read_kyma_config expects, with `k` the kyma_config and `r` its kyma_release; the two
/// YAML texts only `with_yaml` (the status path reads only the release's id and version).
std::string kyma_config_columns(bool with_yaml);

/// Reads kyma_config_columns(with_yaml) from `first`; the components are left empty.
engine::KymaConfig read_kyma_config(const RowView& row, const SecretCipher& cipher, bool with_yaml,
                                    int first = 0);

/// The kyma_config row of `config` for runtime `cluster_id` (config.cluster_id is ignored:
/// the row belongs to the runtime it is written for).
std::vector<ColumnValue> kyma_config_values(const engine::KymaConfig& config,
                                            const std::string& cluster_id,
                                            const SecretCipher& cipher);

// --- kyma_component_config -------------------------------------------------------------------

inline constexpr std::string_view k_component_columns =
    "id, component, namespace, source_url, configuration, component_order";
/// The installation order (§1.4): by component_order with NULL as 0; the caller appends its
/// dialect's tie-breaker.
inline constexpr std::string_view k_component_order = "COALESCE(component_order, 0)";

engine::KymaComponent read_component(const RowView& row, const SecretCipher& cipher, int first = 0);
/// The row of `component` (with `id`, which may differ from component.id when that is empty).
std::vector<ColumnValue> component_values(const std::string& id, const std::string& kyma_config_id,
                                          const engine::KymaComponent& component,
                                          const SecretCipher& cipher);

/// Throws StoreError when the config has no id (the engine gives every config one).
void require_config_id(const engine::KymaConfig& config);

/// The NotFound of a config whose release is not stored (its foreign key refused it).
[[noreturn]] void release_not_stored(const engine::KymaConfig& config);

// --- runtime_upgrade -------------------------------------------------------------------------

inline constexpr std::string_view k_runtime_upgrade_columns =
    "id, operation_id, state, pre_upgrade_kyma_config_id, post_upgrade_kyma_config_id";
/// Throws StoreError on an unknown state.
engine::RuntimeUpgradeRecord read_runtime_upgrade(const RowView& row, int first = 0);
std::vector<ColumnValue> runtime_upgrade_values(const engine::RuntimeUpgradeRecord& record);

/// The runtime_upgrade row Store::insert_kyma_upgrade writes: `record` (a new id when it has
/// none) of operation `op`, from `active` (the runtime's active config as the transaction read
/// it) to `config`. Throws Conflict when the runtime has no active config to upgrade from.
engine::RuntimeUpgradeRecord upgrade_row(const engine::RuntimeUpgradeRecord& record,
                                         const engine::Operation& op,
                                         const engine::KymaConfig& config,
                                         const std::optional<std::string>& active);

/// The NotFound of roll_back_upgrade when the operation of that runtime has no upgrade row.
[[noreturn]] void no_upgrade_row(const std::string& runtime_id, const std::string& operation_id);

} // namespace kprov::stores
