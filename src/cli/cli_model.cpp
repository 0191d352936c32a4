// The command line as data (cli_model.hpp), read back from the parser the command table builds.

#include "cli/cli_model.hpp"

#include "cli/command_table.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace kprov::cli {

namespace {

// What the shells should offer for the values of options and positionals, by name.
struct ValueHint {
    const char* name;
    ValueKind kind;
    std::vector<std::string> choices;
};

const std::vector<ValueHint>& value_hints() {
    static const std::vector<ValueHint> k_hints = {
        {"--output", ValueKind::Choice, {"table", "wide", "json", "yaml", "name"}},
        {"--log-level", ValueKind::Choice, {"trace", "debug", "info", "warn", "error"}},
        {"--log-format", ValueKind::Choice, {"text", "json"}},
        {"--state", ValueKind::Choice, {"InProgress", "Succeeded", "Failed"}},
        {"SHELL", ValueKind::Choice, completion_shells()},
        {"--config", ValueKind::File, {}},
        {"--gardener-kubeconfig", ValueKind::File, {}},
        {"--file", ValueKind::File, {}},
        {"RUNTIME_ID", ValueKind::RuntimeId, {}},
        {"OPERATION_ID", ValueKind::OperationId, {}},
    };
    return k_hints;
}

OptionModel option_model(const CLI::Option& option) {
    OptionModel m;
    m.positional =
        option.get_positional() && option.get_lnames().empty() && option.get_snames().empty();
    if (m.positional) {
        m.names.push_back(option.get_name());
    } else {
        for (const auto& s : option.get_snames())
            m.names.push_back("-" + s);
        for (const auto& l : option.get_lnames())
            m.names.push_back("--" + l);
    }
    m.required = option.get_required();
    m.description = option.get_description();
    if (m.positional || option.get_expected_max() > 0) {
        m.value = ValueKind::Text;
        m.value_name = m.positional ? option.get_name() : option.get_type_name();
        m.value_name = m.value_name.substr(0, m.value_name.find(':')); // "TEXT:{a,b}"
    }
    for (const auto& hint : value_hints())
        if (std::find(m.names.begin(), m.names.end(), hint.name) != m.names.end()) {
            m.value = hint.kind;
            m.choices = hint.choices;
        }
    return m;
}

std::vector<OptionModel> options_of(const CLI::App& app) {
    std::vector<OptionModel> out;
    for (const CLI::Option* option : app.get_options())
        out.push_back(option_model(*option));
    return out;
}

} // namespace

CliModel cli_model() {
    CLI::App app{k_description, "kprov"};
    Parsed parsed;
    build_app(app, parsed);
    CliModel model;
    model.global = options_of(app);
    for (const Command& entry : commands()) {
        const CLI::App* cmd = app.get_subcommand(entry.name);
        CommandModel command{entry.name, entry.summary, {}};
        for (auto& option : options_of(*cmd))
            // --help and --help-all are global; CLI11 registers them again on every command.
            if (option.names != std::vector<std::string>{"-h", "--help"} &&
                option.names != std::vector<std::string>{"--help-all"})
                command.options.push_back(std::move(option));
        model.commands.push_back(std::move(command));
    }
    return model;
}

} // namespace kprov::cli
