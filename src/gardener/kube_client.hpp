#pragma once
// A generic Kubernetes REST client: JSON in and out, Kubernetes API conventions (Status errors,
// resourceVersion, pagination, watch with resume), retries with backoff, a client-side rate
// limit and connection reuse. Knows nothing about shoots; see gardener_client.hpp.

#include "gardener/kubeconfig.hpp"
#include "net/clock.hpp"
#include "net/http_transport.hpp"
#include "net/retry.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace spdlog {
class logger;
}

namespace kprov::gardener {

/// Told about every request try of a client: the client's label ("gardener", "runtime
/// cluster"), the verb and the HTTP status (0: no answer). For metrics (watch, serve).
using RequestObserver =
    std::function<void(const std::string& label, const std::string& method, int status)>;

struct ClientOptions {
    /// Client-side rate limit (token bucket); qps <= 0 turns it off.
    double qps = 20;
    int burst = 40;
    std::chrono::milliseconds connect_timeout{10'000};
    /// Per try, for everything but watch streams.
    std::chrono::milliseconds request_timeout{60'000};
    /// A watch stream that brings no byte for this long is dropped and resumed. Longer than the
    /// API server's bookmark interval (about a minute).
    std::chrono::milliseconds watch_inactivity_timeout{150'000};
    /// timeoutSeconds sent with each watch request, so that streams end and resume regularly;
    /// zero sends none.
    std::chrono::seconds watch_server_timeout{600};
    net::RetryPolicy retry;
    /// The largest body of an ordinary answer (everything but watch streams); a larger one is
    /// cut off while it arrives and the request fails (not retried). Zero: no limit.
    std::size_t max_response_bytes = std::size_t{64} << 20;
    /// The longest line (one event) of a watch stream; a longer one ends the watch with an
    /// error (not retried). Zero: no limit.
    std::size_t max_watch_line_bytes = std::size_t{16} << 20;
    /// The most pages list() follows through `continue` tokens before it gives up with an
    /// error (a server that never stops sending them). Zero: no limit.
    int max_list_pages = 10'000;
    /// Empty: "kprov/<version>".
    std::string user_agent;
    /// Prefix of error messages ("gardener", "runtime cluster"); empty: "kube".
    std::string label;
    /// KubeError::component(); empty: "k8s client - cluster".
    std::string component;
    /// Null: the real steady clock.
    std::shared_ptr<net::Clock> clock;
    /// Null: a CurlTransport built from the kubeconfig. Tests pass a fake.
    std::shared_ptr<net::HttpTransport> transport;
    /// Empty: nobody is told. Called from the threads that make requests.
    RequestObserver on_request;
    /// Where the client's lines go (a debug line per request, server warnings, retries, watch
    /// restarts): the command's logger (net/logger.hpp). Null: nowhere.
    std::shared_ptr<spdlog::logger> log;
};

struct ListOptions {
    std::string label_selector;
    std::string field_selector;
    /// Page size; the client follows `continue` tokens and returns every item. 0: no paging.
    int limit = 500;
};

enum class WatchEventType {
    Added,
    Modified,
    Deleted,
    Bookmark, // `object` carries only metadata.resourceVersion
    /// The client listed the collection afresh (at the start without a resourceVersion, or
    /// after 410 Gone): `object` is the whole list (items, metadata.resourceVersion), to be
    /// taken as the new truth, since events may have been missed.
    Resync,
    /// Only with WatchOptions::report_interruptions: a stream or a list failed or ended, and
    /// the client tries again (after a backoff when it failed). Until the next event, changes
    /// may be happening that no event reports yet. `object` is null.
    Interrupted,
};

struct WatchEvent {
    WatchEventType type;
    const nlohmann::json& object;
};

using WatchCallback = std::function<void(const WatchEvent&)>;

struct WatchOptions {
    /// Events after this version; empty: list first (a Resync event), then watch from there.
    std::string resource_version;
    std::string label_selector;
    std::string field_selector;
    /// Non-empty: each event's object is parsed only along these member paths (JsonProjection,
    /// "metadata.name", "status.lastOperation"); the callback sees nothing else of it.
    std::vector<std::string> object_fields;
    /// Tell the callback of each gap between streams (an Interrupted event), for a caller that
    /// keeps a copy it must not trust meanwhile.
    bool report_interruptions = false;
    /// Whether a failed stream or list that is tried again is logged as a warning (a daemon's
    /// news), or at debug level (a command's watch, which its stages' polls stand in for).
    bool retries_are_warnings = true;
};

/// Talks to one Kubernetes API server. Thread-safe: share one instance between threads.
///
/// Paths are absolute API paths such as "/api/v1/namespaces/x/configmaps/y". Every method
/// throws KubeError for an error answer or no answer, after retrying what may be retried:
/// 429, 503 and connection failures before the request was sent for every verb, and also 500,
/// 502, 504 and broken connections for idempotent ones (all but POST); waits
/// are capped exponential backoff with full jitter, or Retry-After when the server sends it.
/// Messages and logs never contain credentials.
class KubeClient {
public:
    explicit KubeClient(Kubeconfig config, ClientOptions options = {});
    ~KubeClient();
    KubeClient(const KubeClient&) = delete;
    KubeClient& operator=(const KubeClient&) = delete;

    /// The object at `path`. Throws KubeError (is_not_found()) when absent.
    nlohmann::json get(const std::string& path);
    /// The object at `path`, or nullopt on 404.
    std::optional<nlohmann::json> get_if_exists(const std::string& path);
    /// Every item of the collection at `path`, following `continue` tokens: a list object whose
    /// metadata.resourceVersion is the snapshot to watch from. An expired continue token (410)
    /// restarts the listing.
    nlohmann::json list(const std::string& path, const ListOptions& options = {});
    /// POSTs `object` to the collection (or subresource) at `path`; returns the answer.
    nlohmann::json create(const std::string& path, const nlohmann::json& object);
    /// create(), but AlreadyExists is no error: returns false then, true when created.
    bool create_if_absent(const std::string& path, const nlohmann::json& object);
    /// PUTs `object` (which should carry metadata.resourceVersion); a stale version throws
    /// KubeError with is_conflict().
    nlohmann::json update(const std::string& path, const nlohmann::json& object);
    /// PATCHes the object at `path` with the JSON merge patch `patch` (RFC 7386,
    /// application/merge-patch+json); returns the answer.
    nlohmann::json merge_patch(const std::string& path, const nlohmann::json& patch);
    /// DELETEs the object; returns the answer (the object with deletionTimestamp, or a Status),
    /// or nullopt when it was already absent (404).
    std::optional<nlohmann::json> delete_object(const std::string& path);
    /// DELETEs every object of the collection at `path` matching the selectors.
    void delete_collection(const std::string& path, const ListOptions& selectors);

    /// Watches the collection at `path` on the calling thread until `stop` is requested, calling
    /// `callback` once per event. Resumes from the last seen resourceVersion when the stream
    /// ends or drops; lists again (a Resync event) after 410 Gone; BOOKMARK events move the
    /// resourceVersion on. Transient failures are retried forever with backoff; throws
    /// KubeError for permanent ones (401, 403, 404, TLS failures) and rethrows what `callback`
    /// throws.
    void watch(const std::string& path, const WatchOptions& options, const WatchCallback& callback,
               std::stop_token stop);

    /// The server URL (for messages; holds no credentials).
    const std::string& server() const;
    /// The kubeconfig context's namespace; may be empty.
    const std::string& default_namespace() const;

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

/// `value` percent-encoded for a URL query.
std::string url_encode(const std::string& value);

} // namespace kprov::gardener
