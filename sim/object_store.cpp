#include "object_store.hpp"

#include "k8s_validation.hpp"
#include "schema.hpp"
#include "selectors.hpp"

#include <algorithm>

namespace kprov::sim {

ListOptions ListOptions::from(const ApiRequest& req) {
    ListOptions o;
    o.label_selector = req.query_value("labelSelector");
    o.field_selector = req.query_value("fieldSelector");
    o.continue_token = req.query_value("continue");
    std::string limit = req.query_value("limit");
    if (!limit.empty()) {
        try {
            long long n = std::stoll(limit);
            o.limit = n > 0 ? static_cast<std::size_t>(n) : 0;
        } catch (const std::exception&) {
            throw bad_request("invalid limit \"" + limit + "\"");
        }
    }
    return o;
}

namespace {

std::string item_key(const Json& obj) {
    const Json& md = obj["metadata"];
    return md.value("namespace", std::string()) + "/" + md.value("name", std::string());
}

bool is_path_segment_name(const std::string& s) {
    return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
           s.find('%') == std::string::npos;
}

} // namespace

bool is_dns_label(const std::string& s) {
    if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

bool is_dns_subdomain(const std::string& s) {
    if (s.empty() || s.size() > 253)
        return false;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = s.find('.', start);
        std::string label =
            s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!is_dns_label(label))
            return false;
        if (dot == std::string::npos)
            return true;
        start = dot + 1;
    }
}

Json make_list_page(const ResourceInfo& info, const std::vector<Json>& items,
                    const ListOptions& opts, std::uint64_t list_rv,
                    const std::function<bool(std::uint64_t)>& is_expired) {
    std::string start;
    std::uint64_t rv = list_rv;
    if (!opts.continue_token.empty()) {
        auto raw = base64_decode(opts.continue_token);
        Json tok = raw ? Json::parse(*raw, nullptr, false) : Json();
        if (!tok.is_object() || !tok.contains("rv") || !tok.contains("start") ||
            !tok["rv"].is_number_unsigned() || !tok["start"].is_string())
            throw bad_request("continue key is not valid: the token is malformed");
        rv = tok["rv"].get<std::uint64_t>();
        start = tok["start"].get<std::string>();
        if (is_expired && is_expired(rv))
            throw expired("The provided continue parameter is too old to display a consistent "
                          "list result. You can start a new list without the continue parameter.");
    }
    Json page = Json::array();
    std::size_t remaining = 0;
    std::string last;
    for (const auto& item : items) {
        std::string key = item_key(item);
        if (!start.empty() && key <= start)
            continue;
        if (opts.limit > 0 && page.size() >= opts.limit) {
            ++remaining;
            continue;
        }
        Json copy = item;
        copy.erase("kind");
        copy.erase("apiVersion");
        page.push_back(std::move(copy));
        last = key;
    }
    Json md = {{"resourceVersion", std::to_string(rv)}};
    if (remaining > 0) {
        md["continue"] = base64_encode(Json{{"rv", rv}, {"start", last}}.dump());
        md["remainingItemCount"] = remaining;
    }
    return {{"kind", info.kind + "List"},
            {"apiVersion", info.api_version()},
            {"metadata", md},
            {"items", page}};
}

ObjectStore::ObjectStore(std::vector<ResourceInfo> resources,
                         std::function<std::uint64_t()> next_rv,
                         std::function<std::uint64_t()> current_rv,
                         std::function<bool(const std::string&)> auto_namespace)
    : m_resources(std::move(resources))
    , m_next_rv(std::move(next_rv))
    , m_current_rv(std::move(current_rv))
    , m_auto_namespace(std::move(auto_namespace)) {}

const ResourceInfo* ObjectStore::find(const std::string& group, const std::string& resource) const {
    for (const auto& r : m_resources)
        if (r.group == group && r.resource == resource)
            return &r;
    return nullptr;
}

