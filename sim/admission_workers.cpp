// ShootValidator's worker rules (zones, machine types, images, kubelet constraints, volumes,
// maxNodesTotal; gardener-landscape.md §3.2-§3.3) and the provider admission webhooks (§4).

#include "admission_rules.hpp"
#include "landscape.hpp"

#include <algorithm>
#include <set>

namespace kprov::sim::rules {

namespace {

std::vector<std::string> strings_of(const Json& list) {
    std::vector<std::string> out;
    if (list.is_array())
        for (const auto& e : list)
            if (e.is_string())
                out.push_back(e.get<std::string>());
    return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// Bytes of a quantity "20Gi", "512Mi", "1Ti", "100G"; -1 when it does not read.
long double quantity(const std::string& q) {
    std::size_t i = 0;
    while (i < q.size() && q[i] >= '0' && q[i] <= '9')
        ++i;
    if (i == 0 || i > 15)
        return -1;
    long double n = std::stold(q.substr(0, i));
    std::string unit = q.substr(i);
    static const std::pair<const char*, long double> units[] = {{"", 1},
                                                                {"Ki", 1024.0L},
                                                                {"Mi", 1048576.0L},
                                                                {"Gi", 1073741824.0L},
                                                                {"Ti", 1099511627776.0L},
                                                                {"k", 1e3L},
                                                                {"M", 1e6L},
                                                                {"G", 1e9L},
                                                                {"T", 1e12L}};
    for (const auto& [u, f] : units)
        if (unit == u)
            return n * f;
    return -1;
}

// A kubeletVersionConstraint such as "< 1.35" or ">= 1.30, < 1.35".
bool satisfies(const Semver& v, const std::string& constraint) {
    std::size_t start = 0;
    while (start <= constraint.size()) {
        std::size_t comma = constraint.find(',', start);
        std::string part = constraint.substr(start, comma == std::string::npos ? std::string::npos
                                                                               : comma - start);
        start = comma == std::string::npos ? constraint.size() + 1 : comma + 1;
        std::string op, ver;
        for (char c : part) {
            if (c == ' ')
                continue;
            if ((c == '<' || c == '>' || c == '=' || c == '!') && ver.empty())
                op += c;
            else
                ver += c;
        }
        auto bound = parse_semver(ver);
        if (!bound)
            continue;
        Semver b = *bound;
        if (b.patch < 0)
            b.patch = 0;
        Semver x = v;
        if (x.patch < 0)
            x.patch = 0;
        bool ok = op == "<"    ? x < b
                  : op == "<=" ? !(b < x)
                  : op == ">"  ? b < x
                  : op == ">=" ? !(x < b)
                  : op == "!=" ? (x < b || b < x)
                               : !(x < b || b < x);
        if (!ok)
            return false;
    }
    return true;
}

std::string list_in_brackets(std::vector<std::string> v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? " " : "") + v[i];
    return "[" + out + "]";
}

} // namespace

void validate_workers(const Json& shoot, const Json& old, const Json& profile, TimePoint now,
                      std::vector<FieldError>& errors) {
    bool create = old.is_null();
    Json::json_pointer wp("/spec/provider/workers");
    if (!shoot.contains(wp) || !shoot.at(wp).is_array())
        return;
    const Json& workers = shoot.at(wp);
    Json region = Json::object();
    if (const Json* r = find_named(list_at(profile, "/regions"), str(shoot, "/spec/region")))
        region = *r;
    const Json& region_zones = list_at(region, "/zones");
    const Json& machine_types = list_at(profile, "/machineTypes");
    const Json& volume_types = list_at(profile, "/volumeTypes");
    const std::string control_plane_version = str(shoot, "/spec/kubernetes/version");
    long long total_minimum = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const Json& w = workers[i];
        if (!w.is_object())
            continue;
        const std::string f = "spec.provider.workers[" + std::to_string(i) + "]";
        total_minimum += w.value("minimum", 0LL);
        const Json* before =
            create || !old.contains(wp) ? nullptr : find_named(old.at(wp), w.value("name", ""));
        auto changed = [&](const char* pointer) {
            Json::json_pointer p(pointer);
            Json now_v = w.contains(p) ? w.at(p) : Json();
            Json was = before && before->contains(p) ? before->at(p) : Json();
            return !before || now_v != was;
        };
        const std::string arch = str(w, "/machine/architecture");
        if (!arch.empty() && arch != "amd64" && arch != "arm64")
            errors.push_back(
                {"FieldValueNotSupported", f + ".machine.architecture",
                 "Unsupported value: \"" + arch + "\": supported values: \"amd64\", \"arm64\""});
        // Zones: on create, a new pool, or a changed zone list.
        std::vector<std::string> zones = strings_of(list_at(w, "/zones"));
        std::vector<std::string> zone_names;
        for (const auto& z : region_zones)
            zone_names.push_back(z.value("name", ""));
        if (changed("/zones") && !region.empty()) {
            std::set<std::string> seen;
            for (std::size_t j = 0; j < zones.size(); ++j) {
                std::string zf = f + ".zones[" + std::to_string(j) + "]";
                if (zone_names.empty()) {
                    errors.push_back({"FieldValueInvalid", zf,
                                      "Invalid value: \"" + region.value("name", "") +
                                          "\": this region does not support availability zones, "
                                          "please do not configure them"});
                    break;
                }
                if (!seen.insert(zones[j]).second)
                    errors.push_back(
                        {"FieldValueDuplicate", zf, "Duplicate value: \"" + zones[j] + "\""});
                else if (!contains(zone_names, zones[j]))
                    errors.push_back({"FieldValueNotSupported", zf,
                                      "Unsupported value: \"" + zones[j] +
                                          "\": supported values: " + quoted_list(zone_names)});
            }
        }
        auto unavailable_in_zones = [&](const char* key, const std::string& name) {
            for (const auto& z : region_zones)
                if (contains(zones, z.value("name", "")) &&
                    contains(strings_of(z.value(key, Json::array())), name))
                    return true;
            return false;
        };
        // Machine type: on create, a new pool, or a changed type or architecture.
        const std::string type = str(w, "/machine/type");
        if (!type.empty() && (changed("/machine/type") || changed("/machine/architecture"))) {
            std::vector<std::string> fit;
            for (const auto& m : machine_types)
                if (m.value("usable", true) && m.value("architecture", "amd64") == arch &&
                    !unavailable_in_zones("unavailableMachineTypes", m.value("name", "")))
                    fit.push_back(m.value("name", ""));
            std::sort(fit.begin(), fit.end());
            const Json* m = find_named(machine_types, type);
            if (!m) {
                errors.push_back(
                    {"FieldValueNotSupported", f + ".machine.type",
                     "Unsupported value: \"" + type + "\": supported values: " + quoted_list(fit)});
            } else if (!contains(fit, type)) {
                std::vector<std::string> why;
                if (!m->value("usable", true))
                    why.push_back("is unusable");
                if (unavailable_in_zones("unavailableMachineTypes", type))
                    why.push_back("is unavailable in at least one zone");
                if (m->value("architecture", "amd64") != arch)
                    why.push_back("does not support CPU architecture \"" + arch + "\"");
                std::string text;
                for (const auto& y : why)
                    text += y + ", ";
                errors.push_back({"FieldValueInvalid", f + ".machine.type",
                                  "Invalid value: \"" + type + "\": machine type \"" + type +
                                      "\" " + text + "supported types are " +
                                      list_in_brackets(fit)});
            }
        }
        // Machine image: when the image or the architecture changed.
        const std::string image_name = str(w, "/machine/image/name");
        const std::string image_version = str(w, "/machine/image/version");
        const Json* image = find_named(list_at(profile, "/machineImages"), image_name);
        const Json* version_entry = nullptr;
        if (image)
            for (const auto& v : list_at(*image, "/versions"))
                if (v.value("version", "") == image_version)
                    version_entry = &v;
        if (image && (changed("/machine/image") || changed("/machine/architecture"))) {
            std::vector<std::string> offered;
            for (const auto& v : list_at(*image, "/versions")) {
                const Json archs = v.value("architectures", Json::array({"amd64"}));
                if (is_active(effective_classification(v, now)) &&
                    std::find(archs.begin(), archs.end(), arch) != archs.end())
                    offered.push_back(image_name + ":" + v.value("version", ""));
            }
            if (!version_entry) {
                errors.push_back({"FieldValueNotSupported", f + ".machine.image.version",
                                  "Unsupported value: \"" + image_version +
                                      "\": supported values: " + quoted_list(offered)});
            } else {
                std::vector<std::string> why;
                const Json archs = version_entry->value("architectures", Json::array({"amd64"}));
                if (std::find(archs.begin(), archs.end(), arch) == archs.end())
                    why.push_back("does not support CPU architecture \"" + arch + "\"");
                bool expired = !is_active(effective_classification(*version_entry, now));
                std::string was = before ? str(*before, "/machine/image/version") : "";
                auto wv = parse_semver(was), nv = parse_semver(image_version);
                bool higher_than_current = before && wv && nv && *wv < *nv &&
                                           str(*before, "/machine/image/name") == image_name;
                if (expired && !higher_than_current)
                    why.push_back("is expired");
                if (!why.empty()) {
                    std::string text;
                    for (const auto& y : why)
                        text += y + ", ";
                    errors.push_back(
                        {"FieldValueInvalid", f + ".machine.image",
                         "Invalid value: core.ShootMachineImage{Name:\"" + image_name +
                             "\", Version:\"" + image_version + "\"}: machine image version '" +
                             image_name + ":" + image_version + "' " + text +
                             "supported machine image versions are: " + list_in_brackets(offered)});
                }
            }
        }
        // kubeletVersionConstraint: on every spec change.
        if (version_entry && version_entry->contains("kubeletVersionConstraint")) {
            std::string kubelet = str(w, "/kubernetes/version");
            if (kubelet.empty())
                kubelet = control_plane_version;
            std::string constraint = version_entry->value("kubeletVersionConstraint", "");
            auto kv = parse_semver(kubelet);
            if (kv && !satisfies(*kv, constraint))
                errors.push_back({"FieldValueInvalid", f + ".machine.image",
                                  "Invalid value: core.ShootMachineImage{Name:\"" + image_name +
                                      "\", Version:\"" + image_version + "\"}: machine image '" +
                                      image_name + "@" + image_version +
                                      "' does not support kubelet version '" + kubelet +
                                      "', supported kubelet versions by this machine image "
                                      "version: '" +
                                      constraint + "'"});
        }
        // Volume type: on create, a new pool, or a changed type.
        const std::string volume_type = str(w, "/volume/type");
        if (!volume_type.empty() && changed("/volume/type")) {
            std::vector<std::string> fit;
            for (const auto& v : volume_types)
                if (v.value("usable", true) &&
                    !unavailable_in_zones("unavailableVolumeTypes", v.value("name", "")))
                    fit.push_back(v.value("name", ""));
            std::sort(fit.begin(), fit.end());
            const Json* v = find_named(volume_types, volume_type);
            if (!v) {
                errors.push_back({"FieldValueNotSupported", f + ".volume.type",
                                  "Unsupported value: \"" + volume_type +
                                      "\": supported values: " + quoted_list(fit)});
            } else if (!contains(fit, volume_type)) {
                std::string text;
                if (!v->value("usable", true))
                    text += "is unusable, ";
                if (unavailable_in_zones("unavailableVolumeTypes", volume_type))
                    text += "is unavailable in at least one zone, ";
                errors.push_back({"FieldValueInvalid", f + ".volume.type",
                                  "Invalid value: \"" + volume_type + "\": volume type \"" +
                                      volume_type + "\" " + text + "supported types are " +
                                      list_in_brackets(fit)});
            }
        }
        // Volume size >= the minimum: on every spec change.
        const std::string size = str(w, "/volume/size");
        if (!size.empty() && !volume_type.empty()) {
            std::string min;
            const Json* m = find_named(machine_types, type);
            if (m && str(*m, "/storage/type") == volume_type &&
                !str(*m, "/storage/minSize").empty())
                min = str(*m, "/storage/minSize");
            else if (const Json* v = find_named(volume_types, volume_type))
                min = v->value("minSize", "");
            if (!min.empty() && quantity(size) >= 0 && quantity(size) < quantity(min))
                errors.push_back({"FieldValueInvalid", f + ".volume.size",
                                  "Invalid value: \"" + size + "\": size must be >= " + min});
        }
    }
    Json::json_pointer limit("/limits/maxNodesTotal");
    if (profile.contains(limit) && profile.at(limit).is_number_integer() &&
        total_minimum > profile.at(limit).get<long long>())
        errors.push_back({"FieldValueForbidden", "spec.provider.workers",
                          "Forbidden: the total minimum node count of all worker pools must not "
                          "exceed the limit of " +
                              std::to_string(profile.at(limit).get<long long>()) +
                              " configured in the CloudProfile"});
}

