#pragma once
// The command line as data: every command and option that command_table.cpp registers, read back
// from the parser itself. Completion scripts are generated from it, and tests check the man page
// and the completion files against it, so none of them can drift from the parser.

#include <string>
#include <vector>

namespace kprov::cli {

/// What the shell should offer for an option's value or a positional argument.
enum class ValueKind {
    None,        ///< a flag: no value
    Text,        ///< anything
    File,        ///< a path
    Choice,      ///< one of OptionModel::choices
    RuntimeId,   ///< a runtime id from the store
    OperationId, ///< an operation id from the store
};

struct OptionModel {
    std::vector<std::string> names; ///< "-o", "--output"; a positional has its name ("RUNTIME_ID")
    bool positional = false;
    bool required = false;
    ValueKind value = ValueKind::None;
    std::vector<std::string> choices; ///< for ValueKind::Choice
    std::string value_name;           ///< "FILE", "DUR", ... ("" for flags)
    std::string description;
};

struct CommandModel {
    std::string name;
    std::string summary;
    std::vector<OptionModel> options; ///< the command's own options and positionals
};

struct CliModel {
    std::vector<OptionModel> global; ///< options valid with every command (and --help)
    std::vector<CommandModel> commands;
};

/// The registered command line. Never throws.
CliModel cli_model();

/// The completion script for `shell` ("bash", "zsh" or "fish"), as completions/ holds it; ""
/// for another shell. Runtime and operation ids are completed by
/// calling `kprov __complete runtime|operation PREFIX` (the store's ids with that prefix).
std::string completion_script(const CliModel& model, const std::string& shell);

/// The shells completion_script knows.
std::vector<std::string> completion_shells();

} // namespace kprov::cli
