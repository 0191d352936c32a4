// The PostgreSQL store: reads.

#include "engine/error.hpp"
#include "stores/postgres_rows.hpp"
#include "stores/postgres_store.hpp"
#include "stores/store_common.hpp"

namespace kprov::stores::pg {

using engine::Operation;
using engine::OperationType;
using engine::Runtime;
using engine::RuntimeSummary;
using engine::StageTransition;

namespace {

// One snapshot for the several queries that read one runtime, so that a concurrent upgrade is
// seen whole or not at all.
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

const std::string& operation_select() {
    static const std::string sql =
        "SELECT " + qualified(k_operation_columns, "o") + " FROM operation o ";
    return sql;
}

// Each runtime's (alias c) last operation as `last`: the latest start, the greatest id among
// equal starts, through the operation_cluster_start index.
const std::string& join_last_operation() {
    static const std::string sql =
        "LEFT JOIN LATERAL (" + operation_select() +
        "WHERE o.cluster_id = c.id ORDER BY o.start_timestamp DESC, o.id DESC LIMIT 1"
        ") last ON true ";
    return sql;
}

std::vector<Operation> operations(const pqxx::result& r) {
    std::vector<Operation> out;
    out.reserve(r.size());
    for (const auto& row : r)
        out.push_back(read_operation(PqxxRow(row)));
    return out;
}

std::optional<Operation> first_operation(const pqxx::result& r) {
    if (r.empty())
        return std::nullopt;
    return read_operation(PqxxRow(r[0]));
}

} // namespace

std::optional<Runtime> PostgresStore::find_runtime(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return std::nullopt;
    // The cluster and its gardener config, and whether it has rows in the child tables (or a
    // Kyma config).
    static const std::string sql =
        "SELECT " + qualified(k_cluster_columns, "c") + ", " + qualified(k_gardener_columns, "g") +
        ", EXISTS (SELECT 1 FROM cluster_administrator WHERE cluster_id = c.id)"
        " OR EXISTS (SELECT 1 FROM oidc_config WHERE gardener_config_id = g.id)"
        " OR EXISTS (SELECT 1 FROM dns_config WHERE gardener_config_id = g.id)"
        " FROM cluster c LEFT JOIN gardener_config g ON g.cluster_id = c.id WHERE c.id = $1";
    constexpr int k_has_children = k_cluster_column_count + k_gardener_column_count;
    return m_pool.run([&](pqxx::connection& c) -> std::optional<Runtime> {
        {
            // One statement: all it takes for a runtime without children.
            const auto r = exec_alone(c, sql, {runtime_id});
            if (r.empty())
                return std::nullopt;
            const PqxxRow row(r[0]);
            if (!row.boolean(k_has_children) && row.is_null(k_cluster_active_kyma_column))
                return runtime_of(row);
        }
        Snapshot tx(c);
        const auto r = exec(tx, sql, {runtime_id});
        if (r.empty())
            return std::nullopt;
        const PqxxRow row(r[0]);
        Runtime rt = runtime_of(row);
        read_runtime_children(tx, rt);
        if (const auto active_kyma = row.optional_text(k_cluster_active_kyma_column))
            rt.kyma = read_kyma(tx, *active_kyma, true);
        tx.commit();
        return rt;
    });
}

Runtime PostgresStore::runtime_of(const RowView& row) const {
    Runtime rt = read_cluster(row, m_cipher);
    rt.labels_json = compact_json(rt.labels_json);
    if (!row.is_null(k_cluster_column_count))
        rt.gardener = read_gardener_config(row, k_cluster_column_count);
    return rt;
}

std::optional<engine::OperationWithTenant>
PostgresStore::find_operation_with_tenant(const std::string& operation_id) {
    if (!is_uuid(operation_id))
        return std::nullopt;
    static const std::string sql = "SELECT " + qualified(k_operation_columns, "o") +
                                   ", c.tenant FROM operation o"
                                   " LEFT JOIN cluster c ON c.id = o.cluster_id WHERE o.id = $1";
    const auto r =
        m_pool.run([&](pqxx::connection& c) { return exec_alone(c, sql, {operation_id}); });
    if (r.empty())
        return std::nullopt;
    const PqxxRow row(r[0]);
    return engine::OperationWithTenant{read_operation(row),
                                       row.optional_text(k_operation_column_count), std::nullopt};
}

std::optional<engine::RuntimeWithLastOperation>
PostgresStore::find_runtime_status(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return std::nullopt;
    // The cluster, its gardener config and its last operation in one statement (one round trip
    // and one connection from the pool per runtimeStatus); the kubeconfig is not selected, so
    // not decrypted. A runtime with OIDC, DNS or Kyma rows reads them in one snapshot.
    static const std::string sql =
        "SELECT " + cluster_columns_without_kubeconfig("c") + ", " +
        qualified(k_gardener_columns, "g") + ", last.*" +
        ", EXISTS (SELECT 1 FROM oidc_config WHERE gardener_config_id = g.id)"
        " OR EXISTS (SELECT 1 FROM dns_config WHERE gardener_config_id = g.id)"
        " FROM cluster c LEFT JOIN gardener_config g ON g.cluster_id = c.id " +
        join_last_operation() + "WHERE c.id = $1";
    constexpr int k_operation = k_cluster_column_count + k_gardener_column_count;
    const auto r =
        m_pool.run([&](pqxx::connection& c) { return exec_alone(c, sql, {runtime_id}); });
    if (r.empty())
        return std::nullopt;
    const PqxxRow row(r[0]);
    if (row.boolean(k_operation + k_operation_column_count) ||
        !row.is_null(k_cluster_active_kyma_column))
        return runtime_status_in_snapshot(runtime_id, sql);
    engine::RuntimeWithLastOperation out{runtime_of(row), std::nullopt, std::nullopt};
    if (!row.is_null(k_operation))
        out.last = read_operation(row, k_operation);
    return out;
}

std::optional<engine::RuntimeWithLastOperation>
PostgresStore::runtime_status_in_snapshot(const std::string& runtime_id, const std::string& sql) {
    constexpr int k_operation = k_cluster_column_count + k_gardener_column_count;
    return m_pool.run([&](pqxx::connection& c) -> std::optional<engine::RuntimeWithLastOperation> {
        Snapshot tx(c);
        const auto r = exec(tx, sql, {runtime_id});
        if (r.empty())
            return std::nullopt;
        const PqxxRow row(r[0]);
        engine::RuntimeWithLastOperation out{runtime_of(row), std::nullopt, std::nullopt};
        if (!row.is_null(k_operation))
            out.last = read_operation(row, k_operation);
        if (row.boolean(k_operation + k_operation_column_count))
            read_gardener_children(tx, out.runtime.gardener);
        // The release's id and version only: this path serves the API at high rates.
        if (const auto active_kyma = row.optional_text(k_cluster_active_kyma_column))
            out.runtime.kyma = read_kyma(tx, *active_kyma, false);
        tx.commit();
        return out;
    });
}

void PostgresStore::read_runtime_children(pqxx::transaction_base& tx, Runtime& rt) {
    for (const auto& r : exec(tx,
                              "SELECT user_id, is_user_id_encrypted FROM cluster_administrator "
                              "WHERE cluster_id = $1 ORDER BY id",
                              {rt.id})) {
        const PqxxRow row(r);
        rt.administrators.push_back(read_secret(m_cipher, row.text(0), row.boolean_or_false(1),
                                                administrator_context(rt.id)));
    }
    read_gardener_children(tx, rt.gardener);
}

void PostgresStore::read_gardener_children(pqxx::transaction_base& tx, engine::GardenerConfig& g) {
    if (g.id.empty())
        return;

    std::string oidc_id;
    for (const auto& r : exec(tx,
                              "SELECT o.id, o.client_id, o.groups_claim, o.issuer_url, "
                              "o.username_claim, o.username_prefix, s.algorithm "
                              "FROM oidc_config o "
                              "LEFT JOIN signing_algorithms s ON s.oidc_config_id = o.id "
                              "WHERE o.gardener_config_id = $1 ORDER BY o.id, s.id",
                              {g.id})) {
        const PqxxRow row(r);
        if (!g.oidc) {
            oidc_id = row.text(0);
            g.oidc = engine::OidcConfig{row.text(1), row.text(2), row.text(3),
                                        {},          row.text(4), row.text(5)};
        }
        if (row.text(0) == oidc_id && !row.is_null(6))
            g.oidc->signing_algs.push_back(row.text(6));
    }

    for (const auto& r : exec(tx,
                              "SELECT d.domain, p.id, p.domains_include, p.is_primary, "
                              "p.secret_name, p.type FROM dns_config d "
                              "LEFT JOIN dns_providers p ON p.dns_config_id = d.id "
                              "WHERE d.gardener_config_id = $1 ORDER BY p.id",
                              {g.id})) {
        const PqxxRow row(r);
        if (!g.dns)
            g.dns = engine::DnsConfig{row.text(0), {}};
        if (!row.is_null(1))
            g.dns->providers.push_back(engine::DnsProvider{
                split_domains(row.text(2)), row.boolean(3), row.text(4), row.text(5)});
    }
}

std::optional<Operation> PostgresStore::find_operation(const std::string& operation_id) {
    if (!is_uuid(operation_id))
        return std::nullopt;
    return first_operation(m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c, operation_select() + "WHERE o.id = $1", {operation_id});
    }));
}

