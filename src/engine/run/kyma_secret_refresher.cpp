#include "engine/run/kyma_secret_refresher.hpp"

#include <algorithm>

namespace kprov::engine {

KymaSecretRefresher::KymaSecretRefresher(KymaLifecycleManager& kcp, Store& store,
                                         ShootClient& shoots, const Clock& clock,
                                         KlmOptions options, LogSink log)
    : m_kcp(kcp)
    , m_store(store)
    , m_shoots(shoots)
    , m_clock(clock)
    , m_options(std::move(options))
    , m_log(std::move(log)) {}

KymaSecretRefresher::~KymaSecretRefresher() {
    stop();
}

Duration KymaSecretRefresher::check_interval() const {
    return std::clamp<Duration>(m_options.kubeconfig_rotation / 4, std::chrono::seconds(1),
                                std::chrono::minutes(1));
}

bool KymaSecretRefresher::due(const KymaAccessSecretInfo& secret, Timestamp now) const {
    // A Secret without a readable last-sync is of unknown age: re-issued to be sure.
    return !secret.last_sync || now - *secret.last_sync >= m_options.kubeconfig_rotation;
}

std::size_t KymaSecretRefresher::refresh_once() {
    std::size_t refreshed = 0;
    for (const auto& secret : m_kcp.list_secrets()) {
        const Timestamp now = m_clock.now();
        if (!due(secret, now))
            continue;
        try {
            const auto runtime = m_store.find_runtime(secret.runtime_id);
            if (!runtime || runtime->deleted)
                continue; // its deprovisioning deletes the Secret
            if (const auto last = m_store.last_operation(runtime->id);
                last && last->state == OperationState::InProgress && is_deprovisioning(last->type))
                continue;
            std::string kubeconfig =
                m_shoots.admin_kubeconfig(runtime->gardener.name, m_options.kubeconfig_expiration);
            m_kcp.apply_secret(build_access_secret(*runtime, std::move(kubeconfig), now));
            ++refreshed;
            log(LogLevel::Debug,
                "re-issued the kubeconfig in Secret " + m_kcp.namespace_name() + "/" + secret.name);
        } catch (const std::exception& e) {
            log(LogLevel::Warning, "cannot re-issue the kubeconfig in Secret " +
                                       m_kcp.namespace_name() + "/" + secret.name + ": " +
                                       e.what());
        }
    }
    return refreshed;
}

void KymaSecretRefresher::start() {
    m_rounds.start([this] { refresh_once(); }, [this] { return check_interval(); },
                   [this](const std::exception& e) {
                       log(LogLevel::Warning, "cannot list the kubeconfig Secrets in the KCP: " +
                                                  std::string(e.what()));
                   });
}

void KymaSecretRefresher::stop() {
    m_rounds.stop();
}

void KymaSecretRefresher::log(LogLevel level, const std::string& message) const {
    if (m_log)
        m_log(level, message);
}

} // namespace kprov::engine
