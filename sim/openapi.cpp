#include "openapi.hpp"

#include "k8s_path.hpp"
#include "schema_builders.hpp"

#include <cstdio>
#include <functional>
#include <set>

namespace kprov::sim {

namespace {

const char* k_object_meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// Definition names as the real servers publish them, so that clients keyed by them agree.
std::string definition_name(const ResourceInfo& info) {
    std::string first = info.group.empty() ? "core" : info.group.substr(0, info.group.find('.'));
    bool gardener = info.group.find("gardener.cloud") != std::string::npos;
    return (gardener ? "com.github.gardener.gardener.pkg.apis." : "io.k8s.api.") + first + "." +
           info.version + "." + info.kind;
}

enum class Dialect { V2, V3 };

Json with_description(Json s, const std::string& doc) {
    if (!doc.empty())
        s["description"] = doc;
    return s;
}

Json type_schema(const Field& f, FieldType type, Dialect d);

Json object_schema(const Field& f, Dialect d) {
    Json s = {{"type", "object"}};
    Json props = Json::object();
    Json required = Json::array();
    for (const auto& sub : f.fields) {
        props[sub.name] = with_description(type_schema(sub, sub.type, d), sub.description);
        if (sub.required)
            required.push_back(sub.name);
    }
    if (!props.empty())
        s["properties"] = props;
    if (!required.empty())
        s["required"] = required;
    if (f.open)
        s["x-kubernetes-preserve-unknown-fields"] = true;
    return s;
}

Json type_schema(const Field& f, FieldType type, Dialect d) {
    switch (type) {
    case FieldType::String:
        return {{"type", "string"}};
    case FieldType::Time:
        return {{"type", "string"}, {"format", "date-time"}};
    case FieldType::Bool:
        return {{"type", "boolean"}};
    case FieldType::Int32:
        return {{"type", "integer"}, {"format", "int32"}};
    case FieldType::Int64:
        return {{"type", "integer"}, {"format", "int64"}};
    case FieldType::IntOrString:
    case FieldType::Quantity:
        if (d == Dialect::V2)
            return {{"type", "string"},
                    {"format", type == FieldType::Quantity ? "quantity" : "int-or-string"}};
        return {{"anyOf", Json::array({{{"type", "integer"}}, {{"type", "string"}}})},
                {"x-kubernetes-int-or-string", true}};
    case FieldType::StringMap:
        return {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
    case FieldType::Raw:
        return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    case FieldType::ObjectMeta:
        if (d == Dialect::V2)
            return {{"$ref", std::string("#/definitions/") + k_object_meta}};
        return {{"allOf",
                 Json::array({{{"$ref", std::string("#/components/schemas/") + k_object_meta}}})}};
    case FieldType::Object:
        return object_schema(f, d);
    case FieldType::Array: {
        Json s = {{"type", "array"}, {"items", type_schema(f, f.items, d)}};
        if (f.list_key.empty()) {
            s["x-kubernetes-list-type"] = "atomic";
        } else {
            s["x-kubernetes-list-type"] = "map";
            s["x-kubernetes-list-map-keys"] = Json::array({f.list_key});
            s["x-kubernetes-patch-merge-key"] = f.list_key;
            s["x-kubernetes-patch-strategy"] = "merge";
        }
        return s;
    }
    }
    return Json::object();
}

Json kind_schema(const KindSchema& k, Dialect d) {
    Json s = with_description(object_schema(k.root, d), k.root.description);
    s["x-kubernetes-group-version-kind"] = Json::array(
        {{{"group", k.info.group}, {"version", k.info.version}, {"kind", k.info.kind}}});
    return s;
}

Json object_meta_schema(Dialect d) {
    Field meta = fields::object_meta();
    Json s = with_description(object_schema(meta, d), meta.description);
    s.erase("x-kubernetes-preserve-unknown-fields");
    return s;
}

std::string hex_hash(const std::string& text) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016zx", std::hash<std::string>{}(text));
    return buf;
}

std::vector<KindSchema> schemas_of(const std::vector<ResourceInfo>& resources) {
    std::vector<KindSchema> out;
    std::set<std::string> seen;
    for (const auto& r : resources)
        if (seen.insert(r.api_version() + "/" + r.kind).second)
            out.push_back(schema_for(r));
    return out;
}

std::string v3_path(const std::string& group, const std::string& version) {
    return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

std::string item_path(const ResourceInfo& info) {
    std::string prefix =
        info.group.empty() ? "/api/" + info.version : "/apis/" + info.group + "/" + info.version;
    return prefix + (info.namespaced ? "/namespaces/{namespace}/" : "/") + info.resource +
           "/{name}";
}

// kubectl explain (1.27 and later) finds a resource's kind through the GET operation of its
// path, then its schema; only that operation is published.
Json get_operation(const ResourceInfo& info, const std::string& definition) {
    Json ref = {{"$ref", "#/components/schemas/" + definition}};
    return {
        {"get",
         {{"operationId", "read" + info.kind},
          {"x-kubernetes-action", "get"},
          {"x-kubernetes-group-version-kind",
           {{"group", info.group}, {"version", info.version}, {"kind", info.kind}}},
          {"responses",
           {{"200",
             {{"description", "OK"}, {"content", {{"application/json", {{"schema", ref}}}}}}}}}}}};
}

bool wants_protobuf(const ApiRequest& req) {
    std::string accept = req.header("accept");
    return accept.find("protobuf") != std::string::npos &&
           accept.find("application/json") == std::string::npos;
}

} // namespace

Json openapi_v2(const std::vector<KindSchema>& kinds) {
    Json defs = Json::object();
    defs[k_object_meta] = object_meta_schema(Dialect::V2);
    for (const auto& k : kinds)
        defs[definition_name(k.info)] = kind_schema(k, Dialect::V2);
    return {{"swagger", "2.0"},
            {"info", {{"title", "kprov-sim"}, {"version", "v1.32.0"}}},
            {"paths", Json::object()},
            {"definitions", defs}};
}

Json openapi_v3(const std::vector<KindSchema>& kinds, const std::string& group,
                const std::string& version) {
    Json schemas = Json::object();
    Json paths = Json::object();
    schemas[k_object_meta] = object_meta_schema(Dialect::V3);
    for (const auto& k : kinds)
        if (k.info.group == group && k.info.version == version) {
            std::string name = definition_name(k.info);
            schemas[name] = kind_schema(k, Dialect::V3);
            paths[item_path(k.info)] = get_operation(k.info, name);
        }
    return {{"openapi", "3.0.0"},
            {"info", {{"title", "kprov-sim"}, {"version", "v1.32.0"}}},
            {"paths", paths},
            {"components", {{"schemas", schemas}}}};
}

std::optional<ApiResponse> serve_openapi(const ApiRequest& req, const std::string& path,
                                         const std::vector<ResourceInfo>& resources) {
    auto seg = split_segments(path);
    if (seg.size() < 2 || seg[0] != "openapi")
        return std::nullopt;
    std::vector<KindSchema> kinds = schemas_of(resources);
    if (seg.size() == 2 && seg[1] == "v2") {
        Json doc = openapi_v2(kinds);
        if (!wants_protobuf(req))
            return ApiResponse::json(200, doc);
        ApiResponse r;
        r.body = openapi_v2_protobuf(doc);
        // What kube-apiserver sends: Go's mime parser (in kubectl) rejects the '@' of the
        // protobuf media type, so it is never used as a Content-Type.
        r.content_type = "application/octet-stream";
        return r;
    }
    if (seg[1] != "v3")
        return std::nullopt;
    if (seg.size() == 2) {
        Json paths = Json::object();
        for (const auto& k : kinds) {
            std::string p = v3_path(k.info.group, k.info.version);
            if (paths.contains(p))
                continue;
            std::string hash = hex_hash(openapi_v3(kinds, k.info.group, k.info.version).dump());
            paths[p] = {{"serverRelativeURL", "/openapi/v3/" + p + "?hash=" + hash}};
        }
        return ApiResponse::json(200, {{"paths", paths}});
    }
    std::string group, version;
    if (seg.size() == 4 && seg[2] == "api")
        version = seg[3];
    else if (seg.size() == 5 && seg[2] == "apis")
        group = seg[3], version = seg[4];
    for (const auto& k : kinds)
        if (!version.empty() && k.info.group == group && k.info.version == version)
            return ApiResponse::json(200, openapi_v3(kinds, group, version));
    return ApiResponse::json(
        404, failure_status(404, "NotFound", "the server could not find the requested resource"));
}

} // namespace kprov::sim
