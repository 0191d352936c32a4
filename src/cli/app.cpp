// The one place errors become exit codes: run() parses with the command table
// (command_table.cpp) and maps every error a command throws to its exit code.

#include "cli/app.hpp"

#include "cli/command_table.hpp"
#include "cli/context.hpp"
#include "cli/pre_parse.hpp"
#include "cli/render.hpp"
#include "engine/error.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ostream>

namespace kprov::cli {
namespace {

// Every problem of an input on its own line, under one heading naming the input.
int report_invalid(std::ostream& err, const ValidationError& e) {
    const auto& problems = e.problems();
    std::string heading =
        e.source().empty() ? std::string("invalid input") : e.source() + " is invalid";
    err << "kprov: error: " << visible(heading);
    if (problems.size() > 1)
        err << " (" << problems.size() << " problems)";
    err << ":\n";
    for (const auto& p : problems)
        err << "  " << visible((p.path.empty() ? "" : p.path + ": ") + p.message, true) << '\n';
    return k_exit_usage;
}

} // namespace

int report(std::ostream& err, const std::string& message, int code) {
    err << "kprov: error: " << visible(message, true) << '\n';
    return code;
}

int run(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
    const std::vector<std::string> args = normalized(given);
    if (command_word(args) == "__complete")
        return complete_ids(args, out);
    CLI::App app{k_description, "kprov"};
    Parsed parsed;
    build_app(app, parsed);

    // With --detailed-exitcode, 2 means "there are changes"; a usage error exits 1 instead.
    const bool detailed = std::find(args.begin(), std::find(args.begin(), args.end(), "--"),
                                    "--detailed-exitcode") != args.end();
    const int usage = detailed ? k_exit_error : k_exit_usage;
    if (const auto refused = refuse_unknown_command(args, err))
        return usage;
    try {
        // CLI11's parse(std::vector<std::string>&) expects the arguments last first: it pops
        // them off the back as it consumes them (its argc/argv overload reverses them itself).
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::ExtrasError& e) {
        return report(err, unexpected_arguments(args, e.what()) + " (see kprov --help)", usage);
    } catch (const CLI::ParseError& e) {
        return report(err, std::string(e.what()) + " (see kprov --help)", usage);
    }

    Context ctx(parsed.global, out, err);
    try {
        return parsed.command ? parsed.command->run(ctx, parsed) : usage;
    } catch (const ValidationError& e) {
        report_invalid(err, e);
        return usage;
    } catch (const InputFileError& e) {
        return report(err, e.what(), usage);
    } catch (const UsageError& e) {
        return report(err, std::string(e.what()) + " (see kprov --help)", usage);
    } catch (const OperationInProgress& e) {
        return report(err, e.what(), k_exit_in_progress);
    } catch (const Error& e) {
        return report(err, e.what(), k_exit_error);
    } catch (const std::exception& e) {
        return report(err, std::string("internal error: ") + e.what(), k_exit_error);
    }
}

} // namespace kprov::cli
