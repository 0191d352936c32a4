// The command table and the one place errors become exit codes. CLI11 is included here only:
// it costs seconds per translation unit.

#include "cli/app.hpp"

#include "cli/context.hpp"
#include "engine/error.hpp"
#include "engine/text.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>

namespace kprov::cli {
namespace {

struct CommandInfo {
    const char* name;
    const char* summary;
};

// Every command of the CLI contract, in the order `kprov --help` lists them.
constexpr CommandInfo k_commands[] = {
    {"provision", "Provision a runtime from a runtime file"},
    {"deprovision", "Deprovision a runtime"},
    {"upgrade-shoot", "Upgrade a runtime's shoot from an upgrade file"},
    {"hibernate", "Hibernate a runtime's cluster"},
    {"wake-up", "Wake up a hibernated runtime's cluster"},
    {"status", "Show a runtime, its configuration and its last operation"},
    {"operation", "Show one operation"},
    {"list", "List runtimes with their last operation"},
    {"history", "Show every operation of a runtime with its stage transitions"},
    {"kubeconfig", "Print an admin kubeconfig for a runtime (requested from Gardener)"},
    {"plan", "Show the Shoot that provision would create, or the change an upgrade would make"},
    {"wait", "Wait for an operation to end"},
    {"watch", "Run the engine's workers until SIGINT/SIGTERM"},
    {"serve", "Serve the GraphQL API, with the engine's workers, metrics and health"},
    {"migrate", "Create or upgrade the store's schema"},
    {"config", "Show the effective configuration and where each value came from"},
    {"completion", "Print a shell completion script (bash, zsh, fish)"},
    {"version", "Print kprov's version"},
};

void add_global_options(CLI::App& app, GlobalOptions& g) {
    app.add_option("--store", g.store,
                   "State store URL: sqlite:///abs/path.db, sqlite://relative.db or "
                   "postgres://user:pw@host:port/db (env KPROV_STORE)")
        ->group("Global options");
    app.add_option("--config", g.config_file,
                   "Config file (default $XDG_CONFIG_HOME/kprov/config.yaml)")
        ->group("Global options");
    app.add_option("--gardener-kubeconfig", g.gardener_kubeconfig,
                   "Kubeconfig of the Gardener API (env APP_GARDENER_KUBECONFIG_PATH)")
        ->group("Global options");
    app.add_option("--gardener-project", g.gardener_project,
                   "Gardener project; shoots live in garden-<project> (env APP_GARDENER_PROJECT)")
        ->group("Global options");
    app.add_option("--tenant", g.tenant, "Tenant (global account) of the request")
        ->group("Global options");
    app.add_option("--sub-account", g.sub_account, "Sub-account of the request")
        ->group("Global options");
    app.add_option("-o,--output", g.output, "Output format: table, wide, json, yaml or name")
        ->check(CLI::IsMember({"table", "wide", "json", "yaml", "name"}))
        ->group("Global options");
    app.add_option("--log-level", g.log_level,
                   "Log level: trace, debug, info, warn, error (env APP_LOG_LEVEL)")
        ->group("Global options");
    app.add_flag("-q,--quiet", g.quiet, "Print results only: no progress, no logs")
        ->group("Global options");
    app.add_flag("-v,--verbose", g.verbose, "More detail (repeatable)")->group("Global options");
}

const char* k_footer = R"(Exit status:
  0  success
  1  error
  2  usage error
  3  the operation failed
  4  --timeout reached (the operation goes on; `kprov wait OPERATION_ID` resumes waiting)
  130  interrupted while waiting (the operation goes on; `kprov wait OPERATION_ID` resumes)
  5  refused: another operation of that runtime is in progress

Global options may stand before or after the command. Durations are Go-style: 90s, 5m, 1h30m.
See kprov(1) for every command, option and environment variable.)";

int report(std::ostream& err, const std::string& message, int code) {
    err << "kprov: error: " << message << '\n';
    return code;
}

// The options of the operation commands, as the CLI contract lists them.
void add_operation_options(CLI::App& cmd, const std::string& name, OperationArgs& args) {
    if (name != "provision")
        cmd.add_option("RUNTIME_ID", args.runtime_id, "The runtime")->required();
    if (name == "provision" || name == "upgrade-shoot")
        cmd.add_option("-f,--file", args.file,
                       name == "provision" ? "Runtime file (YAML or JSON; - for stdin)"
                                           : "Upgrade file (YAML or JSON; - for stdin)")
            ->required();
    cmd.add_flag("--wait", args.wait,
                 "Drive the operation to its end in this process, showing progress; exit 0 on "
                 "success, 3 on failure");
    cmd.add_option("--timeout", args.timeout,
                   "With --wait: stop waiting after DUR (exit 4; the operation goes on)");
    if (name == "provision" || name == "upgrade-shoot")
        cmd.add_flag("--dry-run", args.dry_run,
                     "Validate and show what would happen; change nothing");
    if (name == "deprovision")
        cmd.add_flag("-y,--yes", args.yes,
                     "Do not ask for confirmation (required when there is no terminal to ask on)");
}

// Every problem of an input on its own line, under one heading naming the input.
int report_invalid(std::ostream& err, const ValidationError& e) {
    const auto& problems = e.problems();
    std::string heading =
        e.source().empty() ? std::string("invalid input") : e.source() + " is invalid";
    err << "kprov: error: " << heading;
    if (problems.size() > 1)
        err << " (" << problems.size() << " problems)";
    err << ":\n";
    for (const auto& p : problems)
        err << "  " << (p.path.empty() ? "" : p.path + ": ") << p.message << '\n';
    return k_exit_usage;
}

// The first word that is neither an option nor an option's value: what the user meant as the
// command. CLI11 alone would call a mistyped command a stray argument.
std::optional<std::string> command_word(const std::vector<std::string>& args) {
    static const std::vector<std::string> k_valued = {"--store",
                                                      "--config",
                                                      "--gardener-kubeconfig",
                                                      "--gardener-project",
                                                      "--tenant",
                                                      "--sub-account",
                                                      "-o",
                                                      "--output",
                                                      "--log-level"};
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--")
            return std::nullopt;
        if (a.empty() || a[0] != '-')
            return a;
        if (std::find(k_valued.begin(), k_valued.end(), a) != k_valued.end())
            ++i; // skip its value
    }
    return std::nullopt;
}

