#include "support/fake_store.hpp"

#include "engine/error.hpp"

#include <algorithm>

namespace kprov::fakes {

using namespace engine;

namespace {

bool leased_by_other(const Operation& op, const std::string& owner, Timestamp now) {
    return op.lease && op.lease->owner != owner && op.lease->expires_at > now;
}

Timestamp plus(Timestamp t, std::chrono::milliseconds d) {
    return t + std::chrono::duration_cast<Timestamp::duration>(d);
}

} // namespace

void FakeStore::insert_runtime(const Runtime& runtime, const Operation& first,
                               const engine::NewRuntimeLifecycle* lifecycle) {
    std::lock_guard lock(m_mutex);
    if (m_runtimes.count(runtime.id))
        throw Conflict("runtime " + runtime.id + " already exists");
    for (const auto& op : m_operations)
        if (op.id == first.id)
            throw Conflict("operation " + first.id + " already exists");
    const auto& g = runtime.gardener;
    if (const auto owner = live_owner_locked(g.project_name, g.name))
        throw ShootNameTaken(g.project_name, g.name, *owner);
    Runtime stored = runtime;
    if (stored.kyma)
        stored.kyma = store_kyma_config_locked(*stored.kyma, stored.id);
    m_runtimes[runtime.id] = std::move(stored);
    m_operations.push_back(first);
    if (lifecycle) {
        m_lifecycles[runtime.id] = lifecycle->attributes;
        for (const auto& event : lifecycle->events)
            m_events[runtime.id].push_back(event);
    }
}

KymaConfig FakeStore::store_kyma_config_locked(KymaConfig config, const std::string& cluster_id) {
    const bool stored = std::any_of(m_releases.begin(), m_releases.end(), [&](const auto& r) {
        return r.second.id == config.release.id;
    });
    if (!stored)
        throw NotFound("Kyma release " + config.release.id + " is not stored");
    if (m_kyma_configs.count(config.id))
        throw Conflict("Kyma config " + config.id + " already exists");
    config.cluster_id = cluster_id;
    std::stable_sort(
        config.components.begin(), config.components.end(),
        [](const KymaComponent& a, const KymaComponent& b) { return a.order < b.order; });
    m_kyma_configs[config.id] = config;
    return config;
}

Runtime FakeStore::with_release_locked(Runtime runtime) const {
    if (runtime.kyma)
        for (const auto& [version, release] : m_releases)
            if (release.id == runtime.kyma->release.id)
                runtime.kyma->release = release;
    return runtime;
}

void FakeStore::check_new_operation_locked(const Operation& op) const {
    if (!m_runtimes.count(op.cluster_id))
        throw NotFound("runtime " + op.cluster_id + " does not exist");
    for (const auto& existing : m_operations) {
        if (existing.cluster_id == op.cluster_id && existing.state == OperationState::InProgress)
            throw OperationInProgress(op.cluster_id);
        if (existing.id == op.id)
            throw Conflict("operation " + op.id + " already exists");
    }
}

std::optional<KymaRelease> FakeStore::find_kyma_release(const std::string& version) {
    std::lock_guard lock(m_mutex);
    const auto it = m_releases.find(version);
    if (it == m_releases.end())
        return std::nullopt;
    return it->second;
}

KymaRelease FakeStore::insert_kyma_release(const KymaRelease& release) {
    std::lock_guard lock(m_mutex);
    KymaRelease row = release;
    if (row.id.empty())
        row.id = new_uuid();
    return m_releases.emplace(row.version, row).first->second; // the first writer's row
}

void FakeStore::insert_kyma_upgrade(const Operation& op, const KymaConfig& config,
                                    const RuntimeUpgradeRecord& record) {
    std::lock_guard lock(m_mutex);
    check_new_operation_locked(op);
    Runtime& runtime = m_runtimes.at(op.cluster_id);
    if (!runtime.kyma)
        throw Conflict("runtime " + op.cluster_id + " has no active Kyma config to upgrade from");
    const std::string pre = runtime.kyma->id;
    KymaConfig stored = store_kyma_config_locked(config, op.cluster_id);
    m_operations.push_back(op);
    RuntimeUpgradeRecord row = record;
    if (row.id.empty())
        row.id = new_uuid();
    row.operation_id = op.id;
    row.pre_upgrade_kyma_config_id = pre;
    row.post_upgrade_kyma_config_id = stored.id;
    m_upgrades.push_back(row);
    runtime.kyma = std::move(stored);
}

std::optional<RuntimeUpgradeRecord>
FakeStore::find_runtime_upgrade(const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    for (const auto& u : m_upgrades)
        if (u.operation_id == operation_id)
            return u;
    return std::nullopt;
}

void FakeStore::roll_back_upgrade(const std::string& runtime_id, const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    for (auto& u : m_upgrades) {
        if (u.operation_id != operation_id)
            continue;
        const bool of_runtime =
            std::any_of(m_operations.begin(), m_operations.end(), [&](const Operation& op) {
                return op.id == operation_id && op.cluster_id == runtime_id;
            });
        if (!of_runtime)
            break;
        u.state = UpgradeState::RolledBack;
        m_runtimes.at(runtime_id).kyma = m_kyma_configs.at(u.pre_upgrade_kyma_config_id);
        return;
    }
    throw NotFound("operation " + operation_id + " of runtime " + runtime_id +
                   " has no runtime_upgrade row");
}

void FakeStore::insert_operation(const Operation& op, const RuntimeUpgrade* upgrade) {
    std::lock_guard lock(m_mutex);
    check_new_operation_locked(op);
    if (const auto l = m_lifecycles.find(op.cluster_id);
        engine::is_deprovisioning(op.type) && l != m_lifecycles.end() && l->second.is_protected)
        throw RuntimeProtected(op.cluster_id);
    auto runtime = m_runtimes.find(op.cluster_id);
    m_operations.push_back(op);
    if (upgrade) {
        const std::string gardener_id = runtime->second.gardener.id; // the row keeps its id
        runtime->second.gardener = upgrade->gardener;
        runtime->second.gardener.id = gardener_id;
        runtime->second.administrators = upgrade->administrators;
    }
}

void FakeStore::set_tenant(const std::string& runtime_id, const std::string& tenant,
                           const std::optional<engine::StageTransition>& note) {
    std::lock_guard lock(m_mutex);
    auto it = m_runtimes.find(runtime_id);
    if (it == m_runtimes.end())
        throw NotFound("runtime " + runtime_id + " does not exist");
    it->second.tenant = tenant;
    if (note)
        m_transitions[note->operation_id].push_back(*note);
}

std::optional<std::string> FakeStore::live_owner_locked(const std::string& project,
                                                        const std::string& shoot_name) const {
    for (const auto& [id, r] : m_runtimes)
        if (!r.deleted && r.gardener.project_name == project && r.gardener.name == shoot_name)
            return id;
    return std::nullopt;
}

std::optional<std::string> FakeStore::live_runtime_with_shoot(const std::string& project,
                                                              const std::string& shoot_name) {
    std::lock_guard lock(m_mutex);
    return live_owner_locked(project, shoot_name);
}

std::optional<Runtime> FakeStore::find_runtime(const std::string& runtime_id) {
    std::lock_guard lock(m_mutex);
    auto it = m_runtimes.find(runtime_id);
    if (it == m_runtimes.end())
        return std::nullopt;
    return with_release_locked(it->second);
}

std::optional<RuntimeWithLastOperation>
FakeStore::find_runtime_status(const std::string& runtime_id) {
    auto status = Store::find_runtime_status(runtime_id);
    if (status && status->runtime.kyma) {
        status->runtime.kyma->release.tiller_yaml.clear();
        status->runtime.kyma->release.installer_yaml.clear();
    }
    return status;
}

std::optional<Operation> FakeStore::find_operation(const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    for (const auto& op : m_operations)
        if (op.id == operation_id)
            return op;
    return std::nullopt;
}

std::optional<Operation> FakeStore::last_operation(const std::string& runtime_id) {
    const auto all = operations_of(runtime_id);
    if (all.empty())
        return std::nullopt;
    return all.front();
}

std::vector<Operation> FakeStore::operations_of(const std::string& runtime_id) {
    std::lock_guard lock(m_mutex);
    std::vector<Operation> out;
    for (const auto& op : m_operations)
        if (op.cluster_id == runtime_id)
            out.push_back(op);
    // Newest first; among equal starts the later insert counts as newer.
    std::reverse(out.begin(), out.end());
    std::stable_sort(out.begin(), out.end(), [](const Operation& a, const Operation& b) {
        return a.start_timestamp > b.start_timestamp;
    });
    return out;
}

std::vector<StageTransition> FakeStore::transitions_of(const std::string& operation_id) {
    std::lock_guard lock(m_mutex);
    auto it = m_transitions.find(operation_id);
    return it == m_transitions.end() ? std::vector<StageTransition>{} : it->second;
}

std::vector<RuntimeSummary> FakeStore::list_runtimes(const RuntimeFilter& filter) {
    std::vector<Runtime> runtimes;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, r] : m_runtimes)
            runtimes.push_back(r);
    }
    std::stable_sort(runtimes.begin(), runtimes.end(), [](const Runtime& a, const Runtime& b) {
        return a.creation_timestamp > b.creation_timestamp;
    });
    std::vector<RuntimeSummary> out;
    for (const auto& r : runtimes) {
        if (r.deleted && !filter.include_deleted)
            continue;
        RuntimeSummary s{r.id,
                         r.name,
                         r.gardener.name,
                         r.gardener.provider,
                         r.gardener.region,
                         r.tenant,
                         r.creation_timestamp,
                         r.deleted,
                         last_operation(r.id)};
        if (filter.state && (!s.last_operation || s.last_operation->state != *filter.state))
            continue;
        out.push_back(std::move(s));
    }
    return out;
}

