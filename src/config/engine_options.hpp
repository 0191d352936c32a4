#pragma once
// What the engine's pure functions need from the configuration, assembled from Settings.

#include "config/settings.hpp"
#include "engine/engine_options.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/shoot/shoot_builder.hpp"

namespace kprov::config {

/// Defaults for converting requests into runtimes (project, auto-update defaults).
engine::ConversionOptions conversion_options(const Settings& settings);

/// Options of the Shoot builder. Reads the maintenance window file when one is configured
/// (APP_GARDENER_MAINTENANCE_WINDOW_CONFIG_PATH), as the original did on every provisioning;
/// throws ConfigError naming the file when it cannot be read or parsed.
engine::ShootOptions shoot_options(const Settings& settings);

/// Kyma Lifecycle Manager's mapping and rhythms (KPROV_KYMA_CHANNEL, _MODULES, _LOSSY,
/// _DELETION_TIMEOUT, _KUBECONFIG_EXPIRATION, _KUBECONFIG_ROTATION). Throws ConfigError naming
/// the setting for a channel that is not one, an unknown lossy mode, an expiration under 10
/// minutes or a rotation not shorter than the expiration.
engine::KlmOptions klm_options(const Settings& settings);

/// Everything the engine's service and executor take from the configuration: the two above,
/// the stage timeouts (APP_*_TIMEOUT_*), operator bindings (APP_OPERATOR_ROLE_BINDING_*), the
/// lease duration (KPROV_LEASE_DURATION) and APP_TENANT_STRICT. The log sink stays empty.
engine::EngineOptions engine_options(const Settings& settings);

} // namespace kprov::config
