#include "engine/status_json.hpp"

#include "engine/ports.hpp"
#include "engine/status_tree.hpp"

namespace kprov::engine {

using namespace status_tree;

nlohmann::ordered_json operation_status_json(const Operation& op,
                                             const std::optional<std::string>& compass_runtime_id) {
    return operation_status<nlohmann::ordered_json>(op, compass_runtime_id);
}

nlohmann::ordered_json provider_specific_config_json(const ProviderConfig& config) {
    return provider_specific_config<nlohmann::ordered_json>(config);
}

nlohmann::ordered_json gardener_config_json(const GardenerConfig& config) {
    return gardener_config<nlohmann::ordered_json>(config);
}

nlohmann::ordered_json kyma_config_json(const std::optional<KymaConfig>& config) {
    return kyma_config<nlohmann::ordered_json>(config);
}

nlohmann::ordered_json runtime_config_json(const Runtime& runtime,
                                           const std::optional<std::string>& kubeconfig) {
    return runtime_config<nlohmann::ordered_json>(runtime, kubeconfig);
}

nlohmann::ordered_json runtime_status_json(const Runtime& runtime,
                                           const std::optional<Operation>& last,
                                           const RuntimeStatusExtras& extras) {
    return runtime_status<nlohmann::ordered_json>(runtime, last, extras);
}

HibernationStatus hibernation_status(const ShootState& shoot) {
    return {shoot.is_hibernated, shoot.hibernation_possible};
}

} // namespace kprov::engine
