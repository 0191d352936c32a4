#include "engine/stages/stage_error.hpp"

namespace kprov::engine {
namespace {

std::string default_component(std::string component) {
    return component.empty() ? std::string(k_component_provisioner) : component;
}

std::string default_reason(std::string reason, const std::string& component) {
    if (reason.empty() && component == k_component_provisioner)
        return std::string(k_reason_internal);
    return reason;
}

} // namespace

StageError::StageError(std::string message, std::string reason, std::string component,
                       bool recoverable)
    : Error(std::move(message))
    , m_component(default_component(std::move(component)))
    , m_recoverable(recoverable) {
    m_reason = default_reason(std::move(reason), m_component);
}

StageError StageError::recoverable(std::string message, std::string reason, std::string component) {
    return {std::move(message), std::move(reason), std::move(component), true};
}

StageError StageError::non_recoverable(std::string message, std::string reason,
                                       std::string component) {
    return {std::move(message), std::move(reason), std::move(component), false};
}

std::string kubernetes_reason(int http_status) {
    switch (http_status) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 406:
        return "NotAcceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Expired";
    case 413:
        return "RequestEntityTooLarge";
    case 415:
        return "UnsupportedMediaType";
    case 422:
        return "Invalid";
    case 429:
        return "TooManyRequests";
    case 500:
        return "InternalError";
    case 503:
        return "ServiceUnavailable";
    case 504:
        return "Timeout";
    default:
        return "";
    }
}

StageError from_remote(const RemoteError& e, std::string_view component, bool recoverable) {
    return {e.what(), kubernetes_reason(e.http_status()), std::string(component), recoverable};
}

StageError shoot_not_found(std::string_view shoot_name) {
    return StageError::recoverable("shoots.core.gardener.cloud \"" + std::string(shoot_name) +
                                       "\" not found",
                                   "NotFound", std::string(k_component_gardener_client));
}

} // namespace kprov::engine
