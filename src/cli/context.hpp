#pragma once
// What every command implementation gets: the global flags as given, the streams, and the
// configuration loaded on first use (so `kprov --help` works with a broken config).

#include "config/settings.hpp"
#include "engine/error.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace kprov::cli {

/// The global flags of the CLI contract, as parsed (absent when not given).
struct GlobalOptions {
    std::optional<std::string> store;
    std::optional<std::string> config_file;
    std::optional<std::string> gardener_kubeconfig;
    std::optional<std::string> gardener_project;
    std::optional<std::string> tenant;
    std::optional<std::string> sub_account;
    std::optional<std::string> output; ///< table|wide|json|yaml|name
    std::optional<std::string> log_level;
    bool quiet = false;
    int verbose = 0;
};

class Context {
public:
    Context(GlobalOptions global, std::ostream& out, std::ostream& err)
        : m_global(std::move(global))
        , m_out(out)
        , m_err(err) {}

    const GlobalOptions& global() const { return m_global; }
    std::ostream& out() { return m_out; }
    std::ostream& err() { return m_err; }

    /// The effective configuration (defaults < file < environment < flags), loaded once.
    /// Throws ConfigError.
    const config::Effective& config();

private:
    GlobalOptions m_global;
    std::ostream& m_out;
    std::ostream& m_err;
    std::optional<config::Effective> m_config;
};

/// A command line that is wrong in a way CLI11 cannot see (an option value that does not fit
/// the command); reported like CLI11's own errors, exit code 2.
class UsageError : public Error {
public:
    using Error::Error;
};

struct PlanArgs {
    std::string file;                      ///< -f FILE ("-" for stdin)
    std::optional<std::string> runtime_id; ///< set: plan an upgrade of this runtime
};

/// provision, deprovision, upgrade-shoot, hibernate, wake-up.
struct OperationArgs {
    std::string runtime_id;             ///< all but provision
    std::string file;                   ///< -f: provision and upgrade-shoot
    bool wait = false;                  ///< --wait: drive the operation to its end in-process
    std::optional<std::string> timeout; ///< --timeout DUR (with --wait)
    bool dry_run = false;               ///< --dry-run: validate and show, change nothing
    bool yes = false;                   ///< --yes: deprovision without asking
};

struct WaitArgs {
    std::string operation_id;
    std::optional<std::string> timeout;
};

struct WatchArgs {
    std::optional<int> workers; ///< --workers N; default KPROV_WORKERS
};

// Command implementations (one file each, see commands_*.cpp). Each returns an exit code and
// may throw kprov::Error, which run() reports.
int cmd_version(Context& ctx, bool verbose);
int cmd_config(Context& ctx);
int cmd_config_reference(Context& ctx);
int cmd_migrate(Context& ctx);
int cmd_plan(Context& ctx, const PlanArgs& args);
int cmd_provision(Context& ctx, const OperationArgs& args);
int cmd_deprovision(Context& ctx, const OperationArgs& args);
int cmd_upgrade_shoot(Context& ctx, const OperationArgs& args);
int cmd_hibernate(Context& ctx, const OperationArgs& args);
int cmd_wake_up(Context& ctx, const OperationArgs& args);
int cmd_wait(Context& ctx, const WaitArgs& args);
int cmd_watch(Context& ctx, const WatchArgs& args);

} // namespace kprov::cli
