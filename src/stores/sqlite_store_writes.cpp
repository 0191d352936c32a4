// The SQLite store: starting operations, leases and progress. Every method here is one
// BEGIN IMMEDIATE transaction, so its checks and writes cannot interleave with another
// connection's, in this process or another.

#include "engine/error.hpp"
#include "stores/sqlite_store.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <iterator>
#include <sqlite3.h>

namespace kprov::stores::sqlite {

using engine::Operation;

namespace {

bool cluster_exists(SQLite::Database& db, const std::string& id) {
    return prepare(db, "SELECT 1 FROM cluster WHERE id = ?", {id}).executeStep();
}

std::string lease_expiry(Timestamp now, std::chrono::milliseconds ttl) {
    return format_db_time(now + std::chrono::duration_cast<std::chrono::microseconds>(ttl));
}

// save_progress's fenced UPDATE of the operation (the progress columns, then id, owner, now). Its
// text depends only on whether it drops the lease: built once, not per save.
std::string fenced_save_sql(bool release) {
    std::string set = assignments(operation_progress_values(Operation{}));
    if (release)
        set += ", lease_owner = NULL, lease_expires_at = NULL";
    return "UPDATE operation SET " + set +
           " WHERE id = ? AND lease_owner = ? AND lease_expires_at > ? RETURNING cluster_id";
}

} // namespace

// --- starting operations ---------------------------------------------------------------------

void SqliteStore::insert_gardener_config(const std::string& cluster_id,
                                         const engine::GardenerConfig& g) {
    auto values = gardener_values(g);
    values.insert(values.begin(), {{"id", g.id}, {"cluster_id", cluster_id}});
    insert_row("gardener_config", values);
    insert_gardener_children(g.id, g);
}

void SqliteStore::insert_gardener_children(const std::string& gardener_id,
                                           const engine::GardenerConfig& g) {
    // Children read back in rowid order, which keeps the caller's order of lists.
    if (g.oidc) {
        insert_row("oidc_config", oidc_values(gardener_id, *g.oidc));
        for (const auto& alg : g.oidc->signing_algs)
            insert_row("signing_algorithms",
                       signing_algorithm_values(engine::new_uuid(), gardener_id, alg));
    }
    if (g.dns) {
        const std::string dns_id = engine::new_uuid();
        insert_row("dns_config", dns_config_values(dns_id, gardener_id, *g.dns));
        for (const auto& p : g.dns->providers)
            insert_row("dns_providers", dns_provider_values(engine::new_uuid(), dns_id, p));
    }
}

void SqliteStore::insert_administrators(const std::string& cluster_id,
                                        const std::vector<std::string>& administrators) {
    for (const auto& admin : administrators)
        insert_row("cluster_administrator",
                   administrator_values(engine::new_uuid(), cluster_id, admin, m_cipher));
}

void SqliteStore::insert_new_operation(const Operation& op) {
    try {
        insert_row("operation", operation_values(op));
    } catch (const SQLite::Exception& e) {
        // The partial unique index operation_one_in_progress is the only UNIQUE constraint of
        // `operation` besides its primary key: the database decides, not a read before the write.
        if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_UNIQUE)
            throw OperationInProgress(op.cluster_id);
        if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY)
            throw Conflict("operation " + op.id + " already exists");
        throw;
    }
}

void SqliteStore::insert_runtime(const engine::Runtime& runtime, const Operation& first,
                                 const engine::NewRuntimeLifecycle* lifecycle) {
    write([&] {
        try {
            insert_row("cluster", cluster_values(runtime, m_cipher));
        } catch (const SQLite::Exception& e) {
            if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY)
                throw Conflict("runtime " + runtime.id + " already exists");
            throw;
        }
        insert_gardener_config(runtime.id, runtime.gardener);
        claim_shoot_name(runtime);
        insert_administrators(runtime.id, runtime.administrators);
        if (runtime.kyma)
            insert_kyma_config(runtime.id, *runtime.kyma);
        insert_new_operation(first);
        if (lifecycle) {
            cached("INSERT INTO runtime_lifecycle (cluster_id, protected, expires_at) VALUES "
                   "(?, ?, ?)",
                   {runtime.id, std::int64_t{lifecycle->attributes.is_protected ? 1 : 0},
                    db_time(lifecycle->attributes.expires_at)})
                .exec();
            for (const auto& event : lifecycle->events)
                insert_event(runtime.id, event);
        }
    });
}

