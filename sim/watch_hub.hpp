#pragma once
// Watch fan-out for shoots: a bounded history of events (so a watch can resume from a
// resourceVersion), open streams fed as events are published, bookmarks, 410 for compacted
// versions, and test hooks to drop every stream or compact the history.
// Thread-safe: publish() runs under the world lock, streams are read by server threads.

#include "api.hpp"
#include "selectors.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

struct WatchOptions {
    std::string ns; ///< "" for every namespace
    LabelSelector labels;
    FieldSelector fields;
    std::string bookmark_kind; ///< kind/apiVersion of BOOKMARK objects
    std::string bookmark_api_version;
    bool bookmarks = false; ///< allowWatchBookmarks=true
    /// sendInitialEvents=true: after the initial ADDED events, a BOOKMARK annotated
    /// k8s.io/initial-events-end: "true".
    bool initial_events_end = false;
    /// For kubectl get -w: turns each event's object into what the client asked for (a Table);
    /// empty: objects are sent as stored.
    std::function<Json(const Json&)> render;
    double bookmark_seconds = 10;
    double timeout_seconds = 1800; ///< the stream ends cleanly after this
};

/// A watch request's parameters: labelSelector, fieldSelector (field labels of `fields`, a map
/// to JSON pointers), allowWatchBookmarks, timeoutSeconds (capped at `max_timeout_seconds`)
/// and the resourceVersion to resume from (nullopt without one, with "0", or with
/// sendInitialEvents, which needs resourceVersionMatch=NotOlderThan and allowWatchBookmarks, else
/// 422). BOOKMARK objects get the kind and apiVersion of `info`. Throws ApiError 400 for
/// malformed values.
struct WatchRequest {
    WatchOptions options;
    std::optional<std::uint64_t> from;

    static WatchRequest parse(const ApiRequest& req,
                              const std::map<std::string, std::string>& fields,
                              const ResourceInfo& info, double bookmark_seconds,
                              double max_timeout_seconds);
};

class WatchHub {
public:
    /// Keeps at most `history_limit` events; older versions answer 410. The history keeps each
    /// event's text and, for matching a resumed watch's selectors, the object's metadata and
    /// the fields at `selectable` (JSON pointers a field selector may read); empty: the whole
    /// object.
    explicit WatchHub(std::size_t history_limit, std::vector<std::string> selectable = {});
    ~WatchHub();
    WatchHub(const WatchHub&) = delete;
    WatchHub& operator=(const WatchHub&) = delete;

    /// Records an event and hands it to every matching open stream. `rv` must grow.
    void publish(const std::string& type, const Json& object, std::uint64_t rv);

    /// Opens a stream. With `from_rv`, it delivers the retained events after it (throws
    /// ApiError 410 Expired when `from_rv` is older than the retained history); without, it
    /// first delivers `initial` as synthetic ADDED events. Call with the world lock held so that
    /// `initial` and the event history agree.
    std::shared_ptr<StreamSource> subscribe(const WatchOptions& opts,
                                            std::optional<std::uint64_t> from_rv,
                                            const std::vector<Json>& initial);

    /// A stream that carries one ERROR event with `status` and ends.
    static std::shared_ptr<StreamSource> error_stream(const Json& status);

    /// Makes every version up to `rv` too old to watch from (410 from then on).
    void compact(std::uint64_t rv);
    /// True when a watch or continue token from `rv` can no longer be served.
    bool too_old(std::uint64_t rv) const;
    /// Ends every open stream: cleanly (terminating chunk) or `abrupt`ly (connection cut).
    std::size_t drop_all(bool abrupt);
    /// Ends every stream for good (server stop); later subscriptions end at once.
    void shutdown();
    std::size_t open_streams() const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

} // namespace kprov::sim
