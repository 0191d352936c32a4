// list, history, kubeconfig and the completion scripts' ids: commands that read the store (and,
// for kubeconfig, Gardener) and change nothing (status and operation: commands_status.cpp).

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/live_shoot.hpp"
#include "cli/lookup.hpp"
#include "cli/read_views.hpp"
#include "cli/render.hpp"
#include "cli/undriven.hpp"
#include "cli/version_lifecycle.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/rules/drift.hpp"
#include "engine/status_json.hpp"
#include "engine/util/duration.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t k_default_list_limit = 100;

Cell state_cell(const std::optional<engine::Operation>& op) {
    return op ? Cell{state_text(op), op->state} : Cell{"-"};
}

// The version and, when Gardener said, its lifecycle: "1.34.3 (deprecated, expires ...)".
std::string version_cell(const std::string& version,
                         const std::optional<VersionLifecycle>& lifecycle, Timestamp now) {
    if (version.empty())
        return "-";
    return lifecycle ? version + " (" + lifecycle->text(now) + ")" : version;
}

std::optional<engine::OperationState> parse_state(const std::optional<std::string>& given) {
    if (!given)
        return std::nullopt;
    if (const auto state = engine::operation_state_from_text(*given))
        return state;
    std::string message = "--state \"" + *given +
                          "\" is not an operation state (expected "
                          "InProgress, Succeeded or Failed)";
    if (const auto match = closest_match(*given, {"InProgress", "Succeeded", "Failed"}))
        message += "; did you mean \"" + *match + "\"?";
    throw UsageError(message);
}

Json transition_json(const engine::StageTransition& t) {
    return Json{{"fromStage", t.from_stage},
                {"toStage", t.to_stage},
                {"state", engine::to_api(t.state)},
                {"message", t.message},
                {"at", format_rfc3339(t.at)}};
}

// Labels as kubectl shows them: "env=trial,team=ci" ("<none>" for none); a value that is not
// a string as its compact JSON.
std::string labels_text(const std::string& labels_json) {
    // Labels are flat; anything nested deeper is shown as stored, never parsed (a hostile
    // store could nest it 50,000 levels deep).
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : labels_json) {
        if (escaped) {
            escaped = false;
        } else if (in_string) {
            escaped = c == '\\';
            in_string = c != '"';
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    if (deepest > 2)
        return labels_json;
    const auto labels = Json::parse(labels_json, nullptr, false);
    if (!labels.is_object())
        return labels_json;
    std::string text;
    for (const auto& [key, value] : labels.items())
        text += (text.empty() ? "" : ",") + key + "=" +
                (value.is_string() ? value.get<std::string>() : value.dump());
    return text.empty() ? "<none>" : text;
}

// Whether the runtime's lifetime has passed at `now` (protected or not: `list --expired` shows
// what the workers keep only because it is protected, too).
bool has_expired(const engine::RuntimeLifecycle& lifecycle, Timestamp now) {
    return lifecycle.expires_at && *lifecycle.expires_at <= now;
}

// The EXPIRES column: "-" without a lifetime, "expired" once it passed (", protected" when
// that is why the runtime is still there), else when, as "in 3h".
std::string expires_text(const engine::RuntimeLifecycle& lifecycle, Timestamp now) {
    if (!lifecycle.expires_at)
        return "-";
    if (has_expired(lifecycle, now))
        return lifecycle.is_protected ? "expired, protected" : "expired";
    return relative_time(*lifecycle.expires_at, now);
}

// A hibernated cluster's API server is down: the kubeconfig is printed all the same (it is
// valid for its whole expiration), with a warning saying what makes it work.
void warn_if_hibernated(Context& ctx, EngineAccess& access, const engine::Runtime& runtime) {
    if (ctx.global().quiet)
        return;
    std::optional<engine::ShootState> shoot;
    try {
        shoot = access.shoots().get(runtime.gardener.name);
    } catch (const std::exception&) {
        return; // the kubeconfig came from Gardener a moment ago; nothing to add
    }
    if (!shoot)
        return;
    // Hibernating is as good as hibernated here: the API server goes before the status says so.
    const auto transition = engine::hibernation_transition(*shoot);
    const bool hibernated = transition == engine::HibernationTransition::Hibernating ||
                            (transition == engine::HibernationTransition::None &&
                             engine::hibernation_status(*shoot).hibernated.value_or(false));
    if (!hibernated && transition != engine::HibernationTransition::WakingUp)
        return;
    ctx.err() << "kprov: warning: the cluster of runtime " << runtime.id << " is "
              << (hibernated ? "hibernated" : "waking up")
              << ": this kubeconfig works only once it is awake (kprov wake-up " << runtime.id
              << " --wait)\n";
}

} // namespace

