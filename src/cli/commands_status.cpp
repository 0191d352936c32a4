// status and operation: one runtime or operation as the store has it, and for status what
// Gardener and the Kyma Control Plane say of it now.

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

// How long status waits for Gardener: briefly by default, longer when --live asks for it.
constexpr std::chrono::milliseconds k_status_timeout{3000};
constexpr std::chrono::milliseconds k_live_timeout{10000};

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
        const LogScope log(ctx);
        view.state =
            app::open_kcp(settings, std::chrono::seconds(10), log.logger())->read_kyma(view.name);
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
        auto document =
            status_document(runtime, last, CompassIds(ctx), live_hibernation(view.shoot));
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

} // namespace kprov::cli
