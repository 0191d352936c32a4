// The PostgreSQL store: what workers do with operations (claims, leases, fenced progress).
//
// A lease is held while lease_owner = owner AND lease_expires_at > now. Every write of a
// claimed operation carries that condition in its own UPDATE, which takes the row lock, so the
// check and the write are one atomic step.

#include "engine/error.hpp"
#include "stores/postgres_rows.hpp"
#include "stores/postgres_store.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace kprov::stores::pg {

using engine::Operation;

namespace {

// Claims up to $4 due operations for $1 with lease expiry $3 at time $2. `fresh` picks only
// operations no worker has claimed yet (attempts = 0), from their own partial index: a new
// operation goes first, however many re-checks fell due before it (ARCHITECTURE.md, Engine).
// SKIP LOCKED: concurrent claimers pass over each other's rows instead of queueing on them; a
// row whose lease was taken meanwhile fails the re-checked WHERE under READ COMMITTED.
std::string claim_due_sql(bool rechecks) {
    return std::string("UPDATE operation AS o SET lease_owner = $1, lease_expires_at = $3, "
                       "attempts = o.attempts + 1 "
                       "WHERE o.id IN (SELECT id FROM operation "
                       "WHERE state = 'IN_PROGRESS' AND next_run_at <= $2 ") +
           (rechecks ? "AND attempts > 0 " : "AND attempts = 0 ") +
           "AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= $2) "
           "ORDER BY next_run_at, id LIMIT $4 FOR UPDATE SKIP LOCKED) "
           "RETURNING " +
           qualified(k_operation_columns, "o");
}

const std::string& claim_sql() {
    static const std::string sql =
        std::string("UPDATE operation AS o SET lease_owner = $2, lease_expires_at = $4, "
                    "attempts = o.attempts + 1 "
                    "WHERE o.id = $1 AND o.state = 'IN_PROGRESS' "
                    "AND (o.lease_owner IS NULL OR o.lease_owner = $2 "
                    "OR o.lease_expires_at IS NULL OR o.lease_expires_at <= $3) "
                    "RETURNING ") +
        qualified(k_operation_columns, "o");
    return sql;
}

// claim_sql without the lease condition: `kprov cancel --force`.
const std::string& take_over_sql() {
    static const std::string sql =
        std::string("UPDATE operation AS o SET lease_owner = $2, lease_expires_at = $3, "
                    "attempts = o.attempts + 1 WHERE o.id = $1 AND o.state = 'IN_PROGRESS' "
                    "RETURNING ") +
        qualified(k_operation_columns, "o");
    return sql;
}

std::string expiry(Timestamp now, std::chrono::milliseconds ttl) {
    return format_db_time(now + std::chrono::duration_cast<std::chrono::microseconds>(ttl));
}

// One statement in a transaction: a connection broken before COMMIT rolls the first try back,
// so the retry does not find it applied.
pqxx::result write_once(pqxx::connection& c, const std::string& sql, const Params& params) {
    pqxx::work tx(c);
    auto r = exec(tx, sql, params);
    tx.commit();
    return r;
}

std::vector<Operation> claim_due_in(pqxx::transaction_base& tx, const std::string& owner,
                                    Timestamp now, std::chrono::milliseconds ttl, int limit,
                                    engine::ClaimOrder order) {
    // Two queues, each with its own partial index: new operations and re-checks. The first
    // named by `order`, then the other fills the batch.
    static const std::string new_sql = claim_due_sql(false);
    static const std::string recheck_sql = claim_due_sql(true);
    const bool rechecks_first = order == engine::ClaimOrder::RecheckFirst;
    std::vector<Operation> out;
    const auto due = [&](const std::string& sql, int n) {
        for (const auto& row :
             exec(tx, sql, {owner, format_db_time(now), expiry(now, ttl), std::to_string(n)}))
            out.push_back(read_operation(PqxxRow(row)));
    };
    due(rechecks_first ? recheck_sql : new_sql, limit);
    if (static_cast<int>(out.size()) < limit)
        due(rechecks_first ? new_sql : recheck_sql, limit - static_cast<int>(out.size()));
    // RETURNING keeps no order (attempts counts this claim already).
    std::sort(out.begin(), out.end(), [&](const Operation& a, const Operation& b) {
        return std::make_tuple((a.attempts > 1) != rechecks_first, a.next_run_at, a.id) <
               std::make_tuple((b.attempts > 1) != rechecks_first, b.next_run_at, b.id);
    });
    return out;
}

// save_progress's fenced UPDATE of the operation ($1 id, $2 owner, $3 now, then the progress
// columns). Its text depends only on whether it drops the lease: built once, not per save.
std::string fenced_save_sql(bool release) {
    std::string set = assignments(operation_progress_values(Operation{}), 4);
    if (release)
        set += ", lease_owner = NULL, lease_expires_at = NULL";
    return "UPDATE operation SET " + set +
           " WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > $3 RETURNING cluster_id";
}

// An id that is not a UUID names no operation (PostgreSQL would refuse its cast): whoever saves
// it holds no lease, as for any id that is not stored.
void require_leasable(const Operation& op, const std::string& owner) {
    if (!is_uuid(op.id))
        throw LeaseLost("operation " + op.id + " does not exist, so " + owner +
                        " holds no lease on it");
}

} // namespace

