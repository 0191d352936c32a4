#pragma once
// What every command implementation gets: the global flags as given, the streams, and the
// configuration loaded on first use (so `kprov --help` works with a broken config).

#include "config/settings.hpp"
#include "engine/error.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

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
    std::optional<std::string> log_format; ///< text|json: watch and serve
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

/// A -f file that is not there or cannot be read: exit code 2 (a usage error) for every
/// command, reported as it is (no "see kprov --help").
class InputFileError : public Error {
public:
    using Error::Error;
};

struct PlanArgs {
    std::string file;                      ///< -f FILE ("-" for stdin)
    std::optional<std::string> runtime_id; ///< set: plan an upgrade of this runtime
    bool detailed_exitcode = false;        ///< --detailed-exitcode: k_exit_changes on changes
};

/// provision, deprovision, upgrade-shoot, hibernate, wake-up.
struct OperationArgs {
    std::string runtime_id;             ///< all but provision; empty with -l
    std::vector<std::string> selectors; ///< -l SELECTOR (repeatable): bulk, instead of RUNTIME_ID
    std::string file;                   ///< -f: provision and upgrade-shoot
    bool wait = false;                  ///< --wait: drive the operation to its end in-process
    std::optional<std::string> timeout; ///< --timeout DUR (with --wait)
    bool dry_run = false;               ///< --dry-run: validate and show, change nothing
    bool detailed_exitcode = false;     ///< upgrade-shoot --dry-run --detailed-exitcode
    bool yes = false;                   ///< --yes: deprovision without asking
};

struct WaitArgs {
    std::string operation_id;
    std::optional<std::string> timeout;
};

struct CancelArgs {
    std::string operation_id;
    bool force = false; ///< --force: even while another process holds its lease
};

struct WatchArgs {
    std::optional<int> workers;                 ///< --workers N; default KPROV_WORKERS
    std::optional<std::string> metrics_address; ///< --metrics-address; APP_METRICS_ADDRESS
};

struct ServeArgs {
    std::optional<int> workers;                 ///< --workers N; default KPROV_WORKERS
    std::optional<std::string> address;         ///< --address; default APP_ADDRESS
    std::optional<std::string> metrics_address; ///< --metrics-address; APP_METRICS_ADDRESS
    bool insecure_no_auth = false;              ///< --insecure-no-auth; KPROV_INSECURE_NO_AUTH
};

struct MigrateArgs {
    bool re_encrypt = false; ///< --re-encrypt: also rewrite old secrets in the current format
    bool dry_run = false;    ///< --dry-run (with --re-encrypt): count them, write nothing
};

/// status, operation, history, kubeconfig: one id. list: the filters.
struct ReadArgs {
    std::string id;                        ///< RUNTIME_ID or OPERATION_ID
    std::optional<std::string> state;      ///< list --state S
    bool all = false;                      ///< list --all: soft-deleted runtimes too
    std::vector<std::string> selectors;    ///< list -l key=value (repeatable)
    std::optional<int> limit;              ///< list --limit N (0: all)
    std::optional<std::string> expiration; ///< kubeconfig --expiration DUR
    bool live = false;                     ///< status --live: Gardener's view and the drift
    bool expired = false;                  ///< list --expired: only runtimes whose lifetime ended
    bool deprecated = false; ///< list --deprecated: only runtimes on deprecated/expiring versions
    bool dry_run = false;    ///< protect|unprotect -l --dry-run: show, change nothing
};

