#pragma once
// What every simulated API server shares: discovery documents (/version, /api, /apis, ...),
// server-side Tables for kubectl (Accept: application/json;as=Table;g=meta.k8s.io;v=v1), and
// the verbs of an ObjectStore resource mapped to HTTP.

#include "api.hpp"
#include "k8s_path.hpp"
#include "object_store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

/// An entry of an APIResourceList beyond the plain resources (subresources such as
/// "shoots/adminkubeconfig").
struct ExtraResource {
    std::string name;
    std::string kind;
    std::vector<std::string> verbs;
    std::string group; ///< for subresources whose kind lives elsewhere
    std::string version;
};

/// Answers discovery requests (/version, /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>,
/// /openapi/*) for a server that serves `resources`; nullopt for any other path.
std::optional<ApiResponse> serve_discovery(const ApiRequest& req, const std::string& path,
                                           const std::vector<ResourceInfo>& resources,
                                           const std::vector<ExtraResource>& extras);

/// True when the client asked for a meta.k8s.io Table (kubectl get).
bool wants_table(const ApiRequest& req);
/// Converts an object or a `<Kind>List` into a meta.k8s.io/v1 Table with the columns kubectl
/// shows for that resource.
Json to_table(const ResourceInfo& info, const Json& object_or_list);
/// 200/201 with `obj`, or its Table when the request asks for one.
ApiResponse respond(const ApiRequest& req, const ResourceInfo& info, int status, const Json& obj);

/// Whether the request is a watch (the watch parameter, see ApiRequest::query_bool).
bool is_watch(const ApiRequest& req);
/// dryRun=All
bool is_dry_run(const ApiRequest& req);

/// The patch type of a PATCH request. Throws ApiError 415 for an unknown media type and 422 for
/// an apply patch without fieldManager.
PatchType patch_type_of(const ApiRequest& req);

/// Serves the standard verbs of an ObjectStore resource (list, get, create, update, patch,
/// delete, deletecollection). Throws ApiError.
ApiResponse serve_store(ObjectStore& store, const ResourceInfo& info, const K8sPath& path,
                        const ApiRequest& req);

/// kubectl's age column ("5s", "3m2s", "4h", "2d").
std::string human_age(const std::string& rfc3339_timestamp);

} // namespace kprov::sim
