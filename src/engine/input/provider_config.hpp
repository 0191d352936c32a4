#pragma once
// The JSON form of a provider sub-config, as the original keeps it in
// gardener_config.provider_specific_config (original-provisioner.md §5.2).

#include "engine/model.hpp"

#include <string>
#include <string_view>

namespace kprov::engine {

/// The cloud a provider config is for: "gcp", "azure", "aws" or "openstack".
std::string_view provider_type(const ProviderConfig& config);

/// JSON with every key present and nulls kept, in the original's shapes.
std::string encode_provider_config(const ProviderConfig& config);

/// Decodes the original's shapes by strict decoding (unknown keys rejected), trying GCP, Azure,
/// AWS, OpenStack in that order. Throws ValidationError "json data does not match any of
/// Gardener providers" when none fits.
ProviderConfig decode_provider_config(std::string_view json);

} // namespace kprov::engine
