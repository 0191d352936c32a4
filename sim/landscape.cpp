#include "landscape.hpp"

#include "object_store.hpp"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kprov::sim {

const ResourceInfo& cloud_profile_info() {
    static const ResourceInfo info{"core.gardener.cloud",
                                   "v1beta1",
                                   "cloudprofiles",
                                   "CloudProfile",
                                   false,
                                   "cloudprofile",
                                   {},
                                   {}};
    return info;
}

const ResourceInfo& namespaced_cloud_profile_info() {
    static const ResourceInfo info{"core.gardener.cloud",
                                   "v1beta1",
                                   "namespacedcloudprofiles",
                                   "NamespacedCloudProfile",
                                   true,
                                   "namespacedcloudprofile",
                                   {},
                                   {}};
    return info;
}

const ResourceInfo& credentials_binding_info() {
    static const ResourceInfo info{"security.gardener.cloud",
                                   "v1alpha1",
                                   "credentialsbindings",
                                   "CredentialsBinding",
                                   true,
                                   "credentialsbinding",
                                   {},
                                   {}};
    return info;
}

const ResourceInfo& secret_binding_info() {
    static const ResourceInfo info{"core.gardener.cloud",
                                   "v1beta1",
                                   "secretbindings",
                                   "SecretBinding",
                                   true,
                                   "secretbinding",
                                   {},
                                   {}};
    return info;
}

std::string effective_classification(const Json& entry, TimePoint now) {
    // §1.3: legacy fields become stages; every stage that started strictly before `now` wins.
    std::vector<std::pair<std::string, std::optional<TimePoint>>> stages;
    const Json lifecycle = entry.value("lifecycle", Json::array());
    if (lifecycle.is_array() && !lifecycle.empty()) {
        for (const auto& s : lifecycle) {
            std::optional<TimePoint> start;
            if (s.contains("startTime") && s["startTime"].is_string())
                start = parse_rfc3339(s["startTime"].get<std::string>());
            stages.emplace_back(s.value("classification", ""), start);
        }
    } else {
        bool has_class = entry.contains("classification") && entry["classification"].is_string();
        bool has_expiry = entry.contains("expirationDate") && entry["expirationDate"].is_string();
        if (!has_class && !has_expiry)
            return "supported";
        stages.emplace_back(has_class ? entry["classification"].get<std::string>() : "supported",
                            std::nullopt);
        if (has_expiry)
            stages.emplace_back("expired",
                                parse_rfc3339(entry["expirationDate"].get<std::string>()));
    }
    std::string current = "unavailable";
    for (const auto& [classification, start] : stages)
        if (!start || *start < now)
            current = classification;
    return current;
}

bool is_active(const std::string& classification) {
    return classification != "expired" && classification != "unavailable";
}

namespace {

// Merges `extra` into `base` by the key `key`: an entry of the same key replaces the base's.
void merge_by_name(Json& base, const Json& extra) {
    if (!extra.is_array())
        return;
    if (!base.is_array())
        base = Json::array();
    for (const auto& e : extra) {
        std::string name = e.value("name", "");
        bool replaced = false;
        for (auto& b : base)
            if (b.value("name", "") == name) {
                b = e;
                replaced = true;
            }
        if (!replaced)
            base.push_back(e);
    }
}

} // namespace

Json merge_namespaced_profile(const Json& parent_spec, const Json& ncp_spec) {
    Json out = parent_spec;
    // Kubernetes versions: only a parent version's expirationDate can be overridden.
    if (ncp_spec.contains("kubernetes") && ncp_spec["kubernetes"].contains("versions") &&
        out.contains("kubernetes") && out["kubernetes"].contains("versions"))
        for (const auto& v : ncp_spec["kubernetes"]["versions"])
            for (auto& pv : out["kubernetes"]["versions"])
                if (pv.value("version", "") == v.value("version", "") &&
                    v.contains("expirationDate"))
                    pv["expirationDate"] = v["expirationDate"];
    // Machine images: by name, then by version; new images and versions are added.
    if (ncp_spec.contains("machineImages") && ncp_spec["machineImages"].is_array()) {
        Json& images = out["machineImages"];
        if (!images.is_array())
            images = Json::array();
        for (const auto& img : ncp_spec["machineImages"]) {
            std::string name = img.value("name", "");
            Json* target = nullptr;
            for (auto& b : images)
                if (b.value("name", "") == name)
                    target = &b;
            if (!target) {
                images.push_back(img);
                continue;
            }
            if (img.contains("updateStrategy"))
                (*target)["updateStrategy"] = img["updateStrategy"];
            for (const auto& v : img.value("versions", Json::array())) {
                bool merged = false;
                for (auto& bv : (*target)["versions"])
                    if (bv.value("version", "") == v.value("version", "")) {
                        for (const auto& [k, val] : v.items())
                            bv[k] = val;
                        merged = true;
                    }
                if (!merged)
                    (*target)["versions"].push_back(v);
            }
        }
    }
    if (ncp_spec.contains("machineTypes"))
        merge_by_name(out["machineTypes"], ncp_spec["machineTypes"]);
    if (ncp_spec.contains("volumeTypes"))
        merge_by_name(out["volumeTypes"], ncp_spec["volumeTypes"]);
    if (ncp_spec.contains("caBundle") && ncp_spec["caBundle"].is_string())
        out["caBundle"] = out.value("caBundle", "") + ncp_spec["caBundle"].get<std::string>();
    if (ncp_spec.contains("limits") && ncp_spec["limits"].value("maxNodesTotal", 0) > 0)
        out["limits"]["maxNodesTotal"] = ncp_spec["limits"]["maxNodesTotal"];
    return out;
}

