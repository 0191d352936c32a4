#pragma once
// How commands find the runtime or operation a user names: one place, so every command takes
// the same names and answers a wrong one the same way.

#include "cli/label_selector.hpp"
#include "engine/error.hpp"
#include "engine/model.hpp"
#include "engine/store.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kprov::cli {

/// The shortest id prefix that names a runtime or an operation.
constexpr std::size_t k_min_id_prefix = 8;

/// A name that fits several runtimes or operations; the message lists them. Exit 1.
class AmbiguousName : public Error {
public:
    using Error::Error;
};

/// The runtime `given` names, tried in this order: its full id, its runtime name or its shoot
/// name (of several runtimes of that name, the one live runtime wins over deprovisioned ones),
/// a unique id prefix of at least k_min_id_prefix characters. Throws AmbiguousName listing the
/// candidates (id, name, shoot); NotFound with the closest ids ("did you mean"), or, when
/// `given` names an operation, its runtime and `kprov <command> RUNTIME_ID` to use instead.
engine::Runtime lookup_runtime(engine::Store& store, const std::string& given,
                               const std::string& command);

/// The operation `given` names: its full id or a unique id prefix of at least k_min_id_prefix
/// characters. Throws AmbiguousName; NotFound with the closest ids, or, when `given` names a
/// runtime, that runtime's last operation and `kprov <command> OPERATION_ID` to use instead.
engine::Operation lookup_operation(engine::Store& store, const std::string& given,
                                   const std::string& command);

/// How many leading characters of each of `ids` tell them all apart (at least k_min_id_prefix,
/// at most the longest id): what `kprov list` shows of ids.
std::size_t distinguishing_length(std::vector<std::string> ids);

/// `refusal` (a new operation of a runtime refused) in the words of the command line: the
/// running operation's id, type and stage, and the `kprov wait` command that follows it.
/// Never throws; `refusal` as it is when the store cannot say more.
OperationInProgress explain_in_progress(engine::Store& store, const OperationInProgress& refusal);

/// Every -l of the command line as one selector (all must hold). Throws UsageError naming the
/// one that is not kubectl's syntax.
LabelSelector parse_selectors(const std::vector<std::string>& given);

/// The runtimes of `query` (its filter; its limit) whose labels match every -l of `selectors`,
/// newest first, each with its labels_json. The store selects by the key=value requirements
/// itself; the others are checked here, and then query.limit cuts the list. Throws UsageError
/// as parse_selectors, StoreError.
std::vector<engine::RuntimeSummary> select_runtimes(engine::Store& store,
                                                    engine::RuntimeQuery query,
                                                    const std::vector<std::string>& selectors);

} // namespace kprov::cli
