#pragma once
// The operation commands and protect/unprotect on every runtime a label selector matches
// (`kprov hibernate -l team=ci --wait`): the runtimes are listed first (--dry-run stops there),
// deprovisioning asks once for all of them, the operations start and run in parallel, and a
// summary and an exit code say whether all of them succeeded.

#include "cli/context.hpp"
#include "engine/util/duration.hpp"

#include <optional>
#include <string>

namespace kprov::cli {

/// What an operation command does to each runtime.
enum class BulkAction { Hibernate, WakeUp, Deprovision, UpgradeShoot };

/// At most this many operations are started at the same time (then all are waited for at once).
inline constexpr int k_bulk_parallelism = 16;

/// Whether `args` of `command` asks for the bulk path: -l given, or --dry-run of hibernate,
/// wake-up or deprovision (their single form has no dry run of its own, so it lists the one
/// runtime the way -l does). Throws UsageError unless exactly one of RUNTIME_ID and -l is given,
/// and for --detailed-exitcode with -l (it describes one plan).
bool is_bulk(const std::string& command, const OperationArgs& args);

/// Runs `action` on the runtimes of -l (or on RUNTIME_ID, for a dry run). Exit codes: 0 when
/// every runtime's operation succeeded (without --wait: started), or when the selector matches
/// no runtime (said on stderr, as kubectl's "No resources found"); else 130/143 when a signal
/// stopped the wait, 3 when an operation failed, 1 when a runtime was refused (protected, or
/// any error), 5 when the only refusals were operations in progress, 4 when --timeout ended the
/// wait. Throws UsageError (selector, missing --yes without a terminal), ValidationError (the
/// upgrade file), StoreError.
int run_bulk_operation(Context& ctx, BulkAction action, const OperationArgs& args,
                       std::optional<Duration> timeout);

/// protect or unprotect -l SELECTOR (`args.selectors`; with `args.dry_run` only the list).
/// Exit 0, also for a selector that matches nothing; 1 when a runtime could not be changed.
int run_bulk_protection(Context& ctx, const ReadArgs& args, bool is_protected);

/// Whether a question can be asked: stdin and stderr are the process's own terminals.
bool can_ask(Context& ctx);

/// Asks `question` on stderr and reads the answer from stdin: true only for y or yes.
bool confirmed(Context& ctx, const std::string& question);

} // namespace kprov::cli
