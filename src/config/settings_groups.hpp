#pragma once
// The table of settings in two parts, joined by setting_specs() in this order
// (settings_table.cpp). Included by settings_table*.cpp only.

#include "config/settings.hpp"

#include <vector>

namespace kprov::config {

/// kprov's own settings, the API and metrics of serve, Director and the database
/// (settings_table.cpp).
std::vector<SettingSpec> service_settings();

/// Stage timeouts, operator role bindings, Gardener, Kyma releases and start-up
/// (settings_table_engine.cpp).
std::vector<SettingSpec> engine_settings();

} // namespace kprov::config
