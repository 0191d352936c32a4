// KubeClient::watch: a list-then-watch loop that survives dropped streams, 410 Gone and server
// restarts, the way client-go's reflector does.

#include "gardener/json_projection.hpp"
#include "gardener/kube_client_impl.hpp"
#include "net/remote_values.hpp"

#include <atomic>
#include <spdlog/logger.h>

namespace kprov::gardener {
namespace {

using nlohmann::json;

// How one watch stream ended.
struct StreamOutcome {
    int events = 0;    // events delivered, bookmarks included
    bool gone = false; // 410: the resourceVersion is too old, list again
    std::optional<KubeError> error;
};

// Splits a watch body into newline-delimited JSON events and hands them on.
class EventSplitter {
public:
    EventSplitter(std::string& resource_version, const WatchCallback& callback,
                  StreamOutcome& outcome, const ErrorContext& context,
                  const std::vector<std::string>& object_fields, std::size_t max_line)
        : m_resource_version(resource_version)
        , m_callback(callback)
        , m_outcome(outcome)
        , m_context(context)
        , m_projection(event_fields(object_fields))
        , m_max_line(max_line) {}

    /// False when the stream should end (410, an ERROR event, a malformed or too long line).
    /// Each byte is searched for a newline once: a long line arriving in many chunks costs
    /// linear time, and the buffer never holds more than one line over the cap.
    bool feed(std::string_view chunk) {
        m_buffer.append(chunk);
        std::size_t start = 0;
        bool go_on = true;
        while (go_on) {
            const auto end = m_buffer.find('\n', m_scanned);
            const std::size_t scanned_to = end == std::string::npos ? m_buffer.size() : end + 1;
            g_scanned.fetch_add(scanned_to - m_scanned, std::memory_order_relaxed);
            m_scanned = scanned_to;
            if (end == std::string::npos)
                break;
            const std::string_view line(m_buffer.data() + start, end - start);
            start = end + 1;
            if (too_long(line.size()))
                return false;
            if (line.find_first_not_of(" \r\t") != std::string_view::npos)
                go_on = handle(line);
        }
        m_buffer.erase(0, start);
        m_scanned -= start;
        return go_on && !too_long(m_buffer.size());
    }

    static std::size_t scanned_total() { return g_scanned.load(std::memory_order_relaxed); }

private:
    // What an event is parsed to: everything, or the projection's paths under "object" and
    // what this splitter reads itself.
    static std::optional<JsonProjection> event_fields(const std::vector<std::string>& object) {
        if (object.empty())
            return std::nullopt;
        std::vector<std::string> paths{"type", "object.metadata.resourceVersion"};
        for (const auto& f : object)
            paths.push_back("object." + f);
        return JsonProjection(paths);
    }

    // Records the error and says so when a line of `length` bytes is over the cap.
    bool too_long(std::size_t length) {
        if (m_max_line == 0 || length <= m_max_line)
            return false;
        m_outcome.error = cap_error(m_context, "the watch stream sent an event line larger than " +
                                                   format_bytes(m_max_line) +
                                                   " (ClientOptions::max_watch_line_bytes)");
        return true;
    }

    bool handle(std::string_view line) {
        json event;
        if (!net::json_nesting_within(line))
            event = json(json::value_t::discarded); // refused before it is built
        else if (m_projection)
            event = m_projection->parse(line).value_or(json(json::value_t::discarded));
        else
            event = json::parse(line, nullptr, false);
        if (m_projection && event.is_object() && event.value("type", "") == "ERROR")
            event = json::parse(line, nullptr, false); // the whole Status, for the error
        const auto object = event.is_object() ? event.find("object") : event.end();
        if (!event.is_object() || object == event.end() || !object->is_object() ||
            !event.contains("type") || !event["type"].is_string()) {
            m_outcome.error =
                transport_error(m_context, "the watch stream sent a malformed event", true);
            return false;
        }
        const std::string type = event["type"].get<std::string>();
        if (type == "ERROR") {
            const auto found = object->find("code");
            const int code = found != object->end() ? net::json_int(*found).value_or(0) : 0;
            if (code == 410) {
                m_outcome.gone = true;
                return false;
            }
            m_outcome.error = status_error(m_context, code > 0 ? code : 500, object->dump());
            return false;
        }
        WatchEventType kind{};
        if (type == "ADDED")
            kind = WatchEventType::Added;
        else if (type == "MODIFIED")
            kind = WatchEventType::Modified;
        else if (type == "DELETED")
            kind = WatchEventType::Deleted;
        else if (type == "BOOKMARK")
            kind = WatchEventType::Bookmark;
        else
            return true; // a type from a newer API: skip it
        if (const auto meta = object->find("metadata"); meta != object->end() && meta->is_object())
            if (auto rv = meta->value("resourceVersion", ""); !rv.empty())
                m_resource_version = std::move(rv);
        ++m_outcome.events;
        m_callback(WatchEvent{kind, *object});
        return true;
    }

