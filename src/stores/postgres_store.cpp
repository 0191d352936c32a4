// The PostgreSQL store: opening it, and the writes that start operations.

#include "stores/postgres_store.hpp"

#include "engine/error.hpp"
#include "stores/backends.hpp"
#include "stores/postgres_rows.hpp"
#include "stores/store_common.hpp"

#include <string_view>
#include <utility>

namespace kprov::stores {

std::unique_ptr<StoreBackend> open_postgres_store(const std::string& url,
                                                  const OpenOptions& options) {
    auto cipher = configured_cipher(options);
    // Checked before connecting: a process that cannot read its secrets should not start at all.
    if (!cipher)
        throw ConfigError("APP_DATABASE_SECRET_KEY is not set, a PostgreSQL store needs it to "
                          "read and write secrets (only `kprov migrate` runs without it)");
    cipher->refuse_old_formats(options.refuse_legacy_secrets);
    return std::make_unique<pg::PostgresStore>(url, std::move(*cipher), options.pool_size);
}

namespace pg {

using engine::GardenerConfig;
using engine::Operation;
using engine::Runtime;
using engine::RuntimeUpgrade;

namespace {

bool mentions(const pqxx::sql_error& e, std::string_view name) {
    return std::string_view(e.what()).find(name) != std::string_view::npos;
}

} // namespace

PostgresStore::PostgresStore(const std::string& url, SecretCipher cipher, int pool_size)
    : m_cipher(std::move(cipher))
    , m_pool(url, pool_size) {}

void PostgresStore::insert_runtime(const Runtime& runtime, const Operation& first,
                                   const engine::NewRuntimeLifecycle* lifecycle) {
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        // ON CONFLICT DO NOTHING rather than a caught unique_violation: the answer is the same
        // for a concurrent insert of the same id, which waits for the first one to commit.
        if (insert_row(tx, "cluster", cluster_values(runtime, m_cipher),
                       "ON CONFLICT (id) DO NOTHING")
                .affected_rows() == 0)
            throw Conflict("runtime " + runtime.id + " already exists");
        insert_gardener_config(tx, runtime.id, runtime.gardener);
        claim_shoot_name(tx, runtime);
        insert_administrators(tx, runtime.id, runtime.administrators);
        if (runtime.kyma)
            insert_kyma_config(tx, runtime.id, *runtime.kyma);
        insert_new_operation(tx, first);
        if (lifecycle)
            insert_lifecycle(tx, runtime.id, *lifecycle);
        tx.commit();
    });
}

void PostgresStore::claim_shoot_name(pqxx::transaction_base& tx, const Runtime& runtime) {
    const auto& g = runtime.gardener;
    // A concurrent insert of the same name waits for the first transaction; DO NOTHING then
    // leaves this one alive, so it can read the owner that the first one committed.
    if (exec(tx,
             "INSERT INTO live_shoot (project_name, shoot_name, cluster_id) VALUES ($1, $2, $3) "
             "ON CONFLICT DO NOTHING",
             {g.project_name, g.name, runtime.id})
            .affected_rows() != 0)
        return;
    const auto owner = exec(tx,
                            "SELECT cluster_id::text FROM live_shoot WHERE project_name = $1 AND "
                            "shoot_name = $2",
                            {g.project_name, g.name});
    throw engine::ShootNameTaken(g.project_name, g.name,
                                 owner.empty() ? "?" : owner[0][0].as<std::string>());
}

void PostgresStore::insert_new_operation(pqxx::transaction_base& tx, const Operation& op) {
    // The database decides: of two concurrent inserts for one runtime, the second waits for the
    // first to commit and then violates operation_one_in_progress.
    try {
        insert_row(tx, "operation", operation_values(op));
    } catch (const pqxx::foreign_key_violation&) {
        runtime_not_found(op.cluster_id);
    } catch (const pqxx::unique_violation& e) {
        if (mentions(e, "operation_one_in_progress"))
            throw OperationInProgress(op.cluster_id);
        throw Conflict("operation " + op.id + " already exists");
    }
}

void PostgresStore::insert_operation(const Operation& op, const RuntimeUpgrade* upgrade) {
    if (!is_uuid(op.cluster_id))
        runtime_not_found(op.cluster_id);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        // The cluster row locked as set_protected locks it: a protection is never overtaken.
        if (engine::is_deprovisioning(op.type) &&
            exec(tx,
                 "SELECT 1 FROM cluster c JOIN runtime_lifecycle l ON l.cluster_id = c.id "
                 "WHERE c.id = $1 AND l.protected FOR UPDATE OF c",
                 {op.cluster_id})
                    .size() > 0)
            throw RuntimeProtected(op.cluster_id);
        insert_new_operation(tx, op); // first, so a refused operation changes nothing
        if (upgrade)
            apply_upgrade(tx, op.cluster_id, *upgrade);
        tx.commit();
    });
}

