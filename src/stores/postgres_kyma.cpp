// The PostgreSQL store: Kyma releases, configurations and upgrades (kyma-installation.md §1.4,
// §3), in the original's tables.

#include "engine/error.hpp"
#include "stores/kyma_rows.hpp"
#include "stores/postgres_rows.hpp"
#include "stores/postgres_store.hpp"

namespace kprov::stores::pg {

namespace {

const std::string& release_by_version() {
    static const std::string sql =
        "SELECT " + std::string(k_release_columns) + " FROM kyma_release WHERE version = $1";
    return sql;
}

} // namespace

void PostgresStore::insert_kyma_config(pqxx::transaction_base& tx, const std::string& cluster_id,
                                       const engine::KymaConfig& config) {
    require_config_id(config);
    if (!is_uuid(config.release.id))
        release_not_stored(config);
    try {
        insert_row(tx, "kyma_config", kyma_config_values(config, cluster_id, m_cipher));
    } catch (const pqxx::foreign_key_violation&) {
        // The cluster row exists (the caller wrote or locked it): the release is missing.
        release_not_stored(config);
    } catch (const pqxx::unique_violation&) {
        throw Conflict("Kyma config " + config.id + " already exists");
    }
    if (config.components.empty())
        return;
    // The original's table has no ordinal besides component_order: among equal orders, rows
    // read back in id order, so ids kprov makes up ascend in the caller's order.
    const auto ids = ascending_ids(config.components.size());
    std::vector<std::vector<ColumnValue>> rows;
    for (std::size_t i = 0; i < config.components.size(); ++i) {
        const auto& component = config.components[i];
        rows.push_back(component_values(component.id.empty() ? ids[i] : component.id, config.id,
                                        component, m_cipher));
    }
    insert_rows(tx, "kyma_component_config", rows);
}

std::optional<engine::KymaConfig>
PostgresStore::read_kyma(pqxx::transaction_base& tx, const std::string& config_id, bool with_yaml) {
    // The original read a config with inner joins (release, components), so one missing either
    // failed the whole runtime and every stage and status with it. kprov reads such a config
    // as no Kyma instead: the runtime stays readable and the API shows what is there.
    //
    // Components come by component_order (NULL as 0) as in the original; it kept "the DB
    // order" among equal orders, which PostgreSQL does not define, so kprov takes id order.
    static const std::string config_sql[2] = {
        "SELECT " + kyma_config_columns(false) +
            " FROM kyma_config k JOIN kyma_release r ON r.id = k.release_id WHERE k.id = $1",
        "SELECT " + kyma_config_columns(true) +
            " FROM kyma_config k JOIN kyma_release r ON r.id = k.release_id WHERE k.id = $1"};
    static const std::string components_sql =
        "SELECT " + std::string(k_component_columns) +
        " FROM kyma_component_config WHERE kyma_config_id = $1 ORDER BY " +
        std::string(k_component_order) + ", id";
    const auto config = exec(tx, config_sql[with_yaml ? 1 : 0], {config_id});
    if (config.empty())
        return std::nullopt;
    engine::KymaConfig out = read_kyma_config(PqxxRow(config[0]), m_cipher, with_yaml);
    for (const auto& row : exec(tx, components_sql, {config_id}))
        out.components.push_back(read_component(PqxxRow(row), m_cipher));
    if (out.components.empty())
        return std::nullopt;
    return out;
}

std::optional<engine::KymaRelease> PostgresStore::find_kyma_release(const std::string& version) {
    const auto r = m_pool.run(
        [&](pqxx::connection& c) { return exec_alone(c, release_by_version(), {version}); });
    if (r.empty())
        return std::nullopt;
    return read_release(PqxxRow(r[0]));
}

engine::KymaRelease PostgresStore::insert_kyma_release(const engine::KymaRelease& release) {
    engine::KymaRelease row = release;
    if (row.id.empty())
        row.id = engine::new_uuid();
    return m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        // A concurrent insert of the version waits for the first one to commit; DO NOTHING then
        // lets this one read the row the first one stored (the original's 23505 rule).
        auto r = insert_row(tx, "kyma_release", release_values(row),
                            "ON CONFLICT (version) DO NOTHING RETURNING " +
                                std::string(k_release_columns));
        if (r.empty())
            r = exec(tx, release_by_version(), {row.version});
        if (r.empty())
            throw StoreError("Kyma release " + row.version + " vanished while being stored");
        tx.commit();
        return read_release(PqxxRow(r[0]));
    });
}

void PostgresStore::insert_kyma_upgrade(const engine::Operation& op,
                                        const engine::KymaConfig& config,
                                        const engine::RuntimeUpgradeRecord& record) {
    if (!is_uuid(op.cluster_id))
        runtime_not_found(op.cluster_id);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        insert_new_operation(tx, op); // first, so a refused upgrade changes nothing
        // Locked, so that a concurrent rollback cannot move the active config under us.
        const auto cluster = exec(tx,
                                  "SELECT active_kyma_config_id::text FROM cluster WHERE id = $1 "
                                  "FOR UPDATE",
                                  {op.cluster_id});
        if (cluster.empty())
            runtime_not_found(op.cluster_id);
        const auto active = PqxxRow(cluster[0]).optional_text(0);
        insert_kyma_config(tx, op.cluster_id, config);
        insert_row(tx, "runtime_upgrade",
                   runtime_upgrade_values(upgrade_row(record, op, config, active)));
        // The new config is active from the request on (§3.1 step 7), before the cluster moves.
        exec(tx, "UPDATE cluster SET active_kyma_config_id = $2 WHERE id = $1",
             {op.cluster_id, config.id});
        tx.commit();
    });
}

std::optional<engine::RuntimeUpgradeRecord>
PostgresStore::find_runtime_upgrade(const std::string& operation_id) {
    if (!is_uuid(operation_id))
        return std::nullopt;
    static const std::string sql = "SELECT " + std::string(k_runtime_upgrade_columns) +
                                   " FROM runtime_upgrade WHERE operation_id = $1 "
                                   "ORDER BY id LIMIT 1";
    const auto r =
        m_pool.run([&](pqxx::connection& c) { return exec_alone(c, sql, {operation_id}); });
    if (r.empty())
        return std::nullopt;
    return read_runtime_upgrade(PqxxRow(r[0]));
}

void PostgresStore::roll_back_upgrade(const std::string& runtime_id,
                                      const std::string& operation_id) {
    if (!is_uuid(runtime_id) || !is_uuid(operation_id))
        no_upgrade_row(runtime_id, operation_id);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        const auto rolled = exec(tx,
                                 "UPDATE runtime_upgrade u SET state = 'ROLLED_BACK' "
                                 "FROM operation o WHERE u.operation_id = $1 "
                                 "AND o.id = u.operation_id AND o.cluster_id = $2 "
                                 "RETURNING u.pre_upgrade_kyma_config_id::text",
                                 {operation_id, runtime_id});
        if (rolled.empty())
            no_upgrade_row(runtime_id, operation_id);
        exec(tx, "UPDATE cluster SET active_kyma_config_id = $2 WHERE id = $1",
             {runtime_id, rolled[0][0].as<std::string>()});
        tx.commit();
    });
}

} // namespace kprov::stores::pg