const ResourceInfo* ObjectStore::find(const std::string& group, const std::string& version,
                                      const std::string& resource) const {
    for (const auto& r : m_resources)
        if (r.group == group && r.version == version && r.resource == resource)
            return &r;
    return nullptr;
}

std::vector<Json> ObjectStore::select(const ResourceInfo& info, const std::string& ns,
                                      const ListOptions& opts) const {
    auto labels = LabelSelector::parse(opts.label_selector);
    std::map<std::string, std::string> fields = {{"metadata.name", "/metadata/name"},
                                                 {"metadata.namespace", "/metadata/namespace"}};
    if (info.resource == "secrets")
        fields["type"] = "/type";
    auto field_sel = FieldSelector::parse(opts.field_selector, fields);
    std::vector<Json> out;
    const std::string rk = resource_key(info);
    // Keys sort by resource, then namespace: only this resource's (and namespace's) range.
    for (auto it = m_objects.lower_bound({rk, ns, ""}); it != m_objects.end(); ++it) {
        const auto& [key, obj] = *it;
        if (std::get<0>(key) != rk || (!ns.empty() && std::get<1>(key) != ns))
            break;
        static const Json k_no_labels = Json::object();
        const Json& meta = obj["metadata"];
        const auto found = meta.find("labels");
        if (labels.matches(found != meta.end() ? *found : k_no_labels) && field_sel.matches(obj))
            out.push_back(obj);
    }
    return out;
}

Json ObjectStore::list(const ResourceInfo& info, const std::string& ns,
                       const ListOptions& opts) const {
    return make_list_page(info, select(info, ns, opts), opts, m_current_rv(), nullptr);
}

std::optional<Json> ObjectStore::find_object(const ResourceInfo& info, const std::string& ns,
                                             const std::string& name) const {
    auto it = m_objects.find({resource_key(info), info.namespaced ? ns : "", name});
    if (it == m_objects.end())
        return std::nullopt;
    Json obj = it->second;
    obj["apiVersion"] = info.api_version(); // read through the version asked for
    return obj;
}

Json ObjectStore::get(const ResourceInfo& info, const std::string& ns,
                      const std::string& name) const {
    auto obj = find_object(info, ns, name);
    if (!obj)
        throw not_found(info, name);
    return *obj;
}

bool ObjectStore::namespace_exists(const std::string& ns) const {
    const ResourceInfo* nsinfo = find("", "namespaces");
    return !nsinfo || m_objects.count({resource_key(*nsinfo), "", ns}) > 0;
}

void ObjectStore::ensure_namespace(const std::string& ns) {
    const ResourceInfo* nsinfo = find("", "namespaces");
    if (!nsinfo || namespace_exists(ns))
        return;
    create(*nsinfo, "", Json{{"metadata", {{"name", ns}}}});
}

void ObjectStore::check_namespace(const ResourceInfo& info, const std::string& ns) {
    if (!info.namespaced || namespace_exists(ns))
        return;
    if (m_auto_namespace && m_auto_namespace(ns)) {
        ensure_namespace(ns);
        return;
    }
    ResourceInfo nsinfo{"", "v1", "namespaces", "Namespace", false, "namespace", {}, {}};
    throw not_found(nsinfo, ns);
}

void ObjectStore::normalize(const ResourceInfo& info, Json& obj) const {
    if (info.resource == "secrets") {
        if (obj.contains("data")) {
            if (!obj["data"].is_object())
                throw bad_request("Secret in version \"v1\" cannot be handled as a Secret: data "
                                  "must be an object");
            for (const auto& [k, v] : obj["data"].items())
                if (!v.is_string() || !base64_decode(v.get<std::string>()))
                    throw bad_request("Secret in version \"v1\" cannot be handled as a Secret: "
                                      "illegal base64 data in data." +
                                      k);
        }
        if (obj.contains("stringData") && obj["stringData"].is_object()) {
            for (const auto& [k, v] : obj["stringData"].items())
                obj["data"][k] = base64_encode(v.is_string() ? v.get<std::string>() : v.dump());
            obj.erase("stringData");
        }
        if (!obj.contains("type"))
            obj["type"] = "Opaque";
    } else if (info.resource == "configmaps" && obj.contains("data")) {
        if (!obj["data"].is_object())
            throw bad_request("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: data "
                              "must be an object of strings");
        for (const auto& [k, v] : obj["data"].items())
            if (!v.is_string())
                throw bad_request("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
                                  "data." +
                                  k + " must be a string");
    }
}

