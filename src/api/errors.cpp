#include "api/errors.hpp"

#include "engine/error.hpp"
#include "engine/ports.hpp"
#include "engine/service/service.hpp"

namespace kprov::api {
namespace {

// The original's DB errors (internal/persistence/dberrors): small codes of their own.
constexpr const char* k_component_db = "db - provisioner";

graphql::FieldError db_error(const std::string& message, int code, const char* reason) {
    nlohmann::json extensions = {
        {"error_code", code}, {"error_reason", reason}, {"error_component", k_component_db}};
    return graphql::FieldError(message, std::move(extensions));
}

// internal/util/errors.go: IsBadRequest -> 400, IsForbidden -> 403, anything else -> 500.
int kubernetes_code(int http_status) {
    if (http_status == 400)
        return k_code_bad_request;
    if (http_status == 403)
        return k_code_forbidden;
    return k_code_internal;
}

} // namespace

nlohmann::json error_extensions(int code, std::string reason, std::string component) {
    if (component.empty())
        component = k_component_provisioner;
    if (reason.empty() && component == k_component_provisioner)
        reason = k_reason_internal;
    return {{"error_code", code},
            {"error_reason", std::move(reason)},
            {"error_component", std::move(component)}};
}

graphql::FieldError bad_request(const std::string& message) {
    return graphql::FieldError(message, error_extensions(k_code_bad_request));
}

graphql::FieldError to_field_error(const std::exception& error) {
    if (const auto* e = dynamic_cast<const graphql::FieldError*>(&error))
        return *e;
    // A Conflict (an operation in progress, a shoot name another runtime owns, a shoot that is
    // not the runtime's) stays a conflict however often it is sent: 400, so that KEB does not
    // retry it.
    if (dynamic_cast<const ValidationError*>(&error) || dynamic_cast<const Conflict*>(&error) ||
        dynamic_cast<const engine::TenantMissing*>(&error))
        return bad_request(error.what());
    if (dynamic_cast<const engine::TenantMismatch*>(&error))
        return graphql::FieldError(error.what(), error_extensions(k_code_forbidden));
    if (dynamic_cast<const NotFound*>(&error))
        return db_error(error.what(), 2, "err_db_not_found");
    if (dynamic_cast<const StoreError*>(&error))
        return db_error(error.what(), 1, "err_db_internal");
    if (const auto* e = dynamic_cast<const engine::DirectorError*>(&error))
        return graphql::FieldError(e->what(),
                                   error_extensions(k_code_internal, e->reason(), e->component()));
    if (const auto* e = dynamic_cast<const RemoteError*>(&error))
        return graphql::FieldError(
            e->what(),
            error_extensions(kubernetes_code(e->http_status()), e->reason(),
                             e->component().empty() ? "k8s client - gardener" : e->component()));
    if (dynamic_cast<const Error*>(&error))
        return graphql::FieldError(error.what(), error_extensions(k_code_internal));
    return graphql::FieldError("internal system error", error_extensions(k_code_internal));
}

graphql::FieldError current_field_error() {
    try {
        throw;
    } catch (const std::exception& e) {
        return to_field_error(e);
    } catch (...) {
        return graphql::FieldError("internal system error", error_extensions(k_code_internal));
    }
}

} // namespace kprov::api
