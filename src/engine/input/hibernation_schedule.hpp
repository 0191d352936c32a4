#pragma once
// Gardener's hibernation schedules (spec.hibernation.schedules): checked before they reach a
// shoot, kept as JSON in gardener_config.hibernation_schedules.

#include "engine/error.hpp"
#include "engine/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// At most this many schedules per runtime (Gardener sets no limit; kprov bounds its input).
inline constexpr std::size_t k_max_hibernation_schedules = 32;

/// What is wrong with `expression` as a standard five-field cron expression (minute 0-59, hour
/// 0-23, day of month 1-31, month 1-12 or JAN-DEC, day of week 0-6 or SUN-SAT; each field `*`,
/// a value, a range `a-b`, a step `/n` after `*` or a range, or a comma-separated list of
/// those), or nullopt when it is one. Gardener parses schedules this way.
std::optional<std::string> cron_problem(std::string_view expression);

/// What is wrong with `location` as an IANA time zone name ("UTC", "Europe/Berlin",
/// "America/Argentina/Buenos_Aires"), or nullopt. Only the shape is checked: whether the zone
/// exists is Gardener's to say.
std::optional<std::string> location_problem(std::string_view location);

/// Every problem of `schedules`, each under "<path>[i].<field>": a schedule with neither start
/// nor end, cron expressions and locations as above, more than k_max_hibernation_schedules.
std::vector<FieldProblem> schedule_problems(const std::vector<HibernationSchedule>& schedules,
                                            const std::string& path);

/// The schedules of a live Shoot (`shoot_json`, as Gardener returns it): its
/// spec.hibernation.schedules, or none. Throws ValidationError, each problem at its path in the
/// shoot ("spec.hibernation.schedules[1].start"), when they are not strings or not what
/// schedule_problems accepts, so a shoot kprov cannot represent is refused by field.
std::vector<HibernationSchedule> schedules_of_shoot(const std::string& shoot_json);

/// The JSON array kept in gardener_config.hibernation_schedules; nullopt for no schedules.
std::optional<std::string>
encode_hibernation_schedules(const std::vector<HibernationSchedule>& schedules);

/// The schedules of a gardener_config.hibernation_schedules value (NULL: none). Throws
/// kprov::Error when the text is not such an array.
std::vector<HibernationSchedule>
decode_hibernation_schedules(const std::optional<std::string>& json);

} // namespace kprov::engine
