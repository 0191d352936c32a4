// kprov apply -f FILE|DIR: runtime files as desired state. Each runtime's steps run one after
// the other in apply_plan's fixed order; different runtimes run in parallel. kprov diff -f
// prints the same plan and changes nothing.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/apply_plan.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/operation_wait.hpp"
#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "engine/error.hpp"
#include "engine/rules/in_progress.hpp"
#include "engine/service/service.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

// Runtimes applied at once: enough for a fleet, few enough for Gardener's rate limits and the
// store's connections.
constexpr int k_parallel_runtimes = 8;

// What happened to one step.
struct StepResult {
    StepKind kind;
    std::string operation_id;                    ///< "" for store-only and pending steps
    std::optional<engine::OperationState> state; ///< the operation's, as last seen
    bool started = true;                         ///< false: left for a later apply
    std::string blocked_by;                      ///< a pending step's: the operation running
    /// The operation in progress that apply followed (not one it started), by its type.
    std::optional<engine::OperationType> followed;
};

// What happened to one runtime.
struct Outcome {
    std::string runtime_id;
    std::vector<StepResult> steps;
    std::string error; ///< a step that could not start, or the operation's lastError
    int code = k_exit_ok;
};

bool is_operation(StepKind kind) {
    return kind != StepKind::Protect && kind != StepKind::Unprotect &&
           kind != StepKind::SetLifetime;
}

// The words of a finished step ("updated: machineType"); `dry` for what it would do.
std::string step_words(const RuntimePlan& plan, StepKind kind, bool dry) {
    switch (kind) {
    case StepKind::Provision:
        if (plan.recreate)
            return dry ? "would be re-created once deprovisioning operation " + plan.running->id +
                             " has ended"
                       : "re-created";
        return dry ? "would be created" : "created";
    case StepKind::UpgradeShoot:
        return (dry ? "would be updated: " : "updated: ") + plan.upgraded_fields();
    case StepKind::Hibernate:
        return dry ? "would be hibernated" : "hibernated";
    case StepKind::WakeUp:
        return dry ? "would be woken up" : "woken up";
    case StepKind::Protect:
        return dry ? "would be protected" : "protected";
    case StepKind::Unprotect:
        return dry ? "would be unprotected" : "unprotected";
    case StepKind::SetLifetime:
        return std::string(dry ? "lifetime would be set" : "lifetime set") +
               ": deprovisioned after " +
               (plan.expires_at ? format_rfc3339(*plan.expires_at)
                                : std::string("its creation + ") +
                                      format_duration(*plan.desired->lifecycle.lifetime));
    case StepKind::Deprovision:
        return dry ? "would be pruned (deprovisioned)" : "pruned";
    }
    return "?";
}

// The words of an operation in progress that apply followed to its end.
std::string followed_words(const RuntimePlan& plan, engine::OperationType type) {
    using engine::OperationType;
    if (type == OperationType::Provision || type == OperationType::ProvisionNoInstall)
        return "created";
    if (engine::is_deprovisioning(type))
        return plan.recreate ? "deprovisioned" : "pruned";
    if (type == OperationType::Hibernate)
        return "hibernated";
    if (type == OperationType::WakeUp)
        return "woken up";
    return "updated";
}

// What a runtime's operation in progress means for a plan that changes nothing itself.
std::string running_words(const RuntimePlan& plan) {
    return "operation " + plan.running->id + " (" +
           std::string(engine::to_api(plan.running->type)) + ") in progress";
}

// "created", "unchanged", "refused", ...: the one word of -o json's `action`.
std::string action_of(const RuntimePlan& plan, const Outcome* outcome) {
    if (plan.refused())
        return "refused";
    if (outcome && outcome->code == k_exit_in_progress)
        return "pending";
    if (!plan.error.empty() || (outcome && !outcome->error.empty()))
        return outcome && outcome->code == k_exit_operation_failed ? "failed" : "error";
    if (plan.kept_protected)
        return "kept";
    if (plan.recreate)
        return "re-created";
    if (plan.steps.empty() && plan.running && outcome) {
        const auto words = followed_words(plan, plan.running->type);
        return words == "pruned" || words == "created" ? words : "updated";
    }
    if (plan.steps.empty())
        return "unchanged";
    if (plan.steps.front() == StepKind::Provision)
        return "created";
    if (plan.steps.front() == StepKind::Deprovision)
        return "pruned";
    return "updated";
}