std::map<OperationType, int> FakeStore::count_in_progress() {
    std::lock_guard lock(m_mutex);
    std::map<OperationType, int> counts;
    for (const auto& op : m_operations)
        if (op.state == OperationState::InProgress)
            ++counts[op.type];
    return counts;
}

engine::RuntimeLifecycle FakeStore::lifecycle_of(const std::string& runtime_id) {
    std::lock_guard lock(m_mutex);
    const auto it = m_lifecycles.find(runtime_id);
    return it == m_lifecycles.end() ? engine::RuntimeLifecycle{} : it->second;
}

bool FakeStore::change_lifecycle(const std::string& runtime_id,
                                 const std::function<bool(engine::RuntimeLifecycle&)>& change,
                                 const engine::RuntimeEvent& event) {
    std::lock_guard lock(m_mutex);
    if (!m_runtimes.count(runtime_id))
        throw NotFound("runtime " + runtime_id + " does not exist");
    engine::RuntimeLifecycle next = m_lifecycles[runtime_id];
    if (!change(next))
        return false;
    m_lifecycles[runtime_id] = next;
    m_events[runtime_id].push_back(event);
    return true;
}

std::vector<std::string> FakeStore::expired_runtimes(Timestamp now, int limit) {
    std::lock_guard lock(m_mutex);
    std::vector<std::pair<Timestamp, std::string>> due;
    for (const auto& [id, l] : m_lifecycles) {
        const auto runtime = m_runtimes.find(id);
        if (l.expires_at && !l.is_protected && *l.expires_at <= now &&
            runtime != m_runtimes.end() && !runtime->second.deleted)
            due.emplace_back(*l.expires_at, id);
    }
    std::sort(due.begin(), due.end());
    std::vector<std::string> out;
    for (const auto& [at, id] : due)
        if (static_cast<int>(out.size()) < limit)
            out.push_back(id);
    return out;
}

