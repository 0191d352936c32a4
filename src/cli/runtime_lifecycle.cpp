#include "cli/runtime_lifecycle.hpp"

#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/util/text.hpp"

#include <nlohmann/json.hpp>

namespace kprov::cli {

namespace {

using nlohmann::json;

constexpr Duration k_min_lifetime = std::chrono::seconds(1);
constexpr Duration k_max_lifetime = std::chrono::hours(87600); // ten years

std::string shown(const json& value) {
    const std::string text = value.dump();
    return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// lifecycle.hibernationSchedules: a list of {start, end, location}, each a string.
std::vector<engine::HibernationSchedule> read_schedules(const json& value,
                                                        std::vector<FieldProblem>& problems) {
    const std::string path = "lifecycle.hibernationSchedules";
    std::vector<engine::HibernationSchedule> schedules;
    if (!value.is_array()) {
        problems.push_back({path, "must be a list of {start, end, location}, not " + shown(value)});
        return schedules;
    }
    if (value.size() > engine::k_max_hibernation_schedules) {
        problems.push_back({path, "has " + std::to_string(value.size()) + " schedules; at most " +
                                      std::to_string(engine::k_max_hibernation_schedules)});
        return schedules;
    }
    static const std::vector<std::string> k_fields = {"start", "end", "location"};
    const std::size_t shape_problems = problems.size();
    for (std::size_t i = 0; i < value.size(); ++i) {
        const json& item = value[i];
        const std::string at = path + "[" + std::to_string(i) + "]";
        engine::HibernationSchedule schedule;
        if (!item.is_object()) {
            problems.push_back(
                {at, "must be a mapping of start, end and location, not " + shown(item)});
            continue;
        }
        for (const auto& [name, field] : item.items()) {
            std::optional<std::string>* to = name == "start"      ? &schedule.start
                                             : name == "end"      ? &schedule.end
                                             : name == "location" ? &schedule.location
                                                                  : nullptr;
            if (!to) {
                std::string message = "unknown field \"" + name + "\"";
                if (const auto match = closest_match(name, k_fields))
                    message += "; did you mean \"" + *match + "\"?";
                problems.push_back({at + "." + name, message});
            } else if (field.is_string()) {
                *to = field.get<std::string>();
            } else if (!field.is_null()) {
                problems.push_back({at + "." + name, "must be a string, not " + shown(field)});
            }
        }
        schedules.push_back(std::move(schedule));
    }
    if (problems.size() == shape_problems) // else the indexes would not be the file's
        for (auto& problem : engine::schedule_problems(schedules, path))
            problems.push_back(std::move(problem));
    return schedules;
}

} // namespace

const std::vector<std::string>& lifecycle_fields() {
    static const std::vector<std::string> k_fields = {"protected", "lifetime", "hibernated",
                                                      "hibernationSchedules"};
    return k_fields;
}

std::optional<LifecycleSpec> take_lifecycle(json& document, LifecycleUse use) {
    if (!document.is_object() || !document.contains("lifecycle"))
        return std::nullopt;
    const json block = std::move(document["lifecycle"]);
    document.erase("lifecycle");
    std::vector<FieldProblem> problems;
    auto problem = [&](const std::string& field, std::string message) {
        problems.push_back(
            {field.empty() ? "lifecycle" : "lifecycle." + field, std::move(message)});
    };
    LifecycleSpec spec;
    if (block.is_null())
        return spec;
    if (!block.is_object())
        throw ValidationError("lifecycle", "must be a mapping of protected, lifetime, hibernated "
                                           "and hibernationSchedules, not " +
                                               shown(block));
    for (const auto& [name, value] : block.items()) {
        if (name == "protected") {
            if (value.is_boolean()) {
                spec.is_protected = value.get<bool>();
                spec.protected_given = true;
            } else if (!value.is_null())
                problem(name, "must be true or false, not " + shown(value));
        } else if (name == "lifetime") {
            if (value.is_null())
                continue;
            const auto parsed =
                value.is_string() ? parse_duration(value.get<std::string>()) : std::nullopt;
            if (!parsed)
                problem(name,
                        "must be a Go duration such as \"2h\" or \"30m\", not " + shown(value));
            else if (*parsed < k_min_lifetime || *parsed > k_max_lifetime)
                problem(name, "must be between 1s and 87600h (ten years), not " + shown(value));
            else
                spec.lifetime = parsed;
        } else if (name == "hibernated") {
            if (!value.is_boolean() && !value.is_null())
                problem(name, "must be true or false, not " + shown(value));
            else if (value == true && use == LifecycleUse::Provision)
                problem(name, "true cannot be honoured by provision: provision the runtime, then "
                              "run `kprov hibernate RUNTIME_ID` (kprov apply -f FILE does both)");
            else if (value.is_boolean())
                spec.hibernated = value.get<bool>();
        } else if (name == "hibernationSchedules") {
            if (!value.is_null())
                spec.hibernation_schedules = read_schedules(value, problems);
        } else {
            std::string message = "unknown field \"" + name + "\"";
            if (const auto match = closest_match(name, lifecycle_fields()))
                message += "; did you mean \"" + *match + "\"?";
            problem(name, message);
        }
    }
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    return spec;
}

namespace {

// Removes clusterConfig.gardenerConfig.cloudProfile (kprov's own, not GraphQL's) from `document`
// and reads it: {name, kind?}, kind CloudProfile (the default) or NamespacedCloudProfile.
std::optional<engine::CloudProfileRef> take_cloud_profile(json& document,
                                                          std::vector<FieldProblem>& problems) {
    const std::string path = "clusterConfig.gardenerConfig.cloudProfile";
    if (!document.is_object() || !document.contains("clusterConfig") ||
        !document["clusterConfig"].is_object() ||
        !document["clusterConfig"].contains("gardenerConfig") ||
        !document["clusterConfig"]["gardenerConfig"].is_object())
        return std::nullopt;
    json& gardener = document["clusterConfig"]["gardenerConfig"];
    const auto it = gardener.find("cloudProfile");
    if (it == gardener.end())
        return std::nullopt;
    const json value = *it;
    gardener.erase(it);
    if (value.is_null())
        return std::nullopt;
    if (!value.is_object()) {
        problems.push_back({path, "must be an object {name, kind}, got " + value.dump()});
        return std::nullopt;
    }
    engine::CloudProfileRef ref;
    for (const auto& [key, member] : value.items()) {
        if (key != "name" && key != "kind") {
            problems.push_back({path + "." + key, "is not a field of cloudProfile (name, kind)"});
            continue;
        }
        const std::string text = member.is_string() ? member.get<std::string>() : std::string();
        (key == "name" ? ref.name : ref.kind) = text;
        if (!member.is_string())
            problems.push_back({path + "." + key, "must be a string"});
    }
    bool name_ok = !ref.name.empty() && ref.name.size() <= 253;
    for (const char c : ref.name)
        name_ok =
            name_ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.');
    if (!name_ok)
        problems.push_back({path + ".name", "\"" + ref.name +
                                                "\" is not a profile name (1 to 253 lower-case "
                                                "letters, digits, '-' and '.')"});
    if (ref.kind != engine::k_cloud_profile_kind &&
        ref.kind != engine::k_namespaced_cloud_profile_kind)
        problems.push_back({path + ".kind", "\"" + ref.kind +
                                                "\" is no profile kind: CloudProfile or "
                                                "NamespacedCloudProfile"});
    return ref;
}

} // namespace

ProvisionFile read_provision_file(json document, const engine::ConversionOptions& options,
                                  LifecycleUse use) {
    ProvisionFile file;
    std::vector<FieldProblem> problems; // the lifecycle block's and the input's, together
    try {
        file.lifecycle = take_lifecycle(document, use);
    } catch (const ValidationError& e) {
        problems = e.problems();
    }
    const auto cloud_profile = take_cloud_profile(document, problems);
    try {
        file.input = engine::read_provision_input(document, options);
    } catch (const ValidationError& e) {
        problems.insert(problems.end(), e.problems().begin(), e.problems().end());
    }
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    if (file.lifecycle && file.lifecycle->hibernation_schedules)
        file.input.gardener.hibernation_schedules = *file.lifecycle->hibernation_schedules;
    file.input.gardener.cloud_profile = cloud_profile;
    return file;
}

engine::LifecycleRequest lifecycle_request(const LifecycleSpec& spec, std::string by) {
    return {spec.is_protected, spec.lifetime, std::move(by)};
}

} // namespace kprov::cli
