#pragma once
// The shoots as the shared watch last delivered them (ShootClient::watched): the watch parses
// every event anyway, so a pass that an event made due can often decide without reading the
// shoot again. Filled by the process's watch callback; bounded by the shoots of the project,
// as an entry goes with its shoot's deletion. While the watch is down (or no watch runs) it
// answers nothing: a stage must not wait on a copy that no event will update. Thread-safe.

#include "engine/ports.hpp"

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kprov::engine {

class WatchedShoots {
public:
    /// Keeps each event's state (a deletion drops the shoot).
    void on_events(const std::vector<ShootEvent>& events);
    /// `is_up` tells whether the watch that fills this is up; an empty function (the default)
    /// means no watch runs.
    void follow(std::function<bool()> is_up);
    /// nullopt unless the watch is up and has delivered the shoot.
    std::optional<ShootState> find(const std::string& name) const;
    std::size_t size() const;

private:
    mutable std::mutex m_mutex;
    std::function<bool()> m_is_up;
    std::unordered_map<std::string, ShootState> m_shoots;
};

} // namespace kprov::engine