void PostgresStore::set_tenant(const std::string& runtime_id, const std::string& tenant,
                               const std::optional<engine::StageTransition>& note) {
    if (!is_uuid(runtime_id))
        runtime_not_found(runtime_id);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        const auto r =
            exec(tx, "UPDATE cluster SET tenant = $2 WHERE id = $1", {runtime_id, tenant});
        if (r.affected_rows() == 0)
            runtime_not_found(runtime_id);
        if (note)
            insert_rows(tx, "operation_transition", {transition_values(note->operation_id, *note)});
        tx.commit();
    });
}

void PostgresStore::insert_gardener_config(pqxx::transaction_base& tx,
                                           const std::string& cluster_id, const GardenerConfig& g) {
    const std::string id = g.id.empty() ? engine::new_uuid() : g.id;
    auto values = gardener_values(g);
    values.insert(values.begin(), {{"id", id}, {"cluster_id", cluster_id}});
    insert_row(tx, "gardener_config", values);
    insert_gardener_children(tx, id, g);
}

// As the original's upgrade transaction: the gardener_config row (keeping its id, which
// oidc_config shares), the OIDC and DNS rows and the administrators are rewritten. The engine
// has already merged the input with what was stored.
void PostgresStore::apply_upgrade(pqxx::transaction_base& tx, const std::string& cluster_id,
                                  const RuntimeUpgrade& upgrade) {
    const auto values = gardener_values(upgrade.gardener);
    const auto updated = exec(tx,
                              "UPDATE gardener_config SET " + assignments(values, 2) +
                                  " WHERE cluster_id = $1 RETURNING id",
                              params_of({cluster_id}, values));
    if (updated.empty()) {
        insert_gardener_config(tx, cluster_id, upgrade.gardener); // a legacy row without one
    } else {
        const std::string gardener_id = updated[0][0].c_str();
        // ON DELETE CASCADE takes signing_algorithms and dns_providers along.
        exec(tx, "DELETE FROM oidc_config WHERE gardener_config_id = $1", {gardener_id});
        exec(tx, "DELETE FROM dns_config WHERE gardener_config_id = $1", {gardener_id});
        insert_gardener_children(tx, gardener_id, upgrade.gardener);
    }
    exec(tx, "DELETE FROM cluster_administrator WHERE cluster_id = $1", {cluster_id});
    insert_administrators(tx, cluster_id, upgrade.administrators);
}

void PostgresStore::insert_gardener_children(pqxx::transaction_base& tx,
                                             const std::string& gardener_id,
                                             const GardenerConfig& g) {
    if (g.oidc) {
        // oidc_config shares its gardener config's id (original-provisioner.md §5.3).
        const auto& o = *g.oidc;
        insert_row(tx, "oidc_config",
                   {{"id", gardener_id},
                    {"gardener_config_id", gardener_id},
                    {"client_id", o.client_id},
                    {"groups_claim", o.groups_claim},
                    {"issuer_url", o.issuer_url},
                    {"username_claim", o.username_claim},
                    {"username_prefix", o.username_prefix}});
        const auto ids = ascending_ids(o.signing_algs.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
            insert_row(tx, "signing_algorithms",
                       {{"id", ids[i]},
                        {"oidc_config_id", gardener_id},
                        {"algorithm", o.signing_algs[i]}});
    }
    if (g.dns) {
        const std::string dns_id = engine::new_uuid();
        insert_row(
            tx, "dns_config",
            {{"id", dns_id}, {"domain", g.dns->domain}, {"gardener_config_id", gardener_id}});
        const auto ids = ascending_ids(g.dns->providers.size());
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const auto& p = g.dns->providers[i];
            insert_row(tx, "dns_providers",
                       {{"id", ids[i]},
                        {"dns_config_id", dns_id},
                        {"domains_include", join_domains(p.domains_include)},
                        {"is_primary", p.primary},
                        {"secret_name", p.secret_name},
                        {"type", p.type}});
        }
    }
}

void PostgresStore::insert_administrators(pqxx::transaction_base& tx, const std::string& cluster_id,
                                          const std::vector<std::string>& administrators) {
    const auto ids = ascending_ids(administrators.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
        insert_row(
            tx, "cluster_administrator",
            {{"id", ids[i]},
             {"cluster_id", cluster_id},
             {"user_id", m_cipher.encrypt(administrators[i], administrator_context(cluster_id))},
             {"is_user_id_encrypted", true}});
}

} // namespace pg
} // namespace kprov::stores