// One line's text after the runtime's name.
std::string line_of(const RuntimePlan& plan, const Outcome* outcome, bool dry) {
    if (plan.refused())
        return "refused: " + plan.refusal();
    if (!plan.error.empty())
        return "error: " + plan.error;
    if (plan.kept_protected)
        return "kept: protected (--prune never deprovisions a protected runtime)";
    std::string text;
    auto add = [&text](const std::string& words) {
        text += (text.empty() ? "" : "; ") + words;
    };
    if (!outcome) {
        if (plan.running && !plan.recreate)
            add(running_words(plan) + (dry ? ", which apply --wait follows first" : ""));
        for (const auto kind : plan.steps)
            add(step_words(plan, kind, dry));
        return plan.steps.empty() && !plan.running ? "unchanged" : text;
    }
    if (plan.steps.empty() && outcome->steps.empty() && outcome->error.empty())
        return "unchanged";
    for (const auto& step : outcome->steps) {
        if (step.followed)
            add(followed_words(plan, *step.followed) + " (followed operation " + step.operation_id +
                (step.state == engine::OperationState::Succeeded
                     ? ")"
                     : ", " +
                           std::string(engine::to_api(
                               step.state.value_or(engine::OperationState::InProgress))) +
                           ")"));
        else if (!step.started)
            add(step_name(step.kind) + " pending: apply again once operation " + step.blocked_by +
                " has ended, or apply with --wait");
        else if (step.state == engine::OperationState::InProgress)
            add(step_words(plan, step.kind, false) + " (in progress: operation " +
                step.operation_id + ")");
        else if (step.state == engine::OperationState::Failed)
            add(step_name(step.kind) + " failed (operation " + step.operation_id + ")");
        else
            add(step_words(plan, step.kind, false));
    }
    if (!outcome->error.empty())
        add("error: " + outcome->error);
    return text;
}

std::string runtime_label(const RuntimePlan& plan) {
    std::string label = plan.shoot;
    if (!plan.file.empty())
        label += " (" + plan.file + ")";
    else if (plan.runtime)
        label += " (runtime " + plan.runtime->id + ")";
    return label;
}

Json json_of(const RuntimePlan& plan, const Outcome* outcome, bool dry) {
    Json fields = Json::array();
    for (const auto& f : plan.changes.upgraded)
        fields.push_back({{"field", f.field}, {"from", f.from}, {"to", f.to}, {"refused", false}});
    for (const auto& f : plan.changes.refused)
        fields.push_back({{"field", f.field},
                          {"from", f.from},
                          {"to", f.to},
                          {"refused", true},
                          {"why", f.note}});
    Json operations = Json::array();
    if (outcome)
        for (const auto& step : outcome->steps)
            operations.push_back(
                {{"step", step.followed ? "follow " + std::string(engine::to_api(*step.followed))
                                        : step_name(step.kind)},
                 {"id", step.operation_id.empty() ? Json(nullptr) : Json(step.operation_id)},
                 {"state", step.state ? Json(std::string(engine::to_api(*step.state)))
                                      : Json(step.started ? "Done" : "Pending")}});
    else
        for (const auto kind : plan.steps)
            operations.push_back(
                {{"step", step_name(kind)}, {"id", nullptr}, {"state", "Planned"}});
    std::string error = plan.refused() ? plan.refusal() : plan.error;
    if (outcome && !outcome->error.empty())
        error = outcome->error;
    const std::string runtime_id = outcome && !outcome->runtime_id.empty() ? outcome->runtime_id
                                   : plan.runtime                          ? plan.runtime->id
                                                                           : std::string();
    return {{"file", plan.file.empty() ? Json(nullptr) : Json(plan.file)},
            {"shoot", plan.shoot},
            {"runtimeID", runtime_id.empty() ? Json(nullptr) : Json(runtime_id)},
            {"action", action_of(plan, outcome)},
            {"dryRun", dry},
            {"fields", std::move(fields)},
            {"operations", std::move(operations)},
            {"error", error.empty() ? Json(nullptr) : Json(error)}};
}

