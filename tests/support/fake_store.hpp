#pragma once
// An in-memory Store (src/engine/store.hpp) for unit tests: the same rules as the real stores
// (leases, fencing, one operation in progress per runtime, soft delete, Kyma configs with their
// stored releases and upgrades; values stay plaintext), checked under one
// mutex instead of by a database. Plus hooks to steal leases and fail writes.

#include "engine/store.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kprov::fakes {

class FakeStore : public engine::Store {
public:
    void insert_runtime(const engine::Runtime& runtime, const engine::Operation& first,
                        const engine::NewRuntimeLifecycle* lifecycle = nullptr) override;
    void insert_operation(const engine::Operation& op,
                          const engine::RuntimeUpgrade* upgrade = nullptr) override;
    void set_tenant(const std::string& runtime_id, const std::string& tenant,
                    const std::optional<engine::StageTransition>& note) override;

    std::optional<engine::KymaRelease> find_kyma_release(const std::string& version) override;
    engine::KymaRelease insert_kyma_release(const engine::KymaRelease& release) override;
    void insert_kyma_upgrade(const engine::Operation& op, const engine::KymaConfig& config,
                             const engine::RuntimeUpgradeRecord& record) override;
    std::optional<engine::RuntimeUpgradeRecord>
    find_runtime_upgrade(const std::string& operation_id) override;
    void roll_back_upgrade(const std::string& runtime_id, const std::string& operation_id) override;

    std::optional<engine::Runtime> find_runtime(const std::string& runtime_id) override;
    /// As the stores: no administrators, no kubeconfig, the release without its YAML.
    std::optional<engine::RuntimeWithLastOperation>
    find_runtime_status(const std::string& runtime_id) override;
    std::optional<std::string> live_runtime_with_shoot(const std::string& project,
                                                       const std::string& shoot_name) override;
    std::optional<engine::Operation> find_operation(const std::string& operation_id) override;
    std::optional<engine::Operation> last_operation(const std::string& runtime_id) override;
    std::vector<engine::Operation> operations_of(const std::string& runtime_id) override;
    std::vector<engine::StageTransition> transitions_of(const std::string& operation_id) override;
    std::vector<engine::RuntimeSummary> list_runtimes(const engine::RuntimeFilter& filter) override;
    std::map<engine::OperationType, int> count_in_progress() override;
    engine::RuntimeLifecycle lifecycle_of(const std::string& runtime_id) override;
    bool change_lifecycle(const std::string& runtime_id,
                          const std::function<bool(engine::RuntimeLifecycle&)>& change,
                          const engine::RuntimeEvent& event) override;
    std::vector<std::string> expired_runtimes(Timestamp now, int limit) override;
    void record_event(const std::string& runtime_id, const engine::RuntimeEvent& event) override;
    std::vector<engine::RuntimeEvent> events_of(const std::string& runtime_id) override;

    std::vector<engine::Operation>
    claim_due(const std::string& owner, Timestamp now, std::chrono::milliseconds ttl, int limit,
              engine::ClaimOrder order = engine::ClaimOrder::NewFirst) override;
    std::optional<engine::Operation> claim(const std::string& operation_id,
                                           const std::string& owner, Timestamp now,
                                           std::chrono::milliseconds ttl) override;
    std::optional<engine::Operation> take_over(const std::string& operation_id,
                                               const std::string& owner, Timestamp now,
                                               std::chrono::milliseconds ttl) override;
    bool renew(const std::string& operation_id, const std::string& owner, Timestamp now,
               std::chrono::milliseconds ttl) override;
    void save_progress(const engine::Operation& op, const std::string& owner, Timestamp now,
                       const std::vector<engine::StageTransition>& transitions,
                       const engine::RuntimeChange& change, bool release) override;
    /// Store's default (save_progress, then claim_due), counted.
    std::optional<engine::Operation>
    save_progress_and_claim_next(const engine::Operation& op, const std::string& owner,
                                 Timestamp now,
                                 const std::vector<engine::StageTransition>& transitions,
                                 const engine::RuntimeChange& change, std::chrono::milliseconds ttl,
                                 engine::ClaimOrder order) override;
    void release(const std::string& operation_id, const std::string& owner) override;
    int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) override;
    std::optional<Timestamp> next_due() override;

    // --- test helpers ----------------------------------------------------------------------

    /// Replaces an operation's lease as another worker (or its expiry) would.
    void set_lease(const std::string& operation_id, std::optional<engine::Lease> lease);
    /// Writes an operation as it is, bypassing every rule (a row another process left).
    void put_operation(const engine::Operation& op);
    /// Called at the start of save_progress, before the fence (may throw, e.g. StoreError).
    std::function<void(const engine::Operation&)> before_save;
    /// Called at the start of renew (may throw, e.g. StoreError).
    std::function<void()> before_renew;
    /// How many save_progress calls wrote something.
    int saves() const;
    /// How many save_progress_and_claim_next calls were made (written or not).
    int saves_that_claim() const;

private:
    std::optional<std::string> live_owner_locked(const std::string& project,
                                                 const std::string& shoot_name) const;
    /// NotFound/OperationInProgress/Conflict as insert_operation, before anything is written.
    void check_new_operation_locked(const engine::Operation& op) const;
    /// Remembers `config` as a config of `cluster_id`, its components in installation order;
    /// NotFound when its release is not stored.
    engine::KymaConfig store_kyma_config_locked(engine::KymaConfig config,
                                                const std::string& cluster_id);
    /// `runtime` with its active config's release as stored (the stores read it by id).
    engine::Runtime with_release_locked(engine::Runtime runtime) const;
    std::optional<engine::Operation> claim_locked(engine::Operation& op, const std::string& owner,
                                                  Timestamp now, std::chrono::milliseconds ttl);

    mutable std::mutex m_mutex;
    std::map<std::string, engine::Runtime> m_runtimes;
    std::vector<engine::Operation> m_operations; ///< insertion order
    std::map<std::string, std::vector<engine::StageTransition>> m_transitions;
    std::map<std::string, engine::KymaRelease> m_releases;    ///< by version
    std::map<std::string, engine::KymaConfig> m_kyma_configs; ///< by id, every one written
    std::vector<engine::RuntimeUpgradeRecord> m_upgrades;
    std::map<std::string, engine::RuntimeLifecycle> m_lifecycles;
    std::map<std::string, std::vector<engine::RuntimeEvent>> m_events;
    int m_saves = 0;
    int m_saves_that_claim = 0;
};

} // namespace kprov::fakes
