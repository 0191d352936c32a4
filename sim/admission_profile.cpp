// Shoot admission against the referenced profile: the ShootMutator's profile lookup and
// Kubernetes-version and machine-image defaulting, and ShootValidator's version, region, zone,
// access-restriction and provider-type rules (gardener-landscape.md §0, §1.1, §3.1-§3.3).

#include "admission_rules.hpp"
#include "landscape.hpp"

#include <algorithm>
#include <set>

namespace kprov::sim::rules {

bool Semver::operator<(const Semver& o) const {
    return std::tie(major, minor, patch) < std::tie(o.major, o.minor, o.patch);
}

namespace {

// A run of decimal digits of at most 9 (so that it fits an int); -1 otherwise.
int number(const std::string& s) {
    if (s.empty() || s.size() > 9)
        return -1;
    int n = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return -1;
        n = n * 10 + (c - '0');
    }
    return n;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t at = s.find(sep, start);
        parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            return parts;
        start = at + 1;
    }
}

} // namespace

std::optional<Semver> parse_semver(const std::string& s) {
    auto parts = split(s, '.');
    if (parts.size() < 2 || parts.size() > 3)
        return std::nullopt;
    Semver v;
    v.major = number(parts[0]);
    v.minor = number(parts[1]);
    v.patch = parts.size() == 3 ? number(parts[2]) : -1;
    if (v.major < 0 || v.minor < 0 || (parts.size() == 3 && v.patch < 0))
        return std::nullopt;
    return v;
}

bool version_at_least(const std::string& version, int major, int minor) {
    auto v = parse_semver(version);
    return v && (v->major > major || (v->major == major && v->minor >= minor));
}

std::string str(const Json& j, const char* pointer) {
    Json::json_pointer p(pointer);
    return j.contains(p) && j.at(p).is_string() ? j.at(p).get<std::string>() : "";
}

const Json* find_named(const Json& list, const std::string& name) {
    if (!list.is_array())
        return nullptr;
    for (const auto& e : list)
        if (e.is_object() && e.value("name", "") == name)
            return &e;
    return nullptr;
}

const Json& list_at(const Json& j, const char* pointer) {
    static const Json empty = Json::array();
    Json::json_pointer p(pointer);
    return j.is_object() && j.contains(p) && j.at(p).is_array() ? j.at(p) : empty;
}

std::string joined(const std::vector<FieldError>& errors) {
    std::string out;
    for (std::size_t i = 0; i < errors.size(); ++i)
        out += (i ? ", " : "") + errors[i].text();
    return errors.size() > 1 ? "[" + out + "]" : out;
}

std::string quoted_list(const std::vector<std::string>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? ", \"" : "\"") + values[i] + "\"";
    return out;
}

Json resolve_profile(const Json& shoot, const AdmissionContext& ctx, bool create) {
    std::string legacy = str(shoot, "/spec/cloudProfileName");
    std::string name = str(shoot, "/spec/cloudProfile/name");
    std::string kind = str(shoot, "/spec/cloudProfile/kind");
    if (create && !legacy.empty() && shoot["spec"].contains("cloudProfile")) {
        // A plain Go error of the mutator: 500 with reason Unknown (StatusReasonUnknown = "").
        ApiError e(500, failure_status(500, "",
                                       "new shoot can only specify either "
                                       "cloudProfileName or cloudProfile reference"));
        throw e;
    }
    if (name.empty())
        name = legacy;
    if (name.empty() || !ctx.lookup)
        return nullptr; // the strategy's 422 names the missing reference
    bool namespaced = kind == "NamespacedCloudProfile";
    const ResourceInfo& info = namespaced ? namespaced_cloud_profile_info() : cloud_profile_info();
    auto obj = ctx.lookup(info, namespaced ? ctx.ns : "", name);
    if (!obj)
        throw internal_error("could not find referenced cloud profile: " +
                             std::string(namespaced ? "namespacedcloudprofile" : "cloudprofile") +
                             ".core.gardener.cloud \"" + name + "\" not found");
    if (!namespaced)
        return obj->value("spec", Json::object());
    Json::json_pointer merged("/status/cloudProfileSpec");
    return obj->contains(merged) ? obj->at(merged) : Json::object();
}

