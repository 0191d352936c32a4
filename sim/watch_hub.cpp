#include "watch_hub.hpp"

#include "resource_api.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>

namespace kprov::sim {

namespace {

using Steady = std::chrono::steady_clock;

bool matches(const WatchOptions& o, const Json& obj) {
    const Json& md = obj["metadata"];
    if (!o.ns.empty() && md.value("namespace", std::string()) != o.ns)
        return false;
    return o.labels.matches(md.value("labels", Json::object())) && o.fields.matches(obj);
}

// One event of the stream. Written by hand, not as a Json {type, object}: that would copy the
// object, and the lifecycle publishes thousands of events a second in benchmarks.
std::string line(const std::string& type, const Json& object) {
    return "{\"type\":" + Json(type).dump() + ",\"object\":" + object.dump() + "}\n";
}

// Events are kept as text shared by every stream; a stream that wants another representation
// (kubectl's Tables) pays for parsing its own events again.
std::string rendered(const std::string& text, const std::function<Json(const Json&)>& render) {
    Json event = Json::parse(text);
    std::string type = event.value("type", "");
    if (type == "BOOKMARK" || type == "ERROR")
        return text;
    return line(type, render(event["object"]));
}

} // namespace

struct WatchHub::State {
    struct Event {
        std::uint64_t rv;
        std::string text; ///< the stream line
        Json selectable;  ///< what matches() may read of the object
    };

    struct Stream {
        WatchOptions opts;
        std::deque<std::string> pending;
        bool closed = false;
        bool abrupt = false;
        Steady::time_point deadline;
        Steady::time_point next_bookmark;
    };

    mutable std::mutex mu;
    std::condition_variable cv;
    std::size_t history_limit;
    std::vector<Json::json_pointer> selectable;
    std::deque<Event> history;
    std::uint64_t floor = 0;  // a watch from rv < floor is too old
    std::uint64_t latest = 0; // rv of the last published event
    bool stopped = false;
    std::list<std::shared_ptr<Stream>> streams;

    // Called by a server thread; see StreamSource. Waits at most a second so that the server
    // notices its own shutdown between calls.
    bool next(const std::shared_ptr<Stream>& s, std::string& out, bool& abort) {
        std::unique_lock lock(mu);
        auto wake = std::min(Steady::now() + std::chrono::seconds(1), s->deadline);
        if (s->opts.bookmarks)
            wake = std::min(wake, s->next_bookmark);
        cv.wait_until(lock, wake, [&] { return !s->pending.empty() || s->closed || stopped; });
        while (!s->pending.empty()) {
            out +=
                s->opts.render ? rendered(s->pending.front(), s->opts.render) : s->pending.front();
            s->pending.pop_front();
        }
        auto now = Steady::now();
        if (s->opts.bookmarks && now >= s->next_bookmark && out.empty()) {
            Json bm = {{"kind", s->opts.bookmark_kind},
                       {"apiVersion", s->opts.bookmark_api_version},
                       {"metadata", {{"resourceVersion", std::to_string(latest)}}}};
            out += line("BOOKMARK", bm);
            s->next_bookmark = now + std::chrono::duration_cast<Steady::duration>(
                                         std::chrono::duration<double>(s->opts.bookmark_seconds));
        }
        if (s->closed || stopped || now >= s->deadline) {
            abort = s->abrupt;
            streams.remove(s);
            return false;
        }
        return true;
    }
};

WatchRequest WatchRequest::parse(const ApiRequest& req,
                                 const std::map<std::string, std::string>& fields,
                                 const ResourceInfo& info, double bookmark_seconds,
                                 double max_timeout_seconds) {
    WatchRequest w;
    WatchOptions& o = w.options;
    o.labels = LabelSelector::parse(req.query_value("labelSelector"));
    o.fields = FieldSelector::parse(req.query_value("fieldSelector"), fields);
    o.bookmark_kind = info.kind;
    o.bookmark_api_version = info.api_version();
    o.bookmarks = req.query_bool("allowWatchBookmarks");
    if (wants_table(req))
        o.render = [info](const Json& obj) {
            return to_table(info, obj);
        };
    o.bookmark_seconds = bookmark_seconds;
    o.timeout_seconds = max_timeout_seconds;
    std::string timeout = req.query_value("timeoutSeconds");
    if (!timeout.empty()) {
        try {
            o.timeout_seconds = std::min(max_timeout_seconds, std::stod(timeout));
        } catch (const std::exception&) {
            throw bad_request("invalid timeoutSeconds \"" + timeout + "\"");
        }
    }
    std::string rv = req.query_value("resourceVersion");
    if (req.query_bool("sendInitialEvents")) {
        // Gardener's API server (apimachinery's ValidateListOptions) answers these with 422.
        std::vector<Cause> causes;
        if (req.query_value("resourceVersionMatch") != "NotOlderThan")
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: sendInitialEvents requires setting resourceVersionMatch "
                              "to NotOlderThan",
                              "resourceVersionMatch"});
        if (!o.bookmarks)
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: sendInitialEvents requires setting allowWatchBookmarks "
                              "to true",
                              "allowWatchBookmarks"});
        if (!causes.empty())
            throw invalid({"meta.k8s.io", "v1", "listoptions", "ListOptions", false, "", {}, {}},
                          "", causes);
        // The current state is never older than any resourceVersion asked for.
        o.initial_events_end = true;
        rv.clear();
    }
    if (!rv.empty() && rv != "0") {
        try {
            std::size_t used = 0;
            w.from = std::stoull(rv, &used);
            if (used != rv.size())
                throw std::invalid_argument(rv);
        } catch (const std::exception&) {
            throw bad_request("invalid resource version \"" + rv + "\"");
        }
    }
    return w;
}