int cmd_list(Context& ctx, const ReadArgs& args) {
    engine::RuntimeQuery query;
    query.filter.state = parse_state(args.state);
    query.filter.include_deleted = args.all;
    const std::size_t limit =
        args.limit ? static_cast<std::size_t>(*args.limit) : k_default_list_limit;
    // One more than asked for tells whether the list was cut; --expired cuts after its filter.
    query.limit = limit == 0 || args.expired ? 0 : limit + 1;
    const auto store = open_store(ctx);
    auto runtimes = select_runtimes(*store, query, args.selectors);
    const Timestamp now = SystemClock().now();
    std::map<std::string, engine::RuntimeLifecycle> lifecycles;
    for (const auto& s : runtimes)
        lifecycles[s.id] = store->lifecycle_of(s.id);
    if (args.expired)
        std::erase_if(runtimes, [&](const engine::RuntimeSummary& s) {
            return !has_expired(lifecycles[s.id], now);
        });
    const auto format = output_format(ctx);
    // The versions' lifecycles come from Gardener: for --deprecated and the wide table only.
    std::map<std::string, std::optional<VersionLifecycle>> versions;
    std::map<std::string, std::string> version_numbers;
    if (args.deprecated || format == OutputFormat::Wide) {
        VersionLifecycles lookup(ctx);
        if (args.deprecated && !lookup.available())
            throw ConfigError("list --deprecated asks Gardener's CloudProfiles which versions "
                              "are deprecated: set APP_GARDENER_KUBECONFIG_PATH (config key "
                              "gardener.kubeconfig_path)");
        for (const auto& s : runtimes)
            if (const auto runtime = store->find_runtime(s.id); runtime && !runtime->deleted) {
                versions[s.id] = lookup.of(runtime->gardener, args.deprecated);
                version_numbers[s.id] = runtime->gardener.kubernetes_version;
            }
        if (args.deprecated)
            std::erase_if(runtimes, [&](const engine::RuntimeSummary& s) {
                const auto& v = versions[s.id];
                return !v || !v->ageing();
            });
    }
    const bool cut = limit > 0 && runtimes.size() > limit;
    if (cut)
        runtimes.resize(limit);
    std::vector<const engine::Operation*> shown_operations;
    for (const auto& s : runtimes)
        shown_operations.push_back(s.last_operation ? &*s.last_operation : nullptr);
    note_undriven(ctx, shown_operations);

    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        const CompassIds compass(ctx);
        Json list = Json::array();
        for (const auto& summary : runtimes)
            if (const auto runtime = store->find_runtime(summary.id)) {
                Json item = status_document(*runtime, summary.last_operation, compass);
                const auto& lifecycle = lifecycles[summary.id];
                item["lifecycle"] = {{"protected", lifecycle.is_protected},
                                     {"expiresAt", optional_time(lifecycle.expires_at)}};
                list.push_back(std::move(item));
            }
        print_document(ctx.out(), list, format);
    } else if (format == OutputFormat::Name) {
        for (const auto& summary : runtimes)
            ctx.out() << summary.id << '\n';
    } else {
        const bool wide = format == OutputFormat::Wide;
        // The table fits 80 columns: short ids, the name shortened if need be; wide shows all.
        std::vector<std::string> headers = {"RUNTIME ID", "NAME", "STATE", "OPERATION", "AGE"};
        if (wide)
            headers.insert(headers.end(), {"SHOOT", "PROVIDER", "REGION", "KUBERNETES", "TENANT",
                                           "STAGE", "OPERATION ID", "EXPIRES", "LABELS"});
        std::vector<std::string> ids;
        for (const auto& s : runtimes)
            ids.push_back(s.id);
        const std::size_t id_length = wide ? std::string::npos : distinguishing_length(ids);
        std::vector<std::vector<Cell>> rows;
        for (const auto& s : runtimes) {
            const auto& op = s.last_operation;
            std::vector<Cell> row = {{s.id.substr(0, id_length)},
                                     {s.name},
                                     state_cell(op),
                                     {op ? std::string(engine::to_api(op->type)) : "-"},
                                     {relative_time(s.creation_timestamp, now)}};
            if (s.deleted)
                row[2].text += " (deleted)";
            if (wide)
                row.insert(row.end(), {{s.shoot_name},
                                       {s.provider},
                                       {s.region},
                                       {version_cell(version_numbers[s.id], versions[s.id], now)},
                                       {s.tenant},
                                       {op ? op->stage : "-"},
                                       {op ? op->id : "-"},
                                       {expires_text(lifecycles[s.id], now)},
                                       {labels_text(s.labels_json)}});
            rows.push_back(std::move(row));
        }
        if (!wide)
            fit_table(headers, rows, 1, std::max<std::size_t>(terminal_columns(ctx.out()), 80));
        if (rows.empty()) {
            if (!ctx.global().quiet)
                ctx.err() << "kprov: no runtimes"
                          << (query.filter.state || !args.selectors.empty() || args.expired
                                  ? " match"
                                  : "")
                          << (args.all ? "" : " (--all includes deprovisioned ones)") << '\n';
        } else {
            print_table(ctx.out(), headers, rows, use_colour(ctx.out()));
        }
    }
    if (cut && !ctx.global().quiet)
        ctx.err() << "kprov: showing the newest "
                  << (limit == 1 ? std::string("runtime") : std::to_string(limit) + " runtimes")
                  << "; --limit N shows more, --limit 0 all\n";
    return k_exit_ok;
}