// Every runtime's line (or -o json / yaml: the array), in the plan's order.
void print_results(Context& ctx, const std::vector<RuntimePlan>& plans,
                   const std::vector<Outcome>* outcomes, bool dry, bool details) {
    const auto format = output_format(ctx);
    auto outcome = [&](std::size_t i) {
        return outcomes ? &(*outcomes)[i] : nullptr;
    };
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        Json list = Json::array();
        for (std::size_t i = 0; i < plans.size(); ++i)
            list.push_back(json_of(plans[i], outcome(i), dry));
        print_document(ctx.out(), list, format);
        return;
    }
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const auto& plan = plans[i];
        if (format == OutputFormat::Name) {
            ctx.out() << plan.shoot << '\n';
            continue;
        }
        ctx.out() << visible(runtime_label(plan) + ": " + line_of(plan, outcome(i), dry)) << '\n';
        if (details)
            for (const auto& f : plan.changes.upgraded)
                ctx.out() << "  ~ " << visible(f.field + ": " + f.from + " -> " + f.to) << '\n';
    }
}

// The exit code of the whole apply: refusals and errors first, then failed operations, then
// timeouts, then runtimes left as they were because an operation of theirs was in progress.
int exit_code(const std::vector<RuntimePlan>& plans, const std::vector<Outcome>& outcomes) {
    int code = k_exit_ok;
    auto rank = [](int c) {
        switch (c) {
        case k_exit_error:
            return 4;
        case k_exit_operation_failed:
            return 3;
        case k_exit_timeout:
            return 2;
        case k_exit_in_progress:
            return 1;
        default:
            return c == k_exit_ok ? 0 : 5;
        }
    };
    for (std::size_t i = 0; i < plans.size(); ++i) {
        int c = outcomes[i].code;
        if (plans[i].refused() || !plans[i].error.empty())
            c = k_exit_error;
        if (rank(c) > rank(code))
            code = c;
    }
    return code;
}

// Runs the runtimes' steps: one runtime per task, k_parallel_runtimes at a time.
class Applier {
public:
    Applier(Context& ctx, EngineAccess& access, const ApplyArgs& args,
            std::optional<Duration> timeout, std::stop_token stop)
        : m_ctx(ctx)
        , m_access(access)
        , m_args(args)
        , m_stop(std::move(stop)) {
        if (timeout)
            m_deadline =
                access.clock().now() + std::chrono::duration_cast<Timestamp::duration>(*timeout);
    }

    std::vector<Outcome> run(const std::vector<RuntimePlan>& plans) {
        std::vector<Outcome> outcomes(plans.size());
        std::atomic<std::size_t> next{0};
        auto worker = [&] {
            for (std::size_t i = next++; i < plans.size(); i = next++)
                outcomes[i] = apply_one(plans[i]);
        };
        std::vector<std::jthread> threads;
        const auto count = std::min<std::size_t>(plans.size(), k_parallel_runtimes);
        for (std::size_t t = 0; t < count; ++t)
            threads.emplace_back(worker);
        threads.clear(); // joins
        return outcomes;
    }

private:
    Outcome apply_one(const RuntimePlan& plan) {
        Outcome out;
        if (plan.runtime)
            out.runtime_id = plan.runtime->id;
        if (plan.refused() || !plan.error.empty() || (plan.steps.empty() && !plan.running))
            return out;
        try {
            std::optional<std::string> busy;
            // Store changes alone do not wait for operations; anything else meets the one
            // running (an earlier, killed apply's provisioning, say) by the engine's rule.
            const bool meets =
                plan.running && (plan.steps.empty() ||
                                 std::any_of(plan.steps.begin(), plan.steps.end(), is_operation));
            if (meets) {
                const auto answer = engine::meet_in_progress(
                    *plan.running, engine::RequestIntent::Apply, m_args.wait);
                if (answer.meeting == engine::Meeting::Refuse) {
                    busy = plan.running->id;
                    out.error = answer.message;
                    out.code = k_exit_in_progress;
                } else {
                    progress(plan, answer.message);
                    out.steps.push_back({StepKind::Provision, plan.running->id, plan.running->state,
                                         true, "", plan.running->type});
                    if (!finish(plan, plan.running->id, out))
                        return out;
                    if (plan.recreate)
                        out.runtime_id.clear(); // the next provisioning makes a new runtime
                }
            }
            for (const auto kind : plan.steps)
                if (!run_step(plan, kind, busy, out))
                    break;
        } catch (const OperationInProgress& e) {
            out.error = e.what();
            out.code = k_exit_in_progress;
        } catch (const std::exception& e) {
            out.error = e.what();
            out.code = k_exit_error;
        }
        return out;
    }