void SqliteStore::claim_shoot_name(const engine::Runtime& runtime) {
    const auto& g = runtime.gardener;
    // Inside the write transaction the owner read here is the one the primary key saw.
    if (cached("INSERT INTO live_shoot (project_name, shoot_name, cluster_id) VALUES (?, ?, ?) "
               "ON CONFLICT DO NOTHING",
               {g.project_name, g.name, runtime.id})
            .exec() == 0) {
        auto owner = cached("SELECT cluster_id FROM live_shoot WHERE project_name = ? AND "
                            "shoot_name = ?",
                            {g.project_name, g.name});
        throw engine::ShootNameTaken(g.project_name, g.name,
                                     owner.executeStep() ? owner.getColumn(0).getString() : "?");
    }
}

void SqliteStore::apply_upgrade(const std::string& cluster_id,
                                const engine::RuntimeUpgrade& upgrade) {
    auto current = cached("SELECT id FROM gardener_config WHERE cluster_id = ?", {cluster_id});
    if (!current.executeStep()) {
        insert_gardener_config(cluster_id, upgrade.gardener); // a legacy row without config
    } else {
        // The row keeps its id (oidc_config shares it); everything else is replaced.
        const std::string gardener_id = current.getColumn(0).getString();
        const auto values = gardener_values(upgrade.gardener);
        cached("UPDATE gardener_config SET " + assignments(values) + " WHERE id = ?",
               parameters(values, {gardener_id}))
            .exec();
        // Explicit child deletes: correct even on a connection without foreign key cascades.
        for (const char* sql : {"DELETE FROM signing_algorithms WHERE oidc_config_id IN "
                                "(SELECT id FROM oidc_config WHERE gardener_config_id = ?)",
                                "DELETE FROM oidc_config WHERE gardener_config_id = ?",
                                "DELETE FROM dns_providers WHERE dns_config_id IN "
                                "(SELECT id FROM dns_config WHERE gardener_config_id = ?)",
                                "DELETE FROM dns_config WHERE gardener_config_id = ?"})
            cached(sql, {gardener_id}).exec();
        insert_gardener_children(gardener_id, upgrade.gardener);
    }
    cached("DELETE FROM cluster_administrator WHERE cluster_id = ?", {cluster_id}).exec();
    insert_administrators(cluster_id, upgrade.administrators);
}

void SqliteStore::insert_operation(const Operation& op, const engine::RuntimeUpgrade* upgrade) {
    write([&] {
        // Inside the write transaction nobody can delete the runtime between check and insert.
        if (!cluster_exists(*m_db, op.cluster_id))
            throw NotFound("runtime " + op.cluster_id + " does not exist");
        if (engine::is_deprovisioning(op.type) &&
            cached("SELECT 1 FROM runtime_lifecycle WHERE cluster_id = ? AND protected <> 0",
                   {op.cluster_id})
                .executeStep())
            throw RuntimeProtected(op.cluster_id);
        insert_new_operation(op); // first, so a refused operation changes nothing
        if (upgrade)
            apply_upgrade(op.cluster_id, *upgrade);
    });
}

void SqliteStore::set_tenant(const std::string& runtime_id, const std::string& tenant,
                             const std::optional<engine::StageTransition>& note) {
    write([&] {
        if (cached("UPDATE cluster SET tenant = ? WHERE id = ?", {tenant, runtime_id}).exec() == 0)
            throw NotFound("runtime " + runtime_id + " does not exist");
        if (note)
            insert_row("operation_transition", transition_values(note->operation_id, *note));
    });
}

// --- leases ----------------------------------------------------------------------------------

