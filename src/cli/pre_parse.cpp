// What run() reads of the command line besides CLI11 (pre_parse.hpp).

#include "cli/pre_parse.hpp"

#include "cli/app.hpp"
#include "cli/cli_model.hpp"
#include "cli/command_table.hpp"
#include "cli/context.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <sstream>

namespace kprov::cli {

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
                                                      "--log-level",
                                                      "--log-format"};
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
    for (const Command& command : commands())
        names.emplace_back(command.name);
    if (std::find(names.begin(), names.end(), *word) != names.end())
        return std::nullopt;
    // What kubectl, terraform and eksctl users type first.
    static const std::vector<std::pair<std::string, std::string>> k_habits = {
        {"get", "status\" or \"list"},
        {"describe", "status"},
        {"delete", "deprovision"},
        {"create", "provision"},
        {"destroy", "deprovision"},
        {"show", "status"},
        {"ls", "list"},
        {"logs", "history"}};
    std::string message = "unknown command \"" + *word + "\"";
    const auto habit = std::find_if(k_habits.begin(), k_habits.end(),
                                    [&word](const auto& h) { return h.first == *word; });
    if (habit != k_habits.end())
        message += "; did you mean \"" + habit->second + "\"?";
    else if (const auto match = closest_match(*word, names))
        message += "; did you mean \"" + *match + "\"?";
    return report(err, message + " (see kprov --help)", k_exit_usage);
}

namespace {

// The value of a global option given as "--name VALUE" or "--name=VALUE", if any.
std::optional<std::string> global_value(const std::vector<std::string>& args,
                                        const std::string& name) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == name && i + 1 < args.size())
            return args[i + 1];
        if (args[i].rfind(name + "=", 0) == 0)
            return args[i].substr(name.size() + 1);
    }
    return std::nullopt;
}

} // namespace

// `kprov [--store URL] [--config FILE] __complete [--describe=zsh|fish] runtime|operation
// [PREFIX]`, for the completion scripts: never an error message, which would land in the user's
// prompt.
int complete_ids(const std::vector<std::string>& args, std::ostream& out) {
    std::vector<std::string> words;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--store" || args[i] == "--config") {
            ++i;
            continue;
        }
        if (!args[i].empty() && args[i][0] != '-')
            words.push_back(args[i]);
    }
    if (words.size() < 2)
        return k_exit_usage;
    GlobalOptions global;
    global.store = global_value(args, "--store");
    global.config_file = global_value(args, "--config");
    global.quiet = true;
    std::ostringstream ignored;
    Context ctx(global, out, ignored);
    try {
        return cmd_complete_ids(ctx, words[1], words.size() > 2 ? words[2] : std::string(),
                                global_value(args, "--describe").value_or(""));
    } catch (const std::exception&) {
        return k_exit_ok;
    }
}

// CLI11's "The following arguments were not expected: ...", with the closest option of the
// command for a mistyped one.
std::string unexpected_arguments(const std::vector<std::string>& args, const std::string& what) {
    const auto word = command_word(args);
    const CliModel model = cli_model();
    std::vector<std::string> known;
    auto add_names = [&known](const std::vector<OptionModel>& options) {
        for (const auto& option : options)
            if (!option.positional)
                known.insert(known.end(), option.names.begin(), option.names.end());
    };
    add_names(model.global);
    for (const auto& command : model.commands)
        if (word && command.name == *word)
            add_names(command.options);
    for (const auto& arg : args) {
        if (arg == "--")
            break;
        if (arg.size() < 2 || arg[0] != '-')
            continue;
        const std::string name = arg.substr(0, arg.find('='));
        if (std::find(known.begin(), known.end(), name) != known.end())
            continue;
        std::string message = "unknown option \"" + name + "\"";
        if (word)
            message += " for \"kprov " + *word + "\"";
        if (const auto match = closest_match(name, known))
            message += "; did you mean \"" + *match + "\"?";
        return message;
    }
    return what;
}

// The command line as CLI11 should see it: `-o=json` as `-o json` (CLI11 would take "=json"
// for the value), and `kprov --version` as `kprov version`.
std::vector<std::string> normalized(const std::vector<std::string>& given) {
    std::vector<std::string> args;
    bool options = true; // until "--"
    for (const auto& arg : given) {
        if (arg == "--")
            options = false;
        if (options && arg.rfind("-o=", 0) == 0)
            args.insert(args.end(), {"-o", arg.substr(3)});
        else
            args.push_back(arg);
    }
    if (!command_word(args)) {
        const auto version = std::find(args.begin(), args.end(), "--version");
        if (version != args.end())
            *version = "version";
    }
    return args;
}

} // namespace kprov::cli
