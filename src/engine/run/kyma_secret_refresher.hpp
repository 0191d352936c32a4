#pragma once
// Keeps the KCP's kubeconfig Secrets fresh (kyma-lifecycle-manager.md §2.2, KIM's rhythm): the
// admin kubeconfig in each Secret kprov wrote is re-issued once it is older than
// KlmOptions::kubeconfig_rotation, well before it expires, so that Kyma Lifecycle Manager never
// holds a dead one. `kprov watch` and `kprov serve` run it; several processes on one store may
// run it at once (a second re-issue of the same Secret does no harm).

#include "engine/engine_options.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/ports.hpp"
#include "engine/run/periodic.hpp"
#include "engine/store.hpp"
#include "engine/util/time.hpp"

#include <cstddef>

namespace kprov::engine {

class KymaSecretRefresher {
public:
    /// Every argument must outlive the refresher. `log` may be empty.
    KymaSecretRefresher(KymaLifecycleManager& kcp, Store& store, ShootClient& shoots,
                        const Clock& clock, KlmOptions options, LogSink log = {});
    ~KymaSecretRefresher(); ///< stop()
    KymaSecretRefresher(const KymaSecretRefresher&) = delete;
    KymaSecretRefresher& operator=(const KymaSecretRefresher&) = delete;

    /// One round: lists kprov's Secrets and re-issues each one due whose runtime is stored, not
    /// deleted and not being deprovisioned. Returns how many it re-issued. Throws RemoteError
    /// when the list fails; a Secret that cannot be re-issued is logged and skipped.
    std::size_t refresh_once();

    /// Runs refresh_once() in a thread of its own every check_interval() until stop(); a failed
    /// round is logged. Calling it twice is a no-op.
    void start();
    /// Ends the thread; idempotent.
    void stop();

    /// A quarter of the rotation age, between 1 second and 1 minute.
    Duration check_interval() const;

private:
    bool due(const KymaAccessSecretInfo& secret, Timestamp now) const;
    void log(LogLevel level, const std::string& message) const;

    KymaLifecycleManager& m_kcp;
    Store& m_store;
    ShootClient& m_shoots;
    const Clock& m_clock;
    KlmOptions m_options;
    LogSink m_log;
    Periodic m_rounds; // last: stopped before the members it uses go
};

} // namespace kprov::engine