namespace {

bool full_version(const std::string& v) {
    int dots = 0;
    bool digit = false;
    for (char c : v) {
        if (c == '.') {
            if (!digit)
                return false;
            ++dots;
            digit = false;
        } else if (c >= '0' && c <= '9') {
            digit = true;
        } else {
            return false;
        }
    }
    return dots == 2 && digit;
}

void check_versions(const Json& versions, const std::string& field,
                    std::vector<std::string>& problems) {
    if (!versions.is_array()) {
        problems.push_back(field + ": must be a list");
        return;
    }
    static const std::set<std::string> classes = {"preview", "supported", "deprecated"};
    for (std::size_t i = 0; i < versions.size(); ++i) {
        const Json& v = versions[i];
        std::string f = field + "[" + std::to_string(i) + "]";
        if (!v.is_object()) {
            problems.push_back(f + ": must be an object");
            continue;
        }
        std::string version = v.value("version", "");
        if (!full_version(version))
            problems.push_back(f + ".version: \"" + version + "\" is not a version X.Y.Z");
        if (v.contains("classification") &&
            (!v["classification"].is_string() ||
             !classes.count(v["classification"].get<std::string>())))
            problems.push_back(f + ".classification: " + v["classification"].dump() +
                               " is not one of preview, supported, deprecated");
        if (v.contains("expirationDate") &&
            (!v["expirationDate"].is_string() ||
             !parse_rfc3339(v["expirationDate"].get<std::string>())))
            problems.push_back(f + ".expirationDate: " + v["expirationDate"].dump() +
                               " is not an RFC 3339 time");
        if (v.contains("lifecycle") &&
            (v.contains("classification") || v.contains("expirationDate")))
            problems.push_back(f + ".lifecycle: cannot specify `classification` or "
                                   "`expirationDate` in combination with `lifecycle`");
    }
}

void check_named_list(const Json& spec, const char* key, const std::string& field, bool required,
                      std::vector<std::string>& problems) {
    if (!spec.contains(key)) {
        if (required)
            problems.push_back(field + ": required");
        return;
    }
    const Json& list = spec[key];
    if (!list.is_array() || (required && list.empty())) {
        problems.push_back(field + ": must be a non-empty list");
        return;
    }
    for (std::size_t i = 0; i < list.size(); ++i)
        if (!list[i].is_object() || !list[i].contains("name") || !list[i]["name"].is_string() ||
            list[i]["name"].get<std::string>().empty())
            problems.push_back(field + "[" + std::to_string(i) + "].name: required");
}

void check_profile_spec(const Json& spec, bool namespaced, std::vector<std::string>& problems) {
    if (!spec.is_object()) {
        problems.push_back("spec: required");
        return;
    }
    if (namespaced) {
        const Json parent = spec.value("parent", Json::object());
        if (!parent.is_object() || parent.value("kind", "") != "CloudProfile" ||
            parent.value("name", "").empty())
            problems.push_back("spec.parent: must be {kind: CloudProfile, name: <profile>}");
    } else {
        if (!spec.contains("type") || !spec["type"].is_string() ||
            spec["type"].get<std::string>().empty())
            problems.push_back("spec.type: required");
        if (!spec.contains("kubernetes") || !spec["kubernetes"].is_object() ||
            !spec["kubernetes"].contains("versions"))
            problems.push_back("spec.kubernetes.versions: required");
    }
    if (spec.contains("kubernetes") && spec["kubernetes"].is_object() &&
        spec["kubernetes"].contains("versions"))
        check_versions(spec["kubernetes"]["versions"], "spec.kubernetes.versions", problems);
    check_named_list(spec, "machineTypes", "spec.machineTypes", !namespaced, problems);
    check_named_list(spec, "regions", "spec.regions", !namespaced, problems);
    check_named_list(spec, "volumeTypes", "spec.volumeTypes", false, problems);
    check_named_list(spec, "machineImages", "spec.machineImages", false, problems);
    if (spec.contains("machineImages") && spec["machineImages"].is_array())
        for (std::size_t i = 0; i < spec["machineImages"].size(); ++i)
            if (spec["machineImages"][i].is_object())
                check_versions(spec["machineImages"][i].value("versions", Json::array()),
                               "spec.machineImages[" + std::to_string(i) + "].versions", problems);
    if (spec.contains("regions") && spec["regions"].is_array())
        for (std::size_t i = 0; i < spec["regions"].size(); ++i)
            if (spec["regions"][i].is_object())
                check_named_list(spec["regions"][i], "zones",
                                 "spec.regions[" + std::to_string(i) + "].zones", false, problems);
    if (spec.contains("limits") && spec["limits"].contains("maxNodesTotal") &&
        (!spec["limits"]["maxNodesTotal"].is_number_integer() ||
         spec["limits"]["maxNodesTotal"].get<long long>() <= 0))
        problems.push_back("spec.limits.maxNodesTotal: " + spec["limits"]["maxNodesTotal"].dump() +
                           " must be a whole number > 0");
}

} // namespace