std::optional<std::string> PostgresStore::live_runtime_with_shoot(const std::string& project,
                                                                  const std::string& shoot_name) {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT cluster_id::text FROM live_shoot WHERE project_name = $1 AND "
                          "shoot_name = $2",
                          {project, shoot_name});
    });
    if (r.empty())
        return std::nullopt;
    return r[0][0].as<std::string>();
}

std::optional<Operation> PostgresStore::last_operation(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return std::nullopt;
    // Scoped by runtime, unlike the original's query (original-provisioner.md §5.4).
    return first_operation(m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          operation_select() +
                              "WHERE o.cluster_id = $1 ORDER BY o.start_timestamp DESC, o.id DESC "
                              "LIMIT 1",
                          {runtime_id});
    }));
}

std::vector<Operation> PostgresStore::operations_of(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return {};
    return operations(m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          operation_select() +
                              "WHERE o.cluster_id = $1 ORDER BY o.start_timestamp DESC, o.id DESC",
                          {runtime_id});
    }));
}

std::vector<StageTransition> PostgresStore::transitions_of(const std::string& operation_id) {
    if (!is_uuid(operation_id))
        return {};
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT " + std::string(k_transition_columns) +
                              " FROM operation_transition WHERE operation_id = $1 ORDER BY id",
                          {operation_id});
    });
    std::vector<StageTransition> out;
    out.reserve(r.size());
    for (const auto& row : r)
        out.push_back(read_transition(PqxxRow(row)));
    return out;
}

