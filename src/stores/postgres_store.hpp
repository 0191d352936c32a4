#pragma once
// Internal to stores/: the PostgreSQL Store over the original provisioner's tables
// (original-provisioner.md §5) plus kprov's additive migrations. open_postgres_store() in
// backends.hpp is the way in.
//
// Concurrency: any number of threads and processes share one database. The one-in-progress rule
// is the partial unique index operation_one_in_progress; claims use FOR UPDATE SKIP LOCKED; every
// write of a claimed operation is fenced by (lease_owner, lease_expires_at > now).

#include "stores/cipher.hpp"
#include "stores/open_store.hpp"
#include "stores/postgres_pool.hpp"

#include <functional>
#include <string>

namespace kprov::stores {
class RowView;
}

namespace kprov::stores::pg {

class PostgresStore final : public StoreBackend {
public:
    /// Connects (StoreError if it cannot). Does not touch the schema.
    PostgresStore(const std::string& url, SecretCipher cipher, int pool_size);

    // StoreBackend (postgres_migrate.cpp)
    MigrationReport migrate() override;
    int schema_version() override;
    std::string dialect() const override { return "postgres"; }
    std::string redacted_url() const override { return m_pool.redacted_url(); }
    std::unique_ptr<SecretRows> secret_rows() override;

    // Starting operations (postgres_store.cpp)
    void insert_runtime(const engine::Runtime& runtime, const engine::Operation& first,
                        const engine::NewRuntimeLifecycle* lifecycle = nullptr) override;
    void insert_operation(const engine::Operation& op,
                          const engine::RuntimeUpgrade* upgrade) override;
    std::optional<std::string> live_runtime_with_shoot(const std::string& project,
                                                       const std::string& shoot_name) override;
    void set_tenant(const std::string& runtime_id, const std::string& tenant,
                    const std::optional<engine::StageTransition>& note) override;

    // Kyma (postgres_kyma.cpp)
    std::optional<engine::KymaRelease> find_kyma_release(const std::string& version) override;
    engine::KymaRelease insert_kyma_release(const engine::KymaRelease& release) override;
    void insert_kyma_upgrade(const engine::Operation& op, const engine::KymaConfig& config,
                             const engine::RuntimeUpgradeRecord& record) override;
    std::optional<engine::RuntimeUpgradeRecord>
    find_runtime_upgrade(const std::string& operation_id) override;
    void roll_back_upgrade(const std::string& runtime_id, const std::string& operation_id) override;

    // Reading (postgres_read.cpp)
    std::optional<engine::Runtime> find_runtime(const std::string& runtime_id) override;
    std::optional<engine::Operation> find_operation(const std::string& operation_id) override;
    std::optional<engine::Operation> last_operation(const std::string& runtime_id) override;
    std::vector<engine::Operation> operations_of(const std::string& runtime_id) override;
    std::vector<engine::StageTransition> transitions_of(const std::string& operation_id) override;
    std::vector<engine::RuntimeSummary> list_runtimes(const engine::RuntimeFilter& filter) override;
    std::vector<engine::RuntimeSummary> query_runtimes(const engine::RuntimeQuery& query) override;
    std::optional<std::string> tenant_of(const std::string& runtime_id) override;
    std::optional<engine::OperationWithTenant>
    find_operation_with_tenant(const std::string& operation_id) override;
    std::optional<engine::RuntimeWithLastOperation>
    find_runtime_status(const std::string& runtime_id) override;
    std::vector<std::string> runtime_ids_with_prefix(const std::string& prefix,
                                                     std::size_t limit) override;
    std::vector<std::string> operation_ids_with_prefix(const std::string& prefix,
                                                       std::size_t limit) override;
    std::vector<std::string> runtime_ids_named(const std::string& name, std::size_t limit) override;
    std::map<engine::OperationType, int> count_in_progress() override;
    engine::RuntimeLifecycle lifecycle_of(const std::string& runtime_id) override;
    bool change_lifecycle(const std::string& runtime_id,
                          const std::function<bool(engine::RuntimeLifecycle&)>& change,
                          const engine::RuntimeEvent& event) override;
    std::vector<std::string> expired_runtimes(Timestamp now, int limit) override;
    void record_event(const std::string& runtime_id, const engine::RuntimeEvent& event) override;
    std::vector<engine::RuntimeEvent> events_of(const std::string& runtime_id) override;

