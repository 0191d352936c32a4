#pragma once
// The API server's metadata and data validation that clients trip over: label keys and values,
// ConfigMap and Secret data keys. Each check returns the causes of a 422 (empty when valid).

#include "api.hpp"

#include <string>
#include <vector>

namespace kprov::sim {

/// Causes for invalid `metadata.labels` of `obj` (keys: optional DNS-subdomain prefix and a
/// name of at most 63 characters; values: at most 63, alphanumeric at both ends, may be empty).
std::vector<Cause> label_causes(const Json& obj);

/// Causes for invalid keys of `data` and `binaryData` (`[-._a-zA-Z0-9]+`, at most 253, not
/// "." or "..", not starting with "..").
std::vector<Cause> data_key_causes(const Json& obj);

} // namespace kprov::sim
