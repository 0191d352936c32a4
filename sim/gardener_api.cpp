// The Gardener API of the simulator: discovery, shoots (with the status and adminkubeconfig
// subresources and watches), seeds, and the garden's config maps, secrets and namespaces.

#include "landscape.hpp"
#include "resource_api.hpp"
#include "world.hpp"

namespace kprov::sim {

namespace {

const ResourceInfo& seed_info() {
    return World::gardener_resources()[1];
}

bool garden_namespace(const std::string& ns) {
    return ns == "garden" || ns.rfind("garden-", 0) == 0;
}

Json make_seed(const SimOptions& opts) {
    const std::string& name = opts.lifecycle.seed;
    std::string now = rfc3339(Clock::now());
    Json ready = {{"type", "GardenletReady"},   {"status", "True"},
                  {"lastTransitionTime", now},  {"lastUpdateTime", now},
                  {"reason", "GardenletReady"}, {"message", "Gardenlet is posting ready status."}};
    return {
        {"apiVersion", "core.gardener.cloud/v1beta1"},
        {"kind", "Seed"},
        {"metadata",
         {{"name", name},
          {"uid", random_uuid()},
          {"resourceVersion", "1"},
          {"generation", 1},
          {"creationTimestamp", now},
          {"labels", {{"seed.gardener.cloud/" + name, "true"}}}}},
        {"spec",
         {{"provider", {{"type", opts.seed_provider}, {"region", opts.seed_region}}},
          {"dns", {{"provider", {{"type", "local"}}}}},
          {"ingress", {{"domain", "ingress." + name + "." + opts.lifecycle.dns_suffix}}},
          {"networks",
           {{"nodes", "10.250.0.0/16"}, {"pods", "100.96.0.0/11"}, {"services", "100.64.0.0/13"}}},
          {"settings", {{"scheduling", {{"visible", true}}}}}}},
        {"status",
         {{"conditions", Json::array({ready})},
          {"kubernetesVersion", "v1.32.0"},
          {"observedGeneration", 1},
          {"gardener",
           {{"id", "kprov-sim"},
            {"name", "kprov-sim-gardenlet"},
            {"version", "v1.150.0-kprov-sim"}}}}}};
}

ApiResponse with_warnings(ApiResponse r, const std::vector<std::string>& warnings) {
    for (const auto& w : warnings)
        r.headers.emplace_back("Warning", "299 - \"" + w + "\"");
    return r;
}

Json body_json(const ApiRequest& req) {
    std::string ct = req.content_type();
    if (!ct.empty() && ct != "application/json")
        throw unsupported_body_type(ct);
    return parse_body_object(req.body);
}

ApiResponse handle_shoots(World& w, const K8sPath& p, const ApiRequest& req,
                          const std::string& user) {
    const ResourceInfo& info = shoot_info();
    std::vector<std::string> warnings;
    WriteContext ctx;
    ctx.user = user;
    ctx.field_validation = req.query_value("fieldValidation");
    ctx.dry_run = is_dry_run(req);
    ctx.warnings = &warnings;
    const std::string& m = req.method;
    if (p.name.empty()) {
        if (m == "GET" && is_watch(req)) {
            ApiResponse r;
            r.stream = w.shoots.watch(p.ns, req, w.bookmark_seconds, w.watch_timeout_seconds,
                                      w.watch_expired_as_event);
            return r;
        }
        if (m == "GET")
            return respond(req, info, 200, w.shoots.list(p.ns, ListOptions::from(req)));
        if (m == "POST" && !p.ns.empty())
            return with_warnings(ApiResponse::json(201, w.shoots.create(p.ns, body_json(req), ctx)),
                                 warnings);
        if (m == "DELETE" && !p.ns.empty()) {
            // Gardener refuses a collection delete unless every shoot in it is confirmed.
            Json list = w.shoots.list(p.ns, ListOptions::from(req));
            for (const auto& item : list["items"])
                if (!annotation_true(item, "confirmation.gardener.cloud/deletion"))
                    throw forbidden(info, item["metadata"]["name"].get<std::string>(),
                                    "must have a \"confirmation.gardener.cloud/deletion\" "
                                    "annotation to delete");
            Json deleted = Json::array();
            for (const auto& item : list["items"])
                deleted.push_back(
                    w.shoots.remove(p.ns, item["metadata"]["name"].get<std::string>(), ctx));
            list["items"] = deleted;
            return ApiResponse::json(200, list);
        }
        throw method_not_allowed("the server does not allow this method on the requested resource");
    }
    if (p.ns.empty())
        throw ApiError(404, failure_status(404, "NotFound",
                                           "the server could not find the requested resource"));
    if (p.subresource.empty()) {
        if (m == "GET" || m == "HEAD")
            return respond(req, info, 200, w.shoots.get(p.ns, p.name));
        if (m == "PUT")
            return with_warnings(
                ApiResponse::json(200, w.shoots.update(p.ns, p.name, body_json(req), ctx)),
                warnings);
        if (m == "PATCH") {
            auto type = patch_type_from(req.content_type());
            if (!type)
                throw unsupported_media_type(req.content_type());
            if (*type == PatchType::Apply && req.query_value("fieldManager").empty())
                throw invalid(
                    {"meta.k8s.io", "v1", "patchoptions", "PatchOptions", false, "", {}, {}}, "",
                    {{"FieldValueRequired", "Required value: is required for apply patch",
                      "fieldManager"}});
            return with_warnings(
                ApiResponse::json(200, w.shoots.patch(p.ns, p.name, req.body, *type, ctx)),
                warnings);
        }
        if (m == "DELETE")
            return ApiResponse::json(200, w.shoots.remove(p.ns, p.name, ctx));
        throw method_not_allowed("the server does not allow this method on the requested resource");
    }
    if (p.subresource == "status") {
        if (m == "GET")
            return ApiResponse::json(200, w.shoots.get(p.ns, p.name));
        if (m == "PUT")
            return ApiResponse::json(200,
                                     w.shoots.update_status(p.ns, p.name, req.body, std::nullopt));
        if (m == "PATCH") {
            auto type = patch_type_from(req.content_type());
            if (!type)
                throw unsupported_media_type(req.content_type());
            return ApiResponse::json(200, w.shoots.update_status(p.ns, p.name, req.body, type));
        }
        throw method_not_allowed("the status subresource allows GET, PUT and PATCH");
    }
    if (p.subresource == "adminkubeconfig") {
        if (m != "POST")
            throw method_not_allowed("the adminkubeconfig subresource allows POST (create) only");
        return ApiResponse::json(
            201, w.shoots.admin_kubeconfig(p.ns, p.name, req.body, req.base_url, w.ca_pem));
    }
    throw ApiError(
        404, failure_status(404, "NotFound", "the server could not find the requested resource"));
}

ApiResponse handle_seeds(World& w, const K8sPath& p, const ApiRequest& req) {
    const ResourceInfo& info = seed_info();
    if (req.method != "GET" && req.method != "HEAD")
        throw method_not_allowed("kprov-sim serves seeds read-only (get, list)");
    if (is_watch(req))
        throw method_not_allowed("kprov-sim does not serve watches for seeds");
    if (!p.ns.empty() || !p.subresource.empty())
        throw ApiError(404, failure_status(404, "NotFound",
                                           "the server could not find the requested resource"));
    if (!p.name.empty()) {
        if (p.name != w.seed["metadata"]["name"])
            throw not_found(info, p.name);
        return respond(req, info, 200, w.seed);
    }
    ListOptions opts = ListOptions::from(req);
    std::vector<Json> items;
    if (LabelSelector::parse(opts.label_selector).matches(w.seed["metadata"]["labels"]) &&
        FieldSelector::parse(opts.field_selector, {{"metadata.name", "/metadata/name"}})
            .matches(w.seed))
        items.push_back(w.seed);
    return respond(req, info, 200, make_list_page(info, items, opts, w.rv, nullptr));
}

} // namespace

const std::vector<ResourceInfo>& World::gardener_resources() {
    static const std::vector<ResourceInfo> list = {
        {"core.gardener.cloud", "v1beta1", "shoots", "Shoot", true, "shoot", {}, {}},
        {"core.gardener.cloud", "v1beta1", "seeds", "Seed", false, "seed", {}, {"get", "list"}},
        {"", "v1", "namespaces", "Namespace", false, "namespace", {"ns"}, {}},
        {"", "v1", "configmaps", "ConfigMap", true, "configmap", {"cm"}, {}},
        {"", "v1", "secrets", "Secret", true, "secret", {}, {}},
        cloud_profile_info(),
        namespaced_cloud_profile_info(),
        credentials_binding_info(),
        secret_binding_info(),
    };
    return list;
}

World::World(const SimOptions& opts, std::string ca)
    : hub(opts.watch_history, shoot_field_pointers())
    , garden(
          {gardener_resources()[2], gardener_resources()[3], gardener_resources()[4],
           gardener_resources()[5], gardener_resources()[6], gardener_resources()[7],
           gardener_resources()[8]},
          [this] { return ++rv; }, [this] { return rv; }, garden_namespace)
    , clusters([this] { return ++rv; }, [this] { return rv; }, opts.kyma)
    , shoots(
          opts.lifecycle, hub, clusters, garden, [this] { return ++rv; }, [this] { return rv; })
    , kcp([this] { return ++rv; }, [this] { return rv; }, opts.klm)
    , seed(make_seed(opts))
    , ca_pem(std::move(ca))
    , bookmark_seconds(opts.bookmark_seconds)
    , watch_timeout_seconds(opts.watch_timeout_seconds)
    , watch_expired_as_event(opts.watch_expired_as_event) {
    clusters.set_watch_limits(bookmark_seconds, watch_timeout_seconds);
    kcp.set_watch_limits(bookmark_seconds, watch_timeout_seconds);
    garden.set_observer([this](const std::string& type, const ResourceInfo& info, const Json& obj) {
        garden_watches.publish(type, info, obj);
    });
    garden.ensure_namespace("garden");
    if (!opts.project.empty())
        garden.ensure_namespace("garden-" + opts.project);
    load_landscape(opts);
}

ApiResponse World::handle_gardener(const ApiRequest& req, const std::string& user) {
    static const std::vector<ExtraResource> extras = {
        {"shoots/status", "Shoot", {"get", "patch", "update"}, "", ""},
        {"shoots/adminkubeconfig",
         "AdminKubeconfigRequest",
         {"create"},
         "authentication.gardener.cloud",
         "v1alpha1"},
    };
    if (auto d = serve_discovery(req, req.path, gardener_resources(), extras))
        return *d;
    auto p = parse_k8s_path(req.path, [](const std::string& g, const std::string& r) {
        for (const auto& info : gardener_resources())
            if (info.group == g && info.resource == r)
                return info.namespaced;
        return false;
    });
    if (p)
        for (const ResourceInfo* info : {&cloud_profile_info(), &namespaced_cloud_profile_info(),
                                         &credentials_binding_info(), &secret_binding_info()})
            if (p->group == info->group && p->version == info->version &&
                p->resource == info->resource)
                return handle_landscape(*info, *p, req);
    if (p && p->group == "core.gardener.cloud" && p->version == "v1beta1") {
        if (p->resource == "shoots")
            return handle_shoots(*this, *p, req, user);
        if (p->resource == "seeds")
            return handle_seeds(*this, *p, req);
    }
    if (p && p->group.empty() && p->version == "v1")
        if (const ResourceInfo* info = garden.find("", p->resource))
            return serve_store(garden, *info, *p, req);
    throw ApiError(
        404, failure_status(404, "NotFound", "the server could not find the requested resource"));
}

namespace {

// The path without a /clusters/<id> or /kcp prefix; `prefix` gets its template.
std::string strip_cluster(const std::string& path, std::string& prefix) {
    if (path == "/kcp" || path.rfind("/kcp/", 0) == 0) {
        prefix = "/kcp";
        return path.substr(4);
    }
    if (path.rfind("/clusters/", 0) != 0)
        return path;
    std::size_t slash = path.find('/', 10);
    prefix = "/clusters/{cluster}";
    return slash == std::string::npos ? "" : path.substr(slash);
}

} // namespace

std::optional<K8sPath> parse_request_path(const std::string& full_path) {
    std::string prefix;
    std::string path = strip_cluster(full_path, prefix);
    return parse_k8s_path(path, [](const std::string& g, const std::string& r) {
        for (const auto& info : World::gardener_resources())
            if (info.group == g && info.resource == r)
                return info.namespaced;
        for (const auto& info : ClusterRegistry::resources())
            if (info.group == g && info.resource == r)
                return info.namespaced;
        for (const auto& info : Kcp::resources())
            if (info.group == g && info.resource == r)
                return info.namespaced;
        return false;
    });
}

std::string stats_key(const ApiRequest& req) {
    std::string verb = req.method == "GET" && is_watch(req) ? "WATCH" : req.method;
    std::string prefix;
    std::string path = strip_cluster(req.path, prefix);
    auto p = parse_request_path(req.path);
    return verb + " " + prefix + (p ? p->path_template() : path);
}

} // namespace kprov::sim
