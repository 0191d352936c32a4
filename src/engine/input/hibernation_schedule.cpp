#include "engine/input/hibernation_schedule.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace kprov::engine {

namespace {

using nlohmann::json;

struct CronField {
    const char* name;
    int min;
    int max;
    std::vector<std::string_view> names; ///< names[i] stands for min + i
};

const std::array<CronField, 5>& cron_fields() {
    static const std::array<CronField, 5> k_fields = {{
        {"minute", 0, 59, {}},
        {"hour", 0, 23, {}},
        {"day of month", 1, 31, {}},
        {"month",
         1,
         12,
         {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
        {"day of week", 0, 6, {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
    }};
    return k_fields;
}

std::optional<int> cron_value(std::string_view text, const CronField& field) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size())
        return value >= field.min && value <= field.max ? std::optional<int>(value) : std::nullopt;
    std::string upper(text);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    const auto named = std::find(field.names.begin(), field.names.end(), upper);
    if (named == field.names.end())
        return std::nullopt;
    return field.min + static_cast<int>(named - field.names.begin());
}

// One comma-separated item of a field: `*`, `?` (day fields), `v`, `a-b`, each with an
// optional `/step`.
std::optional<std::string> item_problem(std::string_view item, const CronField& field,
                                        bool day_field) {
    const std::string quoted = "\"" + std::string(item) + "\"";
    std::string_view range = item;
    if (const auto slash = item.find('/'); slash != std::string_view::npos) {
        range = item.substr(0, slash);
        const std::string_view step = item.substr(slash + 1);
        int n = 0;
        const auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), n);
        if (ec != std::errc() || end != step.data() + step.size() || n < 1 ||
            n > field.max - field.min + 1)
            return "the step of " + quoted + " must be a number from 1 to " +
                   std::to_string(field.max - field.min + 1);
    }
    if (range == "*" || (day_field && range == "?"))
        return std::nullopt;
    const auto dash = range.find('-');
    const auto first = cron_value(range.substr(0, dash), field);
    const auto last =
        dash == std::string_view::npos ? first : cron_value(range.substr(dash + 1), field);
    if (!first || !last)
        return quoted + " is not a valid " + field.name + " (" + std::to_string(field.min) + "-" +
               std::to_string(field.max) +
               (field.names.empty() ? std::string()
                                    : std::string(", or ") + std::string(field.names.front()) +
                                          "-" + std::string(field.names.back())) +
               ")";
    if (*first > *last)
        return "the range " + quoted + " ends before it begins";
    return std::nullopt;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    while (true) {
        const auto end = text.find(separator, begin);
        parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
        if (end == std::string_view::npos)
            return parts;
        begin = end + 1;
    }
}

} // namespace

std::optional<std::string> cron_problem(std::string_view expression) {
    if (expression.size() > 256)
        return "is " + std::to_string(expression.size()) +
               " characters long; a cron expression has at most 256";
    static const std::vector<std::string_view> k_descriptors = {
        "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"};
    if (std::find(k_descriptors.begin(), k_descriptors.end(), expression) != k_descriptors.end())
        return std::nullopt;
    std::vector<std::string_view> fields;
    for (std::size_t i = 0; i < expression.size();) {
        if (std::isspace(static_cast<unsigned char>(expression[i]))) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < expression.size() &&
               !std::isspace(static_cast<unsigned char>(expression[end])))
            ++end;
        fields.push_back(expression.substr(i, end - i));
        i = end;
    }
    const std::string quoted = "\"" + std::string(expression) + "\"";
    if (fields.size() != 5)
        return quoted + " has " + std::to_string(fields.size()) +
               " fields; a cron expression has 5: minute hour day-of-month month day-of-week "
               "(such as \"0 20 * * MON-FRI\")";
    for (std::size_t f = 0; f < fields.size(); ++f) {
        const CronField& field = cron_fields()[f];
        for (const auto item : split(fields[f], ','))
            if (auto problem = item_problem(item, field, f == 2 || f == 4))
                return quoted + ": " + *problem;
    }
    return std::nullopt;
}

