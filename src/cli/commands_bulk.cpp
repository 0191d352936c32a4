// hibernate, wake-up, deprovision, upgrade-shoot, protect and unprotect with -l SELECTOR: the
// runtimes a selector matches, listed, confirmed where it matters, then acted on in parallel
// (bulk_runner.hpp drives them) with one result each and a summary.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/bulk.hpp"
#include "cli/bulk_runner.hpp"
#include "cli/engine_access.hpp"
#include "cli/lookup.hpp"
#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "cli/runtime_file.hpp"
#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string command_of(BulkAction action) {
    switch (action) {
    case BulkAction::Hibernate:
        return "hibernate";
    case BulkAction::WakeUp:
        return "wake-up";
    case BulkAction::Deprovision:
        return "deprovision";
    case BulkAction::UpgradeShoot:
        break;
    }
    return "upgrade-shoot";
}

// The type of the operations `action` starts (a refused runtime's result names it too).
engine::OperationType operation_type_of(BulkAction action) {
    switch (action) {
    case BulkAction::Hibernate:
        return engine::OperationType::Hibernate;
    case BulkAction::WakeUp:
        return engine::OperationType::WakeUp;
    case BulkAction::Deprovision:
        return engine::OperationType::Deprovision;
    case BulkAction::UpgradeShoot:
        break;
    }
    return engine::OperationType::UpgradeShoot;
}

BulkTarget target_of(const engine::RuntimeSummary& s) {
    return {s.id, s.name, s.shoot_name};
}

// The runtimes -l selects (live ones: a deprovisioned runtime takes no operation), or the one
// RUNTIME_ID names.
std::vector<BulkTarget> targets(engine::Store& store, const std::string& runtime_id,
                                const std::vector<std::string>& selectors,
                                const std::string& command) {
    std::vector<BulkTarget> out;
    if (selectors.empty()) {
        const auto runtime = lookup_runtime(store, runtime_id, command);
        out.push_back({runtime.id, runtime.name, runtime.gardener.name});
        return out;
    }
    for (const auto& s : select_runtimes(store, engine::RuntimeQuery{}, selectors))
        out.push_back(target_of(s));
    return out;
}

// "-l team=ci" as the user gave it, for messages.
std::string selector_text(const std::vector<std::string>& selectors) {
    std::string out;
    for (const auto& s : selectors)
        out += (out.empty() ? "-l " : " -l ") + visible(s);
    return out;
}

// kubectl's "No resources found": nothing to do is not an error, so a pipeline that hibernates
// whatever it left running passes when it left nothing.
int nothing_selected(Context& ctx, const std::vector<std::string>& selectors) {
    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml)
        print_document(ctx.out(), Json::array(), format);
    if (!ctx.global().quiet)
        ctx.err() << "kprov: no runtimes match " << selector_text(selectors)
                  << "; nothing was done\n";
    return k_exit_ok;
}

// The runtime's result when it is refused before anything is asked of Gardener (an operation
// in progress; deprovisioning a protected one); nullopt when it would not be.
std::optional<BulkResult> refusal_before_start(engine::Store& store, const BulkTarget& target,
                                               BulkAction action) {
    if (const auto last = store.last_operation(target.id);
        last && last->state == engine::OperationState::InProgress)
        return BulkResult{target, BulkResult::Kind::InProgress, std::nullopt,
                          explain_in_progress(store, OperationInProgress(target.id)).what()};
    if (action == BulkAction::Deprovision && store.lifecycle_of(target.id).is_protected)
        return BulkResult{target, BulkResult::Kind::Refused, std::nullopt,
                          RuntimeProtected(target.id).what()};
    return std::nullopt;
}

// --dry-run: each runtime and what would be done to it; changes nothing.
int print_dry_run(Context& ctx, const std::vector<BulkTarget>& list, const std::string& verb,
                  const std::function<std::string(const BulkTarget&)>& refusal) {
    const auto format = output_format(ctx);
    Json documents = Json::array();
    std::vector<std::vector<Cell>> rows;
    std::size_t refused = 0;
    for (const auto& t : list) {
        const std::string why = refusal(t);
        refused += why.empty() ? 0 : 1;
        documents.push_back({{"runtimeID", t.id},
                             {"runtimeName", t.name},
                             {"shootName", t.shoot},
                             {"action", why.empty() ? verb : "refused"},
                             {"reason", why.empty() ? Json(nullptr) : Json(why)}});
        rows.push_back({{t.id}, {t.name}, {t.shoot}, {why.empty() ? verb : "refused: " + why}});
    }
    if (format == OutputFormat::Json || format == OutputFormat::Yaml)
        print_document(ctx.out(), documents, format);
    else if (format == OutputFormat::Name)
        for (const auto& d : documents) {
            if (d["action"] != "refused")
                ctx.out() << d["runtimeID"].get<std::string>() << '\n';
        }
    else
        print_table(ctx.out(), {"RUNTIME ID", "NAME", "SHOOT", "ACTION"}, rows, false);
    if (!ctx.global().quiet)
        ctx.err() << "dry run: " << verb << " " << list.size() - refused << " of " << list.size()
                  << " runtime" << (list.size() == 1 ? "" : "s")
                  << (refused > 0 ? ", " + std::to_string(refused) + " refused" : "")
                  << "; nothing was changed\n";
    return k_exit_ok;
}

