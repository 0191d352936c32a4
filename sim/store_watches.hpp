#pragma once
// Watches of the objects of one ObjectStore: a WatchHub per resource, fed with every stored
// change, and the watch verb over them (synthetic ADDED events for what exists, or a resume from
// a resourceVersion). Every runtime cluster and the KCP have one.
// Not thread-safe: the caller holds the world lock (the hubs' streams are read elsewhere).

#include "object_store.hpp"
#include "watch_hub.hpp"

#include <map>
#include <memory>
#include <string>

namespace kprov::sim {

class StoreWatches {
public:
    /// Hands one stored change ("ADDED", "MODIFIED", "DELETED") to the watches of `info`.
    void publish(const std::string& type, const ResourceInfo& info, const Json& obj);
    /// Opens a watch of `info` in namespace `ns` ("" for every namespace) with the request's
    /// selectors, resourceVersion, bookmarks and timeout (capped at `timeout_seconds`). Throws
    /// ApiError 400 for malformed parameters and 410 for a version older than the history.
    ApiResponse watch(const ObjectStore& store, const ResourceInfo& info, const std::string& ns,
                      const ApiRequest& req, double bookmark_seconds, double timeout_seconds);
    /// Ends every stream for good; watches opened later end at once.
    void shutdown();

private:
    WatchHub& hub(const ResourceInfo& info);

    std::map<std::string, std::unique_ptr<WatchHub>> m_hubs; ///< per group/resource
    bool m_shut_down = false;
};

} // namespace kprov::sim
