#pragma once
// A plain Kubernetes object store for the simple resources (namespaces, secrets, config maps,
// RBAC objects): create/get/list/update/patch/delete/delete-collection with the API server's
// status codes. Used for every runtime cluster and for the garden cluster's config maps.
// Not thread-safe: the caller serializes access (the simulator's world lock).

#include "api.hpp"
#include "patch.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kprov::sim {

/// Query parameters shared by list-type calls.
struct ListOptions {
    std::string label_selector;
    std::string field_selector;
    std::size_t limit = 0; ///< 0: everything
    std::string continue_token;

    static ListOptions from(const ApiRequest& req);
};

/// Builds a `<Kind>List` page from `items` (already filtered, sorted by namespace and name).
/// The continue token remembers `list_rv` and the last key; `is_expired(rv)` decides whether a
/// token's snapshot is too old (410 Expired). List items carry no kind/apiVersion, as the API
/// server's JSON lists do.
Json make_list_page(const ResourceInfo& info, const std::vector<Json>& items,
                    const ListOptions& opts, std::uint64_t list_rv,
                    const std::function<bool(std::uint64_t)>& is_expired);

/// True for a valid DNS-1123 label (lower-case alphanumerics and '-', 1-63 characters).
bool is_dns_label(const std::string& s);
/// True for a valid DNS-1123 subdomain (labels joined by '.', at most 253 characters).
bool is_dns_subdomain(const std::string& s);

class ObjectStore {
public:
    /// `next_rv` hands out the world's resource versions. `auto_namespace(ns)` says whether a
    /// missing namespace may be created on first use (the garden accepts any garden-*).
    ObjectStore(std::vector<ResourceInfo> resources, std::function<std::uint64_t()> next_rv,
                std::function<std::uint64_t()> current_rv,
                std::function<bool(const std::string&)> auto_namespace = nullptr);

    /// The resource with this group and plural name; nullptr if this store does not serve it.
    const ResourceInfo* find(const std::string& group, const std::string& resource) const;
    /// The same for one version (a resource served in two versions shares its objects).
    const ResourceInfo* find(const std::string& group, const std::string& version,
                             const std::string& resource) const;

    /// Called after every stored change with "ADDED", "MODIFIED" or "DELETED", the resource
    /// and the object as stored (a deleted object carries the deletion's resourceVersion).
    using Observer = std::function<void(const std::string&, const ResourceInfo&, const Json&)>;
    void set_observer(Observer observer) { m_observer = std::move(observer); }
    /// Groups whose objects (custom resources, CRDs) refuse a PUT without
    /// metadata.resourceVersion (422), as the API server does.
    void set_conditional_update_groups(std::vector<std::string> groups) {
        m_conditional_groups = std::move(groups);
    }
    const std::vector<ResourceInfo>& resources() const { return m_resources; }

    Json list(const ResourceInfo& info, const std::string& ns, const ListOptions& opts) const;
    /// The stored objects a list would hold, without the list around them. Throws 400 for a bad
    /// selector.
    std::vector<Json> select(const ResourceInfo& info, const std::string& ns,
                             const ListOptions& opts) const;
    /// Throws 404 when absent.
    Json get(const ResourceInfo& info, const std::string& ns, const std::string& name) const;
    std::optional<Json> find_object(const ResourceInfo& info, const std::string& ns,
                                    const std::string& name) const;
    /// Returns the stored object. 409 AlreadyExists, 404 for a missing namespace, 400/422 for a
    /// bad body.
    Json create(const ResourceInfo& info, const std::string& ns, Json body, bool dry_run = false);
    /// PUT. An empty metadata.resourceVersion is an unconditional update (422 for the groups of
    /// set_conditional_update_groups); a stale one is 409.
    Json update(const ResourceInfo& info, const std::string& ns, const std::string& name, Json body,
                bool dry_run = false);
    Json patch(const ResourceInfo& info, const std::string& ns, const std::string& name,
               const std::string& body, PatchType type, bool dry_run = false);
    /// Returns a Status Success. Deleting a namespace removes everything in it.
    Json remove(const ResourceInfo& info, const std::string& ns, const std::string& name,
                bool dry_run = false);
    /// Deletes every object matching the selectors; returns the `<Kind>List` of deleted objects.
    Json remove_collection(const ResourceInfo& info, const std::string& ns, const ListOptions& opts,
                           bool dry_run = false);

    /// Creates the namespace if it does not exist yet (no error either way).
    void ensure_namespace(const std::string& ns);
    bool namespace_exists(const std::string& ns) const;

private:
    using Key = std::tuple<std::string, std::string, std::string>; // resource key, namespace, name
    static std::string resource_key(const ResourceInfo& info) {
        return info.group + "/" + info.resource;
    }
    void notify(const std::string& type, const ResourceInfo& info, const Json& obj) const {
        if (m_observer)
            m_observer(type, info, obj);
    }
    void check_namespace(const ResourceInfo& info, const std::string& ns);
    Json prepare_new(const ResourceInfo& info, const std::string& ns, Json body) const;
    void normalize(const ResourceInfo& info, Json& obj) const;

    std::vector<ResourceInfo> m_resources;
    std::function<std::uint64_t()> m_next_rv;
    std::function<std::uint64_t()> m_current_rv;
    std::function<bool(const std::string&)> m_auto_namespace;
    Observer m_observer;
    std::vector<std::string> m_conditional_groups;
    std::map<Key, Json> m_objects;
};

} // namespace kprov::sim
