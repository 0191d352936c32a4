#pragma once
// One watch of the project's shoots (ARCHITECTURE.md, Engine: readiness comes from one Gardener
// watch per project namespace), on its own thread, handing the engine a ShootEvent for every
// shoot whose state changed in a way a stage can see. Progress-only updates (percentages,
// descriptions, a new resourceVersion) and bookmarks are not passed on, so that an operation
// runs again when there is something new to read, not five times per shoot creation.
//
// While the watch is down (Gardener unreachable, a permanent error, the handler failing), the
// workers fall back to the polling delays the stages set; the watch lists again and resumes on
// its own. After every (re)list, the shoots that changed meanwhile (or vanished) are passed on.

#include "engine/ports.hpp"
#include "gardener/gardener_client.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace spdlog {
class logger;
}

namespace kprov::gardener {

/// Turns watch events into the engine's ShootEvents, remembering what it last passed on of each
/// shoot. Not thread-safe (the watch thread owns it).
class ShootEventFilter {
public:
    /// The events to pass on for `event`: none for a bookmark or an update that changed nothing
    /// a stage reads; for a Resync, one per shoot of the list that is new or changed since it
    /// was last seen, plus a deleted one per remembered shoot missing from the list.
    /// Call commit() once the events were handled, so that a failed handler sees them again
    /// after the next Resync.
    std::vector<engine::ShootEvent> on(const WatchEvent& event);
    /// Remembers the state behind the events the last on() returned.
    void commit();
    /// Forgets every shoot: the next Resync passes all of them on.
    void reset();

private:
    struct Seen {
        std::string fingerprint; ///< what stages can see of the shoot
        std::optional<std::string> runtime_id;
    };
    using Pending = std::map<std::string, std::optional<Seen>>; ///< nullopt: deleted

    std::map<std::string, Seen> m_seen; ///< by shoot name
    Pending m_pending;                  ///< from the last on()
    bool m_pending_resync = false;      ///< the last on() was a Resync: m_pending is the truth
};

struct ShootWatchOptions {
    std::string label_selector;
    /// Wait before watching again after the watch failed (or the handler threw).
    std::chrono::milliseconds restart_delay{5000};
    /// Non-empty: only the shoots it selects ("metadata.name=<shoot>", for a command that
    /// drives one operation); empty: every shoot of the project.
    std::string field_selector;
    /// The watch going up and down, and its streams tried again, are logged at info and
    /// warning level (a daemon's news); false: at debug (a command's watch only spares it the
    /// stages' polls).
    bool announce = true;
    /// Where the watch going up and down is logged: the command's logger (net/logger.hpp).
    /// Null: nowhere.
    std::shared_ptr<spdlog::logger> log;
};

/// Owns the watch thread. The handler runs on that thread, one call per batch of events; when it
/// throws, the watch logs it, waits restart_delay and lists again (so the events come again).
class ShootWatch {
public:
    using Handler = std::function<void(const std::vector<engine::ShootEvent>&)>;

    /// `client` must outlive the watch.
    ShootWatch(GardenerClient& client, Handler handler, ShootWatchOptions options = {});
    /// stop().
    ~ShootWatch();
    ShootWatch(const ShootWatch&) = delete;
    ShootWatch& operator=(const ShootWatch&) = delete;

    /// Starts the watch thread; a no-op when it runs.
    void start();
    /// Ends the watch (the stream is closed) and joins the thread. Idempotent.
    void stop();

    /// True while the watch delivers: from the first successful list, and again from the first
    /// event after an interruption. False from the moment a stream or list fails or ends
    /// (KubeClient's Interrupted) until the resumed stream brings an event, so that nobody
    /// trusts a copy while no event can update it (a watch that a proxy keeps refusing stays
    /// down). The events in between are replayed on resume, or a list follows when they are
    /// gone.
    bool is_up() const { return m_up; }
    /// Events handed to the handler so far.
    std::uint64_t events() const { return m_events; }

private:
    void run(std::stop_token stop);
    void set_up(bool up);

    GardenerClient& m_client;
    Handler m_handler;
    ShootWatchOptions m_options;
    std::atomic<bool> m_up{false};
    bool m_said_up = false; ///< the watch thread's: "is up" was logged since the last failure
    std::atomic<std::uint64_t> m_events{0};
    std::jthread m_thread;
};

} // namespace kprov::gardener