    // Running operations (postgres_lease.cpp)
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
    std::optional<engine::Operation>
    save_progress_and_claim_next(const engine::Operation& op, const std::string& owner,
                                 Timestamp now,
                                 const std::vector<engine::StageTransition>& transitions,
                                 const engine::RuntimeChange& change, std::chrono::milliseconds ttl,
                                 engine::ClaimOrder order) override;
    void release(const std::string& operation_id, const std::string& owner) override;
    int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) override;
    std::optional<Timestamp> next_due() override;

private:
    /// save_progress's fenced writes in `tx` (postgres_lease.cpp).
    void save_fenced(pqxx::transaction_base& tx, const engine::Operation& op,
                     const std::string& owner, Timestamp now,
                     const std::vector<engine::StageTransition>& transitions,
                     const engine::RuntimeChange& change, bool release);
    /// Ids of `table` that start with `prefix` (LIKE, its wildcards escaped), in id order.
    std::vector<std::string> ids_with_prefix(const std::string& table, const std::string& prefix,
                                             std::size_t limit);
    void insert_new_operation(pqxx::transaction_base& tx, const engine::Operation& op);
    /// The runtime's row of live_shoot; ShootNameTaken when another live runtime holds it.
    void claim_shoot_name(pqxx::transaction_base& tx, const engine::Runtime& runtime);
    /// insert_runtime's lifecycle rows, in its transaction.
    void insert_lifecycle(pqxx::transaction_base& tx, const std::string& runtime_id,
                          const engine::NewRuntimeLifecycle& lifecycle);
    void insert_gardener_config(pqxx::transaction_base& tx, const std::string& cluster_id,
                                const engine::GardenerConfig& g);
    // Writes the OIDC and DNS rows of gardener config `gardener_id` (none when absent).
    void insert_gardener_children(pqxx::transaction_base& tx, const std::string& gardener_id,
                                  const engine::GardenerConfig& g);
    void insert_administrators(pqxx::transaction_base& tx, const std::string& cluster_id,
                               const std::vector<std::string>& administrators);
    void apply_upgrade(pqxx::transaction_base& tx, const std::string& cluster_id,
                       const engine::RuntimeUpgrade& upgrade);
    // Reads the administrators, OIDC and DNS rows of a runtime read from cluster and
    // gardener_config.
    void read_runtime_children(pqxx::transaction_base& tx, engine::Runtime& runtime);
    // The OIDC and DNS rows of the runtime's gardener config.
    void read_gardener_children(pqxx::transaction_base& tx, engine::GardenerConfig& g);
    // find_runtime_status in one snapshot, for a runtime with OIDC, DNS or Kyma rows.
    std::optional<engine::RuntimeWithLastOperation>
    runtime_status_in_snapshot(const std::string& runtime_id, const std::string& sql);
    // Writes the kyma_config row and its components; NotFound when its release is not stored.
    void insert_kyma_config(pqxx::transaction_base& tx, const std::string& cluster_id,
                            const engine::KymaConfig& config);
    // The config `config_id` with its release (the YAML texts only `with_yaml`) and its
    // components; nullopt when it, its release or its components are missing.
    std::optional<engine::KymaConfig> read_kyma(pqxx::transaction_base& tx,
                                                const std::string& config_id, bool with_yaml);
    // A runtime from k_cluster_columns and then k_gardener_columns (NULL when it has none).
    engine::Runtime runtime_of(const RowView& row) const;

    SecretCipher m_cipher;
    ConnectionPool m_pool;
};

} // namespace kprov::stores::pg