// Deprovisioning many runtimes is asked once, listing them all; without a terminal to ask on,
// only --yes says yes (as for one runtime).
void confirm_deprovision(Context& ctx, const OperationArgs& args,
                         const std::vector<BulkTarget>& list) {
    if (args.yes || list.empty())
        return;
    if (!can_ask(ctx))
        throw UsageError("deprovision asks for confirmation, and there is no terminal to ask on; "
                         "add --yes to deprovision the " +
                         std::to_string(list.size()) + " runtime" + (list.size() == 1 ? "" : "s") +
                         " that " + selector_text(args.selectors) +
                         " matches (--dry-run lists them)");
    std::string question = "Deprovision these " + std::to_string(list.size()) + " runtimes?\n";
    for (const auto& t : list)
        question +=
            "  " + t.id + "  name " + visible(t.name) + "  shoot " + visible(t.shoot) + "\n";
    if (!confirmed(ctx, question + "Deprovision all " + std::to_string(list.size()) + "?"))
        throw Error("deprovisioning cancelled; nothing changed");
}

// The start of `action` on one runtime, as the engine service does it for a single one.
BulkStart start_call(BulkAction action, const std::optional<engine::UpgradeShootInput>& upgrade,
                     const std::string& file) {
    return [action, upgrade, file](EngineAccess& access, const std::string& runtime_id) {
        const auto request = access.request();
        switch (action) {
        case BulkAction::Hibernate:
            return access.service().hibernate(runtime_id, request);
        case BulkAction::WakeUp:
            return access.service().wake_up(runtime_id, request);
        case BulkAction::Deprovision:
            return access.service().deprovision(runtime_id, request);
        case BulkAction::UpgradeShoot:
            break;
        }
        try {
            return access.service().upgrade_shoot(runtime_id, *upgrade, request);
        } catch (ValidationError& e) {
            if (e.source().empty())
                e.set_source(file);
            throw;
        }
    };
}

Json result_json(const BulkResult& r, const std::string& operation_type,
                 const CompassIds& compass) {
    Json item;
    if (r.operation) {
        item = operation_json(*r.operation, compass(r.target.id));
    } else {
        item = {{"id", nullptr},
                {"operation", operation_type},
                {"state", r.kind == BulkResult::Kind::Error ? "Error" : "Refused"},
                {"message", r.message},
                {"runtimeID", r.target.id},
                {"compassRuntimeID", compass(r.target.id) ? Json(*compass(r.target.id)) : Json()},
                {"lastError", nullptr}};
    }
    item["runtimeName"] = r.target.name;
    item["shootName"] = r.target.shoot;
    return item;
}

void print_results(Context& ctx, const std::vector<BulkResult>& results,
                   const std::string& operation_type) {
    const auto format = output_format(ctx);
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        const CompassIds compass(ctx);
        Json list = Json::array();
        for (const auto& r : results)
            list.push_back(result_json(r, operation_type, compass));
        print_document(ctx.out(), list, format);
        return;
    }
    if (format == OutputFormat::Name) {
        for (const auto& r : results)
            if (r.operation)
                ctx.out() << r.operation->id << '\n';
        return;
    }
    std::vector<std::vector<Cell>> rows;
    for (const auto& r : results) {
        const auto& op = r.operation;
        rows.push_back({{r.target.id},
                        {r.target.name},
                        {op ? op->id : "-"},
                        op ? Cell(std::string(engine::to_api(op->state)), op->state)
                           : Cell(r.kind == BulkResult::Kind::Error ? "Error" : "Refused",
                                  engine::OperationState::Failed),
                        {r.message}});
    }
    print_table(ctx.out(), {"RUNTIME ID", "NAME", "OPERATION ID", "STATE", "MESSAGE"}, rows,
                use_colour(ctx.out()));
}

} // namespace

bool is_bulk(const std::string& command, const OperationArgs& args) {
    const bool by_id = !args.runtime_id.empty();
    const bool by_label = !args.selectors.empty();
    if (by_id && by_label)
        throw UsageError(command + " takes RUNTIME_ID or -l SELECTOR, not both (\"" +
                         visible(args.runtime_id) + "\" and " + selector_text(args.selectors) +
                         ")");
    if (!by_id && !by_label)
        throw UsageError(command + " needs RUNTIME_ID or -l SELECTOR (one of them)");
    if (by_label && args.detailed_exitcode)
        throw UsageError("--detailed-exitcode describes the plan of one runtime; give "
                         "RUNTIME_ID instead of " +
                         selector_text(args.selectors));
    return by_label || (args.dry_run && command != "upgrade-shoot");
}

