// The Store's defaults, written against its basic calls: correct for any store, and a fallback
// for test fakes. The real stores override them with indexed queries and one transaction.

#include "engine/store.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace kprov::engine {

bool labels_match(const std::string& labels_json,
                  const std::vector<std::pair<std::string, std::string>>& wanted) {
    if (wanted.empty())
        return true;
    const auto labels = nlohmann::json::parse(labels_json, nullptr, /*allow_exceptions=*/false);
    if (!labels.is_object())
        return false;
    return std::all_of(wanted.begin(), wanted.end(), [&](const auto& pair) {
        const auto it = labels.find(pair.first);
        if (it == labels.end())
            return false;
        return it->is_string() ? it->template get<std::string>() == pair.second
                               : it->dump() == pair.second;
    });
}

std::vector<RuntimeSummary> Store::query_runtimes(const RuntimeQuery& query) {
    std::vector<RuntimeSummary> out;
    for (auto& summary : list_runtimes(query.filter)) {
        if (query.limit > 0 && out.size() >= query.limit)
            break;
        if (const auto runtime = find_runtime(summary.id))
            summary.labels_json = runtime->labels_json;
        if (labels_match(summary.labels_json, query.labels))
            out.push_back(std::move(summary));
    }
    return out;
}

namespace {

// The `limit` smallest of `ids` that start with `prefix`.
std::vector<std::string> with_prefix(std::vector<std::string> ids, const std::string& prefix,
                                     std::size_t limit) {
    std::erase_if(ids, [&prefix](const std::string& id) { return id.rfind(prefix, 0) != 0; });
    std::sort(ids.begin(), ids.end());
    if (ids.size() > limit)
        ids.resize(limit);
    return ids;
}

std::vector<RuntimeSummary> every_runtime(Store& store) {
    RuntimeFilter all;
    all.include_deleted = true;
    return store.list_runtimes(all);
}

} // namespace

std::optional<std::string> Store::tenant_of(const std::string& runtime_id) {
    auto runtime = find_runtime(runtime_id);
    if (!runtime)
        return std::nullopt;
    return std::move(runtime->tenant);
}

std::optional<OperationWithTenant>
Store::find_operation_with_tenant(const std::string& operation_id) {
    auto op = find_operation(operation_id);
    if (!op)
        return std::nullopt;
    auto tenant = tenant_of(op->cluster_id);
    return OperationWithTenant{std::move(*op), std::move(tenant), std::nullopt};
}

std::optional<RuntimeWithLastOperation> Store::find_runtime_status(const std::string& runtime_id) {
    auto runtime = find_runtime(runtime_id);
    if (!runtime)
        return std::nullopt;
    runtime->administrators.clear();
    runtime->kubeconfig.reset();
    return RuntimeWithLastOperation{std::move(*runtime), last_operation(runtime_id), std::nullopt};
}

std::vector<std::string> Store::runtime_ids_with_prefix(const std::string& prefix,
                                                        std::size_t limit) {
    std::vector<std::string> ids;
    for (const auto& summary : every_runtime(*this))
        ids.push_back(summary.id);
    return with_prefix(std::move(ids), prefix, limit);
}

std::vector<std::string> Store::operation_ids_with_prefix(const std::string& prefix,
                                                          std::size_t limit) {
    std::vector<std::string> ids;
    for (const auto& summary : every_runtime(*this))
        for (const auto& op : operations_of(summary.id))
            ids.push_back(op.id);
    return with_prefix(std::move(ids), prefix, limit);
}

std::vector<std::string> Store::runtime_ids_named(const std::string& name, std::size_t limit) {
    // list_runtimes answers newest first; live ones go first, keeping that order.
    auto runtimes = every_runtime(*this);
    std::stable_partition(runtimes.begin(), runtimes.end(),
                          [](const RuntimeSummary& r) { return !r.deleted; });
    std::vector<std::string> ids;
    for (const auto& r : runtimes)
        if ((r.name == name || r.shoot_name == name) && ids.size() < limit)
            ids.push_back(r.id);
    return ids;
}

bool Store::set_protected(const std::string& runtime_id, bool is_protected,
                          const RuntimeEvent& event) {
    return change_lifecycle(
        runtime_id,
        [&](RuntimeLifecycle& l) {
            return std::exchange(l.is_protected, is_protected) != is_protected;
        },
        event);
}

bool Store::set_expiry(const std::string& runtime_id, std::optional<Timestamp> expires_at,
                       const RuntimeEvent& event) {
    return change_lifecycle(
        runtime_id,
        [&](RuntimeLifecycle& l) { return std::exchange(l.expires_at, expires_at) != expires_at; },
        event);
}

std::optional<Operation>
Store::save_progress_and_claim_next(const Operation& op, const std::string& owner, Timestamp now,
                                    const std::vector<StageTransition>& transitions,
                                    const RuntimeChange& change, std::chrono::milliseconds ttl,
                                    ClaimOrder order) {
    save_progress(op, owner, now, transitions, change, true);
    auto next = claim_due(owner, now, ttl, 1, order);
    if (next.empty())
        return std::nullopt;
    return std::move(next.front());
}

} // namespace kprov::engine