    // Runs one step; false when the runtime's later steps must not run. `busy`: the
    // runtime's operation still in progress (without --wait), which the next operation would
    // collide with.
    bool run_step(const RuntimePlan& plan, StepKind kind, std::optional<std::string>& busy,
                  Outcome& out) {
        if (!is_operation(kind)) {
            store_step(plan, kind, out.runtime_id);
            out.steps.push_back({kind, "", std::nullopt, true, "", std::nullopt});
            return true;
        }
        if (busy) {
            // Left for the next apply, which finds the runtime further along.
            out.steps.push_back({kind, "", std::nullopt, false, *busy, std::nullopt});
            return true;
        }
        const auto started = start(plan, kind, out.runtime_id);
        out.runtime_id = started.runtime_id;
        out.steps.push_back(
            {kind, started.operation.id, started.operation.state, true, "", std::nullopt});
        progress(plan, step_name(kind) + " operation " + started.operation.id + " started");
        if (!m_args.wait) {
            // As the operation commands without --wait: one pass here, Gardener goes on.
            const auto pass =
                m_access.executor().run_operation(started.operation.id, m_access.owner());
            out.steps.back().state = pass.operation.state;
            if (pass.operation.state == engine::OperationState::Failed)
                return failed(out, pass.operation);
            if (pass.operation.state == engine::OperationState::InProgress)
                busy = started.operation.id;
            return true;
        }
        return finish(plan, started.operation.id, out);
    }

    engine::StartedOperation start(const RuntimePlan& plan, StepKind kind,
                                   const std::string& runtime_id) {
        auto& service = m_access.service();
        const auto request = m_access.request();
        switch (kind) {
        case StepKind::Provision:
            return service.provision(plan.desired->input, request);
        case StepKind::UpgradeShoot:
            return service.upgrade_shoot(runtime_id, plan.changes.upgrade, request);
        case StepKind::Hibernate:
            return service.hibernate(runtime_id, request);
        case StepKind::WakeUp:
            return service.wake_up(runtime_id, request);
        case StepKind::Deprovision:
            return service.deprovision(runtime_id, request);
        default:
            throw Error("internal error: " + step_name(kind) + " is not an operation");
        }
    }

    // Protection and lifetime: store changes, recorded in the runtime's events.
    void store_step(const RuntimePlan& plan, StepKind kind, const std::string& runtime_id) {
        const std::string by = user_at_host() + " (kprov apply -f " + plan.file + ")";
        if (kind == StepKind::SetLifetime)
            m_access.service().set_lifetime(runtime_id, *plan.desired->lifecycle.lifetime, by);
        else
            m_access.service().set_protection(runtime_id, kind == StepKind::Protect,
                                              m_access.request(), by);
    }

    // Drives the operation to its end (or the deadline, or a signal); false unless it
    // succeeded.
    bool finish(const RuntimePlan& plan, const std::string& operation_id, Outcome& out) {
        engine::DriveOptions options;
        options.deadline = m_deadline;
        options.stop = m_stop;
        const auto result = drive_operation(m_access, operation_id, options);
        const auto& op = result.operation;
        if (!out.steps.empty() && out.steps.back().operation_id == op.id)
            out.steps.back().state = op.state;
        if (op.state == engine::OperationState::Succeeded) {
            progress(plan,
                     std::string(engine::to_api(op.type)) + " operation " + op.id + " succeeded");
            return true;
        }
        if (op.state == engine::OperationState::Failed)
            return failed(out, op);
        out.error =
            std::string(engine::to_api(op.type)) + " operation " + op.id +
            " is still in progress at stage " + op.stage +
            (result.end == engine::DriveEnd::Deadline ? " (--timeout reached)" : " (interrupted)") +
            "; `kprov wait " + op.id + "` finishes it";
        out.code = k_exit_timeout;
        return false;
    }

    bool failed(Outcome& out, const engine::Operation& op) {
        const auto& message = op.last_error.message.empty() ? op.message : op.last_error.message;
        out.error = std::string(engine::to_api(op.type)) + " operation " + op.id +
                    " failed: " + message +
                    (op.last_error.reason.empty() ? "" : " (reason " + op.last_error.reason + ")");
        out.code = k_exit_operation_failed;
        return false;
    }

    // One progress line on stderr (not with -q), whole lines only from parallel runtimes.
    void progress(const RuntimePlan& plan, const std::string& text) {
        if (m_ctx.global().quiet)
            return;
        const std::lock_guard lock(m_err_mutex);
        m_ctx.err() << "kprov: " << plan.shoot << ": " << text << '\n';
    }

    Context& m_ctx;
    EngineAccess& m_access;
    const ApplyArgs& m_args;
    std::stop_token m_stop;
    std::optional<Timestamp> m_deadline;
    std::mutex m_err_mutex;
};

