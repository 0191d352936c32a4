#pragma once
// The shoot watch of `watch` and `serve` (gardener::ShootWatch) for a command that drives
// operations itself: `--wait`, `kprov wait`, the bulk commands and `apply`. It is scoped to the
// shoots of those operations (a field selector for one shoot, the project's shoots for more) and
// feeds the same wake path as the daemon's: the event's shoot into the access's WatchedShoots,
// then a wake of the sleeper that drives that shoot's operation, so that a stage waiting on
// Gardener runs again at once instead of at its poll (5 s to 30 s). While the watch is down the
// stages' polls still end every operation.

#include "engine/run/sleeper.hpp"

#include <map>
#include <memory>
#include <string>

namespace kprov::gardener {
class ShootWatch;
}

namespace kprov::cli {

class EngineAccess;

/// Whether a DriverWatch fills the access's WatchedShoots. WatchedShoots follows one watch:
/// only a command with one DriverWatch at a time may (commands that drive runtimes on parallel
/// threads, each with its own watch, only wake).
enum class FeedWatched { Yes, No };

class DriverWatch {
public:
    /// Starts watching the shoots named in `sleepers` (each wakes its sleeper; both must outlive
    /// this). Opens Gardener (ConfigError when its kubeconfig cannot be used).
    DriverWatch(EngineAccess& access, std::map<std::string, engine::SystemSleeper*> sleepers,
                FeedWatched feed);
    /// Stops the watch (its stream wakes at the stop request) and joins its thread.
    ~DriverWatch();
    DriverWatch(const DriverWatch&) = delete;
    DriverWatch& operator=(const DriverWatch&) = delete;

private:
    EngineAccess& m_access;
    const std::map<std::string, engine::SystemSleeper*> m_sleepers;
    const FeedWatched m_feed;
    std::unique_ptr<gardener::ShootWatch> m_watch; ///< last: it stops before the map goes
};

} // namespace kprov::cli
