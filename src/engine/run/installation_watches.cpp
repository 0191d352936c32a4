#include "engine/run/installation_watches.hpp"

#include <algorithm>
#include <vector>

namespace kprov::engine {

InstallationWatches::InstallationWatches(KymaInstaller& installer, Store& store, const Clock& clock,
                                         std::size_t max_watches)
    : InstallationWatches(
          [&installer](const std::string& kubeconfig, const std::string& resource_version,
                       std::chrono::milliseconds max_wait, std::stop_token stop) {
              return installer.await_change(kubeconfig, resource_version, max_wait,
                                            std::move(stop));
          },
          store, clock, max_watches) {}

InstallationWatches::InstallationWatches(AwaitChange await_change, Store& store, const Clock& clock,
                                         std::size_t max_watches)
    : m_await_change(std::move(await_change))
    , m_store(store)
    , m_clock(clock)
    , m_max_watches(max_watches) {}

InstallationWatches::~InstallationWatches() {
    std::map<std::string, Watch> watches;
    {
        std::lock_guard lock(m_mutex);
        watches.swap(m_watches);
    }
    for (auto& [id, w] : watches)
        w.thread.request_stop();
    // The jthreads join as `watches` goes.
}

void InstallationWatches::set_on_change(std::function<void()> on_change) {
    std::lock_guard lock(m_callback_mutex);
    m_on_change = std::move(on_change);
}

void InstallationWatches::watch(const std::string& runtime_id, std::string kubeconfig,
                                std::string resource_version, Duration max_wait) {
    std::vector<std::jthread> ended; // joined after the lock is released
    std::lock_guard lock(m_mutex);
    ended = take_ended();
    if (m_watches.count(runtime_id) || m_watches.size() >= m_max_watches)
        return;
    const Duration wait =
        std::clamp<Duration>(max_wait, std::chrono::seconds(1), std::chrono::minutes(5));
    auto done = std::make_shared<bool>(false);
    Watch& w = m_watches[runtime_id];
    w.done = done;
    w.thread = std::jthread([this, runtime_id, kubeconfig = std::move(kubeconfig),
                             resource_version = std::move(resource_version), wait,
                             done](std::stop_token stop) {
        run(runtime_id, kubeconfig, resource_version, wait, done, stop);
    });
}

void InstallationWatches::run(const std::string& runtime_id, const std::string& kubeconfig,
                              const std::string& resource_version, Duration max_wait,
                              const std::shared_ptr<bool>& done, std::stop_token stop) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(max_wait);
    const bool changed =
        m_await_change(kubeconfig, resource_version, wait, stop) && !stop.stop_requested();
    {
        // Done before the operation is made due: the pass that follows may ask for the next
        // watch of this runtime at once, and must get it.
        std::lock_guard lock(m_mutex);
        *done = true;
    }
    if (!changed)
        return;
    try {
        m_store.make_due({runtime_id}, m_clock.now());
    } catch (const std::exception&) {
        return; // the operation polls
    }
    // Read and called under m_callback_mutex, never from a copy taken earlier: once
    // set_on_change({}) has returned, the waker it replaced (a --wait's sleeper, a local of the
    // command) is never called again, though this thread lives until the watches go.
    std::lock_guard lock(m_callback_mutex);
    if (m_on_change)
        m_on_change();
}

std::vector<std::jthread> InstallationWatches::take_ended() {
    std::vector<std::jthread> ended;
    for (auto it = m_watches.begin(); it != m_watches.end();)
        if (*it->second.done) {
            if (it->second.thread.get_id() == std::this_thread::get_id())
                // A watch's own wake-up asks for the next watch: it cannot join itself. It is
                // past everything it does with this object (run() only returns from here on).
                it->second.thread.detach();
            else
                ended.push_back(std::move(it->second.thread));
            it = m_watches.erase(it);
        } else {
            ++it;
        }
    // Each has marked itself done and touches nothing of this object's but the store and
    // on_change: the caller joins them, without m_mutex, at once or after their make_due.
    return ended;
}

std::size_t InstallationWatches::active() const {
    std::lock_guard lock(m_mutex);
    return static_cast<std::size_t>(std::count_if(m_watches.begin(), m_watches.end(),
                                                  [](const auto& w) { return !*w.second.done; }));
}

} // namespace kprov::engine