    std::string& m_resource_version;
    const WatchCallback& m_callback;
    StreamOutcome& m_outcome;
    const ErrorContext& m_context;
    const std::optional<JsonProjection> m_projection;
    const std::size_t m_max_line;
    std::string m_buffer;
    std::size_t m_scanned = 0; // m_buffer[0, m_scanned) holds no newline past the last line
    static inline std::atomic<std::size_t> g_scanned{0};
};

StreamOutcome stream(KubeClient::Impl& impl, const std::string& path, const WatchOptions& options,
                     std::string& resource_version, const WatchCallback& callback,
                     const std::stop_token& stop) {
    ApiCall call{"GET", path, selector_query({options.label_selector, options.field_selector, 0}),
                 "",    "",   true};
    append_query(call.query, "watch", "1");
    append_query(call.query, "resourceVersion", resource_version);
    append_query(call.query, "allowWatchBookmarks", "true");
    if (impl.options.watch_server_timeout.count() > 0)
        append_query(call.query, "timeoutSeconds",
                     std::to_string(impl.options.watch_server_timeout.count()));
    StreamOutcome outcome;
    if (!impl.limiter.acquire(stop))
        return outcome;
    const ErrorContext context = impl.error_context(call, 1);
    EventSplitter splitter(resource_version, callback, outcome, context, options.object_fields,
                           impl.options.max_watch_line_bytes);
    net::HttpRequest request = impl.make_request(call);
    request.total_timeout = std::chrono::milliseconds(0);
    request.inactivity_timeout = impl.options.watch_inactivity_timeout;
    request.on_body = [&](std::string_view chunk) {
        return splitter.feed(chunk) && !stop.stop_requested();
    };
    request.should_stop = [&] {
        return stop.stop_requested();
    };
    request.stop = stop;
    const auto started = impl.clock->now();
    try {
        const net::HttpResponse response = impl.transport->perform(request);
        impl.log_exchange(call, response.status, started, &response);
        if (stop.stop_requested() || (response.status >= 200 && response.status < 300))
            return outcome;
        KubeError error = status_error(context, response.status, response.body);
        if (error.is_gone())
            outcome.gone = true;
        else
            outcome.error = std::move(error);
    } catch (const net::ResponseTooLarge&) { // an error answer's body, which is not streamed
        impl.log_exchange(call, 0, started, nullptr);
        outcome.error = cap_error(context, "the error answer is larger than " +
                                               format_bytes(impl.options.max_response_bytes) +
                                               " (ClientOptions::max_response_bytes)");
    } catch (const net::TransportError& e) {
        impl.log_exchange(call, 0, started, nullptr);
        if (!stop.stop_requested())
            outcome.error = transport_error(context, std::string("watch stream broke: ") + e.what(),
                                            e.kind() != net::TransportError::Kind::Tls);
    }
    return outcome;
}

} // namespace

std::size_t watch_bytes_scanned() {
    return EventSplitter::scanned_total();
}

void KubeClient::watch(const std::string& path, const WatchOptions& options,
                       const WatchCallback& callback, std::stop_token stop) {
    Impl& impl = *m_impl;
    const auto& log = impl.options.log;
    std::string resource_version = options.resource_version;
    bool need_list = resource_version.empty();
    bool token_refreshed = false;
    int failures = 0; // consecutive attempts that delivered nothing
    const auto retry_level =
        options.retries_are_warnings ? spdlog::level::warn : spdlog::level::debug;
    const auto interrupted = [&] {
        static const json nothing;
        if (options.report_interruptions)
            callback(WatchEvent{WatchEventType::Interrupted, nothing});
    };
    while (!stop.stop_requested()) {
        if (failures > 0 &&
            !impl.clock->sleep_for(net::backoff_delay(impl.options.retry, failures - 1), stop))
            return;
        if (need_list) {
            try {
                const json list =
                    impl.list_all(path, {options.label_selector, options.field_selector});
                const auto meta = list.find("metadata");
                resource_version = meta != list.end() && meta->is_object()
                                       ? meta->value("resourceVersion", "")
                                       : std::string{};
                need_list = false;
                callback(WatchEvent{WatchEventType::Resync, list});
            } catch (const KubeError& e) {
                if (!e.retryable())
                    throw;
                log->log(retry_level, "{}; the watch lists again later", e.what());
                interrupted();
                ++failures;
                continue;
            }
        }
        log->debug("{}: watching {} from resourceVersion {}", impl.options.label, path,
                   resource_version);
        StreamOutcome outcome = stream(impl, path, options, resource_version, callback, stop);
        if (stop.stop_requested())
            return;
        interrupted();
        failures = outcome.events > 0 ? 0 : failures + 1;
        if (outcome.gone) {
            log->info("{}: watch of {}: resourceVersion {} is too old, listing again",
                      impl.options.label, path, resource_version);
            need_list = true;
        } else if (outcome.error) {
            const KubeError& error = *outcome.error;
            if (error.is_unauthorized() && !impl.config.token_file.empty() && !token_refreshed) {
                token_refreshed = true; // a rotated token file gets one more chance
                impl.authorization(true);
                continue;
            }
            if (!error.retryable())
                throw error;
            log->log(retry_level, "{}; resuming the watch", error.what());
            failures = std::max(failures, 1);
        }
    }
}

} // namespace kprov::gardener
