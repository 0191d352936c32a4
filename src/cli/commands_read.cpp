// status, operation, list, history, kubeconfig: the commands that read the store (and, for
// kubeconfig, Gardener) and change nothing.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/live_shoot.hpp"
#include "cli/lookup.hpp"
#include "cli/render.hpp"
#include "cli/undriven.hpp"
#include "cli/version_lifecycle.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
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
// How long status waits for Gardener: briefly by default, longer when --live asks for it.
constexpr std::chrono::milliseconds k_status_timeout{3000};
constexpr std::chrono::milliseconds k_live_timeout{10000};

// The read commands use one connection: they run one query at a time, and create no store.
std::unique_ptr<stores::StoreBackend> open_store(Context& ctx) {
    return open_configured_store(ctx, 1, StoreUse::Existing);
}

std::string optional_text(const std::optional<std::string>& value) {
    return value.value_or("");
}

// What a RuntimeStatus leaves out and a command line user wants: who and what the runtime is.
// Added as the member "runtime" after the GraphQL fields, so those stay exactly as the API
// answers them.
Json runtime_record(const engine::Runtime& runtime) {
    return Json{{"id", runtime.id},
                {"name", runtime.name},
                {"description", runtime.description},
                {"labels", stored_json(runtime.labels_json)},
                {"tenant", runtime.tenant},
                {"subAccountID",
                 runtime.sub_account_id.empty() ? Json(nullptr) : Json(runtime.sub_account_id)},
                {"administrators", runtime.administrators},
                {"creationTimestamp", format_rfc3339(runtime.creation_timestamp)},
                {"deleted", runtime.deleted}};
}

Json status_document(const engine::Runtime& runtime, const std::optional<engine::Operation>& last,
                     const CompassIds& compass,
                     std::optional<engine::HibernationStatus> hibernation = std::nullopt) {
    engine::RuntimeStatusExtras extras;
    extras.compass_runtime_id = compass(runtime.id);
    extras.hibernation = std::move(hibernation);
    Json document = engine::runtime_status_json(runtime, last, extras);
    if (last)
        document["lastOperationStatus"] = operation_json(*last, extras.compass_runtime_id);
    document["runtime"] = runtime_record(runtime);
    return document;
}

// What kprov knows of a runtime's Kyma installation: from its newest operation that installed
// Kyma (PROVISION or UPGRADE), as the store has it; no cluster is asked.
struct KymaInstallation {
    std::string state; ///< Installed, InProgress or Failed
    std::string description;
    std::string operation_id;
};

std::optional<KymaInstallation> kyma_installation(engine::Store& store,
                                                  const engine::Runtime& runtime) {
    if (!runtime.kyma)
        return std::nullopt;
    for (const auto& op : store.operations_of(runtime.id)) {
        if (op.type != engine::OperationType::Provision &&
            op.type != engine::OperationType::Upgrade)
            continue;
        switch (op.state) {
        case engine::OperationState::Succeeded: {
            std::string description = "by the " + std::string(engine::to_api(op.type)) +
                                      " operation of " + format_rfc3339(op.start_timestamp);
            if (const auto record = op.type == engine::OperationType::Upgrade
                                        ? store.find_runtime_upgrade(op.id)
                                        : std::nullopt;
                record && record->state == engine::UpgradeState::RolledBack)
                description += "; rolled back in the store since (rollback-kyma), the cluster "
                               "still runs what that upgrade installed";
            return KymaInstallation{"Installed", description, op.id};
        }
        case engine::OperationState::Failed:
            return KymaInstallation{"Failed", op.message, op.id};
        case engine::OperationState::InProgress:
            return KymaInstallation{"InProgress", op.message, op.id};
        }
    }
    return std::nullopt;
}

// The Kyma resource in the KCP of a runtime whose Kyma is Kyma Lifecycle Manager's, read live
// (the store cannot know how far KLM got); `error` says why it could not be read.
struct KymaResourceView {
    std::string name;
    std::string namespace_name;
    std::optional<engine::KymaState> state; ///< nullopt: absent, or `error`
    std::string error;
};