std::vector<Operation> SqliteStore::claim_where(const std::string& condition,
                                                const std::vector<DbValue>& params,
                                                const std::string& owner, Timestamp now,
                                                std::chrono::milliseconds ttl) {
    // ?1 owner, ?2 expiry, ?3 now; the condition's own parameters follow from ?4.
    std::vector<DbValue> all = {owner, lease_expiry(now, ttl), format_db_time(now)};
    all.insert(all.end(), params.begin(), params.end());
    auto st = cached("UPDATE operation SET lease_owner = ?1, lease_expires_at = ?2, "
                     "attempts = attempts + 1 WHERE " +
                         condition + " RETURNING " + std::string(k_operation_columns),
                     all);
    std::vector<Operation> out;
    while (st.executeStep())
        out.push_back(read_operation(SqliteRow(st)));
    return out;
}

std::vector<Operation> SqliteStore::claim_due_held(const std::string& owner, Timestamp now,
                                                   std::chrono::milliseconds ttl, int limit,
                                                   engine::ClaimOrder order) {
    // Two queues, each with its own partial index: new operations (attempts = 0) and re-checks
    // (ARCHITECTURE.md, Engine). The first named by `order`, then the other fills the batch.
    const bool rechecks_first = order == engine::ClaimOrder::RecheckFirst;
    const auto due = [&](bool rechecks, int n) {
        return claim_where(std::string("id IN (SELECT id FROM operation WHERE state = "
                                       "'IN_PROGRESS' AND next_run_at <= ?3 ") +
                               (rechecks ? "AND attempts > 0 " : "AND attempts = 0 ") +
                               "AND (lease_owner IS NULL OR lease_expires_at IS NULL "
                               "OR lease_expires_at <= ?3) ORDER BY next_run_at, rowid LIMIT ?4)",
                           {std::int64_t{n}}, owner, now, ttl);
    };
    auto claimed = due(rechecks_first, limit);
    if (static_cast<int>(claimed.size()) < limit) {
        auto rest = due(!rechecks_first, limit - static_cast<int>(claimed.size()));
        std::move(rest.begin(), rest.end(), std::back_inserter(claimed));
    }
    // RETURNING gives rows in no particular order (attempts counts this claim already).
    std::stable_sort(claimed.begin(), claimed.end(), [&](const Operation& a, const Operation& b) {
        return std::make_pair((a.attempts > 1) != rechecks_first, a.next_run_at) <
               std::make_pair((b.attempts > 1) != rechecks_first, b.next_run_at);
    });
    return claimed;
}

std::vector<Operation> SqliteStore::claim_due(const std::string& owner, Timestamp now,
                                              std::chrono::milliseconds ttl, int limit,
                                              engine::ClaimOrder order) {
    if (limit <= 0)
        return {};
    return write([&] { return claim_due_held(owner, now, ttl, limit, order); });
}

std::optional<Operation> SqliteStore::claim(const std::string& operation_id,
                                            const std::string& owner, Timestamp now,
                                            std::chrono::milliseconds ttl) {
    return write([&]() -> std::optional<Operation> {
        auto claimed = claim_where("id = ?4 AND state = 'IN_PROGRESS' AND (lease_owner IS NULL "
                                   "OR lease_expires_at IS NULL OR lease_expires_at <= ?3 "
                                   "OR lease_owner = ?1)",
                                   {operation_id}, owner, now, ttl);
        if (claimed.empty())
            return std::nullopt;
        return std::move(claimed.front());
    });
}

std::optional<Operation> SqliteStore::take_over(const std::string& operation_id,
                                                const std::string& owner, Timestamp now,
                                                std::chrono::milliseconds ttl) {
    return write([&]() -> std::optional<Operation> {
        auto claimed =
            claim_where("id = ?4 AND state = 'IN_PROGRESS'", {operation_id}, owner, now, ttl);
        if (claimed.empty())
            return std::nullopt;
        return std::move(claimed.front());
    });
}

