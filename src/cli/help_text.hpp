#pragma once
// What `kprov COMMAND --help` shows below the options: the command's own notes, 2-4 example
// command lines, and only the exit codes that command can return. Kept apart from app.cpp so
// the docs test can check the examples against the parser.

#include <string>
#include <string_view>
#include <vector>

namespace kprov::cli {

/// The examples of `command` ("kprov status 3c8c2d4e-...", one command line each); empty for a
/// command without any.
std::vector<std::string> command_examples(std::string_view command);

/// The exit codes `command` can return, ascending; {0, 1, 2} for a command not listed.
std::vector<int> command_exit_codes(std::string_view command);

/// "Exit status:" and one line per code of `codes` ("  4  --timeout reached ...").
std::string exit_status_text(const std::vector<int>& codes);

/// Every exit code kprov has, ascending.
std::vector<int> all_exit_codes();

/// The footer of `command`'s --help: `notes` (may be empty), its examples, its exit codes and a
/// pointer to kprov --help and kprov(1).
std::string command_footer(std::string_view command, const std::string& notes);

} // namespace kprov::cli