Json ObjectStore::prepare_new(const ResourceInfo& info, const std::string& ns, Json body) const {
    if (body.contains("apiVersion") && body["apiVersion"] != info.api_version())
        throw bad_request("the API version in the data (" + body["apiVersion"].dump() +
                          ") does not match the expected API version (" + info.api_version() + ")");
    if (body.contains("kind") && body["kind"] != info.kind)
        throw bad_request("the kind in the data (" + body["kind"].dump() +
                          ") does not match the expected kind (" + info.kind + ")");
    if (!body.contains("metadata") || !body["metadata"].is_object())
        body["metadata"] = Json::object();
    Json& md = body["metadata"];
    if (info.namespaced) {
        if (md.contains("namespace") && md["namespace"] != ns)
            throw bad_request("the namespace of the provided object does not match the namespace "
                              "sent on the request");
        md["namespace"] = ns;
    } else {
        md.erase("namespace");
    }
    check_field_types(body, cluster_kind_schema(info));
    body["apiVersion"] = info.api_version();
    body["kind"] = info.kind;
    normalize(info, body);
    std::vector<Cause> causes = label_causes(body);
    if (info.group.empty() && (info.resource == "configmaps" || info.resource == "secrets")) {
        auto keys = data_key_causes(body);
        causes.insert(causes.end(), keys.begin(), keys.end());
    }
    if (!causes.empty())
        throw invalid(info, md.value("name", std::string()), causes);
    return body;
}

Json ObjectStore::create(const ResourceInfo& info, const std::string& ns, Json body, bool dry_run) {
    body = prepare_new(info, ns, std::move(body));
    Json& md = body["metadata"];
    if (!md.contains("name") && md.contains("generateName") && md["generateName"].is_string())
        md["name"] = md["generateName"].get<std::string>() + random_token(5);
    std::string name = md.value("name", std::string());
    if (name.empty())
        throw invalid(info, name,
                      {{"FieldValueRequired", "Required value: name or generateName is required",
                        "metadata.name"}});
    bool name_ok = info.resource == "namespaces"               ? is_dns_label(name)
                   : info.group == "rbac.authorization.k8s.io" ? is_path_segment_name(name)
                                                               : is_dns_subdomain(name);
    if (!name_ok)
        throw invalid(info, name,
                      {{"FieldValueInvalid",
                        "Invalid value: \"" + name + "\": a lowercase RFC 1123 " +
                            (info.resource == "namespaces" ? "label" : "subdomain") +
                            " must consist of lower case alphanumeric characters, '-' or '.'",
                        "metadata.name"}});
    if (md.contains("resourceVersion") && md["resourceVersion"] != "")
        throw bad_request("resourceVersion should not be set on objects to be created");
    check_namespace(info, ns);
    Key key{resource_key(info), info.namespaced ? ns : "", name};
    if (m_objects.count(key))
        throw already_exists(info, name);
    md["uid"] = random_uuid();
    md["creationTimestamp"] = rfc3339(Clock::now());
    if (info.resource == "namespaces") {
        md["labels"]["kubernetes.io/metadata.name"] = name;
        body["spec"]["finalizers"] = Json::array({"kubernetes"});
        body["status"] = {{"phase", "Active"}};
    }
    if (dry_run)
        return body;
    md["resourceVersion"] = std::to_string(m_next_rv());
    m_objects[key] = body;
    notify("ADDED", info, body);
    return body;
}

