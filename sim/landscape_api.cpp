// The landscape resources of the Gardener API (CloudProfiles, NamespacedCloudProfiles,
// CredentialsBindings, SecretBindings), stored in the garden's ObjectStore, and the landscape
// the simulator starts with.

#include "landscape.hpp"
#include "patch.hpp"
#include "resource_api.hpp"
#include "world.hpp"

#include <map>
#include <tuple>

namespace kprov::sim {

namespace {

// Refuses what Gardener's validation refuses (422), after filling in what the URL says.
void validate_landscape_write(const ResourceInfo& info, const K8sPath& path, Json obj) {
    if (!obj.contains("apiVersion"))
        obj["apiVersion"] = info.api_version();
    if (!obj.contains("kind"))
        obj["kind"] = info.kind;
    if (!obj.contains("metadata") || !obj["metadata"].is_object())
        obj["metadata"] = Json::object();
    if (info.namespaced && !obj["metadata"].contains("namespace"))
        obj["metadata"]["namespace"] = path.ns;
    if (!path.name.empty() && !obj["metadata"].contains("name"))
        obj["metadata"]["name"] = path.name;
    if (obj["apiVersion"] != info.api_version() || obj["kind"] != info.kind)
        return; // the store answers 400 for a mismatch
    std::vector<Cause> causes;
    for (const auto& p : landscape_object_problems(obj)) {
        std::size_t colon = p.find(": ");
        causes.push_back(
            {"FieldValueInvalid",
             "Invalid value: " + (colon == std::string::npos ? p : p.substr(colon + 2)),
             colon == std::string::npos ? "" : p.substr(0, colon)});
    }
    if (!causes.empty())
        throw invalid(info, obj["metadata"].value("name", ""), causes);
}

Json json_of(const ApiRequest& req) {
    std::string ct = req.content_type();
    if (!ct.empty() && ct != "application/json")
        throw unsupported_body_type(ct);
    return parse_body_object(req.body);
}

} // namespace

ApiResponse World::handle_landscape(const ResourceInfo& info, const K8sPath& path,
                                    const ApiRequest& req) {
    const std::string& m = req.method;
    bool collection = path.name.empty();
    if (m == "GET" && collection && path.subresource.empty() && is_watch(req)) {
        if (!info.namespaced && !path.ns.empty())
            throw ApiError(404, failure_status(404, "NotFound",
                                               "the server could not find the requested resource"));
        return garden_watches.watch(garden, info, path.ns, req, bookmark_seconds,
                                    watch_timeout_seconds);
    }
    bool dry = is_dry_run(req);
    ApiResponse r;
    if (m == "POST" && collection && path.subresource.empty() &&
        (path.ns.empty() != info.namespaced)) {
        Json body = json_of(req);
        validate_landscape_write(info, path, body);
        if (info.kind == "NamespacedCloudProfile")
            body.erase("status"); // the controller's
        r = respond(req, info, 201, garden.create(info, path.ns, std::move(body), dry));
    } else if ((m == "PUT" || m == "PATCH") && !collection && path.subresource.empty()) {
        Json next;
        if (m == "PUT") {
            next = json_of(req);
        } else {
            PatchType type = patch_type_of(req);
            auto current = garden.find_object(info, path.ns, path.name);
            if (!current && type != PatchType::Apply)
                throw not_found(info, path.name);
            next =
                apply_patch(current ? *current : Json::object(), req.body, type, info, path.name);
            next["metadata"]["name"] = path.name;
            if (!current) {
                validate_landscape_write(info, path, next);
                r = respond(req, info, 201, garden.create(info, path.ns, std::move(next), dry));
            }
        }
        if (r.body.empty()) {
            validate_landscape_write(info, path, next);
            if (info.kind == "NamespacedCloudProfile")
                if (auto current = garden.find_object(info, path.ns, path.name))
                    next["status"] = current->value("status", Json::object());
            r = respond(req, info, 200,
                        garden.update(info, path.ns, path.name, std::move(next), dry));
        }
    } else {
        return serve_store(garden, info, path, req);
    }
    if (dry || m == "GET")
        return r;
    // The controllers' part: NamespacedCloudProfiles follow their own and their parent's writes.
    if (info.kind == "NamespacedCloudProfile") {
        Json written = Json::parse(r.body);
        refresh_namespaced_profile(path.ns, written["metadata"].value("name", ""));
    } else if (info.kind == "CloudProfile") {
        for (const auto& ncp : garden.select(namespaced_cloud_profile_info(), "", ListOptions{}))
            if (ncp.contains("spec") &&
                ncp["spec"].value("parent", Json::object()).value("name", "") == path.name)
                refresh_namespaced_profile(ncp["metadata"].value("namespace", ""),
                                           ncp["metadata"].value("name", ""));
    }
    return r;
}

void World::refresh_namespaced_profile(const std::string& ns, const std::string& name) {
    const ResourceInfo& info = namespaced_cloud_profile_info();
    auto ncp = garden.find_object(info, ns, name);
    if (!ncp)
        return;
    Json::json_pointer parent_ptr("/spec/parent/name");
    std::string parent_name = ncp->contains(parent_ptr) && ncp->at(parent_ptr).is_string()
                                  ? ncp->at(parent_ptr).get<std::string>()
                                  : "";
    auto parent = garden.find_object(cloud_profile_info(), "", parent_name);
    Json status = {{"observedGeneration", ncp->at("metadata").value("generation", 1)}};
    if (parent)
        status["cloudProfileSpec"] = merge_namespaced_profile(parent->value("spec", Json::object()),
                                                              ncp->value("spec", Json::object()));
    if (ncp->value("status", Json()) == status)
        return;
    Json next = *ncp;
    next["status"] = status;
    garden.update(info, ns, name, std::move(next));
}

void World::load_landscape(const SimOptions& opts) {
    std::vector<Json> objects;
    if (opts.default_landscape)
        objects = default_landscape(opts.project, Clock::now());
    for (const auto& file : opts.landscape_files) {
        auto more = read_landscape_file(file);
        objects.insert(objects.end(), more.begin(), more.end());
    }
    // A later object of the same kind, namespace and name replaces an earlier one in place.
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, std::size_t> index;
    std::vector<Json> unique;
    for (auto& o : objects) {
        const Json md = o.value("metadata", Json::object());
        Key key{o.value("kind", ""), md.value("namespace", ""), md.value("name", "")};
        if (auto it = index.find(key); it != index.end()) {
            unique[it->second] = std::move(o);
        } else {
            index[key] = unique.size();
            unique.push_back(std::move(o));
        }
    }
    for (auto& o : unique) {
        std::string kind = o.value("kind", "");
        const ResourceInfo* info = nullptr;
        for (const auto& r : gardener_resources())
            if (r.kind == kind)
                info = &r;
        if (!info)
            continue; // landscape_object_problems admitted only known kinds
        std::string ns = info->namespaced ? o["metadata"].value("namespace", "") : "";
        if (!ns.empty())
            garden.ensure_namespace(ns);
        if (kind == "NamespacedCloudProfile")
            o.erase("status");
        o["metadata"].erase("resourceVersion");
        o["metadata"].erase("uid");
        o["metadata"].erase("creationTimestamp");
        const std::string name = o["metadata"].value("name", "");
        try {
            garden.create(*info, ns, std::move(o));
        } catch (const ApiError& e) {
            throw std::runtime_error("--landscape: " + kind + " \"" + ns + "/" + name +
                                     "\": " + e.status().value("message", ""));
        }
    }
    for (const auto& ncp : garden.select(namespaced_cloud_profile_info(), "", ListOptions{}))
        refresh_namespaced_profile(ncp["metadata"].value("namespace", ""),
                                   ncp["metadata"].value("name", ""));
}

} // namespace kprov::sim