std::optional<KymaResourceView> kyma_resource(Context& ctx, const engine::Runtime& runtime) {
    const auto& settings = ctx.config().settings;
    if (!runtime.kyma || runtime.deleted || settings.kyma_installer != "lifecycle-manager")
        return std::nullopt;
    KymaResourceView view{engine::kyma_name_of(runtime.id), settings.kcp_namespace, {}, {}};
    try {
        view.state = open_kcp(settings, std::chrono::seconds(10))->read_kyma(view.name);
    } catch (const std::exception& e) {
        view.error = e.what();
    }
    return view;
}

Json kyma_resource_json(const std::optional<KymaResourceView>& view) {
    if (!view)
        return nullptr;
    Json out{{"name", view->name}, {"namespace", view->namespace_name}};
    if (!view->error.empty()) {
        out["error"] = view->error;
        return out;
    }
    out["exists"] = view->state.has_value();
    if (!view->state)
        return out;
    const auto& s = *view->state;
    Json modules = Json::array();
    for (const auto& m : s.modules)
        modules.push_back({{"name", m.name}, {"state", m.state}, {"message", m.message}});
    out["state"] = s.state;
    out["lastOperation"] = s.last_operation;
    out["channel"] = s.channel;
    out["deleting"] = s.deleting;
    out["modules"] = std::move(modules);
    return out;
}

void add_kyma_resource_rows(std::vector<std::pair<std::string, Cell>>& rows,
                            const KymaResourceView& view) {
    const std::string where = view.namespace_name + "/" + view.name;
    if (!view.error.empty()) {
        rows.emplace_back("kyma resource", where + ": could not ask the KCP: " + view.error);
        return;
    }
    if (!view.state) {
        rows.emplace_back("kyma resource", where + ": not found in the KCP");
        return;
    }
    const auto& s = *view.state;
    rows.emplace_back("kyma resource",
                      where + ": " + (s.state.empty() ? std::string("(no state yet)") : s.state) +
                          (s.deleting ? " (being deleted)" : "") + ", channel " + s.channel + ", " +
                          engine::kyma_progress(s));
    std::string modules;
    for (const auto& m : s.modules)
        modules += (modules.empty() ? "" : ", ") + m.name + " " + m.state;
    if (!modules.empty())
        rows.emplace_back("modules", modules);
}

Json kyma_installation_json(const std::optional<KymaInstallation>& installation) {
    if (!installation)
        return nullptr;
    return Json{{"state", installation->state},
                {"description", installation->description},
                {"operationID", installation->operation_id}};
}

std::string state_text(const std::optional<engine::Operation>& op) {
    return op ? std::string(engine::to_api(op->state)) : std::string("-");
}

Cell state_cell(const std::optional<engine::Operation>& op) {
    return op ? Cell{state_text(op), op->state} : Cell{"-"};
}

// Gardener's answer for a status: hibernation always (unless deprovisioned), and with --live
// the shoot's state and the drift.
struct LiveView {
    LiveShoot shoot;
    std::vector<std::string> drift;
    bool live = false;
};

// One hibernation schedule as the status table shows it: "hibernate 0 20 * * MON-FRI, wake up
// 0 7 * * MON-FRI (Europe/Berlin)".
std::string schedule_text(const engine::HibernationSchedule& schedule) {
    std::string text;
    if (schedule.start)
        text = "hibernate " + *schedule.start;
    if (schedule.end)
        text += (text.empty() ? "wake up " : ", wake up ") + *schedule.end;
    return text + " (" + schedule.location.value_or("UTC") + ")";
}

// The version and, when Gardener said, its lifecycle: "1.34.3 (deprecated, expires ...)".
std::string version_cell(const std::string& version,
                         const std::optional<VersionLifecycle>& lifecycle, Timestamp now) {
    if (version.empty())
        return "-";
    return lifecycle ? version + " (" + lifecycle->text(now) + ")" : version;
}

