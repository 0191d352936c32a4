#include "cli/runtime_lifecycle.hpp"

#include "engine/error.hpp"
#include "engine/store.hpp"
#include "engine/text.hpp"

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
                problem(name, "kprov cannot write hibernation schedules to the shoot yet; leave "
                              "the field out (nothing was written)");
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

bool set_lifetime(engine::Store& store, Timestamp now, const std::string& runtime_id,
                  Duration lifetime, const std::string& by) {
    const auto runtime = store.find_runtime(runtime_id);
    if (!runtime)
        throw NotFound("runtime " + runtime_id + " does not exist");
    const Timestamp expires =
        runtime->creation_timestamp + std::chrono::duration_cast<Timestamp::duration>(lifetime);
    return store.set_expiry(runtime_id, expires,
                            {now, "Lifetime",
                             "lifetime " + format_duration(lifetime) + " set by " + by +
                                 ": deprovisioned after " + format_rfc3339(expires)});
}

} // namespace kprov::cli