void FakeStore::record_event(const std::string& runtime_id, const engine::RuntimeEvent& event) {
    std::lock_guard lock(m_mutex);
    if (!m_runtimes.count(runtime_id))
        throw NotFound("runtime " + runtime_id + " does not exist");
    m_events[runtime_id].push_back(event);
}

std::vector<engine::RuntimeEvent> FakeStore::events_of(const std::string& runtime_id) {
    std::lock_guard lock(m_mutex);
    const auto it = m_events.find(runtime_id);
    return it == m_events.end() ? std::vector<engine::RuntimeEvent>{} : it->second;
}

std::optional<Operation> FakeStore::claim_locked(Operation& op, const std::string& owner,
                                                 Timestamp now, std::chrono::milliseconds ttl) {
    op.lease = Lease{owner, plus(now, ttl)};
    ++op.attempts;
    return op;
}

std::vector<Operation> FakeStore::claim_due(const std::string& owner, Timestamp now,
                                            std::chrono::milliseconds ttl, int limit,
                                            engine::ClaimOrder order) {
    std::lock_guard lock(m_mutex);
    std::vector<Operation*> due;
    for (auto& op : m_operations)
        if (op.state == OperationState::InProgress && op.next_run_at <= now &&
            !(op.lease && op.lease->expires_at > now))
            due.push_back(&op);
    // As the stores: the queue `order` names first (new operations or re-checks), each by due
    // time.
    const bool rechecks_first = order == engine::ClaimOrder::RecheckFirst;
    std::stable_sort(due.begin(), due.end(), [&](const Operation* a, const Operation* b) {
        return std::make_pair((a->attempts > 0) != rechecks_first, a->next_run_at) <
               std::make_pair((b->attempts > 0) != rechecks_first, b->next_run_at);
    });
    std::vector<Operation> out;
    for (auto* op : due) {
        if (static_cast<int>(out.size()) >= limit)
            break;
        out.push_back(*claim_locked(*op, owner, now, ttl));
    }
    return out;
}

std::optional<Operation> FakeStore::claim(const std::string& operation_id, const std::string& owner,
                                          Timestamp now, std::chrono::milliseconds ttl) {
    std::lock_guard lock(m_mutex);
    for (auto& op : m_operations) {
        if (op.id != operation_id)
            continue;
        if (op.state != OperationState::InProgress || leased_by_other(op, owner, now))
            return std::nullopt;
        return claim_locked(op, owner, now, ttl);
    }
    return std::nullopt;
}

