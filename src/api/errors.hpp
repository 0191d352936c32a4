#pragma once
// kprov's errors as the original provisioner presents them in GraphQL responses
// (original-provisioner.md §1.7): a message and extensions {error_code, error_reason,
// error_component}.

#include "api/graphql/graphql.hpp"

#include <exception>
#include <string>

namespace kprov::api {

// The original's AppError codes and defaults.
inline constexpr int k_code_bad_request = 400;
inline constexpr int k_code_forbidden = 403;
inline constexpr int k_code_internal = 500;
inline constexpr const char* k_component_provisioner = "provisioner";
inline constexpr const char* k_reason_internal = "err_provisioner_internal";

/// {"error_code": code, "error_reason": reason, "error_component": component}; an empty
/// component becomes "provisioner", and with it an empty reason "err_provisioner_internal".
nlohmann::json error_extensions(int code, std::string reason = {}, std::string component = {});

/// A BadRequest AppError (code 400, err_provisioner_internal, provisioner).
graphql::FieldError bad_request(const std::string& message);

/// The GraphQL error for an exception a resolver caught: ValidationError and
/// OperationInProgress -> 400; TenantMismatch -> 403; NotFound -> the DB NotFound (code 2,
/// err_db_not_found, "db - provisioner"); StoreError -> the DB Internal (1, err_db_internal);
/// a Kubernetes error -> 400/403/500 with its Status reason and component; any other kprov
/// Error -> 500 with its text; anything else -> 500 "internal system error" (the original's
/// text for a recovered panic). FieldError passes through unchanged.
graphql::FieldError to_field_error(const std::exception& error);

/// to_field_error of the exception in flight; call only inside a catch block.
graphql::FieldError current_field_error();

} // namespace kprov::api