std::optional<std::string> location_problem(std::string_view location) {
    const std::string quoted = "\"" + std::string(location) + "\"";
    if (location.empty() || location.size() > 64)
        return quoted + " is not a time zone name (1 to 64 characters, such as \"Europe/Berlin\")";
    for (const auto part : split(location, '/')) {
        const bool ok = !part.empty() && part != "." && part != ".." &&
                        std::all_of(part.begin(), part.end(), [](unsigned char c) {
                            return std::isalnum(c) || c == '_' || c == '-' || c == '+' || c == '.';
                        });
        if (!ok)
            return quoted + " is not a time zone name (IANA names such as \"UTC\" or "
                            "\"Europe/Berlin\": letters, digits, _-+. and /)";
    }
    return std::nullopt;
}

std::vector<FieldProblem> schedule_problems(const std::vector<HibernationSchedule>& schedules,
                                            const std::string& path) {
    std::vector<FieldProblem> problems;
    if (schedules.size() > k_max_hibernation_schedules)
        problems.push_back({path, "has " + std::to_string(schedules.size()) +
                                      " schedules; at most " +
                                      std::to_string(k_max_hibernation_schedules)});
    for (std::size_t i = 0; i < schedules.size(); ++i) {
        const auto& s = schedules[i];
        const std::string at = path + "[" + std::to_string(i) + "]";
        if (!s.start && !s.end)
            problems.push_back({at, "needs a start (hibernate), an end (wake up) or both"});
        for (const auto& [field, value] : {std::pair{"start", &s.start}, {"end", &s.end}})
            if (*value)
                if (auto problem = cron_problem(**value))
                    problems.push_back({at + "." + field, *problem});
        if (s.location)
            if (auto problem = location_problem(*s.location))
                problems.push_back({at + ".location", *problem});
    }
    return problems;
}

std::vector<HibernationSchedule> schedules_of_shoot(const std::string& shoot_json) {
    const std::string path = "spec.hibernation.schedules";
    const json shoot = json::parse(shoot_json, nullptr, false);
    const json* list = nullptr;
    if (shoot.is_object() && shoot.contains("spec") && shoot["spec"].is_object() &&
        shoot["spec"].contains("hibernation") && shoot["spec"]["hibernation"].is_object() &&
        shoot["spec"]["hibernation"].contains("schedules"))
        list = &shoot["spec"]["hibernation"]["schedules"];
    std::vector<HibernationSchedule> schedules;
    if (!list || list->is_null())
        return schedules;
    if (!list->is_array())
        throw ValidationError(path, "is not a list");
    std::vector<FieldProblem> problems;
    for (std::size_t i = 0; i < list->size() && i <= k_max_hibernation_schedules; ++i) {
        const json& item = (*list)[i];
        HibernationSchedule s;
        for (const auto& [key, to] :
             {std::pair{"start", &s.start}, {"end", &s.end}, {"location", &s.location}}) {
            if (!item.is_object() || !item.contains(key) || item[key].is_null())
                continue;
            if (item[key].is_string())
                *to = item[key].get<std::string>();
            else
                problems.push_back(
                    {path + "[" + std::to_string(i) + "]." + key, "is not a string"});
        }
        schedules.push_back(std::move(s));
    }
    for (auto& problem : schedule_problems(schedules, path))
        problems.push_back(std::move(problem));
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    return schedules;
}

std::optional<std::string>
encode_hibernation_schedules(const std::vector<HibernationSchedule>& schedules) {
    if (schedules.empty())
        return std::nullopt;
    nlohmann::ordered_json array = nlohmann::ordered_json::array(); // start, end, location
    for (const auto& s : schedules) {
        nlohmann::ordered_json item = nlohmann::ordered_json::object();
        if (s.start)
            item["start"] = *s.start;
        if (s.end)
            item["end"] = *s.end;
        if (s.location)
            item["location"] = *s.location;
        array.push_back(std::move(item));
    }
    return array.dump();
}

std::vector<HibernationSchedule>
decode_hibernation_schedules(const std::optional<std::string>& text) {
    std::vector<HibernationSchedule> schedules;
    if (!text)
        return schedules;
    const json array = json::parse(*text, nullptr, false);
    if (!array.is_array())
        throw Error("gardener_config.hibernation_schedules is not a JSON array");
    for (const auto& item : array) {
        if (!item.is_object())
            throw Error("gardener_config.hibernation_schedules holds a non-object");
        HibernationSchedule s;
        auto take = [&item](const char* key, std::optional<std::string>& to) {
            if (item.contains(key) && item[key].is_string())
                to = item[key].get<std::string>();
        };
        take("start", s.start);
        take("end", s.end);
        take("location", s.location);
        schedules.push_back(std::move(s));
    }
    return schedules;
}

} // namespace kprov::engine
