#include "cli/apply_plan.hpp"

#include "cli/access.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/live_shoot.hpp"
#include "cli/runtime_file.hpp"
#include "config/engine_options.hpp"
#include "engine/error.hpp"
#include "engine/rules/in_progress.hpp"
#include "engine/service/service.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

namespace kprov::cli {
namespace {

namespace fs = std::filesystem;

bool is_runtime_file_name(const fs::path& path) {
    const auto ext = path.extension().string();
    return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

std::vector<std::string> files_of_directory(const std::string& dir) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (!entry.is_directory() && is_runtime_file_name(entry.path()))
            files.push_back(entry.path().string());
    if (files.empty())
        throw UsageError("-f \"" + dir +
                         "\" is a directory without runtime files (expected *.yaml, *.yml or "
                         "*.json in it; subdirectories are not read)");
    std::sort(files.begin(), files.end());
    return files;
}

DesiredRuntime read_one(Context& ctx, const std::string& file) {
    auto [input, lifecycle] =
        read_provision_file(read_runtime_file(file),
                            config::conversion_options(ctx.config().settings), LifecycleUse::Apply);
    return {file, std::move(input), lifecycle.value_or(LifecycleSpec{})};
}

// A runtime's expiry for a lifetime: the engine's rule, as provision sets it.
Timestamp expiry(const engine::Runtime& runtime, Duration lifetime) {
    return engine::lifetime_expiry(runtime.creation_timestamp, lifetime);
}

// The steps that bring a live runtime to its file, in apply's fixed order.
void plan_existing(EngineAccess& access, const engine::Runtime& planned, RuntimePlan& plan) {
    auto& store = access.store();
    const engine::Runtime& runtime = *plan.runtime;
    const DesiredRuntime& desired = *plan.desired;
    plan.changes =
        engine::config_changes(runtime, planned, desired.input.administrators.has_value(),
                               desired.lifecycle.hibernation_schedules.has_value());
    if (plan.refused())
        return;
    const auto operations = store.operations_of(runtime.id);
    if (!operations.empty() && operations.front().state == engine::OperationState::InProgress)
        plan.running = operations.front();
    if (plan.changes.needs_upgrade())
        plan.steps.push_back(StepKind::UpgradeShoot);
    const auto& wanted = desired.lifecycle;
    // What an operation in progress leads to counts: a provisioning leaves the cluster awake.
    const bool hibernated = stored_hibernation(operations).value_or(false);
    if (wanted.hibernated && *wanted.hibernated != hibernated)
        plan.steps.push_back(*wanted.hibernated ? StepKind::Hibernate : StepKind::WakeUp);
    const auto lifecycle = store.lifecycle_of(runtime.id);
    if (wanted.protected_given && wanted.is_protected != lifecycle.is_protected)
        plan.steps.push_back(wanted.is_protected ? StepKind::Protect : StepKind::Unprotect);
    if (wanted.lifetime && expiry(runtime, *wanted.lifetime) != lifecycle.expires_at) {
        plan.expires_at = expiry(runtime, *wanted.lifetime);
        plan.steps.push_back(StepKind::SetLifetime);
    }
}

void plan_new(RuntimePlan& plan) {
    const auto& wanted = plan.desired->lifecycle;
    plan.steps.push_back(StepKind::Provision);
    if (wanted.hibernated.value_or(false))
        plan.steps.push_back(StepKind::Hibernate);
    if (wanted.is_protected)
        plan.steps.push_back(StepKind::Protect);
    if (wanted.lifetime)
        plan.steps.push_back(StepKind::SetLifetime);
}

RuntimePlan plan_file(EngineAccess& access, const DesiredRuntime& desired) {
    RuntimePlan plan;
    plan.file = desired.file;
    plan.shoot = desired.input.gardener.name;
    plan.desired = desired;
    try {
        const auto [planned, owner] = access.service().plan_provision(
            desired.input, access.request(), engine::k_placeholder_ids);
        if (owner)
            plan.runtime = access.store().find_runtime(owner->runtime_id);
        const auto last =
            plan.runtime ? access.store().last_operation(plan.runtime->id) : std::nullopt;
        if (last && last->state == engine::OperationState::InProgress &&
            engine::meet_in_progress(*last, engine::RequestIntent::Apply, true).then ==
                engine::Then::Provision) {
            // Being deleted: what is left once that has ended is a new runtime.
            plan.running = last;
            plan.recreate = true;
            plan_new(plan);
        } else if (plan.runtime) {
            plan_existing(access, planned.runtime, plan);
        } else {
            plan_new(plan);
        }
    } catch (ValidationError& e) {
        e.set_source(desired.file);
        throw;
    } catch (const Error& e) {
        plan.error = e.what();
    }
    return plan;
}

// Runtimes of the configured project that match `selector`, are live and have no file.
std::vector<RuntimePlan> plan_prune(Context& ctx, EngineAccess& access,
                                    const std::vector<RuntimePlan>& files,
                                    const LabelSelector& selector) {
    auto& store = access.store();
    const std::string project = configured_project(ctx);
    engine::RuntimeQuery query;
    LabelSelector rest;
    query.labels = equality_requirements(selector, rest);
    std::vector<RuntimePlan> out;
    for (const auto& summary : store.query_runtimes(query)) {
        if (!selector_matches(rest, summary.labels_json))
            continue;
        const bool named = std::any_of(files.begin(), files.end(), [&](const RuntimePlan& p) {
            return p.runtime ? p.runtime->id == summary.id : p.shoot == summary.shoot_name;
        });
        auto runtime = store.find_runtime(summary.id);
        if (named || !runtime || runtime->deleted || runtime->gardener.project_name != project)
            continue;
        RuntimePlan plan;
        plan.shoot = runtime->gardener.name;
        if (auto last = store.last_operation(runtime->id);
            last && last->state == engine::OperationState::InProgress)
            plan.running = std::move(last);
        // Being deprovisioned already: apply follows that deprovisioning, with no step of its own.
        const bool pruning = plan.running && engine::is_deprovisioning(plan.running->type);
        if (!pruning && store.lifecycle_of(runtime->id).is_protected)
            plan.kept_protected = true;
        else if (!pruning)
            plan.steps.push_back(StepKind::Deprovision);
        plan.runtime = std::move(runtime);
        out.push_back(std::move(plan));
    }
    std::sort(out.begin(), out.end(),
              [](const RuntimePlan& a, const RuntimePlan& b) { return a.shoot < b.shoot; });
    return out;
}

} // namespace

std::vector<std::string> runtime_files(const std::vector<std::string>& given) {
    std::vector<std::string> files;
    for (const auto& path : given) {
        std::error_code error;
        const auto status = fs::status(path, error);
        if (path == "-")
            throw UsageError("-f - (stdin) is not supported by apply: give files or directories");
        if (!fs::exists(status))
            throw UsageError("-f \"" + path +
                             "\" does not exist (expected a runtime file or a "
                             "directory of them)");
        const auto more =
            fs::is_directory(status) ? files_of_directory(path) : std::vector<std::string>{path};
        for (const auto& file : more) {
            if (std::find(files.begin(), files.end(), file) != files.end())
                throw UsageError("-f: runtime file \"" + file + "\" is given twice");
            files.push_back(file);
        }
    }
    if (files.empty())
        throw UsageError("apply needs -f FILE or -f DIR");
    return files;
}

std::vector<DesiredRuntime> read_desired(Context& ctx, const std::vector<std::string>& files) {
    std::vector<DesiredRuntime> out;
    std::vector<FieldProblem> problems;
    std::optional<ValidationError> only;
    for (const auto& file : files) {
        try {
            out.push_back(read_one(ctx, file));
        } catch (const ValidationError& e) {
            for (const auto& p : e.problems())
                problems.push_back({file + (p.path.empty() ? "" : ": " + p.path), p.message});
            only = e;
            only->set_source(file);
        }
    }
    if (only && out.size() + 1 == files.size())
        throw *only; // one bad file: its own heading, as provision shows it
    if (!problems.empty())
        throw ValidationError(std::move(problems));
    std::map<std::string, std::string> by_shoot;
    for (const auto& d : out) {
        const auto [it, fresh] = by_shoot.emplace(d.input.gardener.name, d.file);
        if (!fresh)
            throw UsageError("runtime files \"" + it->second + "\" and \"" + d.file +
                             "\" both name shoot \"" + d.input.gardener.name +
                             "\" (gardenerConfig.name): one file per runtime");
    }
    return out;
}

std::string step_name(StepKind kind) {
    switch (kind) {
    case StepKind::Provision:
        return "provision";
    case StepKind::UpgradeShoot:
        return "upgrade-shoot";
    case StepKind::Hibernate:
        return "hibernate";
    case StepKind::WakeUp:
        return "wake-up";
    case StepKind::Protect:
        return "protect";
    case StepKind::Unprotect:
        return "unprotect";
    case StepKind::SetLifetime:
        return "lifetime";
    case StepKind::Deprovision:
        return "deprovision";
    }
    return "?";
}

std::string RuntimePlan::refusal() const {
    std::string text;
    for (const auto& f : changes.refused)
        text += (text.empty() ? "" : "; ") + f.field + " differs (" + f.from + " -> " + f.to +
                "): " + f.note;
    return text + "; the runtime must be replaced: deprovision runtime " +
           (runtime ? runtime->id : std::string("?")) + ", then apply again";
}

std::string RuntimePlan::upgraded_fields() const {
    std::string text;
    for (const auto& f : changes.upgraded)
        text += (text.empty() ? "" : ", ") + f.field;
    return text;
}

std::vector<RuntimePlan> plan_apply(Context& ctx, EngineAccess& access,
                                    const std::vector<DesiredRuntime>& desired,
                                    const std::optional<LabelSelector>& prune) {
    std::vector<RuntimePlan> plans;
    for (const auto& d : desired)
        plans.push_back(plan_file(access, d));
    if (prune) {
        auto pruned = plan_prune(ctx, access, plans, *prune);
        plans.insert(plans.end(), pruned.begin(), pruned.end());
    }
    return plans;
}

} // namespace kprov::cli
