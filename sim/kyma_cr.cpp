#include "kyma_cr.hpp"

#include <algorithm>
#include <set>

namespace kprov::sim {

namespace {

// What the schema check found: 422 causes and the pruned fields.
struct Review {
    std::vector<Cause> causes;
    std::vector<std::string> pruned;
};

// A value as an error message shows it, cut so that a hostile body is not echoed back whole.
std::string shown(const std::string& s) {
    constexpr std::size_t k_max = 128;
    return "\"" + (s.size() > k_max ? s.substr(0, k_max) + "..." : s) + "\"";
}

std::string type_name(const Json& v) {
    if (v.is_string())
        return "string";
    if (v.is_boolean())
        return "boolean";
    if (v.is_number_integer())
        return "integer";
    if (v.is_number())
        return "number";
    if (v.is_object())
        return "object";
    if (v.is_array())
        return "array";
    return "null";
}

bool has_type(Review& r, const Json& v, const std::string& want, const std::string& path) {
    bool ok = want == "string"    ? v.is_string()
              : want == "boolean" ? v.is_boolean()
              : want == "object"  ? v.is_object()
                                  : v.is_array();
    if (!ok)
        r.causes.push_back({"FieldValueTypeInvalid",
                            "Invalid value: \"" + type_name(v) + "\": " + path +
                                " in body must be of type " + want + ": \"" + type_name(v) + "\"",
                            path});
    return ok;
}

void prune(Review& r, Json& obj, const std::vector<std::string>& known, const std::string& path) {
    for (auto it = obj.begin(); it != obj.end();) {
        if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
            r.pruned.push_back(path.empty() ? it.key() : path + "." + it.key());
            it = obj.erase(it);
        } else {
            ++it;
        }
    }
}

// spec.channel and modules[].channel: ^[a-z]+$, 3 to 32 characters.
void check_channel(Review& r, const Json& v, const std::string& path) {
    if (!has_type(r, v, "string", path))
        return;
    const std::string s = v.get<std::string>();
    if (s.size() < 3)
        r.causes.push_back({"FieldValueInvalid",
                            "Invalid value: " + shown(s) + ": " + path +
                                " in body should be at least 3 chars long",
                            path});
    if (s.size() > 32)
        r.causes.push_back({"FieldValueTooLong", "Too long: may not be more than 32 bytes", path});
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        r.causes.push_back(
            {"FieldValueInvalid",
             "Invalid value: " + shown(s) + ": " + path + " in body should match '^[a-z]+$'",
             path});
}

void check_module(Review& r, Json& m, const std::string& path, std::set<std::string>& names) {
    if (!has_type(r, m, "object", path))
        return;
    prune(r, m,
          {"name", "channel", "controller", "customResourcePolicy", "managed",
           "remoteModuleTemplateRef"},
          path);
    if (!m.contains("name")) {
        r.causes.push_back({"FieldValueRequired", "Required value", path + ".name"});
    } else if (has_type(r, m["name"], "string", path + ".name") &&
               !names.insert(m["name"].get<std::string>()).second) {
        r.causes.push_back({"FieldValueDuplicate",
                            "Duplicate value: map[string]interface {}{\"name\":" +
                                shown(m["name"].get<std::string>()) + "}",
                            path});
    }
    if (m.contains("channel"))
        check_channel(r, m["channel"], path + ".channel");
    for (const char* key : {"controller", "remoteModuleTemplateRef"})
        if (m.contains(key))
            has_type(r, m[key], "string", path + "." + key);
    if (!m.contains("customResourcePolicy"))
        m["customResourcePolicy"] = "CreateAndDelete";
    const Json& policy = m["customResourcePolicy"];
    if (has_type(r, policy, "string", path + ".customResourcePolicy") &&
        policy != "CreateAndDelete" && policy != "Ignore")
        r.causes.push_back({"FieldValueNotSupported",
                            "Unsupported value: " + shown(policy.get<std::string>()) +
                                ": supported values: \"CreateAndDelete\", \"Ignore\"",
                            path + ".customResourcePolicy"});
    if (!m.contains("managed"))
        m["managed"] = true;
    has_type(r, m["managed"], "boolean", path + ".managed");
}

void check_spec(Review& r, Json& spec) {
    if (!has_type(r, spec, "object", "spec"))
        return;
    prune(r, spec, {"channel", "skipMaintenanceWindows", "modules"}, "spec");
    if (!spec.contains("channel"))
        r.causes.push_back({"FieldValueRequired", "Required value", "spec.channel"});
    else
        check_channel(r, spec["channel"], "spec.channel");
    if (spec.contains("skipMaintenanceWindows"))
        has_type(r, spec["skipMaintenanceWindows"], "boolean", "spec.skipMaintenanceWindows");
    if (spec.contains("modules") && has_type(r, spec["modules"], "array", "spec.modules")) {
        std::set<std::string> names;
        for (std::size_t i = 0; i < spec["modules"].size(); ++i)
            check_module(r, spec["modules"][i], "spec.modules[" + std::to_string(i) + "]", names);
    }
}

bool has_finalizer(const Json& finalizers, const Json& f) {
    return finalizers.is_array() &&
           std::find(finalizers.begin(), finalizers.end(), f) != finalizers.end();
}

} // namespace

