#pragma once
// Base64 (RFC 4648, standard alphabet) for kubeconfig *-data fields and adminkubeconfig answers.

#include <optional>
#include <string>
#include <string_view>

namespace kprov::gardener {

/// Decodes `text`, ignoring whitespace; padding is optional. nullopt when `text` is not base64.
std::optional<std::string> base64_decode(std::string_view text);

std::string base64_encode(std::string_view bytes);

} // namespace kprov::gardener