// Command implementations (one file each, see commands_*.cpp). Each returns an exit code and
// may throw kprov::Error, which run() reports.
int cmd_version(Context& ctx, bool verbose);
int cmd_config(Context& ctx);
int cmd_config_reference(Context& ctx);
/// `kprov config --init`: a config file to start from on stdout (examples/config.yaml).
int cmd_config_init(Context& ctx);
int cmd_migrate(Context& ctx, const MigrateArgs& args);
int cmd_plan(Context& ctx, const PlanArgs& args);
int cmd_provision(Context& ctx, const OperationArgs& args);
int cmd_deprovision(Context& ctx, const OperationArgs& args);
int cmd_upgrade_shoot(Context& ctx, const OperationArgs& args);
int cmd_hibernate(Context& ctx, const OperationArgs& args);
int cmd_wake_up(Context& ctx, const OperationArgs& args);
int cmd_upgrade_kyma(Context& ctx, const OperationArgs& args);
int cmd_rollback_kyma(Context& ctx, const OperationArgs& args);
int cmd_wait(Context& ctx, const WaitArgs& args);
int cmd_cancel(Context& ctx, const CancelArgs& args);
int cmd_watch(Context& ctx, const WatchArgs& args);
int cmd_status(Context& ctx, const ReadArgs& args);
int cmd_operation(Context& ctx, const ReadArgs& args);
int cmd_list(Context& ctx, const ReadArgs& args);
int cmd_history(Context& ctx, const ReadArgs& args);

/// What `kprov cloud-profile` is asked.
struct CloudProfileArgs {
    std::optional<std::string> name; ///< NAME; absent: list the profiles
    bool namespaced = false;         ///< --namespaced: a NamespacedCloudProfile of the project
};
int cmd_cloud_profile(Context& ctx, const CloudProfileArgs& args);
/// What `kprov diff` is asked.
struct DiffArgs {
    std::optional<std::string> runtime_id; ///< RUNTIME_ID; absent with --all
    bool all = false;                      ///< every runtime that is not deprovisioned
    std::vector<std::string> files;        ///< -f FILE|DIR: what apply would do instead
};
int cmd_diff(Context& ctx, const DiffArgs& args);
/// `kprov diff -f FILE|DIR ...`: apply's plan for the files; exit 0 when apply would change
/// nothing, k_exit_differences when it would.
int cmd_diff_files(Context& ctx, const std::vector<std::string>& files);

/// What `kprov apply` is asked.
struct ApplyArgs {
    std::vector<std::string> files;     ///< -f FILE|DIR (repeatable)
    bool wait = false;                  ///< --wait: every runtime's steps to their end
    std::optional<std::string> timeout; ///< --timeout DUR (with --wait)
    bool dry_run = false;               ///< --dry-run: show the plan, change nothing
    bool prune = false;                 ///< --prune: deprovision matching runtimes in no file
    std::vector<std::string> selectors; ///< -l SELECTOR (repeatable; with --prune)
};
int cmd_apply(Context& ctx, const ApplyArgs& args);
/// What `kprov adopt` is asked.
struct AdoptArgs {
    std::string shoot_name;          ///< SHOOT_NAME, in the configured Gardener project
    std::optional<std::string> file; ///< -f FILE: the runtime file the shoot must match
    bool dry_run = false;            ///< --dry-run: show the runtime file and the difference
};
/// adopt SHOOT_NAME: a shoot kprov did not create becomes a runtime (commands_adopt.cpp).
int cmd_adopt(Context& ctx, const AdoptArgs& args);
/// protect and unprotect RUNTIME_ID, or -l SELECTOR.
int cmd_protect(Context& ctx, const ReadArgs& args, bool is_protected);
int cmd_kubeconfig(Context& ctx, const ReadArgs& args);
int cmd_completion(Context& ctx, const std::string& shell);
/// The hidden `kprov __complete runtime|operation PREFIX` the completion scripts call: ids
/// from the store, one per line; nothing (and exit 0) when the store cannot be read. With
/// `describe` "zsh" or "fish", each id is followed by a description in that shell's syntax
/// (zsh's "id:text", fish's "id<TAB>text"): a runtime's name and shoot, an operation's type,
/// state and runtime name.
int cmd_complete_ids(Context& ctx, const std::string& kind, const std::string& prefix,
                     const std::string& describe = {});
int cmd_serve(Context& ctx, const ServeArgs& args);

} // namespace kprov::cli
