#include "gardener/shoot_watch.hpp"

#include "engine/stages/stages.hpp"
#include "engine/util/thread_log_fields.hpp"
#include "gardener/shoot_port.hpp"
#include "net/clock.hpp"
#include "net/logger.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <spdlog/logger.h>
#include <utility>

namespace kprov::gardener {
namespace {

// Everything of a shoot that some stage reads (stages.hpp) or that tells a waiting stage to look
// again; resourceVersion, progress and descriptions are left out on purpose.
std::string fingerprint(const engine::ShootState& s) {
    std::string fp;
    auto add = [&fp](const std::string& field) {
        fp += field;
        fp += '\x1f';
    };
    add(std::to_string(s.generation));
    add(std::to_string(s.observed_generation));
    add(s.dns_domain.value_or("-"));
    add(s.seed_name.value_or("-"));
    add(s.kubernetes_version);
    add(s.deletion_timestamp ? "deleting" : "-");
    add(s.hibernation_enabled ? "hibernation" : "-");
    add(s.is_hibernated ? "hibernated" : "-");
    add(s.last_operation ? s.last_operation->type + "/" + s.last_operation->state : "-");
    for (const auto& code : s.last_error_codes)
        add(code);
    add(s.hibernation_possible ? (*s.hibernation_possible ? "possible" : "impossible") : "-");
    return fp;
}

std::optional<std::string> runtime_id_of(const engine::ShootState& s) {
    const auto it = s.annotations.find(std::string(engine::k_runtime_id_annotation));
    if (it == s.annotations.end() || it->second.empty())
        return std::nullopt;
    return it->second;
}

} // namespace

std::vector<engine::ShootEvent> ShootEventFilter::on(const WatchEvent& event) {
    m_pending.clear();
    m_pending_resync = false;
    std::vector<engine::ShootEvent> out;
    // A new or changed shoot is passed on; an unchanged one only remembered.
    auto seen = [&](const nlohmann::json& object) {
        engine::ShootState state = shoot_state(object, WithJson::No);
        if (state.name.empty())
            return;
        Seen now{fingerprint(state), runtime_id_of(state)};
        const auto known = m_seen.find(state.name);
        const std::string name = state.name;
        if (known == m_seen.end() || known->second.fingerprint != now.fingerprint)
            out.push_back({name, now.runtime_id, false, std::move(state)});
        m_pending[name] = std::move(now);
    };
    auto gone = [&](const std::string& name, std::optional<std::string> runtime_id) {
        const auto known = m_seen.find(name);
        if (!runtime_id && known != m_seen.end())
            runtime_id = known->second.runtime_id;
        out.push_back({name, std::move(runtime_id), true, std::nullopt});
        m_pending[name] = std::nullopt;
    };

    switch (event.type) {
    case WatchEventType::Bookmark:
    case WatchEventType::Interrupted:
        break;
    case WatchEventType::Added:
    case WatchEventType::Modified:
        seen(event.object);
        break;
    case WatchEventType::Deleted: {
        const engine::ShootState state = shoot_state(event.object, WithJson::No);
        if (!state.name.empty())
            gone(state.name, runtime_id_of(state));
        break;
    }
    case WatchEventType::Resync: {
        m_pending_resync = true;
        if (const auto items = event.object.find("items");
            items != event.object.end() && items->is_array())
            for (const auto& item : *items)
                seen(item);
        for (const auto& [name, known] : m_seen)
            if (!m_pending.contains(name))
                gone(name, known.runtime_id);
        break;
    }
    }
    return out;
}

void ShootEventFilter::commit() {
    if (m_pending_resync)
        m_seen.clear();
    for (auto& [name, state] : m_pending) {
        if (state)
            m_seen[name] = std::move(*state);
        else
            m_seen.erase(name);
    }
    m_pending.clear();
    m_pending_resync = false;
}

void ShootEventFilter::reset() {
    m_seen.clear();
    m_pending.clear();
    m_pending_resync = false;
}

ShootWatch::ShootWatch(GardenerClient& client, Handler handler, ShootWatchOptions options)
    : m_client(client)
    , m_handler(std::move(handler))
    , m_options(std::move(options)) {
    m_options.log = net::logger_or_null(std::move(m_options.log));
}

ShootWatch::~ShootWatch() {
    stop();
}

void ShootWatch::start() {
    if (m_thread.joinable())
        return;
    m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
}

void ShootWatch::stop() {
    if (!m_thread.joinable())
        return;
    m_thread.request_stop();
    m_thread.join();
    m_thread = {};
}

void ShootWatch::set_up(bool up) {
    m_up = up;
    // Said once per start and once after each failure, not at every resumed stream.
    if (up && !std::exchange(m_said_up, true))
        m_options.log->log(m_options.announce ? spdlog::level::info : spdlog::level::debug,
                           "shoot watch of {} is up: shoot changes make operations due at once",
                           m_client.namespace_name());
}

void ShootWatch::run(std::stop_token stop) {
    const engine::LogFieldsScope component({{"component", "shoot-watch"}});
    const auto max_delay = std::max(m_options.restart_delay, std::chrono::milliseconds(60'000));
    auto delay = m_options.restart_delay;
    m_said_up = false;
    ShootEventFilter filter; // kept across restarts: a new list passes on only what changed
    while (!stop.stop_requested()) {
        try {
            WatchOptions options;
            options.label_selector = m_options.label_selector;
            options.field_selector = m_options.field_selector;
            // Events carry only what shoot_state reads: most of a shoot is never built.
            options.object_fields = shoot_state_fields();
            options.report_interruptions = true; // is_up() is false while no event can come
            options.retries_are_warnings = m_options.announce;
            m_client.kube().watch(
                m_client.shoots_path(), options,
                [&](const WatchEvent& event) {
                    if (event.type == WatchEventType::Interrupted) {
                        set_up(false);
                        return;
                    }
                    auto events = filter.on(event);
                    if (!events.empty()) {
                        m_handler(events);
                        m_events += events.size();
                    }
                    filter.commit();
                    set_up(true); // a list, or an event of a stream that resumed
                    if (event.type == WatchEventType::Resync)
                        delay = m_options.restart_delay;
                },
                stop);
        } catch (const std::exception& e) {
            set_up(false);
            m_said_up = false;
            m_options.log->log(m_options.announce ? spdlog::level::warn : spdlog::level::debug,
                               "shoot watch of {} failed: {}; operations fall back to polling; "
                               "watching again in {} ms",
                               m_client.namespace_name(), e.what(), delay.count());
            if (!net::steady_clock()->sleep_for(delay, stop))
                break;
            delay = std::min(delay * 2, max_delay);
        }
    }
    m_up = false;
}

} // namespace kprov::gardener
