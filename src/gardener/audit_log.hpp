#pragma once
// The audit-log reconciler (original-provisioner.md §4.5, §4.10): for the shoots kprov owns, the
// extension shoot-auditlog-service and the resource auditlog-credentials, chosen by the seed's
// provider type and the shoot's region from the tenant config file
// (APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH). Driven by the same shoot watch as the engine.
// Every audit-log problem is a warning in the log, never a failure of anything else.

#include "engine/ports.hpp"
#include "gardener/gardener_client.hpp"

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace spdlog {
class logger;
}

namespace kprov::gardener {

/// One audit-log tenant: where a region's audit logs go.
struct AuditLogTenant {
    std::string tenant_id;
    std::string service_url;
    std::string secret_name; ///< the Secret (in the project namespace) with the credentials
    bool operator==(const AuditLogTenant&) const = default;
};

/// The tenant config file: tenants by seed provider type, then by shoot region.
using AuditLogConfig = std::map<std::string, std::map<std::string, AuditLogTenant>>;

/// Parses the tenant config JSON `{"<provider type>": {"<region>": {"tenantID", "serviceURL",
/// "secretName"}}}`. Throws ConfigError naming `source` and the first bad entry.
AuditLogConfig parse_audit_log_config(const std::string& json_text, const std::string& source);
/// Reads and parses the file at `path`. Throws ConfigError when it cannot be read or parsed.
AuditLogConfig read_audit_log_config(const std::string& path);

/// The extension and resource names the original uses.
inline constexpr const char* k_auditlog_extension_type = "shoot-auditlog-service";
inline constexpr const char* k_auditlog_resource_name = "auditlog-credentials";

/// Adds (or corrects) the audit-log extension and resource of `tenant` in `shoot` (a Shoot
/// object). Returns whether anything changed.
bool apply_audit_log(nlohmann::json& shoot, const AuditLogTenant& tenant);

/// What one reconcile did.
enum class AuditLogOutcome {
    Updated,   ///< the shoot was written
    Unchanged, ///< it already had both
    Skipped,   ///< not ours, gone, no seed yet, or no tenant for it (a warning was logged)
    Failed,    ///< Gardener failed (a warning was logged)
};

/// Whether kprov owns the runtime with this id (the shoot's runtime-id annotation).
using OwnsRuntime = std::function<bool(const std::string& runtime_id)>;

/// Thread-safe when `owns` is.
class AuditLogReconciler {
public:
    /// `client` must outlive the reconciler. Its warnings go to `log` (net/logger.hpp; null:
    /// nowhere).
    AuditLogReconciler(GardenerClient& client, AuditLogConfig config, OwnsRuntime owns,
                       std::shared_ptr<spdlog::logger> log = {});

    /// Reads the shoot and its seed and updates the shoot when it lacks the audit-log
    /// extension or resource (re-reading on a version conflict). Throws nothing.
    AuditLogOutcome reconcile(const std::string& shoot_name);

private:
    AuditLogOutcome reconcile_once(const std::string& shoot_name, bool& conflict);

    GardenerClient& m_client;
    AuditLogConfig m_config;
    OwnsRuntime m_owns;
    std::shared_ptr<spdlog::logger> m_log;
};

/// Runs a reconciler on its own thread for the shoots of watch events, so that its Gardener
/// calls never hold up the watch. Events for one shoot arriving while it waits are merged.
class AuditLogWorker {
public:
    explicit AuditLogWorker(std::shared_ptr<AuditLogReconciler> reconciler);
    ~AuditLogWorker(); ///< stop()
    AuditLogWorker(const AuditLogWorker&) = delete;
    AuditLogWorker& operator=(const AuditLogWorker&) = delete;

    void start();
    /// Ends the thread after the reconcile in flight; what is queued is dropped. Idempotent.
    void stop();
    /// Queues the shoots of these events (deleted ones are ignored). Thread-safe.
    void on_shoot_events(const std::vector<engine::ShootEvent>& events);

private:
    void run(std::stop_token stop);

    std::shared_ptr<AuditLogReconciler> m_reconciler;
    std::mutex m_mutex;
    std::condition_variable_any m_cv;
    std::set<std::string> m_queue;
    std::jthread m_thread;
};

/// The audit-log worker for the tenant config file at `path` (APP_GARDENER_AUDIT_LOGS_TENANT_
/// CONFIG_PATH), not started; nullptr when `path` is empty, and (with a warning in the log) when
/// the file cannot be read or parsed, as the original only warned about file errors. That
/// warning and the reconciler's go to `log` (null: nowhere).
std::unique_ptr<AuditLogWorker> make_audit_log_worker(GardenerClient& client,
                                                      const std::string& path, OwnsRuntime owns,
                                                      std::shared_ptr<spdlog::logger> log = {});

} // namespace kprov::gardener
