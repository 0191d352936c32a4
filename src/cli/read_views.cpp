// The pieces the read commands share (read_views.hpp).

#include "cli/read_views.hpp"

#include "cli/render.hpp"
#include "engine/status_json.hpp"

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

} // namespace

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
                     std::optional<engine::HibernationStatus> hibernation) {
    engine::RuntimeStatusExtras extras;
    extras.compass_runtime_id = compass(runtime.id);
    extras.hibernation = std::move(hibernation);
    Json document = engine::runtime_status_json(runtime, last, extras);
    if (last)
        document["lastOperationStatus"] = operation_json(*last, extras.compass_runtime_id);
    document["runtime"] = runtime_record(runtime);
    return document;
}

std::string state_text(const std::optional<engine::Operation>& op) {
    return op ? std::string(engine::to_api(op->state)) : std::string("-");
}

Json optional_time(const std::optional<Timestamp>& t) {
    return t ? Json(format_rfc3339(*t)) : Json(nullptr);
}

} // namespace kprov::cli
