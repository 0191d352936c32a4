// The runtime's desired state and events (engine/store.hpp, "Desired state"), on SQLite.

#include "engine/error.hpp"
#include "engine/util/time.hpp"
#include "stores/sqlite_store.hpp"

namespace kprov::stores::sqlite {

using engine::RuntimeEvent;
using engine::RuntimeLifecycle;

namespace {

std::optional<Timestamp> optional_time(const SQLite::Column& column) {
    if (column.isNull())
        return std::nullopt;
    return parse_db_time(column.getString());
}

} // namespace

RuntimeLifecycle SqliteStore::lifecycle_of(const std::string& runtime_id) {
    return locked([&] {
        RuntimeLifecycle out;
        auto q = cached("SELECT protected, expires_at FROM runtime_lifecycle WHERE cluster_id = ?",
                        {runtime_id});
        if (q.executeStep()) {
            out.is_protected = q.getColumn(0).getInt64() != 0;
            out.expires_at = optional_time(q.getColumn(1));
        }
        return out;
    });
}

void SqliteStore::insert_event(const std::string& runtime_id, const RuntimeEvent& event) {
    insert_row("runtime_event", {{"cluster_id", runtime_id},
                                 {"at", format_db_time(event.at)},
                                 {"kind", event.kind},
                                 {"message", event.message}});
}

bool SqliteStore::change_lifecycle(const std::string& runtime_id,
                                   const std::function<bool(RuntimeLifecycle&)>& change,
                                   const RuntimeEvent& event) {
    return write([&] {
        auto exists = cached("SELECT 1 FROM cluster WHERE id = ?", {runtime_id});
        if (!exists.executeStep())
            throw NotFound("runtime " + runtime_id + " does not exist");
        RuntimeLifecycle current;
        {
            auto q =
                cached("SELECT protected, expires_at FROM runtime_lifecycle WHERE cluster_id = ?",
                       {runtime_id});
            if (q.executeStep()) {
                current.is_protected = q.getColumn(0).getInt64() != 0;
                current.expires_at = optional_time(q.getColumn(1));
            }
        }
        if (!change(current))
            return false;
        cached(
            "INSERT INTO runtime_lifecycle (cluster_id, protected, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (cluster_id) DO UPDATE SET protected = excluded.protected, "
            "expires_at = excluded.expires_at",
            {runtime_id, std::int64_t{current.is_protected ? 1 : 0}, db_time(current.expires_at)})
            .exec();
        insert_event(runtime_id, event);
        return true;
    });
}

std::vector<std::string> SqliteStore::expired_runtimes(Timestamp now, int limit) {
    return locked([&] {
        std::vector<std::string> out;
        auto q = cached("SELECT l.cluster_id FROM runtime_lifecycle l JOIN cluster c ON "
                        "c.id = l.cluster_id WHERE l.expires_at IS NOT NULL AND l.protected = 0 "
                        "AND l.expires_at <= ? AND COALESCE(c.deleted, 0) = 0 "
                        "ORDER BY l.expires_at, l.cluster_id LIMIT ?",
                        {format_db_time(now), std::int64_t{limit}});
        while (q.executeStep())
            out.push_back(q.getColumn(0).getString());
        return out;
    });
}

void SqliteStore::record_event(const std::string& runtime_id, const RuntimeEvent& event) {
    write([&] {
        auto exists = cached("SELECT 1 FROM cluster WHERE id = ?", {runtime_id});
        if (!exists.executeStep())
            throw NotFound("runtime " + runtime_id + " does not exist");
        insert_event(runtime_id, event);
    });
}

std::vector<RuntimeEvent> SqliteStore::events_of(const std::string& runtime_id) {
    return locked([&] {
        std::vector<RuntimeEvent> out;
        auto q = cached("SELECT at, kind, message FROM runtime_event WHERE cluster_id = ? "
                        "ORDER BY id",
                        {runtime_id});
        while (q.executeStep())
            out.push_back({parse_db_time(q.getColumn(0).getString()).value_or(Timestamp{}),
                           q.getColumn(1).getString(), q.getColumn(2).getString()});
        return out;
    });
}

} // namespace kprov::stores::sqlite