std::optional<int> refuse_unknown_command(const std::vector<std::string>& args, std::ostream& err) {
    const auto word = command_word(args);
    if (!word)
        return std::nullopt;
    std::vector<std::string> names;
    for (const auto& info : k_commands)
        names.emplace_back(info.name);
    if (std::find(names.begin(), names.end(), *word) != names.end())
        return std::nullopt;
    std::string message = "unknown command \"" + *word + "\"";
    if (const auto match = closest_match(*word, names))
        message += "; did you mean \"" + *match + "\"?";
    return report(err, message + " (see kprov --help)", k_exit_usage);
}

} // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    CLI::App app{"kprov provisions, upgrades, hibernates and deprovisions Kubernetes clusters "
                 "(runtimes) through Gardener.",
                 "kprov"};
    app.footer(k_footer);
    app.require_subcommand(1);
    app.fallthrough();
    app.set_help_all_flag("--help-all", "Show help for every command");

    GlobalOptions global;
    add_global_options(app, global);

    std::function<int(Context&)> action;
    bool verbose_version = false;
    bool config_reference = false;
    PlanArgs plan_args;
    OperationArgs op_args;
    WaitArgs wait_args;
    WatchArgs watch_args;

    for (const auto& info : k_commands) {
        CLI::App* cmd = app.add_subcommand(info.name, info.summary);
        const std::string name = info.name;
        if (name == "version") {
            cmd->add_flag("--long", verbose_version, "Also show the effective configuration");
            cmd->callback([&] {
                action = [&](Context& c) {
                    return cmd_version(c, verbose_version || global.verbose > 0);
                };
            });
        } else if (name == "config") {
            cmd->add_flag("--reference", config_reference,
                          "Print every setting (variable, key, default, meaning) as a Markdown "
                          "table instead");
            cmd->callback([&] {
                action = [&](Context& c) {
                    return config_reference ? cmd_config_reference(c) : cmd_config(c);
                };
            });
        } else if (name == "plan") {
            cmd->add_option("-f,--file", plan_args.file,
                            "Runtime file (YAML or JSON ProvisionRuntimeInput; - for stdin), or "
                            "with RUNTIME_ID an upgrade file (UpgradeShootInput)")
                ->required();
            cmd->add_option("RUNTIME_ID", plan_args.runtime_id,
                            "Plan an upgrade of this runtime instead of a provisioning");
            cmd->footer("Prints the Shoot provision would create (runtime and operation ids as "
                        "placeholders), without contacting anything. With OIDC on the current "
                        "Gardener API, a v1 List of the structured-authentication ConfigMap and "
                        "the Shoot. Output: -o yaml (default) or -o json.");
            cmd->callback([&] {
                action = [&](Context& c) {
                    return cmd_plan(c, plan_args);
                };
            });
        } else if (name == "provision" || name == "deprovision" || name == "upgrade-shoot" ||
                   name == "hibernate" || name == "wake-up") {
            add_operation_options(*cmd, name, op_args);
            cmd->callback([&, name] {
                action = [&, name](Context& c) {
                    if (name == "provision")
                        return cmd_provision(c, op_args);
                    if (name == "deprovision")
                        return cmd_deprovision(c, op_args);
                    if (name == "upgrade-shoot")
                        return cmd_upgrade_shoot(c, op_args);
                    if (name == "hibernate")
                        return cmd_hibernate(c, op_args);
                    return cmd_wake_up(c, op_args);
                };
            });
        } else if (name == "wait") {
            cmd->add_option("OPERATION_ID", wait_args.operation_id, "The operation to wait for")
                ->required();
            cmd->add_option("--timeout", wait_args.timeout,
                            "Give up waiting after DUR (exit 4; the operation goes on)");
            cmd->callback([&] {
                action = [&](Context& c) {
                    return cmd_wait(c, wait_args);
                };
            });
        } else if (name == "watch") {
            cmd->add_option("--workers", watch_args.workers,
                            "Worker threads (default KPROV_WORKERS, 4)")
                ->check(CLI::Range(1, 1024));
            cmd->callback([&] {
                action = [&](Context& c) {
                    return cmd_watch(c, watch_args);
                };
            });
        } else if (name == "migrate") {
            cmd->callback([&] {
                action = [](Context& c) {
                    return cmd_migrate(c);
                };
            });
        } else {
            cmd->allow_extras();
            cmd->callback([&, name] {
                action = [name](Context& c) {
                    return report(c.err(),
                                  "command \"" + name +
                                      "\" is not built yet in this version of kprov",
                                  k_exit_error);
                };
            });
        }
    }

    if (const auto refused = refuse_unknown_command(args, err))
        return *refused;
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::ParseError& e) {
        return report(err, std::string(e.what()) + " (see kprov --help)", k_exit_usage);
    }

    Context ctx(global, out, err);
    try {
        return action ? action(ctx) : k_exit_usage;
    } catch (const ValidationError& e) {
        return report_invalid(err, e);
    } catch (const UsageError& e) {
        return report(err, std::string(e.what()) + " (see kprov --help)", k_exit_usage);
    } catch (const OperationInProgress& e) {
        return report(err, e.what(), k_exit_in_progress);
    } catch (const Error& e) {
        return report(err, e.what(), k_exit_error);
    } catch (const std::exception& e) {
        return report(err, std::string("internal error: ") + e.what(), k_exit_error);
    }
}

} // namespace kprov::cli