std::vector<Operation> PostgresStore::claim_due(const std::string& owner, Timestamp now,
                                                std::chrono::milliseconds ttl, int limit,
                                                engine::ClaimOrder order) {
    if (limit <= 0)
        return {};
    return m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        auto out = claim_due_in(tx, owner, now, ttl, limit, order);
        tx.commit();
        return out;
    });
}

std::optional<Operation> PostgresStore::claim(const std::string& operation_id,
                                              const std::string& owner, Timestamp now,
                                              std::chrono::milliseconds ttl) {
    if (!is_uuid(operation_id))
        return std::nullopt;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return write_once(c, claim_sql(),
                          {operation_id, owner, format_db_time(now), expiry(now, ttl)});
    });
    if (r.empty())
        return std::nullopt;
    return read_operation(PqxxRow(r[0]));
}

std::optional<Operation> PostgresStore::take_over(const std::string& operation_id,
                                                  const std::string& owner, Timestamp now,
                                                  std::chrono::milliseconds ttl) {
    if (!is_uuid(operation_id))
        return std::nullopt;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return write_once(c, take_over_sql(), {operation_id, owner, expiry(now, ttl)});
    });
    if (r.empty())
        return std::nullopt;
    return read_operation(PqxxRow(r[0]));
}

bool PostgresStore::renew(const std::string& operation_id, const std::string& owner, Timestamp now,
                          std::chrono::milliseconds ttl) {
    if (!is_uuid(operation_id))
        return false;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "UPDATE operation SET lease_expires_at = $4 "
                          "WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > $3",
                          {operation_id, owner, format_db_time(now), expiry(now, ttl)});
    });
    return r.affected_rows() == 1;
}