WatchHub::WatchHub(std::size_t history_limit, std::vector<std::string> selectable)
    : m_state(std::make_shared<State>()) {
    m_state->history_limit = std::max<std::size_t>(history_limit, 1);
    for (const auto& pointer : selectable)
        m_state->selectable.emplace_back(pointer);
}

WatchHub::~WatchHub() {
    shutdown();
}

void WatchHub::publish(const std::string& type, const Json& object, std::uint64_t rv) {
    std::lock_guard lock(m_state->mu);
    std::string text = line(type, object);
    for (auto& s : m_state->streams)
        if (!s->closed && matches(s->opts, object))
            s->pending.push_back(text);
    // Not a copy of the whole object: the lifecycle publishes thousands of events a second in
    // benchmarks, and a resumed watch needs only the text and what its selectors read.
    Json selectable;
    if (m_state->selectable.empty()) {
        selectable = object;
    } else {
        selectable = Json::object();
        // matches() reads the namespace and the labels; field selectors, the pointers.
        if (const auto md = object.find("metadata"); md != object.end() && md->is_object())
            for (const char* key : {"name", "namespace", "labels"})
                if (const auto it = md->find(key); it != md->end())
                    selectable["metadata"][key] = *it;
        for (const auto& pointer : m_state->selectable)
            if (object.contains(pointer))
                selectable[pointer] = object.at(pointer);
    }
    m_state->history.push_back({rv, std::move(text), std::move(selectable)});
    m_state->latest = rv;
    while (m_state->history.size() > m_state->history_limit) {
        m_state->floor = std::max(m_state->floor, m_state->history.front().rv);
        m_state->history.pop_front();
    }
    m_state->cv.notify_all();
}

std::shared_ptr<StreamSource> WatchHub::subscribe(const WatchOptions& opts,
                                                  std::optional<std::uint64_t> from_rv,
                                                  const std::vector<Json>& initial) {
    auto s = std::make_shared<State::Stream>();
    s->opts = opts;
    auto now = Steady::now();
    s->deadline = now + std::chrono::duration_cast<Steady::duration>(
                            std::chrono::duration<double>(std::max(0.0, opts.timeout_seconds)));
    s->next_bookmark = now + std::chrono::duration_cast<Steady::duration>(
                                 std::chrono::duration<double>(opts.bookmark_seconds));
    {
        std::lock_guard lock(m_state->mu);
        if (from_rv) {
            if (*from_rv < m_state->floor)
                throw expired("too old resource version: " + std::to_string(*from_rv) + " (" +
                              std::to_string(m_state->floor + 1) + ")");
            for (const auto& e : m_state->history)
                if (e.rv > *from_rv && matches(opts, e.selectable))
                    s->pending.push_back(e.text);
        } else {
            for (const auto& obj : initial)
                if (matches(opts, obj))
                    s->pending.push_back(line("ADDED", obj));
            if (opts.initial_events_end)
                s->pending.push_back(line(
                    "BOOKMARK", {{"kind", opts.bookmark_kind},
                                 {"apiVersion", opts.bookmark_api_version},
                                 {"metadata",
                                  {{"resourceVersion", std::to_string(m_state->latest)},
                                   {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}}));
        }
        s->closed = m_state->stopped;
        m_state->streams.push_back(s);
    }
    auto state = m_state;
    auto src = std::make_shared<StreamSource>();
    src->next = [state, s](std::string& out, bool& abort) {
        return state->next(s, out, abort);
    };
    src->release = [state, s] {
        std::lock_guard lock(state->mu);
        state->streams.remove(s);
    };
    return src;
}

std::shared_ptr<StreamSource> WatchHub::error_stream(const Json& status) {
    auto src = std::make_shared<StreamSource>();
    auto sent = std::make_shared<bool>(false);
    src->next = [status, sent](std::string& out, bool&) {
        if (!*sent)
            out += line("ERROR", status);
        *sent = true;
        return false;
    };
    return src;
}

void WatchHub::compact(std::uint64_t rv) {
    std::lock_guard lock(m_state->mu);
    m_state->floor = std::max(m_state->floor, rv);
    while (!m_state->history.empty() && m_state->history.front().rv <= rv)
        m_state->history.pop_front();
}

bool WatchHub::too_old(std::uint64_t rv) const {
    std::lock_guard lock(m_state->mu);
    return rv < m_state->floor;
}

std::size_t WatchHub::drop_all(bool abrupt) {
    std::lock_guard lock(m_state->mu);
    std::size_t n = 0;
    for (auto& s : m_state->streams) {
        if (!s->closed)
            ++n;
        s->closed = true;
        s->abrupt = abrupt;
    }
    m_state->cv.notify_all();
    return n;
}

void WatchHub::shutdown() {
    std::lock_guard lock(m_state->mu);
    m_state->stopped = true;
    m_state->cv.notify_all();
}

std::size_t WatchHub::open_streams() const {
    std::lock_guard lock(m_state->mu);
    return m_state->streams.size();
}

} // namespace kprov::sim
