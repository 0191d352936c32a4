// provision, deprovision, upgrade-shoot, hibernate, wake-up: start an operation through the
// engine service, print it, and with --wait drive it to its end here.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/bulk.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/operation_wait.hpp"
#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "cli/runtime_lifecycle.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/rules/in_progress.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "engine/util/time.hpp"

#include <functional>
#include <nlohmann/json.hpp>

namespace kprov::cli {
namespace {

// Checks the flags that only make sense together; returns the parsed --timeout.
std::optional<Duration> check_flags(const OperationArgs& args) {
    if (args.timeout && !args.wait)
        throw UsageError("--timeout applies to --wait; add --wait or leave --timeout out");
    if (args.dry_run && args.wait)
        throw UsageError("--dry-run changes nothing, so there is nothing to --wait for");
    if (args.detailed_exitcode && !args.dry_run)
        throw UsageError("--detailed-exitcode applies to --dry-run; add --dry-run or leave "
                         "--detailed-exitcode out");
    return parse_timeout(args.timeout);
}

// Runs `call`, naming `file` as the source of the input problems it reports.
template <typename Call> auto about_file(const std::string& file, Call call) {
    try {
        return call();
    } catch (ValidationError& e) {
        if (e.source().empty())
            e.set_source(file);
        throw;
    }
}

// The engine's rule (a provisioning needs a tenant), said before anything is opened, with
// the ways to give one.
void required_tenant(Context& ctx) {
    try {
        engine::require_tenant({ctx.config().settings.tenant.value_or(""), ""});
    } catch (const engine::TenantMissing&) {
        throw UsageError("provision needs a tenant (global account): give " +
                         ways_to_set("tenant"));
    }
}

// What happens after the service started an operation: notes on stderr, then the operation on
// stdout, or with --wait the operation driven to its end.
int after_start(Context& ctx, EngineAccess& access, const engine::StartedOperation& started,
                const OperationArgs& args, std::optional<Duration> timeout) {
    const auto& op = started.operation;
    // A rewritten tenant is in the engine's log already.
    print_warnings(ctx, started.warnings);
    if (!ctx.global().quiet) {
        if (started.already_requested)
            ctx.err() << "kprov: note: already requested: runtime " << started.runtime_id
                      << " was made by this same request; its provisioning operation " << op.id
                      << " is " << engine::to_api(op.state) << ", and nothing new was started\n";
    }
    if (!args.wait)
        return drive_until_first_wait(ctx, access, op.id);
    if (!ctx.global().quiet)
        ctx.err() << engine::to_api(op.type) << " operation " << op.id << " of runtime "
                  << started.runtime_id << " started\n";
    return wait_for_operation(ctx, access, op.id, timeout);
}

// The commands that start an operation on a runtime they are given (its id, as lookup_runtime
// found it).
using StartCall = std::function<engine::StartedOperation(EngineAccess&, const engine::Runtime&,
                                                         const engine::RequestContext&)>;

// The part of `timeout` that is left `since` a moment.
std::optional<Duration> time_left(std::optional<Duration> timeout, Timestamp since,
                                  const Clock& clock) {
    if (!timeout)
        return std::nullopt;
    const auto spent = std::chrono::duration_cast<Duration>(clock.now() - since);
    return spent >= *timeout ? Duration::zero() : *timeout - spent;
}

// The runtime's operation in progress met by a request of `intent`, as the engine's rule
// says: nullopt when the request carries on (nothing in progress, or followed to its end);
// else the exit code to end the command with. Throws OperationInProgress for a refusal.
std::optional<int> meet_running(Context& ctx, EngineAccess& access, const std::string& runtime_id,
                                engine::RequestIntent intent, const OperationArgs& args,
                                std::optional<Duration>& timeout) {
    const auto last = access.store().last_operation(runtime_id);
    if (!last || last->state != engine::OperationState::InProgress)
        return std::nullopt;
    const auto answer = engine::meet_in_progress(*last, intent, args.wait);
    if (answer.meeting == engine::Meeting::Refuse)
        throw OperationInProgress(runtime_id, answer.message);
    check_gardener_answers(ctx, access.logger());
    if (!ctx.global().quiet)
        ctx.err() << "kprov: " << answer.message << '\n';
    if (answer.then == engine::Then::Nothing)
        return wait_for_operation(ctx, access, last->id, timeout);
    const Timestamp began = access.clock().now();
    if (const auto code = follow_operation(ctx, access, last->id, timeout))
        return code;
    timeout = time_left(timeout, began, access.clock());
    return std::nullopt;
}

// Hibernating a hibernated runtime, waking an awake one: nothing to start. The runtime's last
// operation is printed, exit 0, and no operation is stored.
std::optional<int> answer_already_done(Context& ctx, EngineAccess& access,
                                       const engine::Runtime& runtime,
                                       std::optional<engine::OperationType> type) {
    if (!type || runtime.deleted)
        return std::nullopt;
    const auto shoot = access.service().own_shoot(runtime.id, runtime.gardener.name);
    const auto already = shoot ? engine::already_done(*shoot, *type) : std::nullopt;
    if (!already)
        return std::nullopt;
    if (!ctx.global().quiet)
        ctx.err() << "kprov: runtime " << runtime.id << " is " << *already
                  << ": nothing was started\n";
    if (const auto last = access.store().last_operation(runtime.id))
        print_operation(ctx.out(), *last, output_format(ctx), CompassIds(ctx)(runtime.id));
    return k_exit_ok;
}

int start_on_runtime(Context& ctx, const std::string& command, engine::RequestIntent intent,
                     const OperationArgs& args, std::optional<Duration> timeout,
                     const StartCall& call,
                     std::optional<engine::OperationType> unless_done = std::nullopt) {
    EngineAccess access(ctx);
    const auto runtime = lookup_runtime(access.store(), args.runtime_id, command);
    // Said before Gardener is asked anything (the store still decides when two race).
    if (const auto code = meet_running(ctx, access, runtime.id, intent, args, timeout))
        return *code;
    check_gardener_answers(ctx, access.logger()); // reported before anything is written
    if (const auto code = answer_already_done(ctx, access, runtime, unless_done))
        return *code;
    try {
        const auto started = call(access, runtime, access.request());
        return after_start(ctx, access, started, args, timeout);
    } catch (const OperationInProgress& e) {
        throw explain_in_progress(access.store(), e);
    }
}

int provision_dry_run(Context& ctx, const engine::ProvisionInput& input, const std::string& file) {
    EngineAccess access(ctx, "cli", 1, StoreUse::Peek);
    const auto [plan, owner] = about_file(file, [&] {
        return access.service().plan_provision(input, access.request(), engine::k_placeholder_ids);
    });
    print_warnings(ctx, plan.warnings);
    const auto& runtime = plan.runtime;
    const auto& g = runtime.gardener;
    const std::string ns = "garden-" + g.project_name;
    // The same rule as the request: a live runtime owns the name.
    const std::string outcome = engine::shoot_name_outcome(owner, runtime);
    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        nlohmann::ordered_json document = {{"dryRun", true},
                                           {"runtimeName", runtime.name},
                                           {"shootName", g.name},
                                           {"namespace", ns},
                                           {"provider", g.provider},
                                           {"region", g.region},
                                           {"kubernetesVersion", g.kubernetes_version},
                                           {"tenant", runtime.tenant},
                                           {"subAccount", runtime.sub_account_id}};
        if (owner) {
            document["ownedBy"] = owner->runtime_id;
            document["alreadyRequested"] = owner->same_request;
        }
        print_document(ctx.out(), document, format);
    } else if (format == OutputFormat::Name) {
        ctx.out() << g.name << '\n';
    } else {
        print_key_values(ctx.out(),
                         {{"runtime", owner && owner->same_request
                                          ? runtime.name + " (runtime " + owner->runtime_id + ")"
                                          : runtime.name + " (its id is assigned when it is "
                                                           "provisioned)"},
                          {"shoot", g.name + " in " + ns},
                          {"provider", g.provider},
                          {"region", g.region},
                          {"kubernetes", g.kubernetes_version},
                          {"tenant", runtime.tenant},
                          {"outcome", outcome}});
    }
    if (!ctx.global().quiet)
        ctx.err() << "dry run: " << file << " is valid; nothing was written\n";
    if (owner && !owner->same_request)
        throw engine::shoot_name_refusal(owner->runtime_id, runtime);
    return k_exit_ok;
}

} // namespace

