#include "stores/kyma_rows.hpp"

#include "engine/error.hpp"

#include <nlohmann/json.hpp>

namespace kprov::stores {

using nlohmann::json;

namespace {

constexpr std::string_view k_global_column = "kyma_config.global_configuration";
constexpr std::string_view k_component_column = "kyma_component_config.configuration";

[[noreturn]] void malformed(std::string_view column, const std::string& row_id,
                            std::string_view what) {
    // Never the stored text: it may hold plaintext secrets.
    throw StoreError("the stored " + std::string(column) + " of " + row_id + " " +
                     std::string(what));
}

bool is_encrypted(const json& entry) {
    const auto encrypted = entry.find("encrypted");
    return encrypted != entry.end() && encrypted->is_boolean() && encrypted->get<bool>();
}

// One entry as stored, its value not yet decrypted.
struct StoredEntry {
    engine::KymaConfigEntry entry;
    bool encrypted = false;
};

StoredEntry parse_entry(const json& j, std::string_view column, const std::string& row_id) {
    if (!j.is_object())
        malformed(column, row_id, "has a configuration entry that is not an object");
    StoredEntry out;
    auto& e = out.entry;
    const auto key = j.find("key");
    if (key == j.end() || !key->is_string())
        malformed(column, row_id, "has a configuration entry without a key");
    e.key = key->get<std::string>();
    if (const auto value = j.find("value"); value != j.end() && !value->is_null())
        e.value = value->is_string() ? value->get<std::string>() : value->dump();
    if (const auto secret = j.find("secret"); secret != j.end() && secret->is_boolean())
        e.secret = secret->get<bool>();
    out.encrypted = is_encrypted(j);
    return out;
}

engine::KymaConfigEntry read_entry(const json& j, const SecretCipher& cipher,
                                   std::string_view column, const std::string& row_id) {
    auto [e, encrypted] = parse_entry(j, column, row_id);
    const auto context = configuration_context(column, row_id, e.key);
    if (encrypted)
        e.value = cipher.decrypt(e.value, context);
    else if (e.secret)
        e.value = cipher.plaintext(std::move(e.value), context);
    return e;
}

// The entries of a parsed configuration object, or nullptr when it has none (NULL, null, an
// object without configEntries). Throws StoreError for JSON of another shape.
template <class Json>
Json* entries_of(Json& j, std::string_view column, const std::string& row_id) {
    if (j.is_discarded())
        malformed(column, row_id, "is not JSON");
    if (j.is_null())
        return nullptr;
    Json* entries = &j; // the original's early rows: the entries alone
    if (j.is_object()) {
        const auto found = j.find("configEntries");
        if (found == j.end() || found->is_null())
            return nullptr;
        entries = &*found;
    }
    if (!entries->is_array())
        malformed(column, row_id, "is not a configuration object");
    return entries;
}

std::optional<engine::KymaProfile> profile_from_db(const std::optional<std::string>& text) {
    if (!text)
        return std::nullopt;
    if (const auto profile = engine::kyma_profile_from_text(*text))
        return profile;
    throw StoreError("the stored kyma_config.profile \"" + *text + "\" is unknown to this kprov");
}

} // namespace

std::string configuration_context(std::string_view column, const std::string& row_id,
                                  const std::string& key) {
    return std::string(column) + ":" + row_id + ":" + key;
}

std::string overrides_to_db(const engine::KymaOverrides& overrides, const SecretCipher& cipher,
                            std::string_view column, const std::string& row_id) {
    json entries = json::array();
    for (const auto& e : overrides.entries) {
        json entry = {{"key", e.key}, {"value", e.value}, {"secret", e.secret}};
        if (e.secret) {
            entry["value"] = cipher.encrypt(e.value, configuration_context(column, row_id, e.key));
            entry["encrypted"] = true;
        }
        entries.push_back(std::move(entry));
    }
    return json{{"configEntries", std::move(entries)},
                {"conflictStrategy", overrides.conflict_strategy}}
        .dump();
}

engine::KymaOverrides overrides_from_db(const std::optional<std::string>& text,
                                        const SecretCipher& cipher, std::string_view column,
                                        const std::string& row_id) {
    engine::KymaOverrides out;
    if (!text)
        return out;
    const json j = json::parse(*text, nullptr, false);
    if (j.is_object()) {
        const auto strategy = j.find("conflictStrategy");
        if (strategy != j.end() && strategy->is_string())
            out.conflict_strategy = strategy->get<std::string>();
    }
    if (const json* entries = entries_of(j, column, row_id))
        for (const auto& e : *entries)
            out.entries.push_back(read_entry(e, cipher, column, row_id));
    return out;
}

std::optional<std::string> renewed_overrides(const std::string& text, const SecretCipher& cipher,
                                             std::string_view column, const std::string& row_id) {
    json j = json::parse(text, nullptr, false);
    json* entries = entries_of(j, column, row_id);
    if (!entries)
        return std::nullopt;
    bool changed = false;
    for (auto& stored : *entries) {
        const auto [e, encrypted] = parse_entry(stored, column, row_id);
        if (encrypted ? SecretCipher::is_current(e.value) : !e.secret)
            continue;
        const auto context = configuration_context(column, row_id, e.key);
        const std::string plaintext = encrypted ? cipher.decrypt_any(e.value, context) : e.value;
        stored["value"] = cipher.encrypt(plaintext, context);
        stored["encrypted"] = true;
        changed = true;
    }
    if (!changed)
        return std::nullopt;
    return j.dump();
}

// --- kyma_release ----------------------------------------------------------------------------

engine::KymaRelease read_release(const RowView& row, int first) {
    int c = first;
    engine::KymaRelease r;
    r.id = row.text(c++);
    r.version = row.text(c++);
    r.tiller_yaml = row.text_or_empty(c++);
    r.installer_yaml = row.text_or_empty(c++);
    return r;
}

std::vector<ColumnValue> release_values(const engine::KymaRelease& release) {
    return {{"id", release.id},
            {"version", release.version},
            {"tiller_yaml", release.tiller_yaml},
            {"installer_yaml", release.installer_yaml}};
}

// --- kyma_config -----------------------------------------------------------------------------

std::string kyma_config_columns(bool with_yaml) {
    std::string columns = "k.id, k.cluster_id, k.profile, k.global_configuration, r.id, r.version";
    if (with_yaml)
        columns += ", r.tiller_yaml, r.installer_yaml";
    return columns;
}

engine::KymaConfig read_kyma_config(const RowView& row, const SecretCipher& cipher, bool with_yaml,
                                    int first) {
    int c = first;
    engine::KymaConfig k;
    k.id = row.text(c++);
    k.cluster_id = row.text(c++);
    k.profile = profile_from_db(row.optional_text(c++));
    k.global = overrides_from_db(row.optional_text(c++), cipher, k_global_column, k.id);
    k.release.id = row.text(c++);
    k.release.version = row.text(c++);
    if (with_yaml) {
        k.release.tiller_yaml = row.text_or_empty(c++);
        k.release.installer_yaml = row.text_or_empty(c++);
    }
    return k;
}

std::vector<ColumnValue> kyma_config_values(const engine::KymaConfig& config,
                                            const std::string& cluster_id,
                                            const SecretCipher& cipher) {
    return {
        {"id", config.id},
        {"release_id", config.release.id},
        {"profile", config.profile ? DbValue(std::string(to_db(*config.profile))) : DbValue()},
        {"cluster_id", cluster_id},
        {"global_configuration",
         overrides_to_db(config.global, cipher, k_global_column, config.id)},
    };
}

// --- kyma_component_config -------------------------------------------------------------------

engine::KymaComponent read_component(const RowView& row, const SecretCipher& cipher, int first) {
    int c = first;
    engine::KymaComponent k;
    k.id = row.text(c++);
    k.name = row.text(c++);
    k.namespace_ = row.text(c++);
    k.source_url = row.optional_text(c++);
    k.configuration = overrides_from_db(row.optional_text(c++), cipher, k_component_column, k.id);
    k.order = row.is_null(c) ? 0 : static_cast<int>(row.integer(c));
    return k;
}

std::vector<ColumnValue> component_values(const std::string& id, const std::string& kyma_config_id,
                                          const engine::KymaComponent& component,
                                          const SecretCipher& cipher) {
    return {
        {"id", id},
        {"component", component.name},
        {"namespace", component.namespace_},
        {"source_url", db_text(component.source_url)},
        {"configuration", overrides_to_db(component.configuration, cipher, k_component_column, id)},
        {"component_order", std::int64_t{component.order}},
        {"kyma_config_id", kyma_config_id},
    };
}

void require_config_id(const engine::KymaConfig& config) {
    if (config.id.empty())
        throw StoreError("a Kyma config without an id cannot be stored");
}

void release_not_stored(const engine::KymaConfig& config) {
    throw NotFound("Kyma release " + config.release.id + " (" + config.release.version +
                   ") of config " + config.id + " is not stored");
}

// --- runtime_upgrade -------------------------------------------------------------------------

engine::RuntimeUpgradeRecord read_runtime_upgrade(const RowView& row, int first) {
    int c = first;
    engine::RuntimeUpgradeRecord r;
    r.id = row.text(c++);
    r.operation_id = row.text(c++);
    const std::string state = row.text(c++);
    const auto parsed = engine::upgrade_state_from_db(state);
    if (!parsed)
        throw StoreError("the stored runtime_upgrade.state \"" + state +
                         "\" is unknown to this kprov");
    r.state = *parsed;
    r.pre_upgrade_kyma_config_id = row.text(c++);
    r.post_upgrade_kyma_config_id = row.text(c++);
    return r;
}

std::vector<ColumnValue> runtime_upgrade_values(const engine::RuntimeUpgradeRecord& record) {
    return {
        {"id", record.id},
        {"operation_id", record.operation_id},
        {"state", std::string(to_db(record.state))},
        {"pre_upgrade_kyma_config_id", record.pre_upgrade_kyma_config_id},
        {"post_upgrade_kyma_config_id", record.post_upgrade_kyma_config_id},
    };
}

} // namespace kprov::stores

namespace kprov::stores {

engine::RuntimeUpgradeRecord upgrade_row(const engine::RuntimeUpgradeRecord& record,
                                         const engine::Operation& op,
                                         const engine::KymaConfig& config,
                                         const std::optional<std::string>& active) {
    if (!active)
        throw Conflict("runtime " + op.cluster_id +
                       " has no active Kyma config to upgrade from (Kyma is managed elsewhere)");
    engine::RuntimeUpgradeRecord row = record;
    if (row.id.empty())
        row.id = engine::new_uuid();
    row.operation_id = op.id;
    row.pre_upgrade_kyma_config_id = *active;
    row.post_upgrade_kyma_config_id = config.id;
    return row;
}

void no_upgrade_row(const std::string& runtime_id, const std::string& operation_id) {
    throw NotFound("operation " + operation_id + " of runtime " + runtime_id +
                   " has no runtime_upgrade row");
}

} // namespace kprov::stores