std::optional<Operation> FakeStore::take_over(const std::string& operation_id,
                                              const std::string& owner, Timestamp now,
                                              std::chrono::milliseconds ttl) {
    std::lock_guard lock(m_mutex);
    for (auto& op : m_operations)
        if (op.id == operation_id && op.state == OperationState::InProgress)
            return claim_locked(op, owner, now, ttl);
    return std::nullopt;
}

bool FakeStore::renew(const std::string& operation_id, const std::string& owner, Timestamp now,
                      std::chrono::milliseconds ttl) {
    if (before_renew)
        before_renew();
    std::lock_guard lock(m_mutex);
    for (auto& op : m_operations)
        if (op.id == operation_id && op.lease && op.lease->owner == owner &&
            op.lease->expires_at > now) {
            op.lease->expires_at = plus(now, ttl);
            return true;
        }
    return false;
}

void FakeStore::save_progress(const Operation& op, const std::string& owner, Timestamp now,
                              const std::vector<StageTransition>& transitions,
                              const RuntimeChange& change, bool release) {
    if (before_save)
        before_save(op);
    std::lock_guard lock(m_mutex);
    auto it = std::find_if(m_operations.begin(), m_operations.end(),
                           [&](const Operation& o) { return o.id == op.id; });
    if (it == m_operations.end() || !it->lease || it->lease->owner != owner ||
        it->lease->expires_at <= now)
        throw LeaseLost("operation " + op.id + ": " + owner + " no longer holds its lease");
    // The progress columns only: type, start, runtime, lease and attempts stay.
    it->state = op.state;
    it->message = op.message;
    it->end_timestamp = op.end_timestamp;
    it->stage = op.stage;
    it->last_transition = op.last_transition;
    it->last_error = op.last_error;
    it->next_run_at = op.next_run_at;
    if (release)
        it->lease.reset();
    auto& history = m_transitions[op.id];
    history.insert(history.end(), transitions.begin(), transitions.end());
    Runtime& runtime = m_runtimes.at(it->cluster_id);
    if (change.seed)
        runtime.gardener.seed = *change.seed;
    if (change.kubeconfig)
        runtime.kubeconfig = change.kubeconfig;
    if (change.soft_delete)
        runtime.deleted = true;
    if (change.upgrade_state)
        for (auto& u : m_upgrades)
            if (u.operation_id == op.id)
                u.state = *change.upgrade_state;
    ++m_saves;
}

void FakeStore::release(const std::string& operation_id, const std::string& owner) {
    std::lock_guard lock(m_mutex);
    for (auto& op : m_operations)
        if (op.id == operation_id && op.lease && op.lease->owner == owner)
            op.lease.reset();
}

int FakeStore::make_due(const std::vector<std::string>& runtime_ids, Timestamp now) {
    std::lock_guard lock(m_mutex);
    int touched = 0;
    for (auto& op : m_operations)
        if (op.state == OperationState::InProgress &&
            std::find(runtime_ids.begin(), runtime_ids.end(), op.cluster_id) != runtime_ids.end()) {
            op.next_run_at = std::min(op.next_run_at, now);
            ++touched;
        }
    return touched;
}

std::optional<Timestamp> FakeStore::next_due() {
    std::lock_guard lock(m_mutex);
    std::optional<Timestamp> earliest;
    for (const auto& op : m_operations)
        if (op.state == OperationState::InProgress && (!earliest || op.next_run_at < *earliest))
            earliest = op.next_run_at;
    return earliest;
}

void FakeStore::set_lease(const std::string& operation_id, std::optional<Lease> lease) {
    std::lock_guard lock(m_mutex);
    for (auto& op : m_operations)
        if (op.id == operation_id)
            op.lease = std::move(lease);
}

void FakeStore::put_operation(const Operation& op) {
    std::lock_guard lock(m_mutex);
    for (auto& existing : m_operations)
        if (existing.id == op.id) {
            existing = op;
            return;
        }
    m_operations.push_back(op);
}

int FakeStore::saves() const {
    std::lock_guard lock(m_mutex);
    return m_saves;
}

std::optional<engine::Operation> FakeStore::save_progress_and_claim_next(
    const engine::Operation& op, const std::string& owner, Timestamp now,
    const std::vector<engine::StageTransition>& transitions, const engine::RuntimeChange& change,
    std::chrono::milliseconds ttl, engine::ClaimOrder order) {
    {
        std::lock_guard lock(m_mutex);
        ++m_saves_that_claim;
    }
    return Store::save_progress_and_claim_next(op, owner, now, transitions, change, ttl, order);
}

int FakeStore::saves_that_claim() const {
    std::lock_guard lock(m_mutex);
    return m_saves_that_claim;
}

} // namespace kprov::fakes
