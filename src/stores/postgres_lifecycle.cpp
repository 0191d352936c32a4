// The runtime's desired state and events (engine/store.hpp, "Desired state"), on PostgreSQL.

#include "engine/error.hpp"
#include "engine/util/time.hpp"
#include "stores/postgres_rows.hpp"
#include "stores/postgres_store.hpp"

namespace kprov::stores::pg {

using engine::RuntimeEvent;
using engine::RuntimeLifecycle;

namespace {

std::optional<std::string> db_text(const std::optional<Timestamp>& t) {
    if (!t)
        return std::nullopt;
    return format_db_time(*t);
}

RuntimeLifecycle read_lifecycle(const pqxx::result& r) {
    RuntimeLifecycle out;
    if (!r.empty()) {
        out.is_protected = r[0][0].as<std::string>() == "t";
        if (!r[0][1].is_null())
            out.expires_at = parse_db_time(r[0][1].as<std::string>());
    }
    return out;
}

void insert_event(pqxx::transaction_base& tx, const std::string& runtime_id,
                  const RuntimeEvent& event) {
    insert_row(tx, "runtime_event",
               {{"cluster_id", runtime_id},
                {"at", format_db_time(event.at)},
                {"kind", event.kind},
                {"message", event.message}});
}

} // namespace

RuntimeLifecycle PostgresStore::lifecycle_of(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return {};
    return read_lifecycle(m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT protected, expires_at FROM runtime_lifecycle WHERE "
                          "cluster_id = $1",
                          {runtime_id});
    }));
}

void PostgresStore::insert_lifecycle(pqxx::transaction_base& tx, const std::string& runtime_id,
                                     const engine::NewRuntimeLifecycle& lifecycle) {
    exec(tx,
         "INSERT INTO runtime_lifecycle (cluster_id, protected, expires_at) VALUES ($1, $2, $3)",
         {runtime_id, std::string(lifecycle.attributes.is_protected ? "true" : "false"),
          db_text(lifecycle.attributes.expires_at)});
    for (const auto& event : lifecycle.events)
        insert_event(tx, runtime_id, event);
}

bool PostgresStore::change_lifecycle(const std::string& runtime_id,
                                     const std::function<bool(RuntimeLifecycle&)>& change,
                                     const RuntimeEvent& event) {
    if (!is_uuid(runtime_id))
        runtime_not_found(runtime_id);
    return m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        // The cluster row locked: two changes of one runtime's lifecycle take turns.
        if (exec(tx, "SELECT 1 FROM cluster WHERE id = $1 FOR UPDATE", {runtime_id}).empty())
            runtime_not_found(runtime_id);
        RuntimeLifecycle current = read_lifecycle(
            exec(tx, "SELECT protected, expires_at FROM runtime_lifecycle WHERE cluster_id = $1",
                 {runtime_id}));
        if (!change(current))
            return false;
        exec(tx,
             "INSERT INTO runtime_lifecycle (cluster_id, protected, expires_at) VALUES ($1, $2, "
             "$3) ON CONFLICT (cluster_id) DO UPDATE SET protected = excluded.protected, "
             "expires_at = excluded.expires_at",
             {runtime_id, std::string(current.is_protected ? "true" : "false"),
              db_text(current.expires_at)});
        insert_event(tx, runtime_id, event);
        tx.commit();
        return true;
    });
}

std::vector<std::string> PostgresStore::expired_runtimes(Timestamp now, int limit) {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT l.cluster_id::text FROM runtime_lifecycle l JOIN cluster c ON "
                          "c.id = l.cluster_id WHERE l.expires_at IS NOT NULL AND NOT "
                          "l.protected AND l.expires_at <= $1 AND NOT COALESCE(c.deleted, false) "
                          "ORDER BY l.expires_at, l.cluster_id LIMIT $2",
                          {format_db_time(now), std::to_string(limit)});
    });
    std::vector<std::string> out;
    for (const auto& row : r)
        out.push_back(row[0].as<std::string>());
    return out;
}

void PostgresStore::record_event(const std::string& runtime_id, const RuntimeEvent& event) {
    if (!is_uuid(runtime_id))
        runtime_not_found(runtime_id);
    m_pool.run([&](pqxx::connection& c) {
        pqxx::work tx(c);
        if (exec(tx, "SELECT 1 FROM cluster WHERE id = $1", {runtime_id}).empty())
            runtime_not_found(runtime_id);
        insert_event(tx, runtime_id, event);
        tx.commit();
    });
}

std::vector<RuntimeEvent> PostgresStore::events_of(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return {};
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT at, kind, message FROM runtime_event WHERE cluster_id = $1 "
                          "ORDER BY id",
                          {runtime_id});
    });
    std::vector<RuntimeEvent> out;
    for (const auto& row : r)
        out.push_back({parse_db_time(row[0].as<std::string>()).value_or(Timestamp{}),
                       row[1].as<std::string>(), row[2].as<std::string>()});
    return out;
}

} // namespace kprov::stores::pg
