#include "store_watches.hpp"

namespace kprov::sim {

namespace {

// Events kept per resource for resuming: enough for a client that reconnects after a blip.
constexpr std::size_t k_history = 256;

} // namespace

void StoreWatches::publish(const std::string& type, const ResourceInfo& info, const Json& obj) {
    std::uint64_t rv = std::stoull(obj["metadata"].value("resourceVersion", "0"));
    hub(info).publish(type, obj, rv);
}

WatchHub& StoreWatches::hub(const ResourceInfo& info) {
    auto& h = m_hubs[info.group + "/" + info.resource];
    if (!h) {
        h = std::make_unique<WatchHub>(k_history);
        if (m_shut_down)
            h->shutdown();
    }
    return *h;
}

ApiResponse StoreWatches::watch(const ObjectStore& store, const ResourceInfo& info,
                                const std::string& ns, const ApiRequest& req,
                                double bookmark_seconds, double timeout_seconds) {
    static const std::map<std::string, std::string> fields = {
        {"metadata.name", "/metadata/name"}, {"metadata.namespace", "/metadata/namespace"}};
    WatchRequest w = WatchRequest::parse(req, fields, info, bookmark_seconds, timeout_seconds);
    w.options.ns = ns;
    std::vector<Json> initial;
    if (!w.from) {
        Json list = store.list(info, ns, ListOptions{});
        for (auto& item : list["items"]) {
            item["kind"] = info.kind;
            item["apiVersion"] = info.api_version();
            initial.push_back(std::move(item));
        }
    }
    ApiResponse r;
    r.stream = hub(info).subscribe(w.options, w.from, initial);
    return r;
}

void StoreWatches::shutdown() {
    m_shut_down = true;
    for (auto& [key, h] : m_hubs)
        h->shutdown();
}

} // namespace kprov::sim
