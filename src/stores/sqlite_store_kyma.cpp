// The SQLite store: Kyma releases, configurations and upgrades (kyma-installation.md §1.4, §3).

#include "engine/error.hpp"
#include "stores/kyma_rows.hpp"
#include "stores/sqlite_store.hpp"

#include <sqlite3.h>

namespace kprov::stores::sqlite {

void SqliteStore::insert_kyma_config(const std::string& cluster_id,
                                     const engine::KymaConfig& config) {
    require_config_id(config);
    try {
        insert_row("kyma_config", kyma_config_values(config, cluster_id, m_cipher));
    } catch (const SQLite::Exception& e) {
        // The cluster row exists (the caller wrote or checked it): the release is missing.
        if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_FOREIGNKEY)
            release_not_stored(config);
        if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY)
            throw Conflict("Kyma config " + config.id + " already exists");
        throw;
    }
    // Components read back in rowid order among equal component_order values.
    for (const auto& component : config.components)
        insert_row("kyma_component_config",
                   component_values(component.id.empty() ? engine::new_uuid() : component.id,
                                    config.id, component, m_cipher));
}

std::optional<engine::KymaConfig> SqliteStore::read_kyma(const std::string& config_id,
                                                         bool with_yaml) {
    // The original read a config with inner joins (release, components), so one missing either
    // failed the whole runtime and every stage and status with it. kprov reads such a config
    // as no Kyma instead: the runtime stays readable and the API shows what is there.
    auto config = cached("SELECT " + kyma_config_columns(with_yaml) +
                             " FROM kyma_config k JOIN kyma_release r ON r.id = k.release_id"
                             " WHERE k.id = ?",
                         {config_id});
    if (!config.executeStep())
        return std::nullopt;
    engine::KymaConfig out = read_kyma_config(SqliteRow(config), m_cipher, with_yaml);
    auto components = cached("SELECT " + std::string(k_component_columns) +
                                 " FROM kyma_component_config WHERE kyma_config_id = ? ORDER BY " +
                                 std::string(k_component_order) + ", rowid",
                             {config_id});
    while (components.executeStep())
        out.components.push_back(read_component(SqliteRow(components), m_cipher));
    if (out.components.empty())
        return std::nullopt;
    return out;
}

std::optional<engine::KymaRelease> SqliteStore::find_kyma_release(const std::string& version) {
    return locked([&]() -> std::optional<engine::KymaRelease> {
        auto st = cached("SELECT " + std::string(k_release_columns) +
                             " FROM kyma_release WHERE version = ?",
                         {version});
        if (!st.executeStep())
            return std::nullopt;
        return read_release(SqliteRow(st));
    });
}

engine::KymaRelease SqliteStore::insert_kyma_release(const engine::KymaRelease& release) {
    engine::KymaRelease row = release;
    if (row.id.empty())
        row.id = engine::new_uuid();
    return write([&] {
        // The write lock serializes writers of every connection: a second one finds the first
        // one's row, which is the one returned to both.
        cached("INSERT INTO kyma_release (" + std::string(k_release_columns) +
                   ") VALUES (?, ?, ?, ?) ON CONFLICT (version) DO NOTHING",
               parameters(release_values(row)))
            .exec();
        auto st = cached("SELECT " + std::string(k_release_columns) +
                             " FROM kyma_release WHERE version = ?",
                         {row.version});
        if (!st.executeStep())
            throw StoreError("sqlite " + m_path + ": Kyma release " + row.version +
                             " vanished while being stored");
        return read_release(SqliteRow(st));
    });
}

void SqliteStore::insert_kyma_upgrade(const engine::Operation& op, const engine::KymaConfig& config,
                                      const engine::RuntimeUpgradeRecord& record) {
    write([&] {
        std::optional<std::string> active;
        {
            auto cluster =
                cached("SELECT active_kyma_config_id FROM cluster WHERE id = ?", {op.cluster_id});
            if (!cluster.executeStep())
                throw NotFound("runtime " + op.cluster_id + " does not exist");
            active = SqliteRow(cluster).optional_text(0);
        }
        insert_new_operation(op); // first, so a refused upgrade changes nothing
        insert_kyma_config(op.cluster_id, config);
        insert_row("runtime_upgrade",
                   runtime_upgrade_values(upgrade_row(record, op, config, active)));
        // The new config is active from the request on (§3.1 step 7), before the cluster moves.
        cached("UPDATE cluster SET active_kyma_config_id = ? WHERE id = ?",
               {config.id, op.cluster_id})
            .exec();
    });
}

std::optional<engine::RuntimeUpgradeRecord>
SqliteStore::find_runtime_upgrade(const std::string& operation_id) {
    return locked([&]() -> std::optional<engine::RuntimeUpgradeRecord> {
        auto st = cached("SELECT " + std::string(k_runtime_upgrade_columns) +
                             " FROM runtime_upgrade WHERE operation_id = ? ORDER BY rowid LIMIT 1",
                         {operation_id});
        if (!st.executeStep())
            return std::nullopt;
        return read_runtime_upgrade(SqliteRow(st));
    });
}

void SqliteStore::roll_back_upgrade(const std::string& runtime_id,
                                    const std::string& operation_id) {
    write([&] {
        std::string pre;
        {
            auto rolled = cached("UPDATE runtime_upgrade SET state = 'ROLLED_BACK' "
                                 "WHERE operation_id = ?1 AND operation_id IN "
                                 "(SELECT id FROM operation WHERE cluster_id = ?2) "
                                 "RETURNING pre_upgrade_kyma_config_id",
                                 {operation_id, runtime_id});
            if (!rolled.executeStep())
                no_upgrade_row(runtime_id, operation_id);
            pre = rolled.getColumn(0).getString();
            while (rolled.executeStep()) {
            }
        }
        cached("UPDATE cluster SET active_kyma_config_id = ? WHERE id = ?", {pre, runtime_id})
            .exec();
    });
}

} // namespace kprov::stores::sqlite