int cmd_provision(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    auto document = read_runtime_file(args.file); // not there: exit 2 before anything else
    configured_project(ctx); // its default names no project: "no project set", not "too long"
    auto [input, lifecycle] = about_file(args.file, [&] {
        return read_provision_file(std::move(document),
                                   config::conversion_options(ctx.config().settings));
    });
    // Written with the runtime, in its transaction (EngineService::provision).
    if (lifecycle)
        input.lifecycle =
            lifecycle_request(*lifecycle, user_at_host() + " (lifecycle of " + args.file + ")");
    required_tenant(ctx);
    if (args.dry_run)
        return provision_dry_run(ctx, input, args.file);
    // As in start_on_runtime, but before the store is opened: logged as the command logs.
    check_gardener_answers(ctx, LogScope(ctx).logger());
    EngineAccess access(ctx);
    auto timeout_left = timeout;
    auto started =
        about_file(args.file, [&] { return access.service().provision(input, access.request()); });
    const auto last = started.already_requested ? access.store().last_operation(started.runtime_id)
                                                : std::nullopt;
    if (last && last->state == engine::OperationState::InProgress &&
        engine::is_deprovisioning(last->type)) {
        // The runtime this file made is being deprovisioned: the file makes a new one after.
        if (const auto code = meet_running(ctx, access, started.runtime_id,
                                           engine::RequestIntent::Provision, args, timeout_left))
            return *code;
        const auto runtime = access.store().find_runtime(started.runtime_id);
        if (!runtime || !runtime->deleted)
            throw Error("deprovisioning operation " + last->id + " of runtime " +
                        started.runtime_id +
                        " did not end it, so no new runtime was "
                        "provisioned; see kprov history " +
                        started.runtime_id);
        started = about_file(args.file,
                             [&] { return access.service().provision(input, access.request()); });
    } else if (last && last->id == started.operation.id &&
               last->state == engine::OperationState::InProgress) {
        // Its provisioning still runs (a killed `provision --wait`): --wait follows it.
        if (const auto code = meet_running(ctx, access, started.runtime_id,
                                           engine::RequestIntent::Provision, args, timeout_left))
            return *code;
    }
    return after_start(ctx, access, started, args, timeout_left);
}

