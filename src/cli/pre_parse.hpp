#pragma once
// The command line as run() (app.cpp) reads it before and around CLI11: the command word, the
// arguments as CLI11 should see them, unknown commands and options answered with the closest
// known name, and `kprov __complete` for the completion scripts, which never reaches CLI11.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace kprov::cli {

/// The first word that is neither an option nor an option's value: what the user meant as the
/// command; nullopt when there is none (or only after "--").
std::optional<std::string> command_word(const std::vector<std::string>& args);

/// `args` as CLI11 should see them: `-o=json` as `-o json`, `kprov --version` as `kprov version`.
std::vector<std::string> normalized(const std::vector<std::string>& given);

/// Reports a command word that names no command, with a suggestion, and returns exit code 2;
/// nullopt when the command is known or there is none.
std::optional<int> refuse_unknown_command(const std::vector<std::string>& args, std::ostream& err);

/// CLI11's "The following arguments were not expected" (`what`) as the first unknown option of
/// `args` with the closest option of the command, or `what` itself when every option is known.
std::string unexpected_arguments(const std::vector<std::string>& args, const std::string& what);

/// `kprov [--store URL] [--config FILE] __complete [--describe=zsh|fish] runtime|operation
/// [PREFIX]`: the matching ids on `out`; never an error message.
int complete_ids(const std::vector<std::string>& args, std::ostream& out);

/// Writes `kprov: error: MESSAGE` to `err` and returns `code` (app.cpp).
int report(std::ostream& err, const std::string& message, int code);

} // namespace kprov::cli