std::vector<RuntimeSummary> PostgresStore::list_runtimes(const engine::RuntimeFilter& filter) {
    // One query: the LATERAL join picks each runtime's last operation through the
    // operation_cluster_start index.
    static const std::string sql =
        "SELECT c.id, c.runtime_name, g.name, g.provider, g.region, c.tenant, "
        "c.creation_timestamp, c.deleted, last.* FROM cluster c "
        "LEFT JOIN gardener_config g ON g.cluster_id = c.id " +
        join_last_operation() +
        "WHERE ($1::boolean OR c.deleted IS NOT TRUE) "
        "AND ($2::text IS NULL OR last.state::text = $2::text) "
        "ORDER BY c.creation_timestamp DESC, c.id DESC";
    const std::optional<std::string> state =
        filter.state ? std::optional<std::string>(engine::to_db(*filter.state)) : std::nullopt;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c, sql, {filter.include_deleted ? "true" : "false", state});
    });
    std::vector<RuntimeSummary> out;
    out.reserve(r.size());
    for (const auto& result_row : r) {
        const PqxxRow row(result_row);
        RuntimeSummary s;
        s.id = row.text(0);
        s.name = row.text_or_empty(1);
        s.shoot_name = row.text_or_empty(2);
        s.provider = row.text_or_empty(3);
        s.region = row.text_or_empty(4);
        s.tenant = row.text(5);
        s.creation_timestamp = row.time(6, "cluster.creation_timestamp");
        s.deleted = row.boolean_or_false(7);
        if (!row.is_null(8))
            s.last_operation = read_operation(row, 8);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<RuntimeSummary> PostgresStore::query_runtimes(const engine::RuntimeQuery& query) {
    // list_runtimes' query with the labels in front and a LIMIT the cluster_creation index
    // serves. Labels are matched here, as in every store (engine::labels_match), so without a
    // LIMIT then.
    static const std::string sql =
        "SELECT c.labels::text, c.id, c.runtime_name, g.name, g.provider, g.region, c.tenant, "
        "c.creation_timestamp, c.deleted, last.* FROM cluster c "
        "LEFT JOIN gardener_config g ON g.cluster_id = c.id " +
        join_last_operation() +
        "WHERE ($1::boolean OR c.deleted IS NOT TRUE) "
        "AND ($2::text IS NULL OR last.state::text = $2::text) "
        "ORDER BY c.creation_timestamp DESC, c.id DESC LIMIT $3::bigint";
    const auto& filter = query.filter;
    const std::optional<std::string> state =
        filter.state ? std::optional<std::string>(engine::to_db(*filter.state)) : std::nullopt;
    const std::optional<std::string> limit = query.labels.empty() && query.limit > 0
                                                 ? std::optional(std::to_string(query.limit))
                                                 : std::nullopt;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c, sql, {filter.include_deleted ? "true" : "false", state, limit});
    });
    std::vector<RuntimeSummary> out;
    for (const auto& result_row : r) {
        if (query.limit > 0 && out.size() >= query.limit)
            break;
        const PqxxRow row(result_row);
        std::string labels = row.text_or_empty(0);
        if (!engine::labels_match(labels, query.labels))
            continue;
        out.push_back(read_summary(row, 1));
        out.back().labels_json = std::move(labels);
    }
    return out;
}

