#pragma once
// The kprov command line as a library: main() is one call to run(), so tests drive every
// command in-process with their own streams.

#include <iosfwd>
#include <string>
#include <vector>

namespace kprov::cli {

/// Exit codes (ARCHITECTURE.md, CLI contract).
enum ExitCode : int {
    k_exit_ok = 0,
    k_exit_error = 1,
    k_exit_usage = 2,
    k_exit_operation_failed = 3,
    k_exit_timeout = 4,
    k_exit_in_progress = 5,
    k_exit_differences = 6, ///< kprov diff found differences (2 stays the usage error)
    /// `plan` and `upgrade-shoot --dry-run` with --detailed-exitcode: there are changes (as
    /// terraform); every error, usage errors included, then exits 1, so 2 means only this.
    k_exit_changes = 2,
};

/// Runs kprov with `args` (without the program name). Results go to `out`, diagnostics to
/// `err`; returns the exit code. Never throws.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace kprov::cli
