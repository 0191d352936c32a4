#include "resource_api.hpp"

#include "openapi.hpp"
#include "patch.hpp"

#include <algorithm>
#include <set>

namespace kprov::sim {

namespace {

Json version_info() {
    return {{"major", "1"},
            {"minor", "32"},
            {"gitVersion", "v1.32.0-kprov-sim"},
            {"gitCommit", "0000000000000000000000000000000000000000"},
            {"gitTreeState", "clean"},
            {"buildDate", "2026-01-01T00:00:00Z"},
            {"goVersion", "go1.23.0"},
            {"compiler", "gc"},
            {"platform", "linux/amd64"}};
}

Json resource_entry(const ResourceInfo& r) {
    static const std::vector<std::string> all = {"create", "delete", "deletecollection", "get",
                                                 "list",   "patch",  "update",           "watch"};
    Json e = {{"name", r.resource},
              {"singularName", r.singular},
              {"namespaced", r.namespaced},
              {"kind", r.kind},
              {"verbs", r.verbs.empty() ? all : r.verbs}};
    if (!r.short_names.empty())
        e["shortNames"] = r.short_names;
    return e;
}

Json resource_list(const std::string& group, const std::string& version,
                   const std::vector<ResourceInfo>& resources,
                   const std::vector<ExtraResource>& extras) {
    Json list = Json::array();
    for (const auto& r : resources)
        if (r.group == group && r.version == version)
            list.push_back(resource_entry(r));
    std::string prefix;
    for (const auto& x : extras) {
        bool belongs = false;
        for (const auto& r : resources)
            belongs = belongs || (r.group == group && r.version == version &&
                                  x.name.rfind(r.resource + "/", 0) == 0);
        if (!belongs)
            continue;
        Json e = {{"name", x.name},
                  {"singularName", ""},
                  {"namespaced", true},
                  {"kind", x.kind},
                  {"verbs", x.verbs}};
        if (!x.group.empty()) {
            e["group"] = x.group;
            e["version"] = x.version;
        }
        list.push_back(e);
    }
    return {{"kind", "APIResourceList"},
            {"apiVersion", "v1"},
            {"groupVersion", group.empty() ? version : group + "/" + version},
            {"resources", list}};
}

// `versions` in the order resources were listed: the first is the preferred one.
Json group_entry(const std::string& group, const std::vector<std::string>& versions) {
    Json list = Json::array();
    for (const auto& v : versions)
        list.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
    return {{"name", group}, {"versions", list}, {"preferredVersion", list[0]}};
}

std::string str_at(const Json& obj, const char* pointer) {
    Json::json_pointer p(pointer);
    return obj.contains(p) && obj.at(p).is_string() ? obj.at(p).get<std::string>() : "";
}

struct Column {
    std::string name;
    std::string type;
    std::function<Json(const Json&)> cell;
};

std::vector<Column> columns_for(const ResourceInfo& info) {
    auto name = Column{"Name", "string", [](const Json& o) {
                           return Json(str_at(o, "/metadata/name"));
                       }};
    auto age = Column{"Age", "date", [](const Json& o) {
                          return Json(human_age(str_at(o, "/metadata/creationTimestamp")));
                      }};
    auto data_count = Column{"Data", "integer", [](const Json& o) {
                                 return Json(o.value("data", Json::object()).size());
                             }};
    if (info.resource == "shoots")
        return {name,
                {"CloudProfile", "string",
                 [](const Json& o) {
                     std::string cp = str_at(o, "/spec/cloudProfile/name");
                     return Json(cp.empty() ? str_at(o, "/spec/cloudProfileName") : cp);
                 }},
                {"Provider", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/spec/provider/type"));
                 }},
                {"Region", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/spec/region"));
                 }},
                {"K8S Version", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/spec/kubernetes/version"));
                 }},
                {"Hibernation", "string",
                 [](const Json& o) {
                     Json::json_pointer p("/spec/hibernation/enabled");
                     bool want = o.contains(p) && o.at(p).is_boolean() && o.at(p).get<bool>();
                     bool is = o["status"].value("hibernated", false);
                     return Json(is ? (want ? "Hibernated" : "Waking Up")
                                    : (want ? "Hibernating" : "Awake"));
                 }},
                {"Last Operation", "string",
                 [](const Json& o) {
                     const Json lo = o["status"].value("lastOperation", Json::object());
                     if (lo.empty())
                         return Json("<pending>");
                     return Json(lo.value("type", "") + " " + lo.value("state", "") + " (" +
                                 std::to_string(lo.value("progress", 0)) + "%)");
                 }},
                {"Status", "string",
                 [](const Json& o) {
                     std::string s = str_at(o, "/metadata/labels/shoot.gardener.cloud~1status");
                     return Json(s.empty() ? "unknown" : s);
                 }},
                age};
    if (info.resource == "seeds")
        return {name,
                {"Status", "string",
                 [](const Json&) {
                     return Json("Ready");
                 }},
                {"Provider", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/spec/provider/type"));
                 }},
                {"Region", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/spec/provider/region"));
                 }},
                age};
    if (info.resource == "namespaces")
        return {name,
                {"Status", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/status/phase"));
                 }},
                age};
    if (info.resource == "configmaps")
        return {name, data_count, age};
    if (info.resource == "secrets")
        return {name,
                {"Type", "string",
                 [](const Json& o) {
                     return Json(o.value("type", ""));
                 }},
                data_count,
                age};
    if (info.resource == "clusterrolebindings" || info.resource == "rolebindings")
        return {name,
                {"Role", "string",
                 [](const Json& o) {
                     return Json(str_at(o, "/roleRef/kind") + "/" + str_at(o, "/roleRef/name"));
                 }},
                age};
    return {name, age};
}

