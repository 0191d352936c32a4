#pragma once
// What both shoot writers (shoot_builder.cpp for a new shoot, shoot_upgrade.cpp for an update)
// share: one default and one test, so the two cannot drift apart.

#include <optional>
#include <string>

namespace kprov::engine {

/// The Azure NAT gateway's idle connection timeout a shoot gets when the input names none.
inline constexpr int k_default_idle_timeout_minutes = 4;

/// Whether an optional input text is given and not empty (the original treats "" as absent).
inline bool non_empty(const std::optional<std::string>& value) {
    return value && !value->empty();
}

} // namespace kprov::engine
