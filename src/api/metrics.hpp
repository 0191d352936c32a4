#pragma once
// kprov serve's Prometheus metrics (original-provisioner.md §7.3, ARCHITECTURE.md serve), kept
// in prometheus-cpp's core registry and served as text from kprov's own HTTP server:
//   kprov_in_progress_operations{operation}     gauge, every type, read from the store at scrape
//   kcp_provisioner_in_progress_{provision,deprovision}_no_install_operations_total
//                                               the original's gauges, counting the types that
//                                               really run (deliberate difference 2)
//   kprov_operation_duration_seconds{operation,state}   histogram of finished operations
//   kprov_stage_transitions_total{operation,stage}      counter
//   kprov_gardener_requests_total{verb,code}            counter (code 0: no answer)
//   kprov_api_requests_total{path,code}                 counter
//   kprov_api_request_duration_seconds{path}            histogram
//   kprov_api_answer_cache_total{result}                counter (hit, miss; answer_cache.hpp)
//   kprov_workers                                       gauge, workers claiming operations
// Thread-safe.

#include "engine/engine_options.hpp"
#include "engine/model.hpp"
#include "engine/store.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace kprov::api {

class Metrics {
public:
    /// `store` (read at every scrape) must outlive the metrics; `log` may be empty.
    explicit Metrics(engine::Store& store, engine::LogSink log = {});
    ~Metrics();
    Metrics(const Metrics&) = delete;
    Metrics& operator=(const Metrics&) = delete;

    /// One answered API request; `path` is one of the server's routes (never a client's
    /// arbitrary path, to keep the label set small).
    void api_request(std::string_view path, int status, double seconds);
    /// A GraphQL request that could have reused a kept answer: `hit` when it did.
    void answer_cache(bool hit);
    void stage_transition(engine::OperationType type, std::string_view stage);
    void operation_finished(engine::OperationType type, engine::OperationState state,
                            double seconds);
    void gardener_request(std::string_view verb, int code);
    /// The workers of this process that claim operations now (0 once they stopped).
    void workers(int count);

    /// The Prometheus text exposition format (version 0.0.4). The in-progress gauges are read
    /// from the store first; when the store fails they keep their last values and the failure
    /// is logged, so a scrape never fails.
    std::string scrape();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// A Store that passes everything through to `inner` and reports to `metrics` what successful
/// save_progress calls write: stage transitions and finished operations. Thread-safe as `inner`.
std::unique_ptr<engine::Store> metered_store(engine::Store& inner, Metrics& metrics);

} // namespace kprov::api