int cmd_history(Context& ctx, const ReadArgs& args) {
    const auto store = open_store(ctx);
    const auto runtime = lookup_runtime(*store, args.id, "history");
    const auto operations = store->operations_of(runtime.id);
    const auto format = output_format(ctx);
    if (format == OutputFormat::Name) {
        for (const auto& op : operations)
            ctx.out() << op.id << '\n';
        return k_exit_ok;
    }
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        const CompassIds compass(ctx);
        Json list = Json::array();
        for (const auto& op : operations) {
            Json item = operation_json(op, compass(op.cluster_id));
            item["lastTransition"] = optional_time(op.last_transition);
            Json transitions = Json::array();
            for (const auto& t : store->transitions_of(op.id))
                transitions.push_back(transition_json(t));
            item["transitions"] = std::move(transitions);
            list.push_back(std::move(item));
        }
        print_document(ctx.out(), list, format);
        return k_exit_ok;
    }
    const bool colour = use_colour(ctx.out());
    const Timestamp now = SystemClock().now();
    bool first = true;
    for (const auto& op : operations) {
        if (!first)
            ctx.out() << '\n';
        first = false;
        ctx.out() << engine::to_api(op.type) << ' ' << visible(op.id) << "  "
                  << coloured(std::string(engine::to_api(op.state)), op.state, colour)
                  << "  started " << relative_time(op.start_timestamp, now);
        if (op.end_timestamp)
            ctx.out() << ", took "
                      << format_duration(std::chrono::duration_cast<Duration>(*op.end_timestamp -
                                                                              op.start_timestamp));
        ctx.out() << '\n';
        if (!op.last_error.empty())
            ctx.out() << "  error: " << visible(op.last_error.message) << '\n';
        std::vector<std::vector<Cell>> rows;
        for (const auto& t : store->transitions_of(op.id)) {
            std::vector<Cell> row = {
                {format == OutputFormat::Wide ? format_rfc3339(t.at) : relative_time(t.at, now)},
                {t.to_stage.empty() ? "-" : t.to_stage},
                {std::string(engine::to_api(t.state)), t.state},
                {t.message}};
            rows.push_back(std::move(row));
        }
        if (!rows.empty())
            print_table(ctx.out(), {"WHEN", "STAGE", "STATE", "MESSAGE"}, rows, colour, "  ");
    }
    // What happened outside the operations (protection, lifetime), in the order it happened.
    std::vector<std::vector<Cell>> events;
    for (const auto& e : store->events_of(runtime.id))
        events.push_back(
            {{format == OutputFormat::Wide ? format_rfc3339(e.at) : relative_time(e.at, now)},
             {e.kind},
             {e.message}});
    if (!events.empty()) {
        if (!first)
            ctx.out() << '\n';
        ctx.out() << "Events of runtime " << visible(runtime.id) << '\n';
        print_table(ctx.out(), {"WHEN", "EVENT", "MESSAGE"}, events, colour, "  ");
    }
    return k_exit_ok;
}

