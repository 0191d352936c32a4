// await_object_change: a watch of one object bounded by a deadline. The deadlines of every
// waiting call share one timer thread, so that many objects can be watched at once without a
// second thread each.

#include "gardener/object_watch.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

namespace kprov::gardener {
namespace {

using nlohmann::json;
using TimerClock = std::chrono::steady_clock;

// Requests stop on a stop_source when its deadline passes.
class DeadlineTimer {
public:
    using Key = std::pair<TimerClock::time_point, std::uint64_t>;

    static DeadlineTimer& instance() {
        static DeadlineTimer timer;
        return timer;
    }

    Key add(TimerClock::time_point deadline, std::stop_source source) {
        std::lock_guard lock(m_mutex);
        const Key key{deadline, m_next++};
        const bool earliest = m_pending.empty() || key < m_pending.begin()->first;
        m_pending.emplace(key, std::move(source));
        if (!m_thread.joinable())
            m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
        if (earliest)
            m_wake.notify_one();
        return key;
    }

    // The last removal stops the thread and joins it before returning: a one-shot command
    // leaves no thread behind once its waits are over (an in-process caller that changes the
    // environment afterwards races nothing), and the next add() starts a thread again.
    void remove(const Key& key) {
        std::jthread idle;
        {
            std::lock_guard lock(m_mutex);
            m_pending.erase(key);
            if (m_pending.empty())
                idle = std::move(m_thread);
        }
        // Its destructor requests stop and joins, without m_mutex: the thread needs it to end.
    }

private:
    void run(const std::stop_token& stop) {
        std::unique_lock lock(m_mutex);
        while (!stop.stop_requested()) {
            if (m_pending.empty()) {
                m_wake.wait(lock, stop, [&] { return !m_pending.empty(); });
                continue;
            }
            const auto first = m_pending.begin();
            if (first->first.first <= TimerClock::now()) {
                first->second.request_stop();
                m_pending.erase(first);
                continue;
            }
            const auto until = first->first.first;
            // Woken early only by an earlier deadline; a removed one just expires unused.
            m_wake.wait_until(lock, stop, until, [&] {
                return !m_pending.empty() && m_pending.begin()->first.first < until;
            });
        }
    }

    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::map<Key, std::stop_source> m_pending;
    std::uint64_t m_next = 0;
    std::jthread m_thread; // last: stopped and joined before the members it uses go
};

// Thrown from the watch callback to end the watch at once.
struct ChangeSeen {};

std::string resource_version_of(const json& object) {
    const auto m = object.find("metadata");
    if (m == object.end() || !m->is_object())
        return {};
    return m->value("resourceVersion", std::string());
}

} // namespace

ClientOptions options_for_wait(ClientOptions options, std::chrono::milliseconds max_wait) {
    options.watch_server_timeout =
        std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(max_wait));
    return options;
}

bool await_object_change(KubeClient& client, const std::string& collection_path,
                         const std::string& name, const std::string& resource_version,
                         std::chrono::milliseconds max_wait, std::stop_token caller) {
    if (max_wait <= std::chrono::milliseconds::zero() || caller.stop_requested())
        return false;
    try {
        std::stop_source stop;
        auto& timer = DeadlineTimer::instance();
        const auto key = timer.add(TimerClock::now() + max_wait, stop);
        struct Unregister {
            DeadlineTimer& timer;
            DeadlineTimer::Key key;
            ~Unregister() { timer.remove(key); }
        } unregister{timer, key};
        const std::stop_callback on_caller_stop(caller, [&stop] { stop.request_stop(); });

        WatchOptions watch;
        watch.resource_version = resource_version;
        watch.field_selector = "metadata.name=" + name;
        const auto on_event = [&](const WatchEvent& event) {
            switch (event.type) {
            case WatchEventType::Added:
            case WatchEventType::Modified:
            case WatchEventType::Deleted:
                if (event.object.value("metadata", json::object()).value("name", "") == name)
                    throw ChangeSeen{};
                return;
            case WatchEventType::Resync: {
                // A fresh list (no version to start from, or 410 Gone): a change is an object
                // whose version differs from the caller's, or one gone that the caller had seen.
                bool present = false;
                for (const auto& item : event.object.value("items", json::array())) {
                    if (item.value("metadata", json::object()).value("name", "") != name)
                        continue;
                    present = true;
                    if (resource_version_of(item) != resource_version)
                        throw ChangeSeen{};
                }
                if (!present && !resource_version.empty())
                    throw ChangeSeen{};
                return;
            }
            case WatchEventType::Bookmark:
            case WatchEventType::Interrupted:
                return;
            }
        };
        client.watch(collection_path, watch, on_event, stop.get_token());
    } catch (const ChangeSeen&) {
        return true;
    } catch (const std::exception&) {
        return false;
    }
    return false;
}

} // namespace kprov::gardener