void PostgresStore::save_fenced(pqxx::transaction_base& tx, const Operation& op,
                                const std::string& owner, Timestamp now,
                                const std::vector<engine::StageTransition>& transitions,
                                const engine::RuntimeChange& change, bool release) {
    // The fence: the write applies only while `owner` holds an unexpired lease; otherwise
    // nothing (transitions and runtime changes included) is written.
    static const std::string keep_sql = fenced_save_sql(false);
    static const std::string release_sql = fenced_save_sql(true);
    const auto fenced =
        exec(tx, release ? release_sql : keep_sql,
             params_of({op.id, owner, format_db_time(now)}, operation_progress_values(op)));
    if (fenced.empty())
        throw LeaseLost("operation " + op.id + ": " + owner +
                        " no longer holds its lease; the progress was not written");
    const std::string cluster_id = fenced[0][0].c_str();
    if (!transitions.empty()) {
        std::vector<std::vector<ColumnValue>> rows;
        rows.reserve(transitions.size());
        for (const auto& t : transitions)
            rows.push_back(transition_values(op.id, t));
        insert_rows(tx, "operation_transition", rows);
    }
    if (change.seed)
        exec(tx, "UPDATE gardener_config SET seed = $2 WHERE cluster_id = $1",
             {cluster_id, *change.seed});
    if (change.kubeconfig)
        exec(tx,
             "UPDATE cluster SET kubeconfig = $2, is_kubeconfig_encrypted = true "
             "WHERE id = $1",
             {cluster_id, m_cipher.encrypt(*change.kubeconfig, kubeconfig_context(cluster_id))});
    if (change.upgrade_state)
        exec(tx, "UPDATE runtime_upgrade SET state = $2 WHERE operation_id = $1",
             {op.id, std::string(to_db(*change.upgrade_state))});
    if (change.soft_delete) {
        exec(tx, "UPDATE cluster SET deleted = true WHERE id = $1", {cluster_id});
        exec(tx, "DELETE FROM live_shoot WHERE cluster_id = $1", {cluster_id});
    }
}

void PostgresStore::save_progress(const Operation& op, const std::string& owner, Timestamp now,
                                  const std::vector<engine::StageTransition>& transitions,
                                  const engine::RuntimeChange& change, bool release) {
    require_leasable(op, owner);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        save_fenced(tx, op, owner, now, transitions, change, release);
        tx.commit();
    });
}

std::optional<Operation> PostgresStore::save_progress_and_claim_next(
    const Operation& op, const std::string& owner, Timestamp now,
    const std::vector<engine::StageTransition>& transitions, const engine::RuntimeChange& change,
    std::chrono::milliseconds ttl, engine::ClaimOrder order) {
    require_leasable(op, owner);
    // One transaction: BEGIN and COMMIT once for both, and a LeaseLost from the save rolls back
    // before anything is claimed. The claim's SKIP LOCKED passes over rows other transactions
    // hold, as claim_due's does; the saved row, locked by this one, is claimable like any other.
    return m_pool.run([&](pqxx::connection& c) -> std::optional<Operation> {
        pqxx::work tx(c);
        save_fenced(tx, op, owner, now, transitions, change, true);
        auto next = claim_due_in(tx, owner, now, ttl, 1, order);
        tx.commit();
        if (next.empty())
            return std::nullopt;
        return std::move(next.front());
    });
}

void PostgresStore::release(const std::string& operation_id, const std::string& owner) {
    if (!is_uuid(operation_id))
        return;
    m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "UPDATE operation SET lease_owner = NULL, lease_expires_at = NULL "
                          "WHERE id = $1 AND lease_owner = $2",
                          {operation_id, owner});
    });
}

int PostgresStore::make_due(const std::vector<std::string>& runtime_ids, Timestamp now) {
    std::vector<std::string> ids;
    std::copy_if(runtime_ids.begin(), runtime_ids.end(), std::back_inserter(ids), is_uuid);
    if (ids.empty())
        return 0;
    // LEAST: an operation that is already due keeps its place in the queue.
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "UPDATE operation SET next_run_at = LEAST(next_run_at, $2) "
                          "WHERE state = 'IN_PROGRESS' AND cluster_id = ANY($1::uuid[])",
                          {uuid_array(ids), format_db_time(now)});
    });
    return static_cast<int>(r.affected_rows());
}

std::optional<Timestamp> PostgresStore::next_due() {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c, "SELECT min(next_run_at) FROM operation WHERE state = 'IN_PROGRESS'",
                          {});
    });
    return PqxxRow(r[0]).optional_time(0, "min(operation.next_run_at)");
}

} // namespace kprov::stores::pg