const ResourceInfo& kyma_info() {
    static const ResourceInfo info{
        "operator.kyma-project.io", "v1beta2", "kymas", "Kyma", true, "kyma", {}, {}};
    return info;
}

std::vector<std::string> admit_kyma(Json& obj) {
    Review r;
    prune(r, obj, {"apiVersion", "kind", "metadata", "spec", "status"}, "");
    if (obj.contains("spec"))
        check_spec(r, obj["spec"]);
    if (!r.causes.empty())
        throw invalid(kyma_info(), obj["metadata"].value("name", std::string()), r.causes);
    return r.pruned;
}

Json delete_honouring_finalizers(ObjectStore& store, const ResourceInfo& info,
                                 const std::string& ns, const std::string& name, bool dry_run) {
    Json current = store.get(info, ns, name);
    Json& md = current["metadata"];
    if (md.value("finalizers", Json::array()).empty())
        return store.remove(info, ns, name, dry_run);
    if (md.contains("deletionTimestamp"))
        return current; // a second DELETE changes nothing
    md["deletionTimestamp"] = rfc3339(Clock::now());
    md["deletionGracePeriodSeconds"] = 0;
    md["generation"] = md.value("generation", 1LL) + 1;
    return store.update(info, ns, name, current, dry_run);
}

Json update_honouring_finalizers(ObjectStore& store, const ResourceInfo& info,
                                 const std::string& ns, const std::string& name, Json next,
                                 bool dry_run) {
    Json current = store.get(info, ns, name);
    const Json& cur_md = current["metadata"];
    if (!next.contains("metadata") || !next["metadata"].is_object())
        next["metadata"] = Json::object();
    Json& md = next["metadata"];
    if (md.contains("finalizers") && !md["finalizers"].is_null() && !md["finalizers"].is_array())
        throw bad_request("metadata.finalizers must be a list of strings");
    bool deleting = cur_md.contains("deletionTimestamp");
    for (const char* key : {"deletionTimestamp", "deletionGracePeriodSeconds"}) {
        if (cur_md.contains(key))
            md[key] = cur_md[key];
        else
            md.erase(key);
    }
    Json finalizers = md.value("finalizers", Json::array());
    if (deleting) {
        Json before = cur_md.value("finalizers", Json::array());
        for (const auto& f : finalizers)
            if (!has_finalizer(before, f))
                throw invalid(info, name,
                              {{"FieldValueForbidden",
                                "Forbidden: no new finalizers can be added if the object is being "
                                "deleted, found new finalizers " +
                                    Json::array({f}).dump(),
                                "metadata.finalizers"}});
    }
    if (!deleting || !finalizers.empty())
        return store.update(info, ns, name, std::move(next), dry_run);
    // The last finalizer is gone: the object goes at once (a DELETED event, no MODIFIED one),
    // once the dry run has checked the precondition.
    Json last = store.update(info, ns, name, std::move(next), true);
    if (!dry_run)
        store.remove(info, ns, name);
    return last;
}

} // namespace kprov::sim