namespace {

// LIKE's wildcards and escape character in `text` escaped, for a prefix match.
std::string like_prefix(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '%' || ch == '_' || ch == '\\')
            out += '\\';
        out += ch;
    }
    return out + '%';
}

} // namespace

std::vector<std::string> PostgresStore::ids_with_prefix(const std::string& table,
                                                        const std::string& prefix,
                                                        std::size_t limit) {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT id::text FROM " + table +
                              " WHERE id::text LIKE $1 ORDER BY id::text LIMIT $2::bigint",
                          {like_prefix(prefix), std::to_string(limit)});
    });
    std::vector<std::string> out;
    for (const auto& row : r)
        out.push_back(row[0].c_str());
    return out;
}

std::optional<std::string> PostgresStore::tenant_of(const std::string& runtime_id) {
    if (!is_uuid(runtime_id))
        return std::nullopt;
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c, "SELECT tenant FROM cluster WHERE id = $1", {runtime_id});
    });
    if (r.empty())
        return std::nullopt;
    return std::string(r[0][0].c_str());
}

std::vector<std::string> PostgresStore::runtime_ids_with_prefix(const std::string& prefix,
                                                                std::size_t limit) {
    return ids_with_prefix("cluster", prefix, limit);
}

std::vector<std::string> PostgresStore::operation_ids_with_prefix(const std::string& prefix,
                                                                  std::size_t limit) {
    return ids_with_prefix("operation", prefix, limit);
}

std::vector<std::string> PostgresStore::runtime_ids_named(const std::string& name,
                                                          std::size_t limit) {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT id::text FROM cluster WHERE runtime_name = $1 OR id IN "
                          "(SELECT cluster_id FROM gardener_config WHERE name = $1) "
                          "ORDER BY coalesce(deleted, false), creation_timestamp DESC, id "
                          "LIMIT $2::bigint",
                          {name, std::to_string(limit)});
    });
    std::vector<std::string> out;
    for (const auto& row : r)
        out.push_back(row[0].c_str());
    return out;
}

std::map<OperationType, int> PostgresStore::count_in_progress() {
    const auto r = m_pool.run([&](pqxx::connection& c) {
        return exec_alone(c,
                          "SELECT type, count(*) FROM operation WHERE state = 'IN_PROGRESS' "
                          "GROUP BY type",
                          {});
    });
    std::map<OperationType, int> out;
    for (const auto& row : r)
        if (const auto type = engine::operation_type_from_db(row[0].c_str()))
            out[*type] = row[1].as<int>();
    return out;
}

} // namespace kprov::stores::pg
