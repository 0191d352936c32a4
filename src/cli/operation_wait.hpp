#pragma once
// Driving one operation to its end in this process: `--wait` of the operation commands and
// `kprov wait`.

#include "cli/context.hpp"
#include "engine/duration.hpp"

#include <optional>
#include <string>

namespace kprov::cli {

class EngineAccess;

/// Exit code of a wait that SIGINT ended (128 + SIGINT, as shells report it).
inline constexpr int k_exit_interrupted = 130;

/// The --timeout DUR value; nullopt when not given. Throws UsageError when DUR is not a Go
/// duration.
std::optional<Duration> parse_timeout(const std::optional<std::string>& text);

/// Drives `operation_id` with Executor::drive until it ends, `timeout` passes or SIGINT
/// arrives, following another worker that holds it. Progress goes to stderr (not with -q);
/// a watch on the runtime's shoot wakes the driver at each change. Prints the operation as it
/// then stands on stdout, and returns 0 (Succeeded), 3 (Failed, lastError on stderr), 4
/// (timeout; the operation goes on) or 130 (SIGINT). Throws NotFound for an unknown operation,
/// StoreError, and ConfigError when Gardener cannot be opened.
int wait_for_operation(Context& ctx, EngineAccess& access, const std::string& operation_id,
                       std::optional<Duration> timeout);

} // namespace kprov::cli
