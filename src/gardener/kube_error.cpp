#include "gardener/kube_error.hpp"

#include "engine/stages/stage_error.hpp"
#include "net/remote_values.hpp"
#include "net/retry.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using nlohmann::json;

// Every text of an answer is the server's: capped and cleaned before any message holds it.
std::string string_at(const json& object, const char* key,
                      std::size_t max_bytes = net::k_remote_text_max_bytes) {
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string()
               ? net::clean_remote_text(it->get_ref<const std::string&>(), max_bytes)
               : std::string{};
}

// A non-Status body (an HTML error page of a proxy, say) shortened to one line.
std::string snippet(const std::string& body) {
    constexpr std::size_t k_max = 200;
    std::string collapsed;
    bool space = false;
    for (char c : body) {
        if (collapsed.size() > k_max)
            break; // enough to be cut below
        const bool is_space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
        if (is_space) {
            space = !collapsed.empty();
            continue;
        }
        if (space)
            collapsed += ' ';
        space = false;
        collapsed += c;
    }
    return net::clean_remote_text(collapsed, k_max);
}

std::string join_causes(const std::vector<StatusCause>& causes) {
    std::string text;
    for (const auto& cause : causes) {
        if (!text.empty())
            text += "; ";
        text += cause.field.empty() ? cause.message : cause.field + ": " + cause.message;
    }
    return text;
}

std::string attempts_note(const ErrorContext& context) {
    return context.attempts > 1 ? " (after " + std::to_string(context.attempts) + " attempts)"
                                : std::string{};
}

} // namespace

std::string default_reason(int status) {
    // The engine names Kubernetes reasons for its lastError; Status bodies without a reason get
    // the same names, and a fallback the engine leaves empty.
    if (auto reason = engine::kubernetes_reason(status); !reason.empty())
        return reason;
    return status >= 500 ? "InternalError" : "Unknown";
}

bool retryable_status(int status, const std::string& reason) {
    if (status == 409)
        return reason != "AlreadyExists";
    return status == 410 || status == 429 || status >= 500;
}

KubeError status_error(const ErrorContext& context, int status, const std::string& body) {
    const json parsed = net::json_nesting_within(body) ? json::parse(body, nullptr, false) : json();
    const bool is_status = parsed.is_object() && string_at(parsed, "kind") == "Status";
    constexpr std::size_t k_max_reason = 128;
    std::string reason = is_status ? string_at(parsed, "reason", k_max_reason) : std::string{};
    if (reason.empty())
        reason = default_reason(status);
    std::vector<StatusCause> causes;
    if (is_status) {
        const auto details = parsed.find("details");
        if (details != parsed.end() && details->is_object()) {
            const auto list = details->find("causes");
            if (list != details->end() && list->is_array())
                for (const auto& c : *list) {
                    constexpr std::size_t k_max_causes = 100;
                    if (causes.size() == k_max_causes)
                        break;
                    causes.push_back(
                        {string_at(c, "field"), string_at(c, "reason"), string_at(c, "message")});
                }
        }
    }
    std::string detail = net::clean_remote_text(join_causes(causes));
    if (detail.empty())
        detail = is_status ? string_at(parsed, "message") : snippet(body);
    std::string message =
        context.label + ": " + context.request + ": " + std::to_string(status) + " " + reason;
    if (!detail.empty())
        message += ": " + detail;
    message += attempts_note(context);
    return KubeError(std::move(message), status, retryable_status(status, reason), reason,
                     std::move(causes), context.request, context.component);
}

KubeError transport_error(const ErrorContext& context, const std::string& detail, bool retryable) {
    return KubeError(context.label + ": " + context.request + ": " + detail +
                         attempts_note(context),
                     0, retryable, "", {}, context.request, context.component);
}

std::optional<std::chrono::seconds> retry_after(const std::string& header_value,
                                                const std::string& body) {
    if (auto seconds = net::parse_retry_after(header_value))
        return seconds;
    // An HTTP-date Retry-After is not used by Kubernetes; fall back to the Status field.
    const json parsed = net::json_nesting_within(body) ? json::parse(body, nullptr, false) : json();
    if (parsed.is_object()) {
        const auto details = parsed.find("details");
        if (details != parsed.end() && details->is_object()) {
            const auto value = details->find("retryAfterSeconds");
            if (value != details->end() && value->is_number_integer())
                return std::chrono::seconds(std::max<std::int64_t>(*net::json_int64(*value), 0));
        }
    }
    return std::nullopt;
}

} // namespace kprov::gardener
