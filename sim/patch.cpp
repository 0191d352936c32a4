#include "patch.hpp"

#include <algorithm>
#include <map>

namespace kprov::sim {

std::optional<PatchType> patch_type_from(const std::string& media_type) {
    if (media_type == "application/merge-patch+json")
        return PatchType::Merge;
    if (media_type == "application/json-patch+json")
        return PatchType::JsonPatch;
    if (media_type == "application/strategic-merge-patch+json")
        return PatchType::Strategic;
    if (media_type == "application/apply-patch+yaml" ||
        media_type == "application/apply-patch+json")
        return PatchType::Apply;
    return std::nullopt;
}

namespace {

/// Merge keys of the lists that strategic merge patch merges item by item (Gardener's and
/// Kubernetes' built-in types); every other list is replaced.
const std::map<std::string, std::string>& merge_keys() {
    static const std::map<std::string, std::string> keys = {
        {"workers", "name"},       {"tolerations", "key"},  {"admissionPlugins", "name"},
        {"conditions", "type"},    {"constraints", "type"}, {"advertisedAddresses", "name"},
        {"containers", "name"},    {"env", "name"},         {"volumes", "name"},
        {"ports", "containerPort"}};
    return keys;
}

void strategic_merge(Json& target, const Json& patch);

void strategic_merge_list(Json& target, const Json& patch, const std::string& key) {
    if (!target.is_array()) {
        target = Json::array();
    }
    for (const auto& item : patch) {
        if (!item.is_object() || !item.contains(key)) {
            target.push_back(item);
            continue;
        }
        const Json& id = item[key];
        auto it = std::find_if(target.begin(), target.end(), [&](const Json& t) {
            return t.is_object() && t.contains(key) && t[key] == id;
        });
        bool remove = item.contains("$patch") && item["$patch"] == "delete";
        if (remove) {
            if (it != target.end())
                target.erase(it);
            continue;
        }
        if (it == target.end()) {
            Json copy = item;
            copy.erase("$patch");
            target.push_back(copy);
        } else {
            strategic_merge(*it, item);
        }
    }
}

void strategic_merge(Json& target, const Json& patch) {
    if (!patch.is_object()) {
        target = patch;
        return;
    }
    if (patch.contains("$patch") && patch["$patch"] == "replace") {
        target = patch;
        target.erase("$patch");
        return;
    }
    if (!target.is_object())
        target = Json::object();
    for (const auto& [k, v] : patch.items()) {
        if (k.rfind("$", 0) == 0)
            continue;
        if (v.is_null()) {
            target.erase(k);
        } else if (v.is_array() && merge_keys().count(k)) {
            strategic_merge_list(target[k], v, merge_keys().at(k));
        } else if (v.is_object()) {
            strategic_merge(target[k], v);
        } else {
            target[k] = v;
        }
    }
}

} // namespace

Json apply_patch(const Json& target, const std::string& body, PatchType type,
                 const ResourceInfo& info, const std::string& name) {
    Json patch = Json::parse(body, nullptr, false);
    if (patch.is_discarded()) {
        if (type == PatchType::Apply)
            throw bad_request("kprov-sim accepts server-side apply bodies in JSON only (a YAML "
                              "body that is not JSON cannot be decoded)");
        throw bad_request("the patch is not valid JSON");
    }
    Json result = target;
    switch (type) {
    case PatchType::Merge:
    case PatchType::Apply:
        if (!patch.is_object())
            throw bad_request("a merge patch must be a JSON object");
        result.merge_patch(patch);
        return result;
    case PatchType::Strategic:
        if (!patch.is_object())
            throw bad_request("a strategic merge patch must be a JSON object");
        strategic_merge(result, patch);
        return result;
    case PatchType::JsonPatch:
        if (!patch.is_array())
            throw bad_request("a JSON patch must be an array of operations");
        try {
            return target.patch(patch);
        } catch (const Json::parse_error& e) {
            throw bad_request(std::string("malformed JSON patch: ") + e.what());
        } catch (const Json::exception& e) {
            throw invalid(info, name, {{"FieldValueInvalid", e.what(), "patch"}});
        }
    }
    return result;
}

} // namespace kprov::sim