void provider_webhook(const Json& shoot) {
    std::string type = str(shoot, "/spec/provider/type");
    if (type != "aws" && type != "azure" && type != "gcp")
        return; // OpenStack's volume is optional
    Json::json_pointer wp("/spec/provider/workers");
    if (!shoot.contains(wp) || !shoot.at(wp).is_array())
        return;
    std::vector<FieldError> errors;
    const Json& workers = shoot.at(wp);
    for (std::size_t i = 0; i < workers.size(); ++i) {
        std::string f = "spec.provider.workers[" + std::to_string(i) + "].volume";
        const Json& w = workers[i];
        if (!w.is_object() || !w.contains("volume") || w["volume"].is_null()) {
            errors.push_back({"FieldValueRequired", f, "Required value: must not be nil"});
            continue;
        }
        if (str(w, "/volume/type").empty())
            errors.push_back(
                {"FieldValueRequired", f + ".type", "Required value: must not be empty"});
        if (str(w, "/volume/size").empty())
            errors.push_back(
                {"FieldValueRequired", f + ".size", "Required value: must not be empty"});
    }
    if (errors.empty())
        return;
    const std::string webhook = "validator.admission-" + type + ".extensions.gardener.cloud";
    throw ApiError(403, failure_status(403, "Forbidden",
                                       "admission webhook \"" + webhook +
                                           "\" denied the request: " + joined(errors)));
}

} // namespace kprov::sim::rules