void print_status_table(Context& ctx, const engine::Runtime& runtime,
                        const std::optional<engine::Operation>& last,
                        const std::optional<KymaInstallation>& kyma,
                        const std::optional<KymaResourceView>& resource,
                        const engine::RuntimeLifecycle& lifecycle, const LiveView& view,
                        const std::optional<VersionLifecycle>& version, bool wide) {
    const Timestamp now = SystemClock().now();
    const auto& g = runtime.gardener;
    const bool colour = use_colour(ctx.out());
    std::vector<std::pair<std::string, Cell>> rows = {
        {"runtime", runtime.id},
        {"name", runtime.name},
        {"shoot", g.name},
        {"provider", g.provider + " " + g.region},
        {"kubernetes", g.kubernetes_version + (version ? " (" + version->text(now) + ")" : "")},
        {"tenant", runtime.tenant},
        {"created", relative_time(runtime.creation_timestamp, now)},
    };
    if (runtime.deleted)
        rows.emplace_back("deleted", "yes");
    else
        rows.emplace_back("hibernated", hibernation_text(view.shoot));
    if (view.live)
        for (auto& [key, value] : live_rows(view.shoot, view.drift))
            rows.emplace_back(std::move(key), std::move(value));
    if (lifecycle.is_protected)
        rows.emplace_back("protected", "yes: deprovisioning is refused until `kprov unprotect`");
    if (lifecycle.expires_at)
        rows.emplace_back("expires", format_rfc3339(*lifecycle.expires_at) + " (" +
                                         relative_time(*lifecycle.expires_at, now) + ")");
    for (const auto& schedule : g.hibernation_schedules)
        rows.emplace_back("schedule", schedule_text(schedule));
    if (last) {
        rows.emplace_back("state", Cell{state_text(last), last->state});
        rows.emplace_back("operation", std::string(engine::to_api(last->type)) + " " + last->id);
        rows.emplace_back("stage", last->stage);
        rows.emplace_back("started", relative_time(last->start_timestamp, now));
        rows.emplace_back("message", last->message);
        if (!last->last_error.empty())
            rows.emplace_back("error", last->last_error.message);
    }
    if (runtime.kyma) {
        const auto& k = *runtime.kyma;
        std::string components;
        for (const auto& c : k.components)
            components += (components.empty() ? "" : ", ") + c.name;
        rows.emplace_back(
            "kyma",
            k.release.version +
                (k.profile ? " " + std::string(engine::to_api(*k.profile)) : std::string()) + " (" +
                std::to_string(k.components.size()) + " components: " + components + ")");
        if (kyma)
            rows.emplace_back("installation",
                              kyma->state + (kyma->description.empty() ? std::string()
                                                                       : ": " + kyma->description));
        if (resource)
            add_kyma_resource_rows(rows, *resource);
    }
    if (wide) {
        rows.emplace_back("sub-account", runtime.sub_account_id);
        rows.emplace_back("project", g.project_name);
        rows.emplace_back("seed", g.seed);
        rows.emplace_back("machine", g.machine_type + " " + optional_text(g.machine_image) + " " +
                                         optional_text(g.machine_image_version));
        rows.emplace_back("autoscaler", std::to_string(g.auto_scaler_min) + "-" +
                                            std::to_string(g.auto_scaler_max));
        rows.emplace_back("purpose", optional_text(g.purpose));
        rows.emplace_back("labels", runtime.labels_json);
        rows.emplace_back("administrators", [&] {
            std::string joined;
            for (const auto& admin : runtime.administrators)
                joined += (joined.empty() ? "" : ", ") + admin;
            return joined;
        }());
    }
    print_key_values(ctx.out(), rows, colour);
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

Json optional_time(const std::optional<Timestamp>& t) {
    return t ? Json(format_rfc3339(*t)) : Json(nullptr);
}

Json version_json(const std::optional<VersionLifecycle>& version) {
    if (!version)
        return nullptr;
    return {{"classification", engine::to_text(version->classification)},
            {"expirationDate", optional_time(version->expires)}};
}

// The runtime's desired state and its events, for status -o json|yaml.
Json lifecycle_json(const engine::RuntimeLifecycle& lifecycle, const engine::Runtime& runtime,
                    const std::vector<engine::RuntimeEvent>& events) {
    Json list = Json::array();
    for (const auto& e : events)
        list.push_back({{"at", format_rfc3339(e.at)}, {"kind", e.kind}, {"message", e.message}});
    const auto schedules =
        engine::encode_hibernation_schedules(runtime.gardener.hibernation_schedules);
    return {{"protected", lifecycle.is_protected},
            {"expiresAt", optional_time(lifecycle.expires_at)},
            {"hibernationSchedules", schedules ? Json::parse(*schedules) : Json::array()},
            {"events", std::move(list)}};
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
    if (!shoot || (!shoot->hibernation_enabled && !shoot->is_hibernated))
        return;
    ctx.err() << "kprov: warning: the cluster of runtime " << runtime.id << " is "
              << (shoot->hibernation_enabled ? "hibernated" : "waking up")
              << ": this kubeconfig works only once it is awake (kprov wake-up " << runtime.id
              << " --wait)\n";
}

} // namespace