int run_bulk_operation(Context& ctx, BulkAction action, const OperationArgs& args,
                       std::optional<Duration> timeout) {
    const std::string command = command_of(action);
    // The upgrade file is read and checked once, before any runtime is touched.
    std::optional<engine::UpgradeShootInput> upgrade;
    if (action == BulkAction::UpgradeShoot) {
        try {
            upgrade = engine::read_upgrade_input(read_runtime_file(args.file));
        } catch (ValidationError& e) {
            if (e.source().empty())
                e.set_source(args.file);
            throw;
        }
    }
    // The engine's logs and the runtimes' progress lines come from many threads: each line
    // reaches stderr whole.
    SharedStream shared_err(ctx.err());
    Context shared(ctx.global(), ctx.out(), shared_err.stream());
    EngineAccess access(shared, "cli", k_bulk_parallelism + 2, StoreUse::Existing);
    auto& store = access.store();
    const auto list = targets(store, args.runtime_id, args.selectors, command);
    if (list.empty())
        return nothing_selected(ctx, args.selectors);
    if (args.dry_run)
        return print_dry_run(ctx, list, command, [&](const BulkTarget& t) {
            const auto refused = refusal_before_start(store, t, action);
            return refused ? refused->message : std::string();
        });

    // Refused runtimes are reported, never asked about or started.
    std::vector<BulkResult> refused;
    std::vector<BulkTarget> acted_on;
    for (const auto& t : list) {
        if (auto result = refusal_before_start(store, t, action))
            refused.push_back(std::move(*result));
        else
            acted_on.push_back(t);
    }
    if (action == BulkAction::Deprovision)
        confirm_deprovision(ctx, args, acted_on);
    if (!acted_on.empty())
        check_gardener_answers(ctx, access.logger()); // reported before anything starts

    BulkOptions options;
    options.wait = args.wait;
    options.timeout = timeout;
    options.parallelism = k_bulk_parallelism;
    auto outcome = run_in_parallel(access, shared_err.stream(), ctx.global().quiet, acted_on,
                                   start_call(action, upgrade, args.file), options);
    // Refusals first, as they were found; then the runtimes in the order they were listed.
    refused.insert(refused.end(), outcome.results.begin(), outcome.results.end());
    print_results(ctx, refused, std::string(engine::to_api(operation_type_of(action))));
    if (!ctx.global().quiet)
        ctx.err() << "kprov: " << command << " " << selector_text(args.selectors) << ": "
                  << summary_text(refused) << '\n';
    return bulk_exit_code(refused, outcome.signal_number);
}

int run_bulk_protection(Context& ctx, const ReadArgs& args, bool is_protected) {
    const std::string command = is_protected ? "protect" : "unprotect";
    EngineAccess access(ctx, "cli", 4, args.dry_run ? StoreUse::Peek : StoreUse::Create);
    const auto list = targets(access.store(), args.id, args.selectors, command);
    if (list.empty())
        return nothing_selected(ctx, args.selectors);
    if (args.dry_run)
        return print_dry_run(ctx, list, command, [](const BulkTarget&) { return std::string(); });
    const auto format = output_format(ctx);
    Json documents = Json::array();
    int failures = 0;
    const std::string by = user_at_host();
    for (const auto& t : list) {
        Json item = {{"runtimeID", t.id}, {"protected", is_protected}};
        std::string line;
        try {
            const bool changed =
                access.service().set_protection(t.id, is_protected, access.request(), by);
            item["changed"] = changed;
            line = changed ? (is_protected ? "protected" : "unprotected")
                           : (is_protected ? "was protected already" : "was not protected");
        } catch (const Error& e) {
            ++failures;
            item["protected"] = !is_protected;
            item["changed"] = false;
            item["error"] = e.what();
            line = std::string("not changed: ") + e.what();
        }
        documents.push_back(item);
        if (format == OutputFormat::Table || format == OutputFormat::Wide)
            ctx.out() << "runtime " << t.id << ' ' << visible(line) << '\n';
        else if (format == OutputFormat::Name && !item.contains("error"))
            ctx.out() << t.id << '\n';
    }
    if (format == OutputFormat::Json || format == OutputFormat::Yaml)
        print_document(ctx.out(), documents, format);
    return failures == 0 ? k_exit_ok : k_exit_error;
}

bool can_ask(Context& ctx) {
    return isatty(STDIN_FILENO) == 1 && is_terminal(ctx.err());
}

bool confirmed(Context& ctx, const std::string& question) {
    ctx.err() << question << " [y/N] " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer))
        return false;
    std::transform(answer.begin(), answer.end(), answer.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return answer == "y" || answer == "yes";
}

} // namespace kprov::cli