ApiResponse created_or_ok(const ApiRequest& req, const ResourceInfo& info, int status,
                          const Json& obj) {
    ApiResponse r = respond(req, info, status, obj);
    return r;
}

} // namespace

std::string human_age(const std::string& ts) {
    auto t = parse_rfc3339(ts);
    if (!t)
        return "<unknown>";
    long long s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - *t).count();
    if (s < -1)
        return "<invalid>";
    if (s < 0)
        s = 0;
    auto n = [](long long v) {
        return std::to_string(v);
    };
    if (s < 120)
        return n(s) + "s";
    long long m = s / 60;
    if (m < 10)
        return s % 60 == 0 ? n(m) + "m" : n(m) + "m" + n(s % 60) + "s";
    if (m < 180)
        return n(m) + "m";
    long long h = m / 60;
    if (h < 8)
        return m % 60 == 0 ? n(h) + "h" : n(h) + "h" + n(m % 60) + "m";
    if (h < 48)
        return n(h) + "h";
    if (h < 24 * 8)
        return h % 24 == 0 ? n(h / 24) + "d" : n(h / 24) + "d" + n(h % 24) + "h";
    return n(h / 24) + "d";
}

std::optional<ApiResponse> serve_discovery(const ApiRequest& req, const std::string& path,
                                           const std::vector<ResourceInfo>& resources,
                                           const std::vector<ExtraResource>& extras) {
    auto seg = split_segments(path);
    if (req.method != "GET" && req.method != "HEAD")
        return std::nullopt;
    if (seg.size() == 1 && seg[0] == "version")
        return ApiResponse::json(200, version_info());
    if (!seg.empty() && seg[0] == "openapi") {
        if (auto r = serve_openapi(req, path, resources))
            return r;
        return ApiResponse::json(
            404,
            failure_status(404, "NotFound", "the server could not find the requested resource"));
    }
    std::set<std::pair<std::string, std::string>> groups;
    std::vector<std::pair<std::string, std::vector<std::string>>> versions; // first-seen order
    bool core = false;
    for (const auto& r : resources) {
        if (r.group.empty()) {
            core = true;
            continue;
        }
        if (!groups.insert({r.group, r.version}).second)
            continue;
        auto it = std::find_if(versions.begin(), versions.end(),
                               [&](const auto& g) { return g.first == r.group; });
        if (it == versions.end())
            versions.push_back({r.group, {r.version}});
        else
            it->second.push_back(r.version);
    }
    std::sort(versions.begin(), versions.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (seg.size() == 1 && seg[0] == "api") {
        if (!core)
            return ApiResponse::json(200, {{"kind", "APIVersions"}, {"versions", Json::array()}});
        std::string host = req.base_url.substr(req.base_url.find("://") + 3);
        return ApiResponse::json(
            200, {{"kind", "APIVersions"},
                  {"versions", Json::array({"v1"})},
                  {"serverAddressByClientCIDRs",
                   Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", host}}})}});
    }
    if (seg.size() == 2 && seg[0] == "api" && seg[1] == "v1" && core)
        return ApiResponse::json(200, resource_list("", "v1", resources, extras));
    if (seg.size() == 1 && seg[0] == "apis") {
        Json list = Json::array();
        for (const auto& [g, vs] : versions)
            list.push_back(group_entry(g, vs));
        return ApiResponse::json(
            200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}});
    }
    if (seg.size() == 2 && seg[0] == "apis") {
        for (const auto& [g, vs] : versions)
            if (g == seg[1]) {
                Json e = group_entry(g, vs);
                e["kind"] = "APIGroup";
                e["apiVersion"] = "v1";
                return ApiResponse::json(200, e);
            }
    }
    if (seg.size() == 3 && seg[0] == "apis" && groups.count({seg[1], seg[2]}))
        return ApiResponse::json(200, resource_list(seg[1], seg[2], resources, extras));
    return std::nullopt;
}

bool wants_table(const ApiRequest& req) {
    std::string accept = req.header("accept");
    return accept.find("as=Table") != std::string::npos;
}

Json to_table(const ResourceInfo& info, const Json& obj) {
    auto cols = columns_for(info);
    Json defs = Json::array();
    for (std::size_t i = 0; i < cols.size(); ++i)
        defs.push_back({{"name", cols[i].name},
                        {"type", cols[i].type},
                        {"format", i == 0 ? "name" : ""},
                        {"description", cols[i].name},
                        {"priority", 0}});
    Json rows = Json::array();
    bool is_list = obj.contains("items");
    Json items = is_list ? obj["items"] : Json::array({obj});
    for (const auto& item : items) {
        Json cells = Json::array();
        for (const auto& c : cols)
            cells.push_back(c.cell(item));
        rows.push_back({{"cells", cells},
                        {"object",
                         {{"kind", "PartialObjectMetadata"},
                          {"apiVersion", "meta.k8s.io/v1"},
                          {"metadata", item.value("metadata", Json::object())}}}});
    }
    Json md = Json::object();
    if (is_list)
        md = obj.value("metadata", Json::object());
    else if (obj.contains("metadata"))
        md["resourceVersion"] = obj["metadata"].value("resourceVersion", "");
    return {{"kind", "Table"},
            {"apiVersion", "meta.k8s.io/v1"},
            {"metadata", md},
            {"columnDefinitions", defs},
            {"rows", rows}};
}

ApiResponse respond(const ApiRequest& req, const ResourceInfo& info, int status, const Json& obj) {
    if (req.method == "GET" && wants_table(req) && obj.value("kind", "") != "Status")
        return ApiResponse::json(status, to_table(info, obj));
    return ApiResponse::json(status, obj);
}

bool is_watch(const ApiRequest& req) {
    return req.query_bool("watch");
}

bool is_dry_run(const ApiRequest& req) {
    return req.query_value("dryRun") == "All";
}

PatchType patch_type_of(const ApiRequest& req) {
    auto type = patch_type_from(req.content_type());
    if (!type)
        throw unsupported_media_type(req.content_type());
    if (*type == PatchType::Apply && req.query_value("fieldManager").empty())
        throw invalid({"meta.k8s.io", "v1", "patchoptions", "PatchOptions", false, "", {}, {}}, "",
                      {{"FieldValueRequired", "Required value: is required for apply patch",
                        "fieldManager"}});
    return *type;
}

ApiResponse serve_store(ObjectStore& store, const ResourceInfo& info, const K8sPath& path,
                        const ApiRequest& req) {
    if (!path.subresource.empty() || (!info.namespaced && !path.ns.empty()))
        throw ApiError(404, failure_status(404, "NotFound",
                                           "the server could not find the requested resource"));
    bool collection = path.name.empty();
    if (info.namespaced && path.ns.empty() && !(collection && req.method == "GET"))
        throw ApiError(404, failure_status(404, "NotFound",
                                           "the server could not find the requested resource"));
    bool dry = is_dry_run(req);
    auto body_is_json = [&] {
        std::string ct = req.content_type();
        if (!ct.empty() && ct != "application/json")
            throw unsupported_body_type(ct);
        return parse_body_object(req.body);
    };
    if (req.method == "GET" || req.method == "HEAD") {
        if (collection && is_watch(req))
            throw method_not_allowed(
                "kprov-sim serves watches for shoots and runtime-cluster objects, not for " +
                info.resource);
        if (collection)
            return respond(req, info, 200, store.list(info, path.ns, ListOptions::from(req)));
        return respond(req, info, 200, store.get(info, path.ns, path.name));
    }
    if (req.method == "POST" && collection)
        return created_or_ok(req, info, 201, store.create(info, path.ns, body_is_json(), dry));
    if (req.method == "PUT" && !collection)
        return respond(req, info, 200, store.update(info, path.ns, path.name, body_is_json(), dry));
    if (req.method == "PATCH" && !collection) {
        PatchType type = patch_type_of(req);
        return respond(req, info, 200, store.patch(info, path.ns, path.name, req.body, type, dry));
    }
    if (req.method == "DELETE")
        return respond(req, info, 200,
                       collection
                           ? store.remove_collection(info, path.ns, ListOptions::from(req), dry)
                           : store.remove(info, path.ns, path.name, dry));
    throw method_not_allowed("the server does not allow this method on the requested resource");
}

} // namespace kprov::sim