std::vector<std::string> landscape_object_problems(const Json& obj) {
    std::vector<std::string> problems;
    if (!obj.is_object())
        return {"the document must be an object"};
    std::string api = obj.value("apiVersion", ""), kind = obj.value("kind", "");
    const Json md = obj.value("metadata", Json::object());
    std::string name = md.is_object() ? md.value("name", "") : "";
    std::string ns = md.is_object() ? md.value("namespace", "") : "";
    const ResourceInfo* info = nullptr;
    for (const ResourceInfo* i : {&cloud_profile_info(), &namespaced_cloud_profile_info(),
                                  &credentials_binding_info(), &secret_binding_info()})
        if (i->kind == kind)
            info = i;
    bool secret = kind == "Secret" && api == "v1";
    if (!info && !secret)
        return {"kind: \"" + kind + "\" (apiVersion \"" + api +
                "\") is not one of CloudProfile, NamespacedCloudProfile, CredentialsBinding, "
                "SecretBinding, Secret"};
    if (info && api != info->api_version())
        problems.push_back("apiVersion: \"" + api + "\", expected \"" + info->api_version() +
                           "\" for " + kind);
    if (!is_dns_subdomain(name))
        problems.push_back("metadata.name: \"" + name + "\" is not a DNS subdomain");
    bool namespaced = secret || (info && info->namespaced);
    if (namespaced && !is_dns_label(ns))
        problems.push_back("metadata.namespace: \"" + ns + "\" is required for " + kind);
    if (!namespaced && !ns.empty())
        problems.push_back("metadata.namespace: \"" + ns + "\" must not be set for " + kind);
    if (kind == "CloudProfile" || kind == "NamespacedCloudProfile")
        check_profile_spec(obj.value("spec", Json()), kind == "NamespacedCloudProfile", problems);
    if (kind == "CredentialsBinding") {
        Json::json_pointer type("/provider/type"), ref("/credentialsRef/name");
        if (!obj.contains(type) || !obj.at(type).is_string() ||
            obj.at(type).get<std::string>().empty())
            problems.push_back("provider.type: required");
        if (!obj.contains(ref) || !obj.at(ref).is_string())
            problems.push_back("credentialsRef.name: required");
        Json::json_pointer ref_ns("/credentialsRef/namespace");
        if (!obj.contains(ref_ns) || !obj.at(ref_ns).is_string())
            problems.push_back("credentialsRef.namespace: required");
    }
    if (kind == "SecretBinding") {
        Json::json_pointer ref("/secretRef/name");
        if (!obj.contains(ref) || !obj.at(ref).is_string())
            problems.push_back("secretRef.name: required");
    }
    return problems;
}

std::vector<Json> read_landscape_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("--landscape \"" + path + "\": cannot read the file");
    std::ostringstream buf;
    buf << in.rdbuf();
    std::string text = buf.str();
    // Landscapes are small; a bound keeps a wrong file (a disk image) from being parsed.
    if (text.size() > 16 * 1024 * 1024)
        throw std::runtime_error("--landscape \"" + path + "\": larger than 16 MiB");
    std::vector<Json> docs;
    try {
        docs = yaml_documents(text);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("--landscape \"" + path + "\": not YAML or JSON: " + e.what());
    }
    std::vector<Json> objects;
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const Json& doc = docs[d];
        if (doc.is_null())
            continue; // an empty document (a trailing ---)
        std::string where = "--landscape \"" + path + "\", document " + std::to_string(d + 1);
        std::vector<Json> items;
        if (doc.is_object() && doc.value("kind", "").size() >= 4 &&
            doc.value("kind", "").compare(doc.value("kind", "").size() - 4, 4, "List") == 0) {
            if (!doc.contains("items") || !doc["items"].is_array())
                throw std::runtime_error(where + ": items: a List needs a list of items");
            items = doc["items"].get<std::vector<Json>>();
        } else {
            items.push_back(doc);
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            auto problems = landscape_object_problems(items[i]);
            if (!problems.empty()) {
                std::string at = where + (items.size() > 1 || !doc.contains("metadata")
                                              ? ", items[" + std::to_string(i) + "]"
                                              : "");
                std::string all;
                for (const auto& p : problems)
                    all += (all.empty() ? "" : "; ") + p;
                throw std::runtime_error(at + ": " + all);
            }
            objects.push_back(items[i]);
        }
    }
    return objects;
}

} // namespace kprov::sim