int cmd_kubeconfig(Context& ctx, const ReadArgs& args) {
    std::optional<std::chrono::seconds> expiration; // the engine's default unless given
    if (args.expiration) {
        const auto parsed = parse_duration(*args.expiration);
        if (!parsed || *parsed < std::chrono::minutes(10))
            throw UsageError("--expiration \"" + *args.expiration +
                             "\" is not a duration of at least 10m (expected a Go duration such "
                             "as 30m, 8h, 24h; Gardener's minimum is 10m)");
        expiration = std::chrono::duration_cast<std::chrono::seconds>(*parsed);
    }
    EngineAccess access(ctx, "cli", 1, StoreUse::Existing);
    const auto runtime = lookup_runtime(access.store(), args.id, "kubeconfig");
    if (const auto why = engine::EngineService::shoot_unavailable(
            runtime, access.store().last_operation(runtime.id)))
        throw Error(*why + ": it has no kubeconfig to give");
    const auto kubeconfig =
        access.service().admin_kubeconfig(runtime.id, runtime.gardener.name, expiration);
    if (!kubeconfig)
        throw NotFound("shoot \"" + runtime.gardener.name + "\" of runtime \"" + runtime.id +
                       "\" is not in Gardener project \"" + ctx.config().settings.gardener_project +
                       "\", is another runtime's, or is not up yet");
    warn_if_hibernated(ctx, access, runtime);
    ctx.out() << *kubeconfig;
    if (!kubeconfig->empty() && kubeconfig->back() != '\n')
        ctx.out() << '\n';
    return k_exit_ok;
}

namespace {

// A description is one line of plain text (shells show it as it is).
std::string plain_line(std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }, ' ');
    return text;
}

// The live runtimes whose name, shoot name or id begins with `prefix`, by the word a user types:
// the runtime's name (its shoot's name when live runtimes share the name), or its id once the
// prefix is one. Deprovisioned runtimes are not offered.
int complete_runtimes(Context& ctx, engine::Store& store, const std::string& prefix,
                      const std::string& separator) {
    constexpr std::size_t k_limit = 1000;
    engine::RuntimeQuery query;
    query.limit = k_limit;
    const auto live = store.query_runtimes(query);
    std::map<std::string, int> names;
    for (const auto& r : live)
        ++names[r.name];
    std::set<std::string> said;
    for (const auto& r : live) {
        const std::string word = names[r.name] == 1 ? r.name : r.shoot_name;
        for (const bool is_id : {false, true}) {
            const std::string& candidate = is_id ? r.id : word;
            if (candidate.rfind(prefix, 0) != 0 || (is_id && prefix.empty()) ||
                !said.insert(candidate).second)
                continue;
            ctx.out() << candidate;
            if (!separator.empty())
                ctx.out() << separator
                          << plain_line(is_id ? r.name + " (shoot " + r.shoot_name + ")"
                                              : "runtime " + r.id.substr(0, k_min_id_prefix) +
                                                    ", shoot " + r.shoot_name);
            ctx.out() << '\n';
        }
    }
    return k_exit_ok;
}

} // namespace

int cmd_complete_ids(Context& ctx, const std::string& kind, const std::string& prefix,
                     const std::string& describe) {
    constexpr std::size_t k_limit = 200;
    const auto store = open_store(ctx);
    const std::string separator = describe == "zsh" ? ":" : describe == "fish" ? "\t" : "";
    if (kind != "operation")
        return complete_runtimes(ctx, *store, prefix, separator);
    for (const auto& id : store->operation_ids_with_prefix(prefix, k_limit)) {
        ctx.out() << id;
        if (separator.empty()) {
            ctx.out() << '\n';
            continue;
        }
        std::string text;
        if (const auto op = store->find_operation(id)) {
            text = std::string(engine::to_api(op->type)) + " " +
                   std::string(engine::to_api(op->state));
            if (const auto runtime = store->find_runtime(op->cluster_id))
                text += " of " + runtime->name;
        }
        ctx.out() << separator << plain_line(text) << '\n';
    }
    return k_exit_ok;
}

} // namespace kprov::cli
