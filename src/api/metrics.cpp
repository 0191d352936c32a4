#include "api/metrics.hpp"

#include <array>
#include <map>
#include <mutex>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace kprov::api {
namespace {

using engine::OperationType;

constexpr std::array k_all_types = {
    OperationType::Provision,
    OperationType::Upgrade,
    OperationType::Deprovision,
    OperationType::ReconnectRuntime,
    OperationType::UpgradeShoot,
    OperationType::Hibernate,
    OperationType::ProvisionNoInstall,
    OperationType::DeprovisionNoInstall,
    OperationType::WakeUp,
};

// Seconds to hours: operations take minutes; API requests take milliseconds.
const prometheus::Histogram::BucketBoundaries k_operation_buckets = {
    10, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200};
const prometheus::Histogram::BucketBoundaries k_request_buckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

std::string text(std::string_view s) {
    return std::string(s);
}

} // namespace

struct Metrics::Impl {
    Impl(engine::Store& s, engine::LogSink l)
        : store(s)
        , log(std::move(l))
        , registry(std::make_shared<prometheus::Registry>())
        , in_progress(prometheus::BuildGauge()
                          .Name("kprov_in_progress_operations")
                          .Help("Operations in progress in the store, by type")
                          .Register(*registry))
        , provision_compat(
              prometheus::BuildGauge()
                  .Name("kcp_provisioner_in_progress_provision_no_install_operations_total")
                  .Help("Provisioning operations in progress (PROVISION and "
                        "PROVISION_NO_INSTALL)")
                  .Register(*registry)
                  .Add({}))
        , deprovision_compat(
              prometheus::BuildGauge()
                  .Name("kcp_provisioner_in_progress_deprovision_no_install_operations_total")
                  .Help("Deprovisioning operations in progress (DEPROVISION and "
                        "DEPROVISION_NO_INSTALL)")
                  .Register(*registry)
                  .Add({}))
        , durations(prometheus::BuildHistogram()
                        .Name("kprov_operation_duration_seconds")
                        .Help("Duration of finished operations, from start to end")
                        .Register(*registry))
        , transitions(prometheus::BuildCounter()
                          .Name("kprov_stage_transitions_total")
                          .Help("Stage transitions written by this process's workers")
                          .Register(*registry))
        , gardener(prometheus::BuildCounter()
                       .Name("kprov_gardener_requests_total")
                       .Help("Requests to the Gardener API by verb and HTTP status (0: no answer)")
                       .Register(*registry))
        , requests(prometheus::BuildCounter()
                       .Name("kprov_api_requests_total")
                       .Help("API requests answered, by route and HTTP status")
                       .Register(*registry))
        , request_durations(prometheus::BuildHistogram()
                                .Name("kprov_api_request_duration_seconds")
                                .Help("Time to answer API requests, by route")
                                .Register(*registry))
        , answers(prometheus::BuildCounter()
                      .Name("kprov_api_answer_cache_total")
                      .Help("GraphQL requests that could reuse a kept answer, by result (hit: "
                            "reused; miss: executed and kept)")
                      .Register(*registry))
        , workers(prometheus::BuildGauge()
                      .Name("kprov_workers")
                      .Help("Worker threads of this process claiming operations")
                      .Register(*registry)
                      .Add({}))
        , answer_hits(answers.Add({{"result", "hit"}}))
        , answer_misses(answers.Add({{"result", "miss"}})) {
        for (const auto type : k_all_types)
            in_progress_by_type.emplace(type, &in_progress.Add({{"operation", text(to_db(type))}}));
    }

    // Family::Add takes the family's lock and hashes the labels; the hot path (API requests)
    // keeps the metrics it has seen in its own small map.
    prometheus::Counter& request_counter(std::string_view path, int status) {
        std::lock_guard lock(mutex);
        auto key = std::make_pair(text(path), status);
        auto it = request_counters.find(key);
        if (it == request_counters.end())
            it =
                request_counters
                    .emplace(key,
                             &requests.Add({{"path", key.first}, {"code", std::to_string(status)}}))
                    .first;
        return *it->second;
    }

