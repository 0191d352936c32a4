// version, config, migrate: the commands that look at kprov itself rather than at runtimes.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/render.hpp"
#include "engine/error.hpp"
#include "stores/open_store.hpp"
#include "version.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace kprov::cli {
namespace {

// Key, value and origin columns, fit to the terminal: a key too long for its column puts its
// value on the next line, a value too long for its column its origin, each under its column.
void print_config(Context& ctx) {
    const auto& entries = ctx.config().entries;
    constexpr std::size_t k_gap = 2;
    std::size_t key_width = 0, value_width = 0, origin_width = 0;
    for (const auto& e : entries) {
        key_width = std::max(key_width, e.key.size());
        value_width = std::max(value_width, visible(e.value).size());
        origin_width = std::max(origin_width, config::to_string(e.origin).size());
    }
    const std::size_t columns = terminal_columns(ctx.out());
    key_width = std::min(key_width, std::max<std::size_t>(16, columns * 2 / 5));
    const std::size_t fixed = key_width + 2 * k_gap + origin_width;
    value_width =
        std::min(value_width, std::max<std::size_t>(8, columns > fixed ? columns - fixed : 0));
    // Pads `text` to `width` plus the gap, or ends the line and indents to the next column.
    auto cell = [&ctx](const std::string& text, std::size_t width, std::size_t next_column) {
        ctx.out() << text;
        if (text.size() <= width)
            ctx.out() << std::string(width + k_gap - text.size(), ' ');
        else
            ctx.out() << '\n' << std::string(next_column, ' ');
    };
    for (const auto& e : entries) {
        cell(e.key, key_width, key_width + k_gap);
        cell(visible(e.value), value_width, key_width + value_width + 2 * k_gap);
        ctx.out() << config::to_string(e.origin);
        if (!e.source.empty())
            ctx.out() << " (" << visible(e.source) << ")";
        ctx.out() << '\n';
    }
}

// Secrets are "***" in the entries already.
nlohmann::ordered_json config_json(Context& ctx) {
    nlohmann::ordered_json settings = nlohmann::ordered_json::array();
    for (const auto& e : ctx.config().entries)
        settings.push_back({{"key", e.key},
                            {"env", e.env},
                            {"value", e.value},
                            {"origin", config::to_string(e.origin)},
                            {"source", e.source},
                            {"secret", e.secret}});
    return settings;
}

void print_migration(Context& ctx, stores::StoreBackend& store,
                     const stores::MigrationReport& report) {
    if (report.applied.empty()) {
        ctx.out() << "schema of " << store.redacted_url() << " is current (version "
                  << report.to_version << "), nothing to do\n";
        return;
    }
    for (const auto& name : report.applied)
        ctx.out() << "applied " << name << '\n';
    ctx.out() << "schema of " << store.redacted_url() << " migrated from version "
              << report.from_version << " to " << report.to_version << '\n';
}

// Progress on stderr, the summary (counts only, never a value) on stdout. Rows that would not
// decrypt fail the command once every other row is done, so a script notices.
void re_encrypt(Context& ctx, stores::StoreBackend& store, bool dry_run) {
    stores::ReEncryptOptions options;
    options.dry_run = dry_run;
    options.progress = [&ctx](const std::string& line) {
        if (!ctx.global().quiet)
            ctx.err() << "kprov: re-encrypt: " << line << '\n';
    };
    const auto report = store.re_encrypt(options);
    int rewritten = 0, unreadable = 0, changed = 0;
    for (const auto& t : report.tables) {
        ctx.out() << t.table << ": " << t.rewritten << (dry_run ? " to rewrite" : " rewritten")
                  << ", " << t.current << " already current";
        if (t.changed_meanwhile > 0)
            ctx.out() << ", " << t.changed_meanwhile << " changed by another writer meanwhile";
        if (t.unreadable > 0)
            ctx.out() << ", " << t.unreadable << " unreadable";
        ctx.out() << '\n';
        rewritten += t.rewritten;
        unreadable += t.unreadable;
        changed += t.changed_meanwhile;
    }
    ctx.out() << "secrets of " << store.redacted_url() << ": " << rewritten
              << (dry_run ? " rows to rewrite" : " rows rewritten") << " in the authenticated "
              << "format\n";
    if (unreadable > 0)
        throw StoreError(std::to_string(unreadable) +
                         " rows hold a secret that does not decrypt with this key (listed "
                         "above), expected the key they were written with; the other rows are "
                         "rewritten");
    if (changed > 0 && !dry_run && !ctx.global().quiet)
        ctx.err() << "kprov: re-encrypt: " << changed
                  << " rows changed meanwhile; run it again to check them\n";
}

} // namespace

int cmd_version(Context& ctx, bool verbose) {
    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        nlohmann::ordered_json document = {{"version", k_version}};
        if (verbose)
            document["configuration"] = config_json(ctx);
        print_document(ctx.out(), document, format);
        return k_exit_ok;
    }
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
    print_document(ctx.out(), config_json(ctx), format);
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

int cmd_config_init(Context& ctx) {
    auto& out = ctx.out();
    out << "# kprov's config file: save it as $XDG_CONFIG_HOME/kprov/config.yaml\n"
           "# (~/.config/kprov/config.yaml), or anywhere and give --config FILE.\n"
           "# Written by `kprov config --init`. Every setting is here, commented out, with its\n"
           "# default; uncomment what you set. The environment and flags override this file, and\n"
           "# `kprov config` shows the effective values and where each came from.\n"
           "#\n"
           "# To start against kprov-sim: gardener.kubeconfig_path (the file kprov-sim\n"
           "# --kubeconfig-out wrote), gardener.project and tenant.\n";
    for (const auto& spec : config::setting_specs()) {
        out << "\n# " << spec.description << " (" << spec.env << ")\n";
        if (spec.secret)
            out << "# A secret: better given in the environment than kept in a file.\n";
        out << "# " << spec.key << ":";
        if (!spec.default_value.empty())
            out << " " << nlohmann::json(std::string(spec.default_value)).dump();
        out << '\n';
    }
    return k_exit_ok;
}

int cmd_migrate(Context& ctx, const MigrateArgs& args) {
    const auto& settings = ctx.config().settings;
    stores::OpenOptions options;
    options.secret_key = settings.database.secret_key;
    // Migrations touch no secret, and the job that runs them usually has no key.
    options.secrets = args.re_encrypt ? stores::Secrets::Needed : stores::Secrets::Unused;
    // A dry run writes nothing, not even the schema: it counts against the schema as it is.
    options.schema = args.dry_run ? stores::SchemaCheck::Require : stores::SchemaCheck::None;
    options.warn = [&ctx](const std::string& warning) {
        print_warnings(ctx, {warning});
    };
    auto store = stores::open_store(settings.store_url, options);
    if (!args.dry_run)
        print_migration(ctx, *store, store->migrate());
    if (args.re_encrypt)
        re_encrypt(ctx, *store, args.dry_run);
    return k_exit_ok;
}

} // namespace kprov::cli
