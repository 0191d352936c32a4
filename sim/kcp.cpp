#include "kcp.hpp"

#include "kyma_cr.hpp"
#include "resource_api.hpp"

namespace kprov::sim {

namespace {

ApiError no_such_resource() {
    return {404,
            failure_status(404, "NotFound", "the server could not find the requested resource")};
}

Json json_body(const ApiRequest& req) {
    std::string ct = req.content_type();
    if (!ct.empty() && ct != "application/json")
        throw unsupported_body_type(ct);
    return parse_body_object(req.body);
}

// fieldValidation as kube-apiserver applies it to pruned fields: Strict refuses the request,
// Ignore drops them silently, Warn (the default) drops them with a warning.
void review_unknown_fields(const ApiRequest& req, const std::vector<std::string>& pruned,
                           std::vector<std::string>& warnings) {
    std::string mode = req.query_value("fieldValidation");
    if (pruned.empty() || mode == "Ignore")
        return;
    if (mode == "Strict") {
        std::string message = "strict decoding error: ";
        for (std::size_t i = 0; i < pruned.size(); ++i)
            message += (i ? ", " : "") + std::string("unknown field \"") + pruned[i] + "\"";
        throw bad_request(message);
    }
    for (const auto& p : pruned)
        warnings.push_back("unknown field \"" + p + "\"");
}

ApiResponse warned(ApiResponse r, const std::vector<std::string>& warnings) {
    for (const auto& w : warnings) {
        std::string text;
        for (char c : w)
            text += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
        r.headers.emplace_back("Warning", "299 - \"" + text + "\"");
    }
    return r;
}

// What a client may not set on a new object (the server owns it).
void clear_server_fields(Json& obj) {
    obj.erase("status");
    if (obj.contains("metadata") && obj["metadata"].is_object())
        for (const char* key : {"deletionTimestamp", "deletionGracePeriodSeconds", "generation"})
            obj["metadata"].erase(key);
}

std::string kyma_path(const std::string& ns, const std::string& name) {
    return "/kcp/apis/" + kyma_info().api_version() + "/namespaces/" + ns + "/kymas/" + name;
}

} // namespace

const std::vector<ResourceInfo>& Kcp::resources() {
    static const std::vector<ResourceInfo> list = {
        {"", "v1", "namespaces", "Namespace", false, "namespace", {"ns"}, {}},
        {"", "v1", "secrets", "Secret", true, "secret", {}, {}},
        {"", "v1", "configmaps", "ConfigMap", true, "configmap", {"cm"}, {}},
        kyma_info(),
    };
    return list;
}

Kcp::Kcp(std::function<std::uint64_t()> next_rv, std::function<std::uint64_t()> current_rv,
         KlmSettings klm)
    : m_store(resources(), std::move(next_rv), std::move(current_rv))
    , m_klm(klm) {
    m_store.set_conditional_update_groups({kyma_info().group});
    m_store.set_observer(
        [this](const std::string& type, const ResourceInfo& info, const Json& obj) {
            m_klm.changed(info, obj);
            m_watches.publish(type, info, obj);
            if (type == "DELETED" && info.resource == "kymas" && m_removal_hook)
                m_removal_hook(kyma_path(obj["metadata"].value("namespace", ""),
                                         obj["metadata"].value("name", "")));
        });
    for (const char* ns : {"default", "kube-system", Klm::k_namespace})
        m_store.ensure_namespace(ns);
}

void Kcp::advance(const ClusterRegistry& clusters, const std::string& runtime_base, TimePoint now) {
    m_klm.advance(m_store, clusters, runtime_base, now);
}

ApiResponse Kcp::handle(const std::string& sub_path, const ApiRequest& req) {
    if (sub_path == "/healthz" || sub_path == "/livez" || sub_path == "/readyz") {
        ApiResponse r;
        r.body = "ok";
        r.content_type = "text/plain";
        return r;
    }
    static const std::vector<ExtraResource> extras = {
        {"kymas/status", "Kyma", {"get", "patch", "update"}, "", ""}};
    if (auto d = serve_discovery(req, sub_path, resources(), extras))
        return *d;
    auto path = parse_k8s_path(sub_path, [&](const std::string& g, const std::string& r) {
        const ResourceInfo* info = m_store.find(g, r);
        return info && info->namespaced;
    });
    if (!path)
        throw no_such_resource();
    const ResourceInfo* info = m_store.find(path->group, path->version, path->resource);
    if (!info)
        throw no_such_resource();
    if (req.method == "GET" && path->name.empty() && path->subresource.empty() && is_watch(req)) {
        if (info->namespaced == false && !path->ns.empty())
            throw no_such_resource();
        return m_watches.watch(m_store, *info, path->ns, req, m_bookmark_seconds,
                               m_watch_timeout_seconds);
    }
    if (info->resource == "kymas")
        return serve_kymas(*path, req);
    if (info->resource == "namespaces" && req.method == "DELETE" && path->name == Klm::k_namespace)
        throw forbidden(*info, path->name,
                        "kprov-sim does not simulate the termination of the KLM's namespace");
    return serve_store(m_store, *info, *path, req);
}

ApiResponse Kcp::serve_kymas(const K8sPath& path, const ApiRequest& req) {
    const ResourceInfo& info = kyma_info();
    const std::string& m = req.method;
    bool collection = path.name.empty();
    bool dry = is_dry_run(req);
    if ((!path.subresource.empty() && (collection || path.subresource != "status")) ||
        (path.ns.empty() && !(collection && m == "GET")))
        throw no_such_resource();
    std::vector<std::string> warnings;
    if (collection) {
        if (m == "GET")
            return respond(req, info, 200, m_store.list(info, path.ns, ListOptions::from(req)));
        if (m == "POST") {
            Json body = json_body(req);
            review_unknown_fields(req, admit_kyma(body), warnings);
            clear_server_fields(body);
            body["metadata"]["generation"] = 1;
            return warned(respond(req, info, 201, m_store.create(info, path.ns, body, dry)),
                          warnings);
        }
        if (m == "DELETE") {
            Json list = m_store.list(info, path.ns, ListOptions::from(req));
            Json done = Json::array();
            for (const auto& item : list["items"])
                done.push_back(delete_honouring_finalizers(
                    m_store, info, path.ns, item["metadata"]["name"].get<std::string>(), dry));
            list["items"] = done;
            return ApiResponse::json(200, list);
        }
        throw method_not_allowed("the server does not allow this method on the requested resource");
    }
    if (m == "GET" || m == "HEAD")
        return respond(req, info, 200, m_store.get(info, path.ns, path.name));
    if (m == "DELETE" && path.subresource.empty())
        return ApiResponse::json(
            200, delete_honouring_finalizers(m_store, info, path.ns, path.name, dry));
    if (m == "PUT")
        return warned(ApiResponse::json(200, write_kyma(path, req, json_body(req), warnings)),
                      warnings);
    if (m == "PATCH") {
        PatchType type = patch_type_of(req);
        auto current = m_store.find_object(info, path.ns, path.name);
        if (!current && type == PatchType::Apply && path.subresource.empty()) {
            // Server-side apply creates what does not exist yet.
            Json body = apply_patch(Json::object(), req.body, type, info, path.name);
            body["metadata"]["name"] = path.name;
            review_unknown_fields(req, admit_kyma(body), warnings);
            clear_server_fields(body);
            body["metadata"]["generation"] = 1;
            return warned(ApiResponse::json(201, m_store.create(info, path.ns, body, dry)),
                          warnings);
        }
        if (!current)
            throw not_found(info, path.name);
        Json next = apply_patch(*current, req.body, type, info, path.name);
        return warned(ApiResponse::json(200, write_kyma(path, req, std::move(next), warnings)),
                      warnings);
    }
    throw method_not_allowed("the server does not allow this method on the requested resource");
}

// PUT or PATCH of a Kyma or its status, as a custom resource with a status subresource: the
// main resource ignores status, the status subresource ignores everything else, and only a
// spec change raises the generation.
Json Kcp::write_kyma(const K8sPath& path, const ApiRequest& req, Json next,
                     std::vector<std::string>& warnings) {
    const ResourceInfo& info = kyma_info();
    Json current = m_store.get(info, path.ns, path.name);
    if (!next.contains("metadata") || !next["metadata"].is_object())
        next["metadata"] = Json::object();
    Json stored;
    if (path.subresource == "status") {
        if (next.contains("status") && !next["status"].is_object())
            throw bad_request("Kyma in version \"v1beta2\" cannot be handled as a Kyma: status "
                              "must be an object");
        stored = current;
        stored["status"] = next.value("status", Json::object());
        stored["metadata"]["resourceVersion"] = next["metadata"].value("resourceVersion", "");
    } else {
        review_unknown_fields(req, admit_kyma(next), warnings);
        stored = std::move(next);
        stored.erase("status");
        if (current.contains("status"))
            stored["status"] = current["status"];
        long long generation = current["metadata"].value("generation", 1LL);
        if (stored.value("spec", Json()) != current.value("spec", Json()))
            ++generation;
        stored["metadata"]["generation"] = generation;
    }
    return update_honouring_finalizers(m_store, info, path.ns, path.name, std::move(stored),
                                       is_dry_run(req));
}

} // namespace kprov::sim
