#pragma once
// Driving one operation to its end in this process: `--wait` of the operation commands and
// `kprov wait`.

#include "cli/context.hpp"
#include "engine/run/executor.hpp"
#include "engine/util/duration.hpp"

#include <optional>
#include <string>

namespace kprov::cli {

class EngineAccess;

/// Exit code of a wait that SIGINT ended (128 + SIGINT, as shells report it).
inline constexpr int k_exit_interrupted = 130;
/// Exit code of a wait that SIGTERM ended (128 + SIGTERM).
inline constexpr int k_exit_terminated = 143;

/// The --timeout DUR value; nullopt when not given. Throws UsageError when DUR is not a Go
/// duration.
std::optional<Duration> parse_timeout(const std::optional<std::string>& text);

/// Drives `operation_id` with Executor::drive until it ends, `timeout` passes or SIGINT/SIGTERM
/// arrives, following another worker that holds it. Progress goes to stderr
/// (not with -q); a watch on the runtime's shoot wakes the driver at each change. Prints the
/// operation as it then stands on stdout, and returns 0 (Succeeded), 3 (Failed, lastError on
/// stderr), 4 (timeout), 130 (SIGINT) or 143 (SIGTERM); the last three say on stderr what
/// finishes the operation now (the lease is released after every pass, so anyone can at once).
/// Throws NotFound for an unknown operation, StoreError, and ConfigError when Gardener cannot
/// be opened.
int wait_for_operation(Context& ctx, EngineAccess& access, const std::string& operation_id,
                       std::optional<Duration> timeout);

/// wait_for_operation for an operation in progress that a command follows before it starts
/// its own (engine::meet_in_progress): the same progress on stderr; when the operation ended,
/// either way, one line on stderr says how and nullopt is returned; else the operation is
/// printed and the timeout or signal reported as wait_for_operation does, and its exit code
/// returned.
std::optional<int> follow_operation(Context& ctx, EngineAccess& access,
                                    const std::string& operation_id,
                                    std::optional<Duration> timeout);

/// Drives `operation_id` as wait_for_operation does (a watch on its shoot wakes it), until it
/// ends, `options.deadline` passes or `options.stop` is requested, and prints nothing: for
/// commands that drive several operations at once, each on its own thread. Throws NotFound for
/// an unknown operation, StoreError, ConfigError when Gardener cannot be opened.
engine::DriveResult drive_operation(EngineAccess& access, const std::string& operation_id,
                                    const engine::DriveOptions& options);

/// The operation commands without --wait: one pass of the operation here, which runs its
/// stages until the first that waits for Gardener (a provisioning creates its shoot), then
/// prints the operation on stdout and, on stderr, what finishes it (`kprov wait`, `watch`,
/// `serve`). Returns 0, or 3 when the operation failed in that pass. Throws as
/// wait_for_operation.
int drive_until_first_wait(Context& ctx, EngineAccess& access, const std::string& operation_id);

} // namespace kprov::cli
