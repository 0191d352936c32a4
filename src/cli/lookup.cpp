#include "cli/lookup.hpp"

#include "cli/context.hpp"
#include "cli/render.hpp"
#include "engine/util/text.hpp"

#include <algorithm>

namespace kprov::cli {
namespace {

constexpr std::size_t k_suggestions = 5;
// More candidates than a message lists: enough to say "..." when there are more.
constexpr std::size_t k_candidates = 10;

std::string quoted(const std::string& text) {
    return "\"" + visible(text) + "\"";
}

// "did you mean" for a name that matched nothing: ids that start with it (an id given by too
// short a prefix) or, for a mistyped id, the closest one sharing its first characters.
std::string suggestion(const std::string& given, const std::vector<std::string>& with_prefix,
                       const std::vector<std::string>& similar) {
    if (with_prefix.size() == 1)
        return "; did you mean " + quoted(with_prefix.front()) + "?";
    if (!with_prefix.empty()) {
        std::string out = "; did you mean one of";
        for (std::size_t i = 0; i < with_prefix.size() && i < k_suggestions; ++i)
            out += (i == 0 ? " " : ", ") + quoted(with_prefix[i]);
        return out + (with_prefix.size() > k_suggestions ? ", ...?" : "?");
    }
    if (const auto match = closest_match(given, similar))
        return "; did you mean " + quoted(*match) + "?";
    return {};
}

template <typename IdsWithPrefix>
std::string suggestion_for(const std::string& given, IdsWithPrefix ids_with_prefix) {
    return suggestion(
        given,
        given.empty() ? std::vector<std::string>{} : ids_with_prefix(given, k_suggestions + 1),
        given.size() >= 4 ? ids_with_prefix(given.substr(0, 4), 50) : std::vector<std::string>{});
}

std::string runtime_line(const engine::Runtime& r) {
    return "  " + r.id + "  name " + quoted(r.name) + "  shoot " + visible(r.gardener.name) +
           (r.deleted ? "  (deprovisioned)" : "");
}

[[noreturn]] void ambiguous_runtime(const std::string& given,
                                    const std::vector<engine::Runtime>& candidates, bool more) {
    std::string message = "runtime " + quoted(given) +
                          " is ambiguous: " + std::to_string(candidates.size()) +
                          (more ? " or more" : "") + " runtimes fit it; give one of their ids:";
    for (const auto& r : candidates)
        message += "\n" + runtime_line(r);
    throw AmbiguousName(message);
}

std::vector<engine::Runtime> runtimes_of(engine::Store& store,
                                         const std::vector<std::string>& ids) {
    std::vector<engine::Runtime> out;
    for (const auto& id : ids)
        if (auto runtime = store.find_runtime(id))
            out.push_back(std::move(*runtime));
    return out;
}

// The runtimes named `given` (runtime or shoot name): the one live runtime of that name, else
// the one runtime, else AmbiguousName. nullopt when no runtime has that name.
std::optional<engine::Runtime> runtime_named(engine::Store& store, const std::string& given) {
    if (given.empty())
        return std::nullopt; // runtimes the original made have no name
    const auto ids = store.runtime_ids_named(given, k_candidates + 1);
    if (ids.empty())
        return std::nullopt;
    auto candidates = runtimes_of(store, ids);
    const bool more = candidates.size() > k_candidates;
    candidates.resize(std::min(candidates.size(), k_candidates));
    const auto live = std::count_if(candidates.begin(), candidates.end(),
                                    [](const engine::Runtime& r) { return !r.deleted; });
    // The store answers live runtimes first.
    if (live == 1 || (live == 0 && candidates.size() == 1 && !more))
        return std::move(candidates.front());
    ambiguous_runtime(given, candidates, more);
}

// The one id of `ids_with_prefix(given)`, when `given` is long enough to be a prefix; nullopt
// when none starts with it. Throws AmbiguousName (through `ambiguous`) for several.
template <typename IdsWithPrefix, typename Ambiguous>
std::optional<std::string> id_by_prefix(const std::string& given, IdsWithPrefix ids_with_prefix,
                                        Ambiguous ambiguous) {
    if (given.size() < k_min_id_prefix)
        return std::nullopt;
    auto ids = ids_with_prefix(given, k_candidates + 1);
    if (ids.empty())
        return std::nullopt;
    if (ids.size() > 1)
        ambiguous(ids);
    return std::move(ids.front());
}

std::optional<engine::Operation> operation_by_id_or_prefix(engine::Store& store,
                                                           const std::string& given) {
    if (auto op = store.find_operation(given))
        return op;
    const auto id = id_by_prefix(
        given,
        [&store](const std::string& prefix, std::size_t limit) {
            return store.operation_ids_with_prefix(prefix, limit);
        },
        [&given](const std::vector<std::string>& ids) {
            std::string message = "operation " + quoted(given) +
                                  " is ambiguous: " + std::to_string(ids.size()) +
                                  (ids.size() > k_candidates ? " or more" : "") +
                                  " operations start with it; give more of the id:";
            for (std::size_t i = 0; i < ids.size() && i < k_candidates; ++i)
                message += "\n  " + ids[i];
            throw AmbiguousName(message);
        });
    return id ? store.find_operation(*id) : std::nullopt;
}

std::optional<engine::Runtime> runtime_by_id_or_name(engine::Store& store,
                                                     const std::string& given) {
    if (auto runtime = store.find_runtime(given))
        return runtime;
    if (auto runtime = runtime_named(store, given))
        return runtime;
    const auto id = id_by_prefix(
        given,
        [&store](const std::string& prefix, std::size_t limit) {
            return store.runtime_ids_with_prefix(prefix, limit);
        },
        [&](const std::vector<std::string>& ids) {
            auto candidates = runtimes_of(store, ids);
            const bool more = candidates.size() > k_candidates;
            candidates.resize(std::min(candidates.size(), k_candidates));
            ambiguous_runtime(given, candidates, more);
        });
    return id ? store.find_runtime(*id) : std::nullopt;
}

// The runtime and shoot names of the newest runtimes: what a mistyped name is closest to.
std::vector<std::string> runtime_names(engine::Store& store) {
    engine::RuntimeQuery query;
    query.filter.include_deleted = true;
    query.limit = 1000;
    std::vector<std::string> names;
    for (const auto& r : store.query_runtimes(query)) {
        names.push_back(r.name);
        names.push_back(r.shoot_name);
    }
    return names;
}

std::string operation_summary(const engine::Operation& op) {
    return std::string(engine::to_api(op.type)) + " operation " + op.id + ", " +
           std::string(engine::to_api(op.state)) +
           (op.state == engine::OperationState::InProgress ? " at stage " + op.stage : "");
}

} // namespace

engine::Runtime lookup_runtime(engine::Store& store, const std::string& given,
                               const std::string& command) {
    if (auto runtime = runtime_by_id_or_name(store, given))
        return std::move(*runtime);
    if (const auto op = operation_by_id_or_prefix(store, given))
        throw NotFound(quoted(given) + " is an operation (" + operation_summary(*op) +
                       "), not a runtime; its runtime is " + op->cluster_id + ": kprov " + command +
                       " " + op->cluster_id);
    auto hint = suggestion_for(given, [&store](const std::string& p, std::size_t limit) {
        return store.runtime_ids_with_prefix(p, limit);
    });
    if (hint.empty())
        hint = suggestion(given, {}, runtime_names(store));
    throw NotFound(
        "runtime " + quoted(given) + " not found" +
        (hint.empty() ? " (kprov list --all shows every runtime, with its name)" : hint));
}

engine::Operation lookup_operation(engine::Store& store, const std::string& given,
                                   const std::string& command) {
    if (auto op = operation_by_id_or_prefix(store, given))
        return std::move(*op);
    if (const auto runtime = runtime_by_id_or_name(store, given)) {
        std::string message = quoted(given) + " is a runtime (" + runtime->id + ", name " +
                              quoted(runtime->name) + "), not an operation";
        if (const auto last = store.last_operation(runtime->id))
            message += "; its last operation is the " + operation_summary(*last) + ": kprov " +
                       command + " " + last->id;
        throw NotFound(message);
    }
    const auto hint = suggestion_for(given, [&store](const std::string& p, std::size_t limit) {
        return store.operation_ids_with_prefix(p, limit);
    });
    throw NotFound(
        "operation " + quoted(given) + " not found" +
        (hint.empty() ? " (kprov history RUNTIME_ID shows a runtime's operations)" : hint));
}

std::size_t distinguishing_length(std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    std::size_t length = k_min_id_prefix;
    // Sorted, an id shares its longest common prefix with a neighbour.
    for (std::size_t i = 1; i < ids.size(); ++i) {
        const auto& a = ids[i - 1];
        const auto& b = ids[i];
        const auto common = static_cast<std::size_t>(
            std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first -
            a.begin());
        length = std::max(length, common + 1);
    }
    return length;
}

OperationInProgress explain_in_progress(engine::Store& store, const OperationInProgress& refusal) {
    try {
        const auto last = store.last_operation(refusal.runtime_id());
        if (!last || last->state != engine::OperationState::InProgress)
            return refusal;
        return OperationInProgress(
            refusal.runtime_id(),
            "another operation of runtime " + refusal.runtime_id() + " is in progress: the " +
                std::string(engine::to_api(last->type)) + " operation " + last->id + " at stage " +
                last->stage + "; follow it with: kprov wait " + last->id);
    } catch (const std::exception&) {
        return refusal;
    }
}

LabelSelector parse_selectors(const std::vector<std::string>& given) {
    LabelSelector out;
    for (const auto& text : given) {
        try {
            const auto selector = parse_label_selector(text);
            out.insert(out.end(), selector.begin(), selector.end());
        } catch (const InvalidSelector& e) {
            throw UsageError("-l \"" + visible(text) + "\" is not a label selector, " + e.what() +
                             " (expected kubectl's syntax: key=value, key!=value, key, !key, "
                             "key in (a,b), key notin (a,b), joined by ',')");
        }
    }
    return out;
}

std::vector<engine::RuntimeSummary> select_runtimes(engine::Store& store,
                                                    engine::RuntimeQuery query,
                                                    const std::vector<std::string>& selectors) {
    LabelSelector rest; // what the store cannot select by itself
    query.labels = equality_requirements(parse_selectors(selectors), rest);
    const std::size_t limit = query.limit;
    if (!rest.empty())
        query.limit = 0; // the limit counts matches, which only the filter below knows
    auto runtimes = store.query_runtimes(query);
    std::erase_if(runtimes, [&rest](const engine::RuntimeSummary& s) {
        return !selector_matches(rest, s.labels_json);
    });
    if (limit > 0 && runtimes.size() > limit)
        runtimes.resize(limit);
    return runtimes;
}

} // namespace kprov::cli