    prometheus::Histogram& request_histogram(std::string_view path) {
        std::lock_guard lock(mutex);
        auto it = request_histograms.find(text(path));
        if (it == request_histograms.end())
            it = request_histograms
                     .emplace(text(path),
                              &request_durations.Add({{"path", text(path)}}, k_request_buckets))
                     .first;
        return *it->second;
    }

    engine::Store& store;
    engine::LogSink log;
    std::shared_ptr<prometheus::Registry> registry;
    prometheus::Family<prometheus::Gauge>& in_progress;
    prometheus::Gauge& provision_compat;
    prometheus::Gauge& deprovision_compat;
    prometheus::Family<prometheus::Histogram>& durations;
    prometheus::Family<prometheus::Counter>& transitions;
    prometheus::Family<prometheus::Counter>& gardener;
    prometheus::Family<prometheus::Counter>& requests;
    prometheus::Family<prometheus::Histogram>& request_durations;
    prometheus::Family<prometheus::Counter>& answers;
    prometheus::Gauge& workers;
    prometheus::Counter& answer_hits;
    prometheus::Counter& answer_misses;
    std::map<OperationType, prometheus::Gauge*> in_progress_by_type;

    std::mutex mutex; ///< guards the caches below
    std::map<std::pair<std::string, int>, prometheus::Counter*> request_counters;
    std::map<std::string, prometheus::Histogram*, std::less<>> request_histograms;
};

Metrics::Metrics(engine::Store& store, engine::LogSink log)
    : m_impl(std::make_unique<Impl>(store, std::move(log))) {}

Metrics::~Metrics() = default;

void Metrics::api_request(std::string_view path, int status, double seconds) {
    m_impl->request_counter(path, status).Increment();
    m_impl->request_histogram(path).Observe(seconds);
}

void Metrics::answer_cache(bool hit) {
    (hit ? m_impl->answer_hits : m_impl->answer_misses).Increment();
}

void Metrics::stage_transition(engine::OperationType type, std::string_view stage) {
    m_impl->transitions.Add({{"operation", text(to_db(type))}, {"stage", text(stage)}}).Increment();
}

void Metrics::operation_finished(engine::OperationType type, engine::OperationState state,
                                 double seconds) {
    m_impl->durations
        .Add({{"operation", text(to_db(type))}, {"state", text(to_db(state))}}, k_operation_buckets)
        .Observe(seconds);
}

void Metrics::gardener_request(std::string_view verb, int code) {
    m_impl->gardener.Add({{"verb", text(verb)}, {"code", std::to_string(code)}}).Increment();
}

void Metrics::workers(int count) {
    m_impl->workers.Set(count);
}

std::string Metrics::scrape() {
    try {
        const auto counts = m_impl->store.count_in_progress();
        const auto count = [&](OperationType type) {
            const auto it = counts.find(type);
            return it == counts.end() ? 0 : it->second;
        };
        for (const auto& [type, gauge] : m_impl->in_progress_by_type)
            gauge->Set(count(type));
        m_impl->provision_compat.Set(count(OperationType::Provision) +
                                     count(OperationType::ProvisionNoInstall));
        m_impl->deprovision_compat.Set(count(OperationType::Deprovision) +
                                       count(OperationType::DeprovisionNoInstall));
    } catch (const std::exception& e) {
        if (m_impl->log)
            m_impl->log(engine::LogLevel::Error,
                        std::string("metrics: cannot count operations in progress: ") + e.what());
    }
    return prometheus::TextSerializer().Serialize(m_impl->registry->Collect());
}

// --- metered_store ----------------------------------------------------------------------------

namespace {

class MeteredStore final : public engine::Store {
public:
    MeteredStore(engine::Store& inner, Metrics& metrics)
        : m_inner(inner)
        , m_metrics(metrics) {}

