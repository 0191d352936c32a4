#pragma once
// What the read commands (commands_read.cpp, commands_status.cpp) share: the store they open and
// the parts of a runtime's record that status and list both print.

#include "cli/access.hpp"
#include "engine/model.hpp"
#include "engine/status_json.hpp"
#include "engine/util/time.hpp"
#include "stores/open_store.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kprov::cli {

class Context;

/// The store the read commands read: one connection (they run one query at a time), an
/// existing store only.
std::unique_ptr<stores::StoreBackend> open_store(Context& ctx);

/// `value`, or "" when absent.
std::string optional_text(const std::optional<std::string>& value);

/// Who and what the runtime is, as the member "runtime" that status and list add after the
/// GraphQL fields of a RuntimeStatus.
nlohmann::ordered_json runtime_record(const engine::Runtime& runtime);

/// The RuntimeStatus of `runtime` as the API answers it, with its last operation's status and
/// runtime_record(); hibernation only when Gardener was asked.
nlohmann::ordered_json
status_document(const engine::Runtime& runtime, const std::optional<engine::Operation>& last,
                const CompassIds& compass,
                std::optional<engine::HibernationStatus> hibernation = std::nullopt);

/// The operation's state as the API names it, "-" without an operation.
std::string state_text(const std::optional<engine::Operation>& op);

/// `t` as RFC 3339 text, null when absent.
nlohmann::ordered_json optional_time(const std::optional<Timestamp>& t);

} // namespace kprov::cli
