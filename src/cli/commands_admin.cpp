// version, config, migrate: the commands that look at kprov itself rather than at runtimes.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/render.hpp"
#include "stores/open_store.hpp"
#include "version.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace kprov::cli {
namespace {

void print_config(Context& ctx) {
    const auto& entries = ctx.config().entries;
    std::size_t key_width = 0, value_width = 0;
    for (const auto& e : entries) {
        key_width = std::max(key_width, e.key.size());
        value_width = std::max(value_width, std::min<std::size_t>(visible(e.value).size(), 48));
    }
    for (const auto& e : entries) {
        ctx.out() << std::left << std::setw(static_cast<int>(key_width) + 2) << e.key
                  << std::setw(static_cast<int>(value_width) + 2) << visible(e.value)
                  << config::to_string(e.origin);
        if (!e.source.empty())
            ctx.out() << " (" << visible(e.source) << ")";
        ctx.out() << '\n';
    }
}

} // namespace

int cmd_version(Context& ctx, bool verbose) {
    ctx.out() << "kprov " << k_version << '\n';
    if (verbose) {
        ctx.out() << '\n';
        print_config(ctx);
    }
    return k_exit_ok;
}

int cmd_config(Context& ctx) {
    const auto format = output_format(ctx);
    if (format != OutputFormat::Json && format != OutputFormat::Yaml) {
        print_config(ctx);
        return k_exit_ok;
    }
    // Secrets are "***" in the entries already.
    nlohmann::ordered_json settings = nlohmann::ordered_json::array();
    for (const auto& e : ctx.config().entries)
        settings.push_back({{"key", e.key},
                            {"env", e.env},
                            {"value", e.value},
                            {"origin", config::to_string(e.origin)},
                            {"source", e.source},
                            {"secret", e.secret}});
    print_document(ctx.out(), settings, format);
    return k_exit_ok;
}

int cmd_config_reference(Context& ctx) {
    ctx.out() << "| variable | config key | default | meaning |\n|---|---|---|---|\n";
    for (const auto& spec : config::setting_specs()) {
        ctx.out() << "| `" << spec.env << "`";
        for (const auto& alias : spec.aliases)
            ctx.out() << " (or `" << alias << "`)";
        ctx.out() << " | `" << spec.key << "` | "
                  << (spec.default_value.empty() ? std::string_view("") : std::string_view("`"))
                  << spec.default_value
                  << (spec.default_value.empty() ? std::string_view("") : std::string_view("`"))
                  << " | " << spec.description << " |\n";
    }
    return k_exit_ok;
}

int cmd_migrate(Context& ctx) {
    const auto& settings = ctx.config().settings;
    stores::OpenOptions options;
    options.secret_key = settings.database.secret_key;
    // Migrations touch no secret, and the job that runs them usually has no key.
    options.secrets = stores::Secrets::Unused;
    options.schema = stores::SchemaCheck::None;
    auto store = stores::open_store(settings.store_url, options);
    const auto report = store->migrate();
    if (report.applied.empty()) {
        ctx.out() << "schema of " << store->redacted_url() << " is current (version "
                  << report.to_version << "), nothing to do\n";
    } else {
        for (const auto& name : report.applied)
            ctx.out() << "applied " << name << '\n';
        ctx.out() << "schema of " << store->redacted_url() << " migrated from version "
                  << report.from_version << " to " << report.to_version << '\n';
    }
    return k_exit_ok;
}

} // namespace kprov::cli