    void insert_runtime(const engine::Runtime& runtime, const engine::Operation& first,
                        const engine::NewRuntimeLifecycle* lifecycle = nullptr) override {
        m_inner.insert_runtime(runtime, first, lifecycle);
    }
    void insert_operation(const engine::Operation& op,
                          const engine::RuntimeUpgrade* upgrade) override {
        m_inner.insert_operation(op, upgrade);
    }
    std::optional<std::string> live_runtime_with_shoot(const std::string& project,
                                                       const std::string& shoot_name) override {
        return m_inner.live_runtime_with_shoot(project, shoot_name);
    }
    void set_tenant(const std::string& runtime_id, const std::string& tenant,
                    const std::optional<engine::StageTransition>& note) override {
        m_inner.set_tenant(runtime_id, tenant, note);
    }
    std::optional<engine::KymaRelease> find_kyma_release(const std::string& version) override {
        return m_inner.find_kyma_release(version);
    }
    engine::KymaRelease insert_kyma_release(const engine::KymaRelease& release) override {
        return m_inner.insert_kyma_release(release);
    }
    void insert_kyma_upgrade(const engine::Operation& op, const engine::KymaConfig& config,
                             const engine::RuntimeUpgradeRecord& record) override {
        m_inner.insert_kyma_upgrade(op, config, record);
    }
    std::optional<engine::RuntimeUpgradeRecord>
    find_runtime_upgrade(const std::string& operation_id) override {
        return m_inner.find_runtime_upgrade(operation_id);
    }
    void roll_back_upgrade(const std::string& runtime_id,
                           const std::string& operation_id) override {
        m_inner.roll_back_upgrade(runtime_id, operation_id);
    }
    std::optional<engine::Runtime> find_runtime(const std::string& runtime_id) override {
        return m_inner.find_runtime(runtime_id);
    }
    std::optional<engine::Operation> find_operation(const std::string& operation_id) override {
        return m_inner.find_operation(operation_id);
    }
    std::optional<engine::Operation> last_operation(const std::string& runtime_id) override {
        return m_inner.last_operation(runtime_id);
    }
    std::vector<engine::Operation> operations_of(const std::string& runtime_id) override {
        return m_inner.operations_of(runtime_id);
    }
    std::vector<engine::StageTransition> transitions_of(const std::string& operation_id) override {
        return m_inner.transitions_of(operation_id);
    }
    std::vector<engine::RuntimeSummary>
    list_runtimes(const engine::RuntimeFilter& filter) override {
        return m_inner.list_runtimes(filter);
    }
    std::vector<engine::RuntimeSummary> query_runtimes(const engine::RuntimeQuery& query) override {
        return m_inner.query_runtimes(query);
    }
    std::optional<std::string> tenant_of(const std::string& runtime_id) override {
        return m_inner.tenant_of(runtime_id);
    }
    std::optional<engine::OperationWithTenant>
    find_operation_with_tenant(const std::string& operation_id) override {
        return m_inner.find_operation_with_tenant(operation_id);
    }
    std::optional<engine::RuntimeWithLastOperation>
    find_runtime_status(const std::string& runtime_id) override {
        return m_inner.find_runtime_status(runtime_id);
    }
    std::vector<std::string> runtime_ids_with_prefix(const std::string& prefix,
                                                     std::size_t limit) override {
        return m_inner.runtime_ids_with_prefix(prefix, limit);
    }
    std::vector<std::string> operation_ids_with_prefix(const std::string& prefix,
                                                       std::size_t limit) override {
        return m_inner.operation_ids_with_prefix(prefix, limit);
    }
    std::map<engine::OperationType, int> count_in_progress() override {
        return m_inner.count_in_progress();
    }
    std::optional<std::uint64_t> change_counter() override { return m_inner.change_counter(); }
    std::optional<std::uint64_t> runtime_version(const std::string& runtime_id) override {
        return m_inner.runtime_version(runtime_id);
    }
    engine::RuntimeLifecycle lifecycle_of(const std::string& runtime_id) override {
        return m_inner.lifecycle_of(runtime_id);
    }
    bool change_lifecycle(const std::string& runtime_id,
                          const std::function<bool(engine::RuntimeLifecycle&)>& change,
                          const engine::RuntimeEvent& event) override {
        return m_inner.change_lifecycle(runtime_id, change, event);
    }
    std::vector<std::string> expired_runtimes(Timestamp now, int limit) override {
        return m_inner.expired_runtimes(now, limit);
    }
    void record_event(const std::string& runtime_id, const engine::RuntimeEvent& event) override {
        m_inner.record_event(runtime_id, event);
    }
    std::vector<engine::RuntimeEvent> events_of(const std::string& runtime_id) override {
        return m_inner.events_of(runtime_id);
    }
    std::vector<engine::Operation>
    claim_due(const std::string& owner, Timestamp now, std::chrono::milliseconds ttl, int limit,
              engine::ClaimOrder order = engine::ClaimOrder::NewFirst) override {
        return m_inner.claim_due(owner, now, ttl, limit, order);
    }
    std::optional<engine::Operation> claim(const std::string& operation_id,
                                           const std::string& owner, Timestamp now,
                                           std::chrono::milliseconds ttl) override {
        return m_inner.claim(operation_id, owner, now, ttl);
    }
    std::optional<engine::Operation> take_over(const std::string& operation_id,
                                               const std::string& owner, Timestamp now,
                                               std::chrono::milliseconds ttl) override {
        return m_inner.take_over(operation_id, owner, now, ttl);
    }
    bool renew(const std::string& operation_id, const std::string& owner, Timestamp now,
               std::chrono::milliseconds ttl) override {
        return m_inner.renew(operation_id, owner, now, ttl);
    }
    void save_progress(const engine::Operation& op, const std::string& owner, Timestamp now,
                       const std::vector<engine::StageTransition>& transitions,
                       const engine::RuntimeChange& change, bool release) override {
        m_inner.save_progress(op, owner, now, transitions, change, release);
        count_saved(op, now, transitions);
    }
    std::optional<engine::Operation>
    save_progress_and_claim_next(const engine::Operation& op, const std::string& owner,
                                 Timestamp now,
                                 const std::vector<engine::StageTransition>& transitions,
                                 const engine::RuntimeChange& change, std::chrono::milliseconds ttl,
                                 engine::ClaimOrder order) override {
        auto next =
            m_inner.save_progress_and_claim_next(op, owner, now, transitions, change, ttl, order);
        count_saved(op, now, transitions);
        return next;
    }
    void release(const std::string& operation_id, const std::string& owner) override {
        m_inner.release(operation_id, owner);
    }
    int make_due(const std::vector<std::string>& runtime_ids, Timestamp now) override {
        return m_inner.make_due(runtime_ids, now);
    }
    std::optional<Timestamp> next_due() override { return m_inner.next_due(); }

private:
    void count_saved(const engine::Operation& op, Timestamp now,
                     const std::vector<engine::StageTransition>& transitions) {
        for (const auto& t : transitions)
            if (t.to_stage != t.from_stage)
                m_metrics.stage_transition(op.type, t.to_stage);
        if (op.state != engine::OperationState::InProgress) {
            const auto end = op.end_timestamp.value_or(now);
            m_metrics.operation_finished(
                op.type, op.state, std::chrono::duration<double>(end - op.start_timestamp).count());
        }
    }

    engine::Store& m_inner;
    Metrics& m_metrics;
};

} // namespace

std::unique_ptr<engine::Store> metered_store(engine::Store& inner, Metrics& metrics) {
    return std::make_unique<MeteredStore>(inner, metrics);
}

} // namespace kprov::api