int cmd_status(Context& ctx, const ReadArgs& args) {
    const auto store = open_store(ctx);
    const auto runtime = lookup_runtime(*store, args.id, "status");
    const auto format = output_format(ctx);
    // Never a stage Gardener has gone past: an undriven operation is advanced here first.
    const auto last = format == OutputFormat::Name
                          ? store->last_operation(runtime.id)
                          : advance_undriven(ctx, store->last_operation(runtime.id));
    const auto kyma = kyma_installation(*store, runtime);
    const auto resource = format == OutputFormat::Name ? std::nullopt : kyma_resource(ctx, runtime);
    const auto lifecycle = store->lifecycle_of(runtime.id);
    // Gardener is asked briefly: a status answers even when Gardener does not.
    LiveView view;
    view.live = args.live;
    if (format != OutputFormat::Name && (args.live || !runtime.deleted)) {
        view.shoot = read_live_shoot(ctx, runtime, args.live ? k_live_timeout : k_status_timeout);
        view.drift = drift(runtime, store->operations_of(runtime.id), view.shoot,
                           config::engine_options(ctx.config().settings).shoot);
    }
    // When it expires, Gardener force-upgrades the shoot: worth a look at every status.
    std::optional<VersionLifecycle> version;
    if (format != OutputFormat::Name && !runtime.deleted)
        version = VersionLifecycles(ctx, k_status_timeout).of(runtime.gardener);
    switch (format) {
    case OutputFormat::Json:
    case OutputFormat::Yaml: {
        std::optional<engine::HibernationStatus> hibernation;
        if (view.shoot.error.empty() && view.shoot.shoot)
            hibernation = engine::HibernationStatus{live_hibernated(view.shoot),
                                                    view.shoot.shoot->hibernation_possible};
        auto document = status_document(runtime, last, CompassIds(ctx), hibernation);
        document["kymaInstallation"] = kyma_installation_json(kyma);
        if (resource)
            document["kymaResource"] = kyma_resource_json(resource);
        document["lifecycle"] = lifecycle_json(lifecycle, runtime, store->events_of(runtime.id));
        document["kubernetesVersionLifecycle"] = version_json(version);
        document["gardener"] = view.shoot.asked || !view.shoot.error.empty()
                                   ? live_json(view.shoot, view.drift)
                                   : Json(nullptr);
        print_document(ctx.out(), document, format);
        break;
    }
    case OutputFormat::Name:
        ctx.out() << runtime.id << '\n';
        break;
    case OutputFormat::Table:
    case OutputFormat::Wide:
        print_status_table(ctx, runtime, last, kyma, resource, lifecycle, view, version,
                           format == OutputFormat::Wide);
        break;
    }
    // --live promises Gardener's view: not getting it is an error, after what the store says.
    if (args.live && !view.shoot.error.empty())
        throw Error("status --live: " + view.shoot.error);
    return k_exit_ok;
}

int cmd_operation(Context& ctx, const ReadArgs& args) {
    const auto store = open_store(ctx);
    const auto op = lookup_operation(*store, args.id, "operation");
    print_operation(ctx.out(), op, output_format(ctx), CompassIds(ctx)(op.cluster_id));
    return k_exit_ok;
}

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
