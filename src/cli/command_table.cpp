// The command table (command_table.hpp): every command's options, footers and run function.

#include "cli/command_table.hpp"

#include "cli/cli_model.hpp"
#include "cli/help_text.hpp"
#include "cli/render.hpp"
#include "engine/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/util/duration.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>

namespace kprov::cli {
namespace {

void add_global_options(CLI::App& app, GlobalOptions& g) {
    app.add_option("--store", g.store,
                   "State store URL: sqlite:///abs/path.db, sqlite://relative.db or "
                   "postgres://user:pw@host:port/db (env KPROV_STORE)")
        ->type_name("URL")
        ->group("Global options");
    app.add_option("--config", g.config_file,
                   "Config file (default $XDG_CONFIG_HOME/kprov/config.yaml)")
        ->type_name("FILE")
        ->group("Global options");
    app.add_option("--gardener-kubeconfig", g.gardener_kubeconfig,
                   "Kubeconfig of the Gardener API (env APP_GARDENER_KUBECONFIG_PATH)")
        ->type_name("PATH")
        ->group("Global options");
    app.add_option("--gardener-project", g.gardener_project,
                   "Gardener project; shoots live in garden-<project> (env APP_GARDENER_PROJECT)")
        ->type_name("NAME")
        ->group("Global options");
    app.add_option("--tenant", g.tenant, "Tenant (global account) of the request")
        ->type_name("ID")
        ->group("Global options");
    app.add_option("--sub-account", g.sub_account, "Sub-account of the request")
        ->type_name("ID")
        ->group("Global options");
    app.add_option("-o,--output", g.output, "Output format: table, wide, json, yaml or name")
        ->check(CLI::IsMember({"table", "wide", "json", "yaml", "name"}))
        ->type_name("FORMAT")
        ->group("Global options");
    app.add_option("--log-level", g.log_level,
                   "Log level: trace, debug, info, warn, error (env APP_LOG_LEVEL)")
        ->type_name("LEVEL")
        ->group("Global options");
    app.add_option("--log-format", g.log_format,
                   "Log lines of watch and serve: text or json (env KPROV_LOG_FORMAT)")
        ->check(CLI::IsMember({"text", "json"}))
        ->type_name("FORMAT")
        ->group("Global options");
    app.add_flag("-q,--quiet", g.quiet, "Print results only: no progress, no logs")
        ->group("Global options");
    app.add_flag("-v,--verbose", g.verbose, "More detail (repeatable)")->group("Global options");
}

// Below `kprov --help`: every exit code, then what holds for every command.
std::string global_footer() {
    return exit_status_text(all_exit_codes()) +
           "  (plan and upgrade-shoot --dry-run with --detailed-exitcode: 2 means there are "
           "changes, and every error exits 1)\n\n"
           "Global options may stand before or after the command. Durations are Go-style: 90s, "
           "5m, 1h30m.\nSee kprov(1) for every command, option and environment variable.";
}

const char* k_cancel_footer =
    "Ends the operation as Failed with the message \"cancelled by USER@HOST\" (also in kprov "
    "history), releases its lease and changes nothing in Gardener: a shoot being created or "
    "deleted goes on there. The runtime can then be deprovisioned, or the request retried.\n"
    "Refused (exit 5, naming the holder) while another process holds the operation's lease; "
    "stop that process first, or add --force.";

const char* k_wait_footer =
    "Drives the operation in this process (as --wait does): it runs the operation's stages, "
    "following Gardener until the operation ends, and records each step in the store. Without "
    "`kprov wait`, `kprov watch` or `kprov serve` on this store nobody does that bookkeeping. "
    "When another process drives the operation, wait follows it. Given a runtime, wait drives "
    "its operation in progress; when it has none, wait says so and answers with its last "
    "operation, as `kprov wait` of that operation would.";

const char* k_runtime_id_help =
    "The runtime: its id, a unique id prefix (8 characters or more), its name or its shoot's name";
const char* k_operation_id_help =
    "The operation: its id or a unique id prefix (8 characters or more)";

// -l SELECTOR of list and of the commands that act on every runtime it selects.
void add_selector(CLI::App& cmd, std::vector<std::string>& selectors, const std::string& what) {
    cmd.add_option("-l,--selector", selectors,
                   what + ", as kubectl's: key=value, key!=value, key, !key, key in (a,b), key "
                          "notin (a,b), joined by ',' (repeatable: all must match)")
        ->type_name("SELECTOR")
        ->allow_extra_args(false);
}

// The operation commands that also act on every runtime a selector matches (commands_bulk.cpp).
bool takes_selector(const std::string& name) {
    return name == "deprovision" || name == "upgrade-shoot" || name == "hibernate" ||
           name == "wake-up";
}

const char* k_bulk_footer =
    "With -l SELECTOR: every live runtime whose labels match, at most 16 started at a time and, "
    "with --wait, all waited for at once (one progress line per runtime and change on stderr); "
    "one result per runtime on stdout (-o json: an array of OperationStatus objects) and a "
    "summary on stderr. deprovision -l asks once for all (--yes) and refuses each protected "
    "runtime. Exit 0 only when every operation succeeded (without --wait: started); 3 when one "
    "failed, 1 when a runtime was refused or hit an error, 5 when the only refusals were "
    "operations in progress, 4 at --timeout. A selector matching nothing exits 0, saying so.";

// The options of the operation commands, as the CLI contract lists them.
void add_operation_options(CLI::App& cmd, const std::string& name, OperationArgs& args) {
    if (takes_selector(name)) {
        // RUNTIME_ID or -l, exactly one: the command says so (CLI11 cannot).
        cmd.add_option("RUNTIME_ID", args.runtime_id, k_runtime_id_help);
        add_selector(cmd, args.selectors,
                     "Instead of RUNTIME_ID: every runtime whose labels match SELECTOR, in "
                     "parallel");
        cmd.footer(k_bulk_footer);
    } else if (name != "provision") {
        cmd.add_option("RUNTIME_ID", args.runtime_id, k_runtime_id_help)->required();
    }
    if (name == "provision" || name == "upgrade-shoot" || name == "upgrade-kyma")
        cmd.add_option("-f,--file", args.file,
                       name == "provision"       ? "Runtime file (YAML or JSON; - for stdin)"
                       : name == "upgrade-shoot" ? "Upgrade file (YAML or JSON; - for stdin)"
                                                 : "Kyma file: {kymaConfig: ...} (YAML or JSON; "
                                                   "- for stdin)")
            ->type_name("FILE")
            ->required();
    if (name == "rollback-kyma")
        return; // a store change: nothing to wait for
    cmd.add_flag("--wait", args.wait,
                 "Drive the operation to its end in this process, showing progress; exit 0 on "
                 "success, 3 on failure. Without it, the operation runs here until its first "
                 "wait on Gardener");
    cmd.add_option("--timeout", args.timeout,
                   "Stop driving after DUR, with --wait (exit 4; Gardener goes on, kprov wait "
                   "OPERATION_ID finishes the bookkeeping)")
        ->type_name("DUR");
    if (name == "provision" || name == "upgrade-shoot")
        cmd.add_flag("--dry-run", args.dry_run,
                     "Validate and show what would happen; change nothing");
    else if (takes_selector(name))
        cmd.add_flag("--dry-run", args.dry_run,
                     "List the runtimes and what would be done to each; change nothing");
    if (name == "upgrade-shoot")
        cmd.add_flag("--detailed-exitcode", args.detailed_exitcode,
                     "With --dry-run: exit 0 for no change, 2 for changes, 1 for any error");
    if (name == "deprovision")
        cmd.add_flag("-y,--yes", args.yes,
                     "Do not ask for confirmation (required when there is no terminal to ask on)");
}

void configure_plan(CLI::App& cmd, Parsed& p) {
    cmd.add_option("-f,--file", p.plan.file,
                   "Runtime file (YAML or JSON ProvisionRuntimeInput; - for stdin), or with "
                   "RUNTIME_ID an upgrade file (UpgradeShootInput)")
        ->type_name("FILE")
        ->required();
    cmd.add_option("RUNTIME_ID", p.plan.runtime_id,
                   "Plan an upgrade of this runtime instead of a provisioning");
    cmd.add_flag("--detailed-exitcode", p.plan.detailed_exitcode,
                 "Exit 0 for no change, 2 for changes, 1 for any error (as terraform)");
    cmd.footer("Without RUNTIME_ID, prints the Shoot provision would create (runtime and "
               "operation ids as placeholders) and contacts nothing; with OIDC on the current "
               "Gardener API, a v1 List of the structured-authentication ConfigMap and the "
               "Shoot. Output: -o yaml (default) or -o json.\n"
               "With RUNTIME_ID, reads the runtime's live shoot from Gardener and shows what "
               "upgrade-shoot would change: the shoot, the cluster-admin bindings of its "
               "administrators and the stored configuration; warnings (such as a "
               "kubernetesVersion lower than the shoot's, which stays) on stderr. -o json "
               "prints the whole new Shoot instead.");
}

void configure_wait(CLI::App& cmd, Parsed& p) {
    cmd.add_option("OPERATION_ID", p.wait.operation_id,
                   "The operation: its id or a unique id prefix (8 characters or more); or a "
                   "runtime (its id, id prefix, name or shoot's name): its operation in progress")
        ->required();
    cmd.add_option("--timeout", p.wait.timeout,
                   "Stop after DUR (exit 4; Gardener goes on, kprov wait again finishes the "
                   "bookkeeping)")
        ->type_name("DUR");
    cmd.footer(k_wait_footer);
}

void configure_cancel(CLI::App& cmd, Parsed& p) {
    cmd.add_option("OPERATION_ID", p.cancel.operation_id, k_operation_id_help)->required();
    cmd.add_flag("--force", p.cancel.force,
                 "Cancel even while another process holds the operation's lease");
    cmd.footer(k_cancel_footer);
}

void configure_watch(CLI::App& cmd, Parsed& p) {
    cmd.add_option("--workers", p.watch.workers, "Worker threads (default KPROV_WORKERS, 4)")
        ->type_name("N")
        ->check(CLI::Range(1, 1024));
    cmd.add_option("--metrics-address", p.watch.metrics_address,
                   "Listen address host:port of /metrics, /healthz and /readyz (default "
                   "APP_METRICS_ADDRESS, 127.0.0.1:9000; \"\" serves none)");
    cmd.footer("Prints the metrics URL on stdout once listening; logs go to stderr. Stops "
               "gracefully on SIGINT or SIGTERM.");
}

void configure_serve(CLI::App& cmd, Parsed& p) {
    cmd.add_option("--workers", p.serve.workers, "Worker threads (default KPROV_WORKERS, 4)")
        ->check(CLI::Range(1, 1024));
    cmd.add_option("--address", p.serve.address,
                   "API listen address host:port (default APP_ADDRESS, 127.0.0.1:3000; port 0 "
                   "picks a free one)");
    cmd.add_option("--metrics-address", p.serve.metrics_address,
                   "Metrics listen address host:port (default APP_METRICS_ADDRESS, "
                   "127.0.0.1:9000)");
    cmd.add_flag("--insecure-no-auth", p.serve.insecure_no_auth,
                 "Listen without KPROV_API_TOKEN on an address other hosts can reach "
                 "(KPROV_INSECURE_NO_AUTH); refused otherwise");
    cmd.footer("Prints the API and metrics URLs on stdout once listening; logs go to stderr. "
               "Stops gracefully on SIGINT or SIGTERM.\n"
               "On a SQLite store, a status query repeated with the same body and headers gets "
               "the answer it got before until its runtime changes (KPROV_ANSWER_CACHE_MB, 0: "
               "off).\n"
               "Without KPROV_API_TOKEN, serve listens only on a loopback address (and answers "
               "only requests whose Host names it), unless --insecure-no-auth says something in "
               "front of it authenticates.");
}

void configure_migrate(CLI::App& cmd, Parsed& p) {
    cmd.add_flag("--re-encrypt", p.migrate.re_encrypt,
                 "Then rewrite every secret still in the original's AES-CFB format or in "
                 "plaintext in the authenticated one (needs the key)");
    cmd.add_flag("--dry-run", p.migrate.dry_run,
                 "Count the secrets --re-encrypt would rewrite, and write nothing")
        ->needs(cmd.get_option("--re-encrypt"));
    cmd.footer("Without --re-encrypt, reads and writes no secret, so it runs without "
               "APP_DATABASE_SECRET_KEY on PostgreSQL and SQLite alike, and creates no key "
               "file. --re-encrypt works in batches beside running workers, and a rerun "
               "continues where one stopped; then KPROV_REFUSE_LEGACY_SECRETS=true makes any "
               "old secret written later an error to read.");
}

void add_runtime_id(CLI::App& cmd, Parsed& p) {
    cmd.add_option("RUNTIME_ID", p.read.id, k_runtime_id_help)->required();
}

void configure_status(CLI::App& cmd, Parsed& p) {
    add_runtime_id(cmd, p);
    cmd.add_flag("--live", p.read.live,
                 "Also show the shoot as Gardener has it now and where it differs from the "
                 "store (exit 1 when Gardener cannot be asked)");
    cmd.footer("Asks Gardener (3 s at most) whether the cluster is hibernated, and says when "
               "it could not ask; --live waits up to 10 s and shows Gardener's last operation, "
               "the shoot's generation and the drift: the shoot missing or not this runtime's, "
               "hibernation other than kprov's last hibernate or wake-up left it, a generation "
               "Gardener has not observed, a failed Gardener operation, another Kubernetes "
               "version. -o json adds it all as the member \"gardener\" (drift in "
               "gardener.drift) and fills hibernationStatus.");
}

void configure_kubeconfig(CLI::App& cmd, Parsed& p) {
    add_runtime_id(cmd, p);
    cmd.add_option("--expiration", p.read.expiration,
                   "How long the kubeconfig stays valid, DUR (default " +
                       format_duration(engine::EngineOptions{}.admin_kubeconfig_expiration) +
                       ", at least 10m)")
        ->type_name("DUR");
    cmd.footer("A hibernated cluster's kubeconfig is printed all the same, with a warning on "
               "stderr: it works once the cluster is awake again (kprov wake-up RUNTIME_ID "
               "--wait).");
}

void configure_protect(CLI::App& cmd, Parsed& p) {
    cmd.add_option("RUNTIME_ID", p.read.id, k_runtime_id_help);
    add_selector(cmd, p.read.selectors,
                 "Instead of RUNTIME_ID: every runtime whose labels match SELECTOR");
    cmd.add_flag("--dry-run", p.read.dry_run,
                 "List the runtimes and what would be done to each; change nothing");
    cmd.footer("A protected runtime's deprovisioning is refused, by `kprov deprovision` and by "
               "the API's deprovisionRuntime, until it is unprotected. Both are recorded in "
               "the runtime's events (kprov history); nothing is sent to Gardener.");
}

const char* k_apply_files_help =
    "Runtime file, or a directory whose *.yaml, *.yml and *.json files are read (not its "
    "subdirectories); repeatable";

void configure_diff(CLI::App& cmd, Parsed& p) {
    cmd.add_option("RUNTIME_ID", p.diff.runtime_id, k_runtime_id_help);
    cmd.add_flag("--all", p.diff.all, "Every runtime that is not deprovisioned");
    cmd.add_option("-f,--file", p.diff.files,
                   std::string(k_apply_files_help) + ": show what kprov apply would do instead")
        ->type_name("FILE|DIR")
        ->allow_extra_args(false);
    cmd.footer("Reads each runtime's shoot from Gardener and compares it with the shoot kprov "
               "built from the runtime's stored configuration, only where kprov sets a field: "
               "what Gardener defaults or owns, the operation annotations and versions "
               "Gardener's auto-update raised are not drift. Changes nothing. A shoot missing "
               "in Gardener counts as a difference.\n"
               "With -f, prints what `kprov apply -f` would do (as apply --dry-run, with each "
               "changed field's values) and changes nothing: exit 0 when apply would change "
               "nothing, 6 when it would, 1 when it would refuse a runtime or cannot plan.");
}

void configure_apply(CLI::App& cmd, Parsed& p) {
    cmd.add_option("-f,--file", p.apply.files, k_apply_files_help)
        ->type_name("FILE|DIR")
        ->required()
        ->allow_extra_args(false);
    cmd.add_flag("--wait", p.apply.wait,
                 "Run every runtime's steps to their end in this process, one progress line per "
                 "step on stderr; without it each operation runs here until its first wait on "
                 "Gardener, and a runtime's later operations are left for the next apply");
    cmd.add_option("--timeout", p.apply.timeout,
                   "Stop driving after DUR, with --wait (exit 4; Gardener goes on)")
        ->type_name("DUR");
    cmd.add_flag("--dry-run", p.apply.dry_run, "Show what apply would do; change nothing");
    cmd.add_flag("--prune", p.apply.prune,
                 "Also deprovision the runtimes of the project that match -l and are in no "
                 "file (never a protected one)");
    cmd.add_option("-l,--selector", p.apply.selectors,
                   "With --prune: the runtimes it may deprovision, as kubectl's selectors "
                   "(key=value, key!=value, key, !key, key in (a,b), key notin (a,b); "
                   "repeatable: all must match)")
        ->type_name("SELECTOR")
        ->allow_extra_args(false);
    cmd.footer(
        "Each file is a runtime file; its runtime is the live runtime of its shoot name "
        "(gardenerConfig.name) in the Gardener project. None: provision it. One that differs: "
        "the operations that make it so, in this order: upgrade-shoot (what UpgradeShootInput "
        "can change), hibernate or wake-up (lifecycle.hibernated), protect or unprotect "
        "(lifecycle.protected), lifetime (lifecycle.lifetime, counted from the runtime's "
        "creation). A lifecycle field the file leaves out is left as it is. A change no "
        "operation can make (region, provider, zones, network ranges, labels, ...) is refused, "
        "naming the field: the runtime must be replaced (deprovision it, then apply again).\n"
        "Runtimes run in parallel (8 at a time), each runtime's steps one after the other. One "
        "line per runtime on stdout: created, updated: FIELDS, hibernated, woken up, "
        "protected, unprotected, lifetime set, unchanged, refused: WHY, pruned, kept: "
        "protected; -o json: an array of {file, shoot, runtimeID, action, fields, operations, "
        "error}. Applying the same files again changes nothing and sends Gardener nothing.\n"
        "Exit 1 when a runtime was refused or a step could not start, 3 when an operation "
        "failed, 4 at --timeout, 5 when a runtime was left alone because an operation of it "
        "is in progress (without --wait), else 0.");
}

void configure_adopt(CLI::App& cmd, Parsed& p) {
    cmd.add_option("SHOOT_NAME", p.adopt.shoot_name,
                   "The shoot, in the configured Gardener project, that kprov did not create")
        ->required();
    cmd.add_option("-f,--file", p.adopt.file,
                   "Runtime file (YAML or JSON; - for stdin) that the shoot must match; it also "
                   "gives the runtime's name, description, labels and administrators")
        ->type_name("FILE");
    cmd.add_flag("--dry-run", p.adopt.dry_run,
                 "Print the runtime file (-o yaml or json) and the difference; change nothing "
                 "(exit 6 when they differ)");
    cmd.footer("Reads the shoot back into a runtime file (or takes -f FILE), builds the shoot "
               "from it as provision would, and compares the two where kprov sets a field, as "
               "kprov diff does. The shoot must be what the file builds: a field kprov's "
               "builder cannot produce (several worker pools, another provider, extensions "
               "kprov does not set, OIDC in a structured-authentication ConfigMap, ...) or a "
               "difference from FILE is refused, each field named; change the runtime with "
               "upgrade-shoot after adopting. Refused too: a missing shoot, one being deleted, "
               "one that is a kprov runtime's already (runtime-id annotation, or in the store). "
               "Adopting gives the shoot kprov's labels and runtime-id annotations and stores "
               "the runtime with a succeeded provisioning operation and an Adopt event "
               "(kprov history); deprovisioning it later deletes the shoot. The tenant is the "
               "shoot's account label (else --tenant).");
}

void configure_list(CLI::App& cmd, Parsed& p) {
    cmd.add_option("--state", p.read.state,
                   "Only runtimes whose last operation is in state S: InProgress, Succeeded or "
                   "Failed")
        ->type_name("S");
    cmd.add_flag("-a,--all", p.read.all, "Include deprovisioned (deleted) runtimes");
    add_selector(cmd, p.read.selectors, "Only runtimes whose labels match SELECTOR");
    cmd.add_flag("--expired", p.read.expired,
                 "Only runtimes whose lifetime has passed (protected ones too: the workers keep "
                 "those)");
    cmd.add_flag("--deprecated", p.read.deprecated,
                 "Only runtimes whose Kubernetes version their CloudProfile classifies deprecated "
                 "or expired, or gives an expiry date (Gardener force-upgrades them then; asks "
                 "Gardener)");
    cmd.add_option("--limit", p.read.limit,
                   "Show at most N runtimes, newest first (default 100; 0: all)")
        ->type_name("N")
        ->check(CLI::Validator(
            [](const std::string& value) {
                return value.find_first_not_of("0123456789") == std::string::npos
                           ? std::string()
                           : "\"" + value + "\" is not a count (expected 0 or more)";
            },
            ""));
}

void configure_completion(CLI::App& cmd, Parsed& p) {
    cmd.add_option("SHELL", p.shell, "bash, zsh or fish")
        ->required()
        ->check(CLI::IsMember(completion_shells()));
    cmd.footer("bash: source <(kprov completion bash); zsh: kprov completion zsh > "
               "\"${fpath[1]}/_kprov\"; fish: kprov completion fish > "
               "~/.config/fish/completions/kprov.fish");
}

// Every command, in the order `kprov --help` lists them.
constexpr Command k_commands[] = {
    {"provision", "Provision a runtime from a runtime file",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "provision", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_provision(ctx, p.operation);
     }},
    {"deprovision", "Deprovision a runtime",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "deprovision", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_deprovision(ctx, p.operation);
     }},
    {"upgrade-shoot", "Upgrade a runtime's shoot from an upgrade file",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "upgrade-shoot", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_upgrade_shoot(ctx, p.operation);
     }},
    {"hibernate", "Hibernate a runtime's cluster",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "hibernate", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_hibernate(ctx, p.operation);
     }},
    {"wake-up", "Wake up a hibernated runtime's cluster",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "wake-up", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_wake_up(ctx, p.operation);
     }},
    {"upgrade-kyma", "Upgrade a runtime's Kyma from a Kyma file (UpgradeRuntimeInput)",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "upgrade-kyma", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_upgrade_kyma(ctx, p.operation);
     }},
    {"rollback-kyma", "Make the Kyma config before the last upgrade active again (store only)",
     [](CLI::App& cmd, Parsed& p) { add_operation_options(cmd, "rollback-kyma", p.operation); },
     [](Context& ctx, const Parsed& p) {
         return cmd_rollback_kyma(ctx, p.operation);
     }},
    {"protect", "Protect a runtime against deprovisioning (store only)", configure_protect,
     [](Context& ctx, const Parsed& p) {
         return cmd_protect(ctx, p.read, true);
     }},
    {"unprotect", "Allow a protected runtime to be deprovisioned again (store only)",
     configure_protect,
     [](Context& ctx, const Parsed& p) {
         return cmd_protect(ctx, p.read, false);
     }},
    {"status", "Show a runtime, its configuration and its last operation", configure_status,
     [](Context& ctx, const Parsed& p) {
         return cmd_status(ctx, p.read);
     }},
    {"operation", "Show one operation",
     [](CLI::App& cmd, Parsed& p) {
         cmd.add_option("OPERATION_ID", p.read.id, k_operation_id_help)->required();
     },
     [](Context& ctx, const Parsed& p) {
         return cmd_operation(ctx, p.read);
     }},
    {"list", "List runtimes with their last operation", configure_list,
     [](Context& ctx, const Parsed& p) {
         return cmd_list(ctx, p.read);
     }},
    {"cloud-profile",
     "Show the landscape: the CloudProfiles, or one profile's versions, types, "
     "regions, images and volume types",
     [](CLI::App& cmd, Parsed& p) {
         cmd.add_option("NAME", p.cloud_profile.name, "A CloudProfile (no NAME: list them all)");
         cmd.add_flag("--namespaced", p.cloud_profile.namespaced,
                      "NAME is a NamespacedCloudProfile of the project");
         cmd.footer("Classifications are as Gardener computes them now (from classification "
                    "and expirationDate, or lifecycle stages): preview versions are used only "
                    "when named exactly, a minor such as 1.34 becomes its highest supported "
                    "patch, and Gardener force-upgrades shoots off a version when it expires.");
     },
     [](Context& ctx, const Parsed& p) {
         return cmd_cloud_profile(ctx, p.cloud_profile);
     }},
    {"history", "Show every operation of a runtime with its stage transitions", add_runtime_id,
     [](Context& ctx, const Parsed& p) {
         return cmd_history(ctx, p.read);
     }},
    {"kubeconfig", "Print an admin kubeconfig for a runtime (requested from Gardener)",
     configure_kubeconfig,
     [](Context& ctx, const Parsed& p) {
         return cmd_kubeconfig(ctx, p.read);
     }},
    {"plan", "Show the Shoot that provision would create, or the change an upgrade would make",
     configure_plan,
     [](Context& ctx, const Parsed& p) {
         return cmd_plan(ctx, p.plan);
     }},
    {"apply", "Make runtimes what runtime files say (desired state)", configure_apply,
     [](Context& ctx, const Parsed& p) {
         return cmd_apply(ctx, p.apply);
     }},
    {"diff", "Show drift of live shoots, or with -f what apply would change", configure_diff,
     [](Context& ctx, const Parsed& p) {
         return cmd_diff(ctx, p.diff);
     }},
    {"adopt", "Take a shoot that kprov did not create into the store as a runtime", configure_adopt,
     [](Context& ctx, const Parsed& p) {
         return cmd_adopt(ctx, p.adopt);
     }},
    {"wait", "Drive an operation to its end in this process, showing progress", configure_wait,
     [](Context& ctx, const Parsed& p) {
         return cmd_wait(ctx, p.wait);
     }},
    {"cancel", "End an operation in progress as Failed, leaving Gardener as it is",
     configure_cancel,
     [](Context& ctx, const Parsed& p) {
         return cmd_cancel(ctx, p.cancel);
     }},
    {"watch", "Run the engine's workers until SIGINT/SIGTERM", configure_watch,
     [](Context& ctx, const Parsed& p) {
         return cmd_watch(ctx, p.watch);
     }},
    {"serve", "Serve the GraphQL API, with the engine's workers, metrics and health",
     configure_serve,
     [](Context& ctx, const Parsed& p) {
         return cmd_serve(ctx, p.serve);
     }},
    {"migrate", "Create or upgrade the store's schema", configure_migrate,
     [](Context& ctx, const Parsed& p) {
         return cmd_migrate(ctx, p.migrate);
     }},
    {"config", "Show the effective configuration and where each value came from",
     [](CLI::App& cmd, Parsed& p) {
         auto* reference = cmd.add_flag("--reference", p.config_reference,
                                        "Print every setting (variable, key, default, meaning) "
                                        "as a Markdown table instead");
         cmd.add_flag("--init", p.config_init,
                      "Print a config file to start from (every setting, commented out, with "
                      "its default and meaning), as examples/config.yaml holds it")
             ->excludes(reference);
     },
     [](Context& ctx, const Parsed& p) {
         return p.config_init        ? cmd_config_init(ctx)
                : p.config_reference ? cmd_config_reference(ctx)
                                     : cmd_config(ctx);
     }},
    {"completion", "Print a shell completion script (bash, zsh, fish)", configure_completion,
     [](Context& ctx, const Parsed& p) {
         return cmd_completion(ctx, p.shell);
     }},
    {"version", "Print kprov's version",
     [](CLI::App& cmd, Parsed& p) {
         cmd.add_flag("--long", p.long_version, "Also show the effective configuration");
     },
     [](Context& ctx, const Parsed& p) {
         return cmd_version(ctx, p.long_version || p.global.verbose > 0);
     }},
};

} // namespace

std::span<const Command> commands() {
    return k_commands;
}

// Registers every command and option on `app`; parsing fills `p` and sets p.command.
void build_app(CLI::App& app, Parsed& p) {
    app.require_subcommand(1);
    app.fallthrough();
    app.set_help_all_flag("--help-all", "Show help for every command");
    add_global_options(app, p.global);
    for (const Command& command : k_commands) {
        CLI::App* cmd = app.add_subcommand(command.name, command.summary);
        command.configure(*cmd, p);
        cmd->footer(command_footer(command.name, cmd->get_footer()));
        cmd->callback([&p, &command] { p.command = &command; });
    }
    // Set last: a subcommand copies its parent's footer when it is created.
    app.footer(global_footer());
}

} // namespace kprov::cli
