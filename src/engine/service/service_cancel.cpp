// EngineService::cancel: an operator ends an operation that cannot end by itself (an
// unreachable Gardener, a shoot that never becomes ready), so that the runtime is free again.

#include "engine/service/service.hpp"
#include "engine/stages/registration.hpp"
#include "engine/util/time.hpp"

namespace kprov::engine {

OperationLeased::OperationLeased(const std::string& operation_id, const Lease& lease)
    : Conflict("operation " + operation_id + " is being driven by " + lease.owner +
               " (its lease runs until " + format_rfc3339(lease.expires_at) +
               "); stop that process, or add --force to cancel it anyway")
    , m_lease(lease) {}

Operation EngineService::cancel(const std::string& operation_id, const std::string& owner,
                                const std::string& by, bool force) {
    const auto stored = m_store.find_operation(operation_id);
    if (!stored)
        throw NotFound("operation \"" + operation_id + "\" not found");
    if (stored->state != OperationState::InProgress)
        throw Conflict("operation " + operation_id + " is " + std::string(to_api(stored->state)) +
                       " already; only an operation in progress can be cancelled");
    const Timestamp now = m_clock.now();
    auto claimed = force ? m_store.take_over(operation_id, owner, now, m_options.lease_ttl)
                         : m_store.claim(operation_id, owner, now, m_options.lease_ttl);
    if (!claimed) {
        const auto again = m_store.find_operation(operation_id);
        if (again && again->state == OperationState::InProgress && again->lease)
            throw OperationLeased(operation_id, *again->lease);
        throw Conflict("operation " + operation_id + " ended while it was being cancelled");
    }
    Operation op = std::move(*claimed);
    const std::string message = "cancelled by " + by;
    op.state = OperationState::Failed;
    op.message = message;
    op.end_timestamp = now;
    op.last_error = {message, std::string(k_reason_cancelled), "kprov"};
    op.next_run_at = now;
    RuntimeChange change;
    if (op.type == OperationType::Upgrade)
        change.upgrade_state = UpgradeState::Failed;
    m_store.save_progress(op, owner, now,
                          {{op.id, op.stage, op.stage, OperationState::Failed, message, now}},
                          change, true);
    log(LogLevel::Debug, "operation " + op.id + " of runtime " + op.cluster_id + " " + message);
    if (const auto runtime = m_store.find_runtime(op.cluster_id))
        report_failed_to_director(m_options, m_ports, op, *runtime);
    op.lease.reset();
    return op;
}

} // namespace kprov::engine
