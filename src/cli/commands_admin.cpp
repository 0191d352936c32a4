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