Json ObjectStore::update(const ResourceInfo& info, const std::string& ns, const std::string& name,
                         Json body, bool dry_run) {
    Json current = get(info, ns, name);
    body = prepare_new(info, ns, std::move(body));
    Json& md = body["metadata"];
    if (md.value("name", name) != name)
        throw bad_request("the name of the object (" + md["name"].dump() +
                          ") does not match the name on the URL (" + name + ")");
    md["name"] = name;
    std::string rv = md.value("resourceVersion", std::string());
    if (rv.empty() && std::find(m_conditional_groups.begin(), m_conditional_groups.end(),
                                info.group) != m_conditional_groups.end())
        throw invalid(info, name,
                      {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
                        "metadata.resourceVersion"}});
    if (!rv.empty() && rv != current["metadata"]["resourceVersion"])
        throw conflict(info, name);
    md["uid"] = current["metadata"]["uid"];
    md["creationTimestamp"] = current["metadata"]["creationTimestamp"];
    if (info.resource == "namespaces") {
        md["labels"]["kubernetes.io/metadata.name"] = name;
        body["status"] = current["status"];
        if (!body.contains("spec"))
            body["spec"] = current["spec"];
    }
    if (dry_run)
        return body;
    md["resourceVersion"] = std::to_string(m_next_rv());
    m_objects[{resource_key(info), info.namespaced ? ns : "", name}] = body;
    notify("MODIFIED", info, body);
    return body;
}

Json ObjectStore::patch(const ResourceInfo& info, const std::string& ns, const std::string& name,
                        const std::string& body, PatchType type, bool dry_run) {
    auto current = find_object(info, ns, name);
    if (!current) {
        if (type != PatchType::Apply)
            throw not_found(info, name);
        // Server-side apply creates what does not exist yet.
        Json obj = apply_patch(Json::object(), body, type, info, name);
        obj["metadata"]["name"] = name;
        return create(info, ns, obj, dry_run);
    }
    Json patched = apply_patch(*current, body, type, info, name);
    return update(info, ns, name, patched, dry_run);
}

Json ObjectStore::remove(const ResourceInfo& info, const std::string& ns, const std::string& name,
                         bool dry_run) {
    Json current = get(info, ns, name);
    Json status = success_status(info, name, current["metadata"].value("uid", std::string()));
    if (dry_run)
        return status;
    m_objects.erase({resource_key(info), info.namespaced ? ns : "", name});
    std::vector<std::pair<const ResourceInfo*, Json>> gone = {{&info, current}};
    if (info.resource == "namespaces") {
        for (auto it = m_objects.begin(); it != m_objects.end();) {
            if (std::get<1>(it->first) == name) {
                for (const auto& r : m_resources)
                    if (resource_key(r) == std::get<0>(it->first)) {
                        gone.emplace_back(&r, it->second);
                        break;
                    }
                it = m_objects.erase(it);
            } else {
                ++it;
            }
        }
    }
    std::string rv = std::to_string(m_next_rv());
    for (auto& [r, obj] : gone) {
        obj["metadata"]["resourceVersion"] = rv;
        notify("DELETED", *r, obj);
    }
    return status;
}

Json ObjectStore::remove_collection(const ResourceInfo& info, const std::string& ns,
                                    const ListOptions& opts, bool dry_run) {
    auto victims = select(info, ns, opts);
    if (!dry_run) {
        for (const auto& v : victims)
            m_objects.erase({resource_key(info),
                             info.namespaced ? v["metadata"].value("namespace", "") : "",
                             v["metadata"]["name"].get<std::string>()});
        if (!victims.empty()) {
            std::string rv = std::to_string(m_next_rv());
            for (auto v : victims) {
                v["metadata"]["resourceVersion"] = rv;
                notify("DELETED", info, v);
            }
        }
    }
    ListOptions all;
    return make_list_page(info, victims, all, m_current_rv(), nullptr);
}

} // namespace kprov::sim
