#pragma once
// Watches of the Installation CRs of runtimes whose operation waits in WaitingForInstallation
// (kyma-installation.md §7.2: "the 30 s poll may become a watch"). A pass that leaves an
// operation waiting there asks for a watch from the resourceVersion it probed; the CR's next
// change makes the runtime's operation due at once (Store::make_due) and tells `on_change` (the
// workers, or a `--wait`), so an installation's end is seen within a second instead of at the
// next poll. Where a cluster cannot be watched, or more than `max_watches` run, the operation
// polls as the original did. The stored messages and transitions are the stage's either way.
//
// One thread per watched runtime; a runtime is watched at most once at a time. Thread-safe.

#include "engine/kyma.hpp"
#include "engine/store.hpp"
#include "engine/util/duration.hpp"
#include "engine/util/time.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kprov::engine {

class InstallationWatches {
public:
    /// Blocks until the watched object of `target` changes after a resourceVersion, for at most
    /// a time or until stopped; true on a change, false otherwise (and at once when it cannot
    /// watch). Throws nothing: KymaInstaller::await_change, KymaLifecycleManager::await_change.
    using AwaitChange =
        std::function<bool(const std::string& target, const std::string& resource_version,
                           std::chrono::milliseconds max_wait, std::stop_token stop)>;

    /// Watches Installation CRs through `installer`.
    InstallationWatches(KymaInstaller& installer, Store& store, const Clock& clock,
                        std::size_t max_watches = 256);
    /// Watches whatever `await_change` watches (the KCP's Kymas).
    InstallationWatches(AwaitChange await_change, Store& store, const Clock& clock,
                        std::size_t max_watches = 256);
    /// Stops every watch and waits for their threads.
    ~InstallationWatches();
    InstallationWatches(const InstallationWatches&) = delete;
    InstallationWatches& operator=(const InstallationWatches&) = delete;

    /// Called from a watch thread after a change made an operation due. Set it before the
    /// first watch(). Once this returns, the callback it replaced is not running and is never
    /// called again. It must not call set_on_change itself.
    void set_on_change(std::function<void()> on_change);

    /// Watches the runtime's object (`target`: a kubeconfig or a Kyma name) for a change after
    /// `resource_version`, for at most `max_wait` (the operation polls then anyway). No-op while
    /// a watch of the runtime runs or `max_watches` are running.
    void watch(const std::string& runtime_id, std::string target, std::string resource_version,
               Duration max_wait);

    /// Watches running now.
    std::size_t active() const;

private:
    struct Watch {
        std::jthread thread;
        std::shared_ptr<bool> done; ///< set under m_mutex when the thread ends
    };
    void run(const std::string& runtime_id, const std::string& kubeconfig,
             const std::string& resource_version, Duration max_wait,
             const std::shared_ptr<bool>& done, std::stop_token stop);
    /// Takes the watches that ended out of m_watches, for the caller to join once it has
    /// released m_mutex. Called with m_mutex held.
    std::vector<std::jthread> take_ended();

    AwaitChange m_await_change;
    Store& m_store;
    const Clock& m_clock;
    std::size_t m_max_watches;
    mutable std::mutex m_mutex;
    std::mutex m_callback_mutex; ///< guards m_on_change, and is held while it runs
    std::function<void()> m_on_change;
    std::map<std::string, Watch> m_watches;
};

} // namespace kprov::engine
