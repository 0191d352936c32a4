#pragma once
// The shoot annotations kprov reads and writes (original-provisioner.md §4.2, §2.4): one name
// for each, shared by the shoot builder, its inverse (adoption) and the stages.

#include <string_view>

namespace kprov::engine {

inline constexpr std::string_view k_runtime_id_annotation =
    "kcp.provisioner.kyma-project.io/runtime-id";
inline constexpr std::string_view k_operation_id_annotation =
    "kcp.provisioner.kyma-project.io/operation-id";
inline constexpr std::string_view k_legacy_operation_id_annotation =
    "compass.provisioner.kyma-project.io/operation-id";
inline constexpr std::string_view k_legacy_runtime_id_annotation =
    "compass.provisioner.kyma-project.io/runtime-id";
inline constexpr std::string_view k_deletion_confirmation_annotation =
    "confirmation.gardener.cloud/deletion";
inline constexpr std::string_view k_licence_type_annotation =
    "kcp.provisioner.kyma-project.io/licence-type";
inline constexpr std::string_view k_eu_access_annotation =
    "support.gardener.cloud/eu-access-for-cluster-nodes";

} // namespace kprov::engine
