#include "cli/driver_watch.hpp"

#include "cli/engine_access.hpp"
#include "gardener/shoot_watch.hpp"

namespace kprov::cli {

DriverWatch::DriverWatch(EngineAccess& access,
                         std::map<std::string, engine::SystemSleeper*> sleepers, FeedWatched feed)
    : m_access(access)
    , m_sleepers(std::move(sleepers))
    , m_feed(feed) {
    gardener::ShootWatchOptions options;
    // One shoot is one object to send; more are the project's shoots, one watch for them all.
    if (m_sleepers.size() == 1)
        options.field_selector = "metadata.name=" + m_sleepers.begin()->first;
    options.announce = false;
    options.log = access.logger();
    m_watch = std::make_unique<gardener::ShootWatch>(
        access.gardener(),
        [this](const std::vector<engine::ShootEvent>& events) {
            if (m_feed == FeedWatched::Yes)
                m_access.watched_shoots().on_events(events);
            for (const auto& event : events)
                if (const auto it = m_sleepers.find(event.shoot_name); it != m_sleepers.end())
                    it->second->wake();
        },
        std::move(options));
    if (m_feed == FeedWatched::Yes)
        m_access.watched_shoots().follow([watch = m_watch.get()] { return watch->is_up(); });
    m_watch->start();
}

DriverWatch::~DriverWatch() {
    if (m_feed == FeedWatched::Yes)
        m_access.watched_shoots().follow({});
    m_watch->stop();
}

} // namespace kprov::cli
