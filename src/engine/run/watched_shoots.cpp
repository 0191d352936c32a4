#include "engine/run/watched_shoots.hpp"

namespace kprov::engine {

void WatchedShoots::on_events(const std::vector<ShootEvent>& events) {
    std::lock_guard lock(m_mutex);
    for (const auto& e : events) {
        if (e.deleted || !e.state)
            m_shoots.erase(e.shoot_name);
        else
            m_shoots.insert_or_assign(e.shoot_name, *e.state);
    }
}

void WatchedShoots::follow(std::function<bool()> is_up) {
    std::lock_guard lock(m_mutex);
    m_is_up = std::move(is_up);
}

std::optional<ShootState> WatchedShoots::find(const std::string& name) const {
    std::lock_guard lock(m_mutex);
    if (!m_is_up || !m_is_up())
        return std::nullopt;
    const auto it = m_shoots.find(name);
    if (it == m_shoots.end())
        return std::nullopt;
    return it->second;
}

std::size_t WatchedShoots::size() const {
    std::lock_guard lock(m_mutex);
    return m_shoots.size();
}

} // namespace kprov::engine