bool SqliteStore::renew(const std::string& operation_id, const std::string& owner, Timestamp now,
                        std::chrono::milliseconds ttl) {
    return write([&] {
        return cached("UPDATE operation SET lease_expires_at = ? WHERE id = ? "
                      "AND lease_owner = ? AND lease_expires_at > ?",
                      {lease_expiry(now, ttl), operation_id, owner, format_db_time(now)})
                   .exec() == 1;
    });
}

void SqliteStore::release(const std::string& operation_id, const std::string& owner) {
    write([&] {
        cached("UPDATE operation SET lease_owner = NULL, lease_expires_at = NULL "
               "WHERE id = ? AND lease_owner = ?",
               {operation_id, owner})
            .exec();
    });
}

// --- progress --------------------------------------------------------------------------------

void SqliteStore::save_fenced(const Operation& op, const std::string& owner, Timestamp now,
                              const std::vector<engine::StageTransition>& transitions,
                              const engine::RuntimeChange& change, bool release) {
    // The fence: the write applies only while `owner` holds an unexpired lease; otherwise
    // nothing (transitions and runtime changes included) is written.
    static const std::string keep_sql = fenced_save_sql(false);
    static const std::string release_sql = fenced_save_sql(true);
    auto fenced =
        cached(release ? release_sql : keep_sql,
               parameters(operation_progress_values(op), {op.id, owner, format_db_time(now)}));
    if (!fenced.executeStep())
        throw LeaseLost("operation " + op.id + ": " + owner +
                        " no longer holds its lease; the progress was not written");
    const std::string cluster_id = fenced.getColumn(0).getString();
    while (fenced.executeStep()) {
    }

    for (const auto& t : transitions)
        insert_row("operation_transition", transition_values(op.id, t));
    if (change.seed)
        cached("UPDATE gardener_config SET seed = ? WHERE cluster_id = ?",
               {*change.seed, cluster_id})
            .exec();
    if (change.kubeconfig)
        cached("UPDATE cluster SET kubeconfig = ?, is_kubeconfig_encrypted = 1 WHERE id = ?",
               {m_cipher.encrypt(*change.kubeconfig, kubeconfig_context(cluster_id)), cluster_id})
            .exec();
    if (change.upgrade_state)
        cached("UPDATE runtime_upgrade SET state = ? WHERE operation_id = ?",
               {std::string(to_db(*change.upgrade_state)), op.id})
            .exec();
    if (change.soft_delete) {
        cached("UPDATE cluster SET deleted = 1 WHERE id = ?", {cluster_id}).exec();
        cached("DELETE FROM live_shoot WHERE cluster_id = ?", {cluster_id}).exec();
    }
}

void SqliteStore::save_progress(const Operation& op, const std::string& owner, Timestamp now,
                                const std::vector<engine::StageTransition>& transitions,
                                const engine::RuntimeChange& change, bool release) {
    write([&] { save_fenced(op, owner, now, transitions, change, release); });
}

std::optional<Operation> SqliteStore::save_progress_and_claim_next(
    const Operation& op, const std::string& owner, Timestamp now,
    const std::vector<engine::StageTransition>& transitions, const engine::RuntimeChange& change,
    std::chrono::milliseconds ttl, engine::ClaimOrder order) {
    // One BEGIN IMMEDIATE and one COMMIT (its WAL write) for both: a LeaseLost from the save
    // rolls back before anything is claimed.
    return write([&]() -> std::optional<Operation> {
        save_fenced(op, owner, now, transitions, change, true);
        auto next = claim_due_held(owner, now, ttl, 1, order);
        if (next.empty())
            return std::nullopt;
        return std::move(next.front());
    });
}

int SqliteStore::make_due(const std::vector<std::string>& runtime_ids, Timestamp now) {
    if (runtime_ids.empty())
        return 0;
    return write([&] {
        // min(): an operation that is already due keeps its place in the queue.
        const std::string at = format_db_time(now);
        int touched = 0;
        for (const auto& id : runtime_ids)
            touched += cached("UPDATE operation SET next_run_at = min(next_run_at, ?) "
                              "WHERE cluster_id = ? AND state = 'IN_PROGRESS'",
                              {at, id})
                           .exec();
        return touched;
    });
}

} // namespace kprov::stores::sqlite