// The label selector of --prune: every -l must match (as list's).
std::optional<LabelSelector> prune_selector(const ApplyArgs& args) {
    if (!args.prune) {
        if (!args.selectors.empty())
            throw UsageError("-l SELECTOR selects the runtimes --prune may deprovision; add "
                             "--prune or leave -l out");
        return std::nullopt;
    }
    if (args.selectors.empty())
        throw UsageError("--prune needs -l SELECTOR: the labels of the runtimes it may "
                         "deprovision (for example -l team=ci)");
    LabelSelector selector;
    for (const auto& text : args.selectors) {
        try {
            const auto parsed = parse_label_selector(text);
            selector.insert(selector.end(), parsed.begin(), parsed.end());
        } catch (const InvalidSelector& e) {
            throw UsageError("-l \"" + text + "\": " + e.what());
        }
    }
    return selector;
}

void check_flags(const ApplyArgs& args) {
    if (args.timeout && !args.wait)
        throw UsageError("--timeout applies to --wait; add --wait or leave --timeout out");
    if (args.dry_run && args.wait)
        throw UsageError("--dry-run changes nothing, so there is nothing to --wait for");
}

// Reads the files and plans against the store: the part apply, apply --dry-run and diff -f
// share.
std::vector<RuntimePlan> plan_files(Context& ctx, EngineAccess& access,
                                    const std::vector<std::string>& given,
                                    const std::optional<LabelSelector>& prune) {
    const auto files = runtime_files(given);
    configured_project(ctx); // its default names no project: "no project set", not "too long"
    return plan_apply(ctx, access, read_desired(ctx, files), prune);
}

// A new runtime needs a tenant, as provision says; diff -f creates nothing and needs none.
void require_tenant_to_create(Context& ctx, const std::vector<RuntimePlan>& plans) {
    const bool creates = std::any_of(plans.begin(), plans.end(), [](const RuntimePlan& p) {
        return !p.steps.empty() && p.steps.front() == StepKind::Provision;
    });
    const auto& tenant = ctx.config().settings.tenant;
    if (creates && (!tenant || tenant->empty()))
        throw UsageError("apply creates runtimes, and a new runtime needs a tenant (global "
                         "account): give " +
                         ways_to_set("tenant"));
}

} // namespace

int cmd_apply(Context& ctx, const ApplyArgs& args) {
    check_flags(args);
    const auto timeout = parse_timeout(args.timeout);
    const auto prune = prune_selector(args);
    EngineAccess access(ctx, "cli", k_parallel_runtimes,
                        args.dry_run ? StoreUse::Peek : StoreUse::Create);
    auto plans = plan_files(ctx, access, args.files, prune);
    require_tenant_to_create(ctx, plans);
    if (args.dry_run) {
        print_results(ctx, plans, nullptr, true, true);
        if (!ctx.global().quiet)
            ctx.err() << "dry run: nothing was changed\n";
        return std::any_of(plans.begin(), plans.end(),
                           [](const RuntimePlan& p) { return p.refused() || !p.error.empty(); })
                   ? k_exit_error
                   : k_exit_ok;
    }
    const bool operations = std::any_of(plans.begin(), plans.end(), [](const RuntimePlan& p) {
        return p.running || std::any_of(p.steps.begin(), p.steps.end(), is_operation);
    });
    if (operations)
        check_gardener_answers(ctx, access.logger()); // reported before anything is written
    std::stop_source stop;
    std::vector<Outcome> outcomes;
    {
        InterruptScope interrupt(stop, [] {});
        outcomes = Applier(ctx, access, args, timeout, stop.get_token()).run(plans);
    }
    print_results(ctx, plans, &outcomes, false, false);
    return exit_code(plans, outcomes);
}

int cmd_diff_files(Context& ctx, const std::vector<std::string>& files) {
    EngineAccess access(ctx, "cli", 1, StoreUse::Peek);
    const auto plans = plan_files(ctx, access, files, std::nullopt);
    print_results(ctx, plans, nullptr, true, true);
    if (std::any_of(plans.begin(), plans.end(),
                    [](const RuntimePlan& p) { return p.refused() || !p.error.empty(); }))
        return k_exit_error;
    const bool changes = std::any_of(plans.begin(), plans.end(),
                                     [](const RuntimePlan& p) { return !p.steps.empty(); });
    return changes ? k_exit_differences : k_exit_ok;
}

} // namespace kprov::cli