int cmd_deprovision(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    if (is_bulk("deprovision", args))
        return run_bulk_operation(ctx, BulkAction::Deprovision, args, timeout);
    const bool ask = !args.yes;
    if (ask && !can_ask(ctx))
        throw UsageError("deprovision asks for confirmation, and there is no terminal to ask on; "
                         "add --yes to deprovision runtime " +
                         args.runtime_id);
    return start_on_runtime(ctx, "deprovision", engine::RequestIntent::Deprovision, args, timeout,
                            [&](EngineAccess& access, const engine::Runtime& runtime,
                                const engine::RequestContext& request) {
                                if (ask) {
                                    // refused before the question, not after it
                                    engine::refuse_if_protected(access.store(), runtime.id);
                                    if (!confirmed(ctx, "Deprovision runtime " + runtime.id +
                                                            " (name " + runtime.name + ", shoot " +
                                                            runtime.gardener.name + ")?"))
                                        throw Error("deprovisioning of runtime " + runtime.id +
                                                    " cancelled; nothing changed");
                                }
                                return access.service().deprovision(runtime.id, request);
                            });
}

int cmd_upgrade_shoot(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    if (is_bulk("upgrade-shoot", args))
        return run_bulk_operation(ctx, BulkAction::UpgradeShoot, args, timeout);
    if (args.dry_run)
        return cmd_plan(ctx, PlanArgs{args.file, args.runtime_id, args.detailed_exitcode});
    const auto input = about_file(
        args.file, [&] { return engine::read_upgrade_input(read_runtime_file(args.file)); });
    return start_on_runtime(
        ctx, "upgrade-shoot", engine::RequestIntent::UpgradeShoot, args, timeout,
        [&](EngineAccess& access, const engine::Runtime& runtime,
            const engine::RequestContext& request) {
            return about_file(args.file, [&] {
                return access.service().upgrade_shoot(runtime.id, input, request);
            });
        });
}

int cmd_upgrade_kyma(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    const auto input = about_file(args.file, [&] {
        return engine::read_kyma_upgrade_input(read_runtime_file(args.file),
                                               config::conversion_options(ctx.config().settings));
    });
    return start_on_runtime(ctx, "upgrade-kyma", engine::RequestIntent::UpgradeKyma, args, timeout,
                            [&](EngineAccess& access, const engine::Runtime& runtime,
                                const engine::RequestContext& request) {
                                return about_file(args.file, [&] {
                                    return access.service().upgrade_kyma(runtime.id, input,
                                                                         request);
                                });
                            });
}

int cmd_rollback_kyma(Context& ctx, const OperationArgs& args) {
    EngineAccess access(ctx);
    const auto runtime = lookup_runtime(access.store(), args.runtime_id, "rollback-kyma");
    access.service().roll_back_kyma(runtime.id, access.request());
    if (!ctx.global().quiet)
        ctx.err() << "kprov: the Kyma config before the last upgrade of runtime " << runtime.id
                  << " is active again; nothing was changed on the cluster\n";
    ReadArgs status;
    status.id = runtime.id;
    return cmd_status(ctx, status);
}

int cmd_hibernate(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    if (is_bulk("hibernate", args))
        return run_bulk_operation(ctx, BulkAction::Hibernate, args, timeout);
    return start_on_runtime(
        ctx, "hibernate", engine::RequestIntent::Hibernate, args, timeout,
        [](EngineAccess& access, const engine::Runtime& runtime,
           const engine::RequestContext& request) {
            return access.service().hibernate(runtime.id, request);
        },
        engine::OperationType::Hibernate);
}

int cmd_wake_up(Context& ctx, const OperationArgs& args) {
    const auto timeout = check_flags(args);
    if (is_bulk("wake-up", args))
        return run_bulk_operation(ctx, BulkAction::WakeUp, args, timeout);
    return start_on_runtime(
        ctx, "wake-up", engine::RequestIntent::WakeUp, args, timeout,
        [](EngineAccess& access, const engine::Runtime& runtime,
           const engine::RequestContext& request) {
            return access.service().wake_up(runtime.id, request);
        },
        engine::OperationType::WakeUp);
}

} // namespace kprov::cli
