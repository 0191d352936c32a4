#include "gardener/audit_log.hpp"

#include "engine/error.hpp"
#include "engine/stages/stages.hpp"
#include "gardener/kube_error.hpp"
#include "net/logger.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <spdlog/logger.h>
#include <sstream>

namespace kprov::gardener {
namespace {

using nlohmann::json;

json provider_config(const AuditLogTenant& tenant) {
    return {{"kind", "AuditlogConfig"},
            {"apiVersion", "service.auditlog.extensions.gardener.cloud/v1alpha1"},
            {"type", "standard"},
            {"tenantID", tenant.tenant_id},
            {"serviceURL", tenant.service_url},
            {"secretReferenceName", k_auditlog_resource_name}};
}

json credentials_resource(const AuditLogTenant& tenant) {
    return {
        {"name", k_auditlog_resource_name},
        {"resourceRef", {{"apiVersion", "v1"}, {"kind", "Secret"}, {"name", tenant.secret_name}}}};
}

// Makes the list at spec[key] hold `wanted` as the entry whose `id_key` equals wanted[id_key].
bool ensure_entry(json& spec, const char* key, const char* id_key, const json& wanted) {
    json& list = spec[key];
    if (!list.is_array())
        list = json::array();
    for (auto& entry : list) {
        if (!entry.is_object() || entry.value(id_key, std::string()) != wanted[id_key])
            continue;
        bool changed = false;
        for (const auto& [field, value] : wanted.items())
            if (!entry.contains(field) || entry[field] != value) {
                entry[field] = value;
                changed = true;
            }
        return changed;
    }
    list.push_back(wanted);
    return true;
}

std::string text_at(const json& object, std::initializer_list<const char*> path) {
    const json* at = &object;
    for (const char* key : path) {
        if (!at->is_object() || !at->contains(key))
            return {};
        at = &(*at)[key];
    }
    return at->is_string() ? at->get<std::string>() : std::string();
}

} // namespace

AuditLogConfig parse_audit_log_config(const std::string& json_text, const std::string& source) {
    const json root = json::parse(json_text, nullptr, false);
    const std::string expected = "expected {\"<seed provider type>\": {\"<region>\": "
                                 "{\"tenantID\", \"serviceURL\", \"secretName\"}}}";
    if (!root.is_object())
        throw ConfigError("audit log tenant config " + source +
                          " is not a JSON object: " + expected);
    AuditLogConfig config;
    for (const auto& [provider, regions] : root.items()) {
        if (!regions.is_object())
            throw ConfigError("audit log tenant config " + source + ": \"" + provider +
                              "\" is not an object of regions: " + expected);
        for (const auto& [region, entry] : regions.items()) {
            const std::string where = provider + "." + region;
            if (!entry.is_object())
                throw ConfigError("audit log tenant config " + source + ": \"" + where +
                                  "\" is not an object: " + expected);
            AuditLogTenant tenant{text_at(entry, {"tenantID"}), text_at(entry, {"serviceURL"}),
                                  text_at(entry, {"secretName"})};
            if (tenant.tenant_id.empty() || tenant.service_url.empty() ||
                tenant.secret_name.empty())
                throw ConfigError("audit log tenant config " + source + ": \"" + where +
                                  "\" needs non-empty tenantID, serviceURL and secretName");
            config[provider][region] = std::move(tenant);
        }
    }
    return config;
}

AuditLogConfig read_audit_log_config(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw ConfigError("APP_GARDENER_AUDIT_LOGS_TENANT_CONFIG_PATH=\"" + path +
                          "\" cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_audit_log_config(text.str(), path);
}

bool apply_audit_log(json& shoot, const AuditLogTenant& tenant) {
    json& spec = shoot["spec"];
    if (!spec.is_object())
        spec = json::object();
    const json extension = {{"type", k_auditlog_extension_type},
                            {"providerConfig", provider_config(tenant)}};
    const bool extension_changed = ensure_entry(spec, "extensions", "type", extension);
    const bool resource_changed =
        ensure_entry(spec, "resources", "name", credentials_resource(tenant));
    return extension_changed || resource_changed;
}

AuditLogReconciler::AuditLogReconciler(GardenerClient& client, AuditLogConfig config,
                                       OwnsRuntime owns, std::shared_ptr<spdlog::logger> log)
    : m_client(client)
    , m_config(std::move(config))
    , m_owns(std::move(owns))
    , m_log(net::logger_or_null(std::move(log))) {}

AuditLogOutcome AuditLogReconciler::reconcile(const std::string& shoot_name) {
    const auto& log = m_log;
    for (int attempt = 1;; ++attempt) {
        bool conflict = false;
        try {
            const AuditLogOutcome outcome = reconcile_once(shoot_name, conflict);
            if (!conflict)
                return outcome;
        } catch (const std::exception& e) {
            log->warn("audit log: shoot {}: {}", shoot_name, e.what());
            return AuditLogOutcome::Failed;
        }
        if (attempt >= 3) {
            log->warn("audit log: shoot {}: it kept changing while kprov updated it; the next "
                      "change of the shoot tries again",
                      shoot_name);
            return AuditLogOutcome::Failed;
        }
    }
}

AuditLogOutcome AuditLogReconciler::reconcile_once(const std::string& shoot_name, bool& conflict) {
    const auto& log = m_log;
    auto shoot = m_client.get_shoot(shoot_name);
    if (!shoot)
        return AuditLogOutcome::Skipped;
    const std::string annotation(engine::k_runtime_id_annotation);
    const std::string runtime_id = text_at(*shoot, {"metadata", "annotations", annotation.c_str()});
    if (runtime_id.empty() || (m_owns && !m_owns(runtime_id)))
        return AuditLogOutcome::Skipped;
    const std::string seed_name = text_at(*shoot, {"spec", "seedName"});
    if (seed_name.empty())
        return AuditLogOutcome::Skipped; // not scheduled yet: its next event comes
    const auto seed = m_client.get_seed(seed_name);
    if (!seed) {
        log->warn("audit log: shoot {}: seed {} does not exist", shoot_name, seed_name);
        return AuditLogOutcome::Skipped;
    }
    const std::string provider = text_at(*seed, {"spec", "provider", "type"});
    const std::string region = text_at(*shoot, {"spec", "region"});
    const auto by_provider = m_config.find(provider);
    if (by_provider == m_config.end() || !by_provider->second.contains(region)) {
        log->warn("audit log: shoot {}: the tenant config has no entry for seed provider \"{}\" "
                  "and region \"{}\"",
                  shoot_name, provider, region);
        return AuditLogOutcome::Skipped;
    }
    if (!apply_audit_log(*shoot, by_provider->second.at(region)))
        return AuditLogOutcome::Unchanged;
    try {
        m_client.update_shoot(*shoot);
    } catch (const KubeError& e) {
        if (!e.is_conflict())
            throw;
        conflict = true;
        return AuditLogOutcome::Failed;
    }
    log->info("audit log: shoot {}: extension {} set for seed provider {}, region {}", shoot_name,
              k_auditlog_extension_type, provider, region);
    return AuditLogOutcome::Updated;
}

AuditLogWorker::AuditLogWorker(std::shared_ptr<AuditLogReconciler> reconciler)
    : m_reconciler(std::move(reconciler)) {}

AuditLogWorker::~AuditLogWorker() {
    stop();
}

void AuditLogWorker::start() {
    if (!m_thread.joinable())
        m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
}

void AuditLogWorker::stop() {
    if (!m_thread.joinable())
        return;
    m_thread.request_stop();
    m_cv.notify_all();
    m_thread.join();
}

void AuditLogWorker::on_shoot_events(const std::vector<engine::ShootEvent>& events) {
    {
        std::lock_guard lock(m_mutex);
        for (const auto& e : events)
            if (!e.deleted && e.runtime_id)
                m_queue.insert(e.shoot_name);
    }
    m_cv.notify_one();
}

void AuditLogWorker::run(std::stop_token stop) {
    for (;;) {
        std::string next;
        {
            std::unique_lock lock(m_mutex);
            if (!m_cv.wait(lock, stop, [this] { return !m_queue.empty(); }))
                return;
            next = *m_queue.begin();
            m_queue.erase(m_queue.begin());
        }
        m_reconciler->reconcile(next);
    }
}

std::unique_ptr<AuditLogWorker> make_audit_log_worker(GardenerClient& client,
                                                      const std::string& path, OwnsRuntime owns,
                                                      std::shared_ptr<spdlog::logger> log) {
    if (path.empty())
        return nullptr;
    try {
        return std::make_unique<AuditLogWorker>(std::make_shared<AuditLogReconciler>(
            client, read_audit_log_config(path), std::move(owns), log));
    } catch (const ConfigError& e) {
        net::logger_or_null(log)->warn("audit log: {}; shoots get no audit-log extension",
                                       e.what());
        return nullptr;
    }
}

} // namespace kprov::gardener