namespace {

ApiError mutator_forbidden(const Json& shoot, const FieldError& e) {
    return forbidden(shoot_info(), shoot["metadata"].value("name", ""), e.text());
}

// M:390-451: "", "1" or "1.34" becomes the highest version of that prefix classified exactly
// supported.
void default_kubernetes_version(Json& shoot, const Json& profile, TimePoint now) {
    Json::json_pointer p("/spec/kubernetes/version");
    std::string given =
        shoot.contains(p) && shoot.at(p).is_string() ? shoot.at(p).get<std::string>() : "";
    auto parts = given.empty() ? std::vector<std::string>{} : split(given, '.');
    if (parts.size() >= 3)
        return;
    for (const auto& part : parts)
        if (number(part) < 0)
            throw mutator_forbidden(
                shoot, {"FieldValueInvalid", "spec.kubernetes.version",
                        "Invalid value: \"" + part + "\": must be a semantic version"});
    std::optional<Semver> best;
    std::string best_text;
    for (const auto& e : list_at(profile, "/kubernetes/versions")) {
        std::string v = e.value("version", "");
        auto sv = parse_semver(v);
        if (!sv || sv->patch < 0 || effective_classification(e, now) != "supported")
            continue;
        if ((parts.size() >= 1 && sv->major != number(parts[0])) ||
            (parts.size() >= 2 && sv->minor != number(parts[1])))
            continue;
        if (!best || *best < *sv) {
            best = sv;
            best_text = v;
        }
    }
    if (!best)
        throw mutator_forbidden(
            shoot,
            {"FieldValueInvalid", "spec.kubernetes.version",
             "Invalid value: \"" + given + "\": couldn't find a suitable version for " + given +
                 ". Suitable versions have a non-expired expiration date and are no "
                 "'preview' versions. 'Preview'-classified versions have to be selected "
                 "explicitly"});
    shoot["spec"]["kubernetes"]["version"] = best_text;
}

bool supports_arch(const Json& version_entry, const std::string& arch) {
    const Json archs = version_entry.value("architectures", Json::array({"amd64"}));
    return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

// The highest version of `image` starting with `prefix` ("" or "1877" or "1877.7") that supports
// `arch`, skipping preview and preferring non-deprecated ones (M:506-684).
std::string default_image_version(const Json& image, const std::string& prefix,
                                  const std::string& arch, TimePoint now) {
    std::optional<Semver> best;
    std::string best_text;
    bool best_deprecated = true;
    for (const auto& e : image.value("versions", Json::array())) {
        std::string v = e.value("version", "");
        auto sv = parse_semver(v);
        if (!sv || !supports_arch(e, arch))
            continue;
        if (!prefix.empty() && v != prefix && v.rfind(prefix + ".", 0) != 0)
            continue;
        std::string c = effective_classification(e, now);
        if (c == "preview" || c == "unavailable")
            continue;
        bool deprecated = c == "deprecated";
        if (!best || (best_deprecated && !deprecated) ||
            (best_deprecated == deprecated && *best < *sv)) {
            best = sv;
            best_text = v;
            best_deprecated = deprecated;
        }
    }
    return best_text;
}

const Json* old_worker(const Json& old, const std::string& name) {
    if (old.is_null())
        return nullptr;
    Json::json_pointer p("/spec/provider/workers");
    return old.contains(p) ? find_named(old.at(p), name) : nullptr;
}

} // namespace

void mutate(Json& shoot, const Json& old, const Json& profile, const AdmissionContext& ctx) {
    if (profile.is_null() || !shoot.contains("spec") || !shoot["spec"].is_object())
        return;
    TimePoint now = ctx.now;
    if (shoot["spec"].contains("kubernetes") && shoot["spec"]["kubernetes"].is_object())
        default_kubernetes_version(shoot, profile, now);
    Json::json_pointer wp("/spec/provider/workers");
    if (!shoot.contains(wp) || !shoot.at(wp).is_array())
        return;
    Json& workers = shoot.at(wp);
    for (std::size_t i = 0; i < workers.size(); ++i) {
        Json& w = workers[i];
        if (!w.is_object() || !w.contains("machine") || !w["machine"].is_object())
            continue;
        Json& machine = w["machine"];
        const Json* before = old_worker(old, w.value("name", ""));
        if (!machine.contains("architecture")) {
            const Json* type =
                find_named(list_at(profile, "/machineTypes"), machine.value("type", ""));
            machine["architecture"] =
                type && type->contains("architecture") ? (*type)["architecture"] : Json("amd64");
        }
        std::string arch = machine.value("architecture", "amd64");
        if (!machine.contains("image") && before && before->contains("machine") &&
            (*before)["machine"].contains("image")) {
            machine["image"] = (*before)["machine"]["image"]; // an update keeps the old image
            continue;
        }
        if (before && before->value("machine", Json::object()).value("image", Json()) ==
                          machine.value("image", Json()))
            continue;
        std::string f = "spec.provider.workers[" + std::to_string(i) + "]";
        const Json& images = list_at(profile, "/machineImages");
        if (!machine.contains("image") || !machine["image"].is_object()) {
            for (const auto& img : images) {
                std::string v = default_image_version(img, "", arch, now);
                if (!v.empty()) {
                    machine["image"] = {{"name", img.value("name", "")}, {"version", v}};
                    break;
                }
            }
            if (!machine.contains("image"))
                throw mutator_forbidden(shoot, {"FieldValueInvalid", f,
                                                "Invalid value: \"\": no valid machine image found "
                                                "that supports architecture `" +
                                                    arch + "`"});
            continue;
        }
        std::string name = machine["image"].value("name", "");
        const Json* img = find_named(images, name);
        if (!img)
            throw mutator_forbidden(shoot,
                                    {"FieldValueInvalid", f,
                                     "Invalid value: \"" + name + "\": image is not supported"});
        std::string version = machine["image"].value("version", "");
        auto sv = parse_semver(version);
        if (sv && sv->patch >= 0)
            continue; // an exact version is kept; the validator checks it
        std::string chosen = default_image_version(*img, version, arch, now);
        if (!chosen.empty())
            machine["image"]["version"] = chosen;
    }
}

void validate_against_profile(const Json& shoot, const Json& old, const Json& profile,
                              const AdmissionContext& ctx) {
    bool create = old.is_null();
    if (!create && shoot["spec"] == old["spec"] &&
        shoot["metadata"].value("labels", Json()) == old["metadata"].value("labels", Json()) &&
        shoot["metadata"].value("annotations", Json()) ==
            old["metadata"].value("annotations", Json()))
        return; // V:252-261
    std::vector<FieldError> errors;
    validate_bindings(shoot, old, ctx, errors);
    if (!profile.is_null()) {
        std::string type = str(shoot, "/spec/provider/type");
        std::string profile_type = profile.value("type", "");
        bool type_ok = type == profile_type;
        if (!type_ok)
            errors.push_back({"FieldValueInvalid", "spec.provider.type",
                              "Invalid value: \"" + type +
                                  "\": provider type in shoot must equal provider type of "
                                  "referenced CloudProfile: \"" +
                                  profile_type + "\""});
        // Kubernetes version: on create, or when it changed.
        std::string version = str(shoot, "/spec/kubernetes/version");
        if (create || version != str(old, "/spec/kubernetes/version")) {
            std::vector<std::string> offered;
            bool found = false;
            for (const auto& e : list_at(profile, "/kubernetes/versions")) {
                std::string v = e.value("version", "");
                bool usable = !create || is_active(effective_classification(e, ctx.now));
                if (!usable)
                    continue;
                found = found || v == version;
                offered.push_back(v +
                                  (e.value("classification", "") == "preview" ? " (preview)" : ""));
            }
            if (!found)
                errors.push_back({"FieldValueNotSupported", "spec.kubernetes.version",
                                  "Unsupported value: \"" + version +
                                      "\": supported values: " + quoted_list(offered)});
        }
        std::string region_name = str(shoot, "/spec/region");
        const Json* region = find_named(list_at(profile, "/regions"), region_name);
        if (create && !region) {
            std::vector<std::string> names;
            for (const auto& r : list_at(profile, "/regions"))
                names.push_back(r.value("name", ""));
            errors.push_back({"FieldValueNotSupported", "spec.region",
                              "Unsupported value: \"" + region_name +
                                  "\": supported values: " + quoted_list(names)});
        }
        // Access restrictions: when the set of names changed.
        auto names_of = [](const Json& s) {
            std::set<std::string> out;
            Json::json_pointer p("/spec/accessRestrictions");
            if (s.is_object() && s.contains(p) && s.at(p).is_array())
                for (const auto& a : s.at(p))
                    out.insert(a.value("name", ""));
            return out;
        };
        if (names_of(shoot) != names_of(old) && !names_of(shoot).empty()) {
            if (!region) {
                errors.push_back(
                    {"FieldValueInvalid", "spec.region",
                     "Invalid value: \"" + region_name + "\": region not present in CloudProfile"});
            } else {
                std::vector<std::string> offered;
                for (const auto& a : region->value("accessRestrictions", Json::array()))
                    offered.push_back(a.value("name", ""));
                const Json list = shoot["spec"]["accessRestrictions"];
                for (std::size_t i = 0; i < list.size(); ++i) {
                    std::string n = list[i].value("name", "");
                    if (std::find(offered.begin(), offered.end(), n) == offered.end())
                        errors.push_back({"FieldValueNotSupported",
                                          "spec.accessRestrictions[" + std::to_string(i) + "]",
                                          "Unsupported value: \"" + n +
                                              "\": supported values: " + quoted_list(offered)});
                }
            }
        }
        if (type_ok)
            validate_workers(shoot, old, profile, ctx.now, errors);
    }
    if (!errors.empty())
        throw forbidden(shoot_info(), shoot["metadata"].value("name", ""), joined(errors));
}

} // namespace kprov::sim::rules
