#pragma once
// The command table: every command of the CLI contract (its name, summary, options, footer and
// what it runs) and what parsing fills in. The table is the only place a command is named;
// run() (app.cpp) parses with it and cli_model() (cli_model.cpp) reads it back. Names CLI11's
// App but does not include CLI11 (it costs seconds per translation unit).

#include "cli/context.hpp"

#include <span>

namespace CLI {
class App;
} // namespace CLI

namespace kprov::cli {

// What parsing a command line fills in: the global options, the chosen command, and the
// arguments of every command (only the chosen command's are set).
struct Command;
struct Parsed {
    GlobalOptions global;
    const Command* command = nullptr;
    bool long_version = false;
    bool config_reference = false;
    bool config_init = false;
    std::string shell;
    PlanArgs plan;
    OperationArgs operation;
    WaitArgs wait;
    CancelArgs cancel;
    WatchArgs watch;
    ServeArgs serve;
    MigrateArgs migrate;
    ReadArgs read;
    DiffArgs diff;
    ApplyArgs apply;
    AdoptArgs adopt;
    CloudProfileArgs cloud_profile;
};

// One command of the CLI contract: its name and summary as `kprov --help` lists them, how it
// adds its options and footer to its CLI11 subcommand, and what it runs once parsed. The table
// below is the only place a command is named (ninja's tool table is the model).
struct Command {
    const char* name;
    const char* summary;
    void (*configure)(CLI::App& cmd, Parsed& p);
    int (*run)(Context& ctx, const Parsed& p);
};

/// Every command, in the order `kprov --help` lists them.
std::span<const Command> commands();

/// Registers every command and option on `app`; parsing fills `p` and sets p.command.
void build_app(CLI::App& app, Parsed& p);

/// What kprov is, above `kprov --help`.
inline constexpr const char* k_description =
    "kprov provisions, upgrades, hibernates and deprovisions Kubernetes clusters (runtimes) "
    "through Gardener.";

} // namespace kprov::cli
